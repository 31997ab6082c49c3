"""LangChain integration of debiasrag: ``DebiasedRetriever``, ``AnonymizingTransformer``, ``GroupAnnotator``,
``DebiasragEmbeddings``."""

from langchain_debiasrag.embeddings import DebiasragEmbeddings
from langchain_debiasrag.retrievers import DebiasedRetriever
from langchain_debiasrag.transformers import AnonymizingTransformer, GroupAnnotator

__all__ = ["AnonymizingTransformer", "DebiasedRetriever", "DebiasragEmbeddings", "GroupAnnotator"]
