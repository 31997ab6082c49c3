"""Scores of every numeric type, the user's relevance function, argument errors, ids and user metadata.

Real components only: langchain-community's FAISS, ``InMemoryVectorStore`` and debiasrag's ``FaissIndex``, all with
the packaged MiniLM.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Iterable
from decimal import Decimal
from typing import Any

import numpy as np
import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import Embeddings
from langchain_core.vectorstores import InMemoryVectorStore, VectorStore
from langchain_debiasrag import DebiasedRetriever
from lc_support import in_memory_store, minilm

import debiasrag
from debiasrag import InputError

QUERY = "Who is the engineer that builds the backend systems?"
TEXTS = [
    "He designed the backend services that process payments.",
    "She designed the backend services that process payments.",
    "He maintains the distributed systems behind the mobile app.",
    "She maintains the distributed systems behind the mobile app.",
    "A recipe for apple pie needs cinnamon and butter.",
]
STRATEGIES = ["topk", "context", "paper", "balanced", "dynamic"]


@functools.cache
def plain_store() -> InMemoryVectorStore:
    return in_memory_store(Document(id=f"d{i}", page_content=text) for i, text in enumerate(TEXTS))


def signature(docs: list[Document]) -> list[tuple[str, float, str]]:
    return [(d.page_content, round(d.metadata["score"], 5), d.metadata["variant"]) for d in docs]


# -- A1: numpy and Decimal scores ------------------------------------------------------------------------------


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_langchain_community_faiss_with_numpy_scores(strategy: str) -> None:
    """langchain-community's FAISS returns np.float32 distances; they were refused as "no usable score"."""
    community = pytest.importorskip("langchain_community.vectorstores")
    store = community.FAISS.from_documents([Document(page_content=t) for t in TEXTS], minilm())
    raw = store.similarity_search_with_score(QUERY, k=2)
    assert isinstance(raw[0][1], np.floating)  # the premise: numpy scores
    retriever = DebiasedRetriever(store, strategy=strategy, k=2)
    docs = retriever.invoke(QUERY)
    assert docs and all(type(d.metadata["score"]) is float for d in docs)
    assert signature(asyncio.run(retriever.ainvoke(QUERY))) == signature(docs)
    reference = DebiasedRetriever(plain_store(), strategy=strategy, k=2).invoke(QUERY)
    assert [d.page_content for d in docs] == [d.page_content for d in reference]


class ConvertedScores(VectorStore):
    """A store over a real InMemoryVectorStore that reports its scores as another numeric type (as numpy-based or
    SQL-backed stores do: np.float32, np.int64, Decimal)."""

    def __init__(self, inner: InMemoryVectorStore, to: Any) -> None:
        self.inner, self.to = inner, to

    @property
    def embeddings(self) -> Embeddings:
        return self.inner.embeddings

    def add_texts(self, texts: Iterable[str], metadatas: list[dict] | None = None, **kwargs: Any) -> list[str]:
        return self.inner.add_texts(texts, metadatas, **kwargs)

    @classmethod
    def from_texts(cls, texts, embedding, metadatas=None, **kwargs):  # type: ignore[override]
        raise NotImplementedError

    def similarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        return self.inner.similarity_search(query, k, **kwargs)

    def similarity_search_with_score(self, query: str, k: int = 4, **kwargs: Any) -> list[tuple[Document, Any]]:
        return [(doc, self.to(score)) for doc, score in self.inner.similarity_search_with_score(query, k, **kwargs)]


@pytest.mark.parametrize(
    "to",
    [np.float32, np.float64, lambda s: np.int64(round(s * 1000)), lambda s: Decimal(str(s))],
    ids=["float32", "float64", "int64", "decimal"],
)
def test_numpy_and_decimal_scores_are_accepted(to: Any) -> None:
    docs = DebiasedRetriever(ConvertedScores(plain_store(), to), strategy="topk", k=3).invoke(QUERY)
    want = DebiasedRetriever(plain_store(), strategy="topk", k=3).invoke(QUERY)
    assert [d.id for d in docs] == [d.id for d in want]
    assert all(type(d.metadata["score"]) is float for d in docs)


@pytest.mark.parametrize("bad", [np.bool_(True), "0.5", float("nan")], ids=repr)
def test_bools_text_and_nan_scores_are_still_refused(bad: Any) -> None:
    with pytest.raises(debiasrag.DebiasragError, match="returned no usable score"):
        DebiasedRetriever(ConvertedScores(plain_store(), lambda s: bad), strategy="topk", k=2).invoke(QUERY)


# -- A5 / B3: the user's relevance_fn --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("returned", "shown"), [(float("nan"), "nan"), (float("inf"), "inf"), (-float("inf"), "-inf"), ("x", "'x'")]
)
@pytest.mark.parametrize("strategy", ["topk", "balanced", "dynamic"])
def test_relevance_fn_returning_nan_inf_or_text_is_an_input_error(returned: Any, shown: str, strategy: str) -> None:
    retriever = DebiasedRetriever(plain_store(), strategy=strategy, k=2, relevance_fn=lambda s: returned)
    pattern = rf"^relevance_fn returned {shown} for the score [-0-9.e]+; it must return a finite number$"
    with pytest.raises(InputError, match=pattern):
        retriever.invoke(QUERY)
    with pytest.raises(InputError, match=pattern):
        asyncio.run(retriever.ainvoke(QUERY))


def test_relevance_fn_returning_numpy_is_fine() -> None:
    docs = DebiasedRetriever(plain_store(), strategy="topk", k=2, relevance_fn=np.float32).invoke(QUERY)
    assert len(docs) == 2 and all(type(d.metadata["score"]) is float for d in docs)


# -- B5: one-line InputErrors for bad constructor arguments ----------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"score_direction": "up"}, "score_direction must be 'auto', 'higher' or 'lower', got 'up'"),
        ({"score_direction": None}, "score_direction must be 'auto', 'higher' or 'lower', got None"),
        ({"search_kwargs": "abc"}, "search_kwargs must be a dict of store search arguments, got 'abc'"),
        ({"search_kwargs": [("filter", None)]}, "search_kwargs must be a dict of store search arguments"),
        ({"relevance_fn": 3}, "relevance_fn must be a function (or None), got 3"),
        ({"query_transform": "upper"}, "query_transform must be a function (or None or 'index'), got 'upper'"),
        ({"search_kwargs": {1: "x"}}, "invalid DebiasedRetriever argument search_kwargs"),
    ],
)
def test_bad_arguments_are_one_line_input_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(InputError) as err:
        DebiasedRetriever(plain_store(), **kwargs)
    assert message in str(err.value) and "\n" not in str(err.value)
    assert "pydantic" not in str(err.value)


def test_search_kwargs_none_means_none() -> None:
    retriever = DebiasedRetriever(plain_store(), search_kwargs=None, strategy="topk", k=2)
    assert retriever.search_kwargs == {} and len(retriever.invoke(QUERY)) == 2


# -- A6: one id, different texts ---------------------------------------------------------------------------------


class TwoCollections(VectorStore):
    """A store searching two real collections and merging their results by score, best first, whose ids collide
    ("d0" names a different document in each): nothing may be dropped."""

    def __init__(self, first: InMemoryVectorStore, second: InMemoryVectorStore) -> None:
        self.collections = (first, second)

    @property
    def embeddings(self) -> Embeddings:
        return self.collections[0].embeddings

    def add_texts(self, texts: Iterable[str], metadatas: list[dict] | None = None, **kwargs: Any) -> list[str]:
        raise NotImplementedError

    @classmethod
    def from_texts(cls, texts, embedding, metadatas=None, **kwargs):  # type: ignore[override]
        raise NotImplementedError

    def similarity_search(self, query: str, k: int = 4, **kwargs: Any) -> list[Document]:
        return [doc for doc, _ in self.similarity_search_with_score(query, k, **kwargs)]

    def similarity_search_with_score(self, query: str, k: int = 4, **kwargs: Any) -> list[tuple[Document, float]]:
        merged = [pair for store in self.collections for pair in store.similarity_search_with_score(query, k)]
        return sorted(merged, key=lambda pair: -pair[1])[:k]


@functools.cache
def colliding() -> TwoCollections:
    first = in_memory_store(Document(id=f"d{i}", page_content=t) for i, t in enumerate(TEXTS[0:4:2]))  # "He ..."
    second = in_memory_store(Document(id=f"d{i}", page_content=t) for i, t in enumerate(TEXTS[1:4:2]))  # "She ..."
    return TwoCollections(first, second)


@pytest.mark.parametrize("strategy", ["topk", "balanced", "paper"])
def test_same_id_different_text_keeps_both(strategy: str) -> None:
    docs = DebiasedRetriever(colliding(), strategy=strategy, k=3).invoke(QUERY)
    assert len(docs) >= 3 and len({d.page_content for d in docs}) == len(docs)
    assert {d.id for d in docs} <= {"d0", "d1"}  # the store's ids, unchanged
    assert signature(asyncio.run(DebiasedRetriever(colliding(), strategy=strategy, k=3).ainvoke(QUERY))) == (
        signature(docs)
    )


def test_all_four_colliding_documents_come_back() -> None:
    docs = DebiasedRetriever(colliding(), strategy="topk", k=10).invoke(QUERY)
    assert sorted(d.page_content for d in docs) == sorted(TEXTS[:4])
    assert [d.metadata["rank"] for d in docs] == [1, 2, 3, 4]


def test_exact_duplicates_still_merge() -> None:
    """The same id and text from both collections (a document stored twice) is one result."""
    same = in_memory_store(Document(id=f"d{i}", page_content=t) for i, t in enumerate(TEXTS))
    docs = DebiasedRetriever(TwoCollections(same, same), strategy="topk", k=10).invoke(QUERY)  # 10 hits, 5 distinct
    assert sorted(d.id for d in docs) == [f"d{i}" for i in range(5)]


# -- C7: FaissIndex ids 1 and "1" ---------------------------------------------------------------------------------


def test_faiss_index_ids_keep_their_type() -> None:
    corpus = [
        debiasrag.Document(1, TEXTS[0], {"source": "int id"}),
        debiasrag.Document("1", TEXTS[1], {"source": "str id"}),
        debiasrag.Document("x", TEXTS[4], {}),
    ]
    index = debiasrag.FaissIndex.from_documents(corpus, minilm().embedder)
    docs = DebiasedRetriever(index, strategy="topk", k=3).invoke(QUERY)
    by_source = {d.metadata.get("source"): d for d in docs}
    assert by_source["int id"].id == by_source["str id"].id == "1"  # LangChain ids are strings
    assert by_source["int id"].metadata["debiasrag_id"] == 1
    assert by_source["str id"].metadata["debiasrag_id"] == "1"
    assert {repr(d.metadata["debiasrag_id"]) for d in docs} == {"1", "'1'", "'x'"}


# -- C8: the user's own score / variant / rank --------------------------------------------------------------------

USER_META = {"score": "editor's pick", "variant": "v2", "rank": "user-rank", "group": "team-a"}


@pytest.mark.parametrize("backend", ["memory", "faiss"])
@pytest.mark.parametrize("strategy", ["topk", "balanced"])
def test_user_metadata_is_never_overwritten(backend: str, strategy: str) -> None:
    docs = [
        Document(id=f"u{i}", page_content=t, metadata=dict(USER_META) if i < 2 else {}) for i, t in enumerate(TEXTS)
    ]
    if backend == "memory":
        store: Any = in_memory_store(docs)
    else:
        corpus = [debiasrag.Document(d.id, d.page_content, dict(d.metadata)) for d in docs]
        store = debiasrag.FaissIndex.from_documents(corpus, minilm().embedder)
    results = DebiasedRetriever(store, strategy=strategy, k=4).invoke(QUERY)
    assert len(results) == 4
    for rank, doc in enumerate(results, 1):
        assert doc.metadata["debiasrag_rank"] == rank and doc.metadata["debiasrag_variant"] == "neutral"
        assert type(doc.metadata["debiasrag_score"]) is float
        if doc.id in ("u0", "u1"):  # the user's values stay where they were
            assert {key: doc.metadata[key] for key in USER_META} == USER_META
        else:  # no user value: the plain keys carry debiasrag's, as before
            assert doc.metadata["rank"] == rank and doc.metadata["variant"] == "neutral"
            assert doc.metadata["score"] == doc.metadata["debiasrag_score"]
    if backend == "memory":  # the stored documents are untouched
        assert plain_metadata(store, "u0") == USER_META


def plain_metadata(store: InMemoryVectorStore, doc_id: str) -> dict:
    return dict(store.get_by_ids([doc_id])[0].metadata)


class CappedStore(InMemoryVectorStore):
    """A hosted store's maximum top-k: at most 2 results whatever is asked."""

    def similarity_search_with_score(self, query: str, k: int = 4, **kwargs: Any) -> list[tuple[Document, float]]:
        return super().similarity_search_with_score(query, k=min(k, 2), **kwargs)


def test_each_document_says_whether_the_groups_came_back_equal() -> None:
    """A store capped below k left `balanced` with one neutral and one male document and nothing saying so (a new
    user's walkthrough, session 46): each document now carries ``debiasrag_groups_equal``."""
    texts = [
        "She negotiated her salary with data.",
        "He negotiated his salary with data.",
        "They negotiated their salary with data.",
        "She asked for a raise.",
        "He asked for a raise.",
        "A cat slept.",
    ]
    docs = [Document(page_content=t, id=str(i)) for i, t in enumerate(texts)]
    query = "How to negotiate a salary?"
    full = in_memory_store(docs)
    found = DebiasedRetriever(full, strategy="balanced", k=5).invoke(query)
    assert [d.metadata["debiasrag_groups_equal"] for d in found] == [True] * 5
    found = DebiasedRetriever(full, strategy="balanced", k=4).invoke(query)  # 3 gendered, no neutral close enough
    assert [d.metadata["debiasrag_group"] for d in found] == ["neutral", "male", "female", "male"]
    assert {d.metadata["debiasrag_groups_equal"] for d in found} == {False}
    capped = CappedStore(minilm())
    capped.add_documents(docs)
    found = DebiasedRetriever(capped, strategy="balanced", k=4).invoke(query)
    groups = [d.metadata["debiasrag_group"] for d in found]
    assert len(found) == 2 and groups.count("female") != groups.count("male")
    assert {d.metadata["debiasrag_groups_equal"] for d in found} == {False}
    assert "debiasrag_groups_equal" not in DebiasedRetriever(full, strategy="topk", k=2).invoke(query)[0].metadata
