"""LlamaIndex integration of debiasrag: ``DebiasedRetriever``, ``AnonymizeTransform``, ``GroupAnnotateTransform``,
``DebiasragEmbedding``."""

from llama_index.retrievers.debiasrag.base import DebiasedRetriever
from llama_index.retrievers.debiasrag.embeddings import DebiasragEmbedding
from llama_index.retrievers.debiasrag.transforms import AnonymizeTransform, GroupAnnotateTransform

__all__ = ["AnonymizeTransform", "DebiasedRetriever", "DebiasragEmbedding", "GroupAnnotateTransform"]
