"""A LlamaIndex ``BaseEmbedding`` over a debiasrag embedder (the packaged MiniLM by default, no hub download)."""

from __future__ import annotations

import asyncio
from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding
from pydantic import PrivateAttr

from debiasrag.embedders import Embedder, embed_documents, embed_queries, load_embedder


class DebiasragEmbedding(BaseEmbedding):
    """Lets a ``VectorStoreIndex`` embed with the same model as debiasrag (L2-normalised vectors).

    Args:
        embedder: a debiasrag :class:`~debiasrag.Embedder`, a sentence-transformers name or path, or
            ``None`` for the packaged all-MiniLM-L6-v2.
    """

    _embedder: Embedder = PrivateAttr()

    def __init__(self, embedder: Embedder | str | None = None, **kwargs: Any) -> None:
        loaded = load_embedder(embedder)
        kwargs.setdefault("embed_batch_size", 64)
        super().__init__(model_name=loaded.name, **kwargs)
        self._embedder = loaded

    @classmethod
    def class_name(cls) -> str:
        """LlamaIndex's serialisation name."""
        return "DebiasragEmbedding"

    @property
    def embedder(self) -> Embedder:
        """The wrapped debiasrag embedder."""
        return self._embedder

    def _get_query_embedding(self, query: str) -> list[float]:
        return embed_queries(self._embedder, [query])[0].tolist()

    def _get_text_embedding(self, text: str) -> list[float]:
        return embed_documents(self._embedder, [text])[0].tolist()

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return embed_documents(self._embedder, texts).tolist()

    async def _aget_query_embedding(self, query: str) -> list[float]:
        # The model is CPU-bound (torch releases the GIL): a worker thread keeps the event loop free and
        # lets concurrent variant queries embed in parallel.
        return await asyncio.to_thread(self._get_query_embedding, query)

    async def _aget_text_embedding(self, text: str) -> list[float]:
        return await asyncio.to_thread(self._get_text_embedding, text)
