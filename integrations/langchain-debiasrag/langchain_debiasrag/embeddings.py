"""A LangChain ``Embeddings`` over a debiasrag embedder (the packaged MiniLM by default, no hub download)."""

from __future__ import annotations

from typing import Any

from langchain_core.embeddings import Embeddings

from debiasrag.counterfactual.neutralize import neutralizer_for
from debiasrag.embedders import Embedder, embed_documents, embed_queries, load_embedder
from debiasrag.errors import InputError, check_texts


class DebiasragEmbeddings(Embeddings):
    """Lets LangChain vector stores embed with the same model as debiasrag.

    Args:
        embedder: a debiasrag :class:`~debiasrag.Embedder`, a sentence-transformers name or path, or
            ``None`` for the packaged all-MiniLM-L6-v2. Vectors are L2-normalised.
        neutralize: embed the gender-neutral wording of every text and query (a gender-blind store; the store
            keeps the original text): how first names go, ``"ner"``, ``"table"`` or ``"keep"``
            (:class:`debiasrag.counterfactual.GenderNeutralizer`); ``None`` (default) embeds texts as they are.
            Pair it with ``strategy=Balanced(delta=BLIND_INDEX_DELTA)`` for ``balanced``.
    """

    def __init__(
        self, embedder: Embedder | str | None = None, *, neutralize: str | None = None, **unknown: Any
    ) -> None:
        if unknown:  # model=, a misspelt neutralise=: one line of ours, not a TypeError
            raise InputError(
                f"DebiasragEmbeddings got unknown argument(s) {', '.join(sorted(unknown))}",
                hint="the model is embedder= (a name, a path or a debiasrag Embedder); the gender-blind wording is "
                "neutralize=",
            )
        self.neutralizer = neutralizer_for(neutralize)  # before a model loads
        self.embedder = load_embedder(embedder)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Document vectors (the model's passage form when it has one)."""
        texts = check_texts(texts)
        if self.neutralizer is not None:
            texts = self.neutralizer.neutralize_batch(texts)
        return embed_documents(self.embedder, texts).tolist()

    def embed_query(self, text: str) -> list[float]:
        """A query vector (the model's query form when it has one)."""
        if self.neutralizer is not None:
            text = self.neutralizer.query_transform(text)
        return embed_queries(self.embedder, [text])[0].tolist()
