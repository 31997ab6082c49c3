"""LlamaIndex integration of debiasrag: ``DebiasedRetriever``, ``AnonymizeTransform``, ``DebiasragEmbedding``."""

from llama_index.retrievers.debiasrag.base import DebiasedRetriever
from llama_index.retrievers.debiasrag.embeddings import DebiasragEmbedding
from llama_index.retrievers.debiasrag.transforms import AnonymizeTransform

__all__ = ["AnonymizeTransform", "DebiasedRetriever", "DebiasragEmbedding"]
