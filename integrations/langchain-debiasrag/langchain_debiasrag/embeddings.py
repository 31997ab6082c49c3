"""A LangChain ``Embeddings`` over a debiasrag embedder (the packaged MiniLM by default, no hub download)."""

from __future__ import annotations

from langchain_core.embeddings import Embeddings

from debiasrag.embedders import Embedder, embed_documents, embed_queries, load_embedder


class DebiasragEmbeddings(Embeddings):
    """Lets LangChain vector stores embed with the same model as debiasrag.

    Args:
        embedder: a debiasrag :class:`~debiasrag.Embedder`, a sentence-transformers name or path, or
            ``None`` for the packaged all-MiniLM-L6-v2. Vectors are L2-normalised.
    """

    def __init__(self, embedder: Embedder | str | None = None) -> None:
        self.embedder = load_embedder(embedder)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Document vectors (the model's passage form when it has one)."""
        return embed_documents(self.embedder, list(texts)).tolist()

    def embed_query(self, text: str) -> list[float]:
        """A query vector (the model's query form when it has one)."""
        return embed_queries(self.embedder, [text])[0].tolist()
