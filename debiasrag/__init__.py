"""debiasrag: less biased retrieval for RAG stacks (counterfactual retrieval, context injection, bias metrics)."""

from debiasrag.concepts import Concept, available_concepts, load_concept
from debiasrag.corpus import Document, read_documents
from debiasrag.embedders import DEFAULT_MODEL, Embedder, SentenceTransformerEmbedder, load_embedder
from debiasrag.errors import DebiasragError, IndexLoadError, IndexWriteError, InputError
from debiasrag.index import FaissIndex
from debiasrag.retriever import DebiasedRetriever, Hit, RetrievalResult
from debiasrag.strategies import STRATEGIES, DynamicCutoff, Ranking, Strategy, get_strategy, run_strategy

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_MODEL",
    "STRATEGIES",
    "Concept",
    "DebiasedRetriever",
    "DebiasragError",
    "Document",
    "DynamicCutoff",
    "Embedder",
    "FaissIndex",
    "Hit",
    "IndexLoadError",
    "IndexWriteError",
    "InputError",
    "Ranking",
    "RetrievalResult",
    "SentenceTransformerEmbedder",
    "Strategy",
    "available_concepts",
    "get_strategy",
    "load_concept",
    "load_embedder",
    "read_documents",
    "run_strategy",
]
