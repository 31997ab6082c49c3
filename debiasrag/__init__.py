"""debiasrag: less biased retrieval for RAG stacks (counterfactual retrieval, context injection, bias metrics).

``import debiasrag`` needs numpy and faiss-cpu only; models, NLP and tools are pip extras (see
:mod:`debiasrag.extras`) and a feature whose extra is missing raises :class:`MissingExtraError` naming it.
"""

from debiasrag.concepts import Concept, available_concepts, load_concept
from debiasrag.corpus import Document, read_documents
from debiasrag.embedders import (
    DEFAULT_MODEL,
    AsymmetricEmbedder,
    E5Embedder,
    Embedder,
    SentenceTransformerEmbedder,
    embed_documents,
    embed_queries,
    load_embedder,
)
from debiasrag.errors import DebiasragError, IndexLoadError, IndexWriteError, InputError
from debiasrag.extras import MissingExtraError
from debiasrag.index import FaissIndex
from debiasrag.retriever import DebiasedRetriever, Hit, RetrievalResult
from debiasrag.shards import index_from_shards, merge_indexes, write_shard
from debiasrag.strategies import (
    BLIND_INDEX_DELTA,
    STRATEGIES,
    Balanced,
    ContextInjection,
    Dynamic,
    DynamicCutoff,
    PaperAlgorithm,
    Ranking,
    Strategy,
    TextCut,
    TopK,
    get_strategy,
    run_strategy,
)

__version__ = "0.1.0"

__all__ = [
    "BLIND_INDEX_DELTA",
    "DEFAULT_MODEL",
    "STRATEGIES",
    "AsymmetricEmbedder",
    "Balanced",
    "Concept",
    "ContextInjection",
    "DebiasedRetriever",
    "DebiasragError",
    "Document",
    "Dynamic",
    "DynamicCutoff",
    "E5Embedder",
    "Embedder",
    "FaissIndex",
    "Hit",
    "IndexLoadError",
    "IndexWriteError",
    "InputError",
    "MissingExtraError",
    "PaperAlgorithm",
    "Ranking",
    "RetrievalResult",
    "SentenceTransformerEmbedder",
    "Strategy",
    "TextCut",
    "TopK",
    "available_concepts",
    "embed_documents",
    "embed_queries",
    "get_strategy",
    "index_from_shards",
    "load_concept",
    "load_embedder",
    "merge_indexes",
    "read_documents",
    "run_strategy",
    "write_shard",
]
