"""Shared test helpers: the packaged MiniLM loaded once, the small corpora, and a distance-returning FAISS store."""

from __future__ import annotations

import functools
import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import faiss  # noqa: E402
import numpy as np  # noqa: E402
from langchain_core.documents import Document  # noqa: E402
from langchain_core.embeddings import Embeddings  # noqa: E402
from langchain_core.vectorstores import InMemoryVectorStore, VectorStore  # noqa: E402
from langchain_debiasrag import DebiasragEmbeddings  # noqa: E402

import debiasrag  # noqa: E402
from debiasrag.concepts import Concept  # noqa: E402
from debiasrag.embedding_cache import CachedEmbedder  # noqa: E402
from debiasrag.strategies import Pick, Ranking, Strategy  # noqa: E402

# Embedding cache of this test process, removed when it exits (mkdtemp folders piled up in /tmp).
_CACHE_DIR = tempfile.TemporaryDirectory(prefix="debiasrag-test-cache-")

DATA = Path(__file__).parent / "data"


@functools.cache
def minilm() -> DebiasragEmbeddings:
    """The packaged all-MiniLM-L6-v2 behind LangChain's Embeddings interface (loaded once per session)."""
    return DebiasragEmbeddings(CachedEmbedder.wrap(debiasrag.SentenceTransformerEmbedder(), _CACHE_DIR.name))


@functools.cache
def gendered_corpus() -> tuple[str, list[Document]]:
    """(neutral query, documents with metadata gender in {female, male, none} and topic)."""
    spec = json.loads((DATA / "gendered_corpus.json").read_text(encoding="utf-8"))
    docs = [
        Document(
            id=f"t{i}-{gender}", page_content=template.format(**forms), metadata={"gender": gender, "topic": "eng"}
        )
        for i, template in enumerate(spec["templates"])
        for gender, forms in spec["forms"].items()
    ]
    docs += [
        Document(id=f"x{i}", page_content=text, metadata={"gender": "none", "topic": "other"})
        for i, text in enumerate(spec["distractors"])
    ]
    return spec["query"], docs


def in_memory_store(docs: Iterable[Document]) -> InMemoryVectorStore:
    store = InMemoryVectorStore(minilm())
    store.add_documents(list(docs))
    return store


def faiss_index(docs: Iterable[Document]) -> debiasrag.FaissIndex:
    corpus = [debiasrag.Document(d.id, d.page_content, dict(d.metadata)) for d in docs]
    return debiasrag.FaissIndex.from_documents(corpus, minilm().embedder)


class L2FaissStore(VectorStore):
    """A minimal third-party-style store over a raw ``faiss.IndexFlatL2``: scores are squared L2 distances
    (lower = closer), the way langchain-community's FAISS store reports them by default."""

    def __init__(self, embedding: Embeddings, relevance: bool = True) -> None:
        self.embedding = embedding
        self.relevance = relevance
        self.index: faiss.IndexFlatL2 | None = None
        self.docs: list[Document] = []

    @property
    def embeddings(self) -> Embeddings:
        return self.embedding

    def add_texts(self, texts: Iterable[str], metadatas: list[dict] | None = None, **kwargs: Any) -> list[str]:
        texts = list(texts)
        vectors = np.asarray(self.embedding.embed_documents(texts), dtype=np.float32)
        if self.index is None:
            self.index = faiss.IndexFlatL2(vectors.shape[1])
        self.index.add(vectors)
        ids = kwargs.get("ids") or [f"doc{len(self.docs) + i}" for i in range(len(texts))]
        for i, text in enumerate(texts):
            self.docs.append(Document(id=ids[i], page_content=text, metadata=(metadatas or [{}] * len(texts))[i]))
        return ids

    def similarity_search_with_score(self, query: str, k: int = 4, **kwargs: Any) -> list[tuple[Document, float]]:
        vector = np.asarray([self.embedding.embed_query(query)], dtype=np.float32)
        distances, positions = self.index.search(vector, min(k, len(self.docs)))
        return [(self.docs[p], float(d)) for d, p in zip(distances[0], positions[0]) if p >= 0]

    def similarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        return [doc for doc, _ in self.similarity_search_with_score(query, k)]

    def _select_relevance_score_fn(self):
        if not self.relevance:
            raise NotImplementedError
        return lambda squared_l2: 1.0 - squared_l2 / 2.0  # cosine, for unit vectors

    @classmethod
    def from_texts(cls, texts, embedding, metadatas=None, **kwargs):  # type: ignore[override]
        store = cls(embedding)
        store.add_texts(texts, metadatas, **kwargs)
        return store


class Interleave(Strategy):
    """A user-defined two-variant strategy (the retriever accepts Strategy instances): one search per concept
    variant, then each variant in turn adds its best not-yet-picked document; one pass, never deepens.

    The built-in ``balanced`` / ``dynamic`` search once with the plain query and ``paper`` may search its second
    variant again, so tests of the multi-variant machinery (concurrent variant searches, one child run per
    variant, documents keyed across variants) use this.
    """

    name = "interleave"

    def variants(self, query: str, concept: Concept) -> list[tuple[str, str]]:
        return concept.variant_queries(query)

    def select(self, rankings: Sequence[Ranking], k: int, group_of: object = None) -> list[Pick]:
        picks: list[Pick] = []
        picked: set = set()
        positions = [0] * len(rankings)
        while len(picks) < k and any(p < len(r.keys) for p, r in zip(positions, rankings)):
            for i, ranking in enumerate(rankings):
                while positions[i] < len(ranking.keys) and ranking.keys[positions[i]] in picked:
                    positions[i] += 1
                if positions[i] < len(ranking.keys) and len(picks) < k:
                    key = ranking.keys[positions[i]]
                    picks.append(Pick(key, ranking.scores[positions[i]], ranking.variant))
                    picked.add(key)
        return picks
