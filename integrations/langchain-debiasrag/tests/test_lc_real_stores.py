"""Real vector stores that run locally (LanceDB, Qdrant in memory, langchain-community's FAISS) with a metadata
filter, every strategy.

Each store holds the same 75 documents as ``test_lc_filters`` (the 5 off-topic ones rank last for the query)
and is searched with a filter keeping only those 5: the results must be what ``InMemoryVectorStore`` gives
with the same filter, with the same score (cosine similarity). LanceDB applies its filter after a shallow
search unless ``prefilter=True``, and FAISS to its ``fetch_k`` (default 20) nearest whatever ``k`` is, so there
the wrapper has to search deeper (``max_fetch``), raising FAISS's ``fetch_k`` with ``k``.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_debiasrag import DebiasedRetriever
from lc_support import minilm
from test_lc_filters import QUERY, STRATEGIES, corpus, off_topic, stores

ONLY_OTHER = {"topic": "other"}  # langchain-community FAISS's metadata filter
STORES = ["lancedb", "lancedb-prefilter", "lancedb-l2", "qdrant", "faiss", "faiss-l2"]


def without_ids(docs: list[Document]) -> list[Document]:
    """Copies without ids: LanceDB and Qdrant make their own (Qdrant accepts only UUIDs and integers)."""
    return [Document(page_content=d.page_content, metadata=dict(d.metadata)) for d in docs]


@functools.cache
def lancedb_store(folder: str, distance: str) -> Any:
    community = pytest.importorskip("langchain_community.vectorstores")
    pytest.importorskip("lancedb")
    return community.LanceDB.from_documents(
        without_ids(corpus()), minilm(), uri=folder, table_name=f"docs_{distance}", distance=distance
    )


@functools.cache
def qdrant_store() -> Any:
    qdrant = pytest.importorskip("langchain_qdrant")
    return qdrant.QdrantVectorStore.from_documents(
        without_ids(corpus()), minilm(), location=":memory:", collection_name="docs"
    )


@functools.cache
def faiss_store(distance: str) -> Any:
    community = pytest.importorskip("langchain_community.vectorstores")
    pytest.importorskip("faiss")
    from langchain_community.vectorstores.utils import DistanceStrategy

    strategy = DistanceStrategy.MAX_INNER_PRODUCT if distance == "ip" else DistanceStrategy.EUCLIDEAN_DISTANCE
    return community.FAISS.from_documents(corpus(), minilm(), distance_strategy=strategy)


def retriever_for(kind: str, folder: Path, strategy: str) -> DebiasedRetriever:
    if kind.startswith("faiss"):  # inner product of unit vectors (MiniLM's are) = cosine; squared L2 -> cosine
        if kind == "faiss":
            return DebiasedRetriever(faiss_store("ip"), strategy=strategy, k=4, search_kwargs={"filter": ONLY_OTHER})
        store = faiss_store("l2")
        return DebiasedRetriever(
            store, strategy=strategy, k=4, search_kwargs={"filter": ONLY_OTHER}, relevance_fn=lambda d: 1 - d / 2
        )
    if kind == "qdrant":
        models = pytest.importorskip("qdrant_client.models")
        only = models.Filter(must=[models.FieldCondition(key="metadata.topic", match=models.MatchValue(value="other"))])
        return DebiasedRetriever(qdrant_store(), strategy=strategy, k=4, search_kwargs={"filter": only})
    where = "metadata.topic = 'other'"
    if kind == "lancedb-l2":  # squared L2 between unit vectors -> cosine similarity
        store = lancedb_store(str(folder), "l2")
        return DebiasedRetriever(
            store, strategy=strategy, k=4, search_kwargs={"filter": where}, relevance_fn=lambda d: 1 - d / 2
        )
    # distance="cosine" only picks the store's relevance function (1 - distance); the search itself measures
    # L2 unless it is asked for metrics="cosine" too - without it the scores would be 1 - squared L2.
    store = lancedb_store(str(folder), "cosine")
    extra = {"prefilter": True} if kind == "lancedb-prefilter" else {}
    return DebiasedRetriever(
        store, strategy=strategy, k=4, search_kwargs={"filter": where, "metrics": "cosine", **extra}
    )


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("lancedb")


@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("kind", STORES)
def test_filtered_search_matches_the_in_memory_store(kind: str, strategy: str, folder: Path) -> None:
    expected = DebiasedRetriever(stores()[1], strategy=strategy, k=4, search_kwargs={"filter": off_topic})
    want = expected.invoke(QUERY)
    docs = retriever_for(kind, folder, strategy).invoke(QUERY)
    assert len(docs) >= 4 if strategy != "dynamic" else docs
    assert all(d.metadata["topic"] == "other" for d in docs)
    assert [d.page_content for d in docs] == [d.page_content for d in want]
    assert [d.metadata["score"] for d in docs] == pytest.approx([d.metadata["score"] for d in want], abs=1e-4)
    assert [d.metadata["variant"] for d in docs] == [d.metadata["variant"] for d in want]


def test_lancedb_post_filter_needs_the_deeper_search(folder: Path) -> None:
    """Without deepening, LanceDB's default post-filter leaves nothing of the 5 documents (the issue's report)."""
    store = lancedb_store(str(folder), "cosine")
    shallow = DebiasedRetriever(store, strategy="topk", k=4, search_kwargs={"filter": "metadata.topic = 'other'"})
    assert len(shallow.invoke(QUERY)) == 4
    assert (
        DebiasedRetriever(store, strategy="topk", k=4, max_fetch=0).invoke(QUERY, filter="metadata.topic = 'other'")
        == []
    )


@pytest.mark.asyncio
@pytest.mark.parametrize("strategy", STRATEGIES)
async def test_faiss_filtered_search_async(strategy: str, folder: Path) -> None:
    want = await DebiasedRetriever(stores()[1], strategy=strategy, k=4).ainvoke(QUERY, filter=off_topic)
    docs = await retriever_for("faiss", folder, strategy).ainvoke(QUERY)
    assert [d.page_content for d in docs] == [d.page_content for d in want] and docs


def test_faiss_filters_only_its_fetch_k_nearest() -> None:
    """The finding: FAISS filters its ``fetch_k`` (default 20) nearest, so asking for more ``k`` alone finds none of
    the 5 documents (ranked 71-75); a user's larger ``fetch_k`` is kept."""
    store = faiss_store("ip")
    assert store.similarity_search_with_score(QUERY, k=1000, filter=ONLY_OTHER) == []
    assert len(store.similarity_search_with_score(QUERY, k=1000, filter=ONLY_OTHER, fetch_k=75)) == 5
    assert DebiasedRetriever(store, strategy="topk", k=4, max_fetch=0).invoke(QUERY, filter=ONLY_OTHER) == []
    own = DebiasedRetriever(store, strategy="topk", k=4, max_fetch=0, search_kwargs={"fetch_k": 1000})
    assert len(own.invoke(QUERY, filter=ONLY_OTHER)) == 4


def test_faiss_default_l2_scores_are_not_cosine() -> None:
    """The README's note: with its default (squared) L2 distance FAISS's own relevance function does not give the
    cosine; ``relevance_fn=lambda d: 1 - d / 2`` or ``DistanceStrategy.MAX_INNER_PRODUCT`` does."""
    cosine = [d.metadata["score"] for d in DebiasedRetriever(stores()[1], strategy="topk", k=3).invoke(QUERY)]
    default = [d.metadata["score"] for d in DebiasedRetriever(faiss_store("l2"), strategy="topk", k=3).invoke(QUERY)]
    assert all(abs(a - b) > 0.05 for a, b in zip(default, cosine))
    fixed = DebiasedRetriever(faiss_store("l2"), strategy="topk", k=3, relevance_fn=lambda d: 1 - d / 2)
    assert [d.metadata["score"] for d in fixed.invoke(QUERY)] == pytest.approx(cosine, abs=1e-4)
    inner = DebiasedRetriever(faiss_store("ip"), strategy="topk", k=3).invoke(QUERY)
    assert [d.metadata["score"] for d in inner] == pytest.approx(cosine, abs=1e-4)


def test_qdrant_documents_have_no_id_and_are_keyed_by_text_and_metadata() -> None:
    """The README's "Ids" note: langchain-qdrant returns ``Document.id=None`` with the point id in
    ``metadata["_id"]``, so the wrapper keys each document by a hash of text and metadata (``_id`` included):
    two points holding the same text stay two documents; the same point found by two variants comes back once."""
    twice = [Document(page_content="She fixed the build.", metadata={"topic": "eng"}) for _ in range(2)]
    store = pytest.importorskip("langchain_qdrant").QdrantVectorStore.from_documents(
        [*twice, Document(page_content="He fixed the build.", metadata={"topic": "eng"})],
        minilm(),
        location=":memory:",
        collection_name="same_text",
    )
    raw = store.similarity_search_with_score("Who fixed the build?", k=3)
    assert all(doc.id is None and doc.metadata["_id"] for doc, _ in raw)
    docs = DebiasedRetriever(store, strategy="paper", k=3).invoke("Who fixed the build?")
    assert sorted(d.page_content for d in docs) == sorted(d.page_content for d, _ in raw)  # nothing merged
    assert len({d.metadata["_id"] for d in docs}) == 3 and all(d.id is None for d in docs)
