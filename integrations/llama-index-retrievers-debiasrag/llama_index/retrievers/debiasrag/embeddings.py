"""A LlamaIndex ``BaseEmbedding`` over a debiasrag embedder (the packaged MiniLM by default, no hub download)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding
from pydantic import Field, PrivateAttr

from debiasrag.counterfactual.neutralize import GenderNeutralizer, neutralizer_for
from debiasrag.embedders import Embedder, embed_documents, embed_queries, load_embedder, resolve_model
from debiasrag.errors import InputError, check_int


class DebiasragEmbedding(BaseEmbedding):
    """Lets a ``VectorStoreIndex`` embed with the same model as debiasrag (L2-normalised vectors).

    Args:
        embedder: a debiasrag :class:`~debiasrag.Embedder`, a sentence-transformers name or path, or
            ``None`` for the packaged all-MiniLM-L6-v2.
        neutralize: embed the gender-neutral wording of every text and query (a gender-blind index; nodes keep
            their original text): how first names go, ``"ner"``, ``"table"`` or ``"keep"``
            (:class:`debiasrag.counterfactual.GenderNeutralizer`); ``None`` (default) embeds texts as they are.
            Pair it with ``strategy=Balanced(delta=BLIND_INDEX_DELTA)`` for ``balanced``.
    """

    # A field, so to_dict() — and LlamaIndex's ingestion-cache key, built from it — tells blind from plain vectors.
    neutralize: str | None = Field(default=None, description="gender-blind wording's names mode, or None")
    _embedder: Embedder = PrivateAttr()
    _neutralizer: GenderNeutralizer | None = PrivateAttr(default=None)

    def __init__(self, embedder: Embedder | str | None = None, *, neutralize: str | None = None, **kwargs: Any) -> None:
        # BaseEmbedding's own settings pass through; anything else (model=, a misspelt neutralise=) would be kept
        # by pydantic and ignored, so the packaged model would embed without a word said
        unknown = sorted(set(kwargs) - set(BaseEmbedding.model_fields))
        if unknown:
            raise InputError(
                f"DebiasragEmbedding got unknown argument(s) {', '.join(unknown)}",
                hint="the model is embedder= (a name, a path or a debiasrag Embedder); the gender-blind wording is "
                "neutralize=",
            )
        # model_name comes back from to_dict() (from_dict round-trips); it names the model as embedder= does
        model_name = kwargs.pop("model_name", None)
        both = model_name is not None and embedder is not None
        if model_name is not None and embedder is None:
            embedder = model_name  # LlamaIndex's usual spelling, HuggingFaceEmbedding(model_name=...)
        neutralizer = neutralizer_for(neutralize)  # before a model loads
        loaded = load_embedder(embedder)
        if both and resolve_model(model_name)[0] != loaded.name:  # two spellings of one model are one model
            raise InputError(f"DebiasragEmbedding got embedder {loaded.name!r} and model_name {model_name!r}; give one")
        kwargs["embed_batch_size"] = check_int("embed_batch_size", kwargs.get("embed_batch_size", 64), high=2048)
        super().__init__(model_name=loaded.name, neutralize=neutralize, **kwargs)  # type: ignore[call-arg]  # our pydantic field
        self._embedder = loaded
        self._neutralizer = neutralizer

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "neutralize":  # the neutralizer is built from it: an assignment must reach it (or be refused)
            self._neutralizer = neutralizer_for(value)
        super().__setattr__(name, value)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> DebiasragEmbedding:
        """A copy; an ``update`` of ``neutralize`` or ``model_name`` builds it again (a new wording, a new model)."""
        if not update or not {"neutralize", "model_name"} & set(update):
            return super().model_copy(update=update, deep=deep)
        settings = {name: getattr(self, name) for name in self.model_fields_set if name != "model_name"}
        settings.update(update)
        model = settings.pop("model_name", None)
        return type(self)(model if model is not None else self._embedder, **settings)

    @classmethod
    def class_name(cls) -> str:
        """LlamaIndex's serialisation name."""
        return "DebiasragEmbedding"

    @property
    def embedder(self) -> Embedder:
        """The wrapped debiasrag embedder."""
        return self._embedder

    def _get_query_embedding(self, query: str) -> list[float]:
        if self._neutralizer is not None:
            query = self._neutralizer.query_transform(query)
        return embed_queries(self._embedder, [query])[0].tolist()

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._get_text_embeddings([text])[0]

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        if self._neutralizer is not None:
            texts = self._neutralizer.neutralize_batch(texts)
        return embed_documents(self._embedder, texts).tolist()

    async def _aget_query_embedding(self, query: str) -> list[float]:
        # The model is CPU-bound (torch releases the GIL): a worker thread keeps the event loop free and
        # lets concurrent variant queries embed in parallel.
        return await asyncio.to_thread(self._get_query_embedding, query)

    async def _aget_text_embedding(self, text: str) -> list[float]:
        return await asyncio.to_thread(self._get_text_embedding, text)
