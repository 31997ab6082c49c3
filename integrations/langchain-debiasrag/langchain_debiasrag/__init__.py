"""LangChain integration of debiasrag: ``DebiasedRetriever``, ``AnonymizingTransformer``, ``DebiasragEmbeddings``."""

from langchain_debiasrag.embeddings import DebiasragEmbeddings
from langchain_debiasrag.retrievers import DebiasedRetriever

__all__ = ["DebiasedRetriever", "DebiasragEmbeddings"]
