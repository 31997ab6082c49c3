"""Old import path of the embedding cache, kept for code written against it; see :mod:`debiasrag.embedding_cache`."""

from debiasrag.embedding_cache import CachedEmbedder, default_cache_dir

__all__ = ["CachedEmbedder", "default_cache_dir"]
