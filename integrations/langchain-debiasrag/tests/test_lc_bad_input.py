"""Bad input and misbehaving stores: one-line errors or documented behaviour, never a hang."""

from __future__ import annotations

import asyncio
import functools
import time
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_debiasrag import DebiasedRetriever
from lc_support import Interleave, faiss_index, gendered_corpus, in_memory_store, minilm

from debiasrag import DebiasragError, InputError

QUERY = gendered_corpus()[0]


@functools.cache
def memory_store() -> InMemoryVectorStore:
    return in_memory_store(gendered_corpus()[1])


class ScriptedStore(InMemoryVectorStore):
    """An InMemoryVectorStore whose scored search is replaced per test (sync and async)."""

    def __init__(self, search=None, asearch=None) -> None:
        super().__init__(minilm())
        self.search, self.asearch = search, asearch

    def similarity_search_with_score(self, query: str, k: int = 4, **kwargs: Any):
        return self.search(query, k)

    async def asimilarity_search_with_score(self, query: str, k: int = 4, **kwargs: Any):
        return await self.asearch(query, k)


def boom(query: str, k: int):
    raise ConnectionError("vector database unreachable\nsecond line")


async def aboom(query: str, k: int):
    raise ConnectionError("vector database unreachable")


def test_store_raising_names_store_variant_and_cause() -> None:
    retriever = DebiasedRetriever(ScriptedStore(boom), strategy="paper")
    with pytest.raises(DebiasragError) as err:
        retriever.invoke(QUERY)
    assert str(err.value) == (
        "ScriptedStore search failed for the 'female' variant: ConnectionError: vector database unreachable"
    )
    assert isinstance(err.value.__cause__, ConnectionError)


@pytest.mark.asyncio
async def test_store_raising_async() -> None:
    retriever = DebiasedRetriever(ScriptedStore(asearch=aboom), strategy="topk")
    with pytest.raises(DebiasragError, match="ScriptedStore search failed for the 'neutral' variant: ConnectionError"):
        await retriever.ainvoke(QUERY)


def test_store_returning_documents_without_scores() -> None:
    def no_scores(query: str, k: int):
        return [Document(page_content="an engineer")] * 2

    with pytest.raises(DebiasragError, match="returned Document items without scores for the 'neutral' variant"):
        DebiasedRetriever(ScriptedStore(no_scores), strategy="topk").invoke(QUERY)


@pytest.mark.parametrize("score", [None, float("nan"), "0.5"])
def test_store_returning_unusable_scores(score: Any) -> None:
    def scored(query: str, k: int):
        return [(Document(page_content="an engineer"), score)]

    with pytest.raises(DebiasragError, match="returned no usable score"):
        DebiasedRetriever(ScriptedStore(scored), strategy="topk").invoke(QUERY)


def test_store_without_scored_search() -> None:
    class Unscored(InMemoryVectorStore):
        def similarity_search_with_score(self, *args: Any, **kwargs: Any):
            raise NotImplementedError

    with pytest.raises(DebiasragError, match="Unscored does not implement similarity_search_with_score"):
        DebiasedRetriever(Unscored(minilm()), strategy="topk").invoke(QUERY)


def test_unsorted_scores_need_an_explicit_direction() -> None:
    def unsorted(query: str, k: int):
        return [(Document(id=str(i), page_content=f"doc {i}"), s) for i, s in enumerate([0.2, 0.9, 0.5])]

    with pytest.raises(DebiasragError, match="unsorted scores.*score_direction"):
        DebiasedRetriever(ScriptedStore(unsorted), strategy="topk").invoke(QUERY)
    docs = DebiasedRetriever(ScriptedStore(unsorted), strategy="topk", score_direction="higher").invoke(QUERY)
    assert [d.id for d in docs] == ["1", "2", "0"]


@pytest.mark.parametrize("strategy", ["topk", "balanced", "paper", "dynamic"])
def test_fewer_documents_than_k_returns_what_exists(strategy: str) -> None:
    """Documented: a store holding fewer than k documents gives all it has (15 here), no error, no loop."""
    docs = DebiasedRetriever(memory_store(), strategy=strategy, k=50).invoke(QUERY)
    assert len(docs) <= 15
    if strategy in ("topk", "balanced", "paper"):
        assert len(docs) == 15 and len({d.id for d in docs}) == 15


def test_empty_store_returns_no_documents() -> None:
    for strategy in ("topk", "paper", "balanced", "dynamic"):
        assert DebiasedRetriever(InMemoryVectorStore(minilm()), strategy=strategy).invoke(QUERY) == []


@pytest.mark.parametrize("query", ["", "   \n", None, 3])
def test_empty_or_non_string_query(query: Any) -> None:
    retriever = DebiasedRetriever(memory_store())
    with pytest.raises(InputError, match="query is empty|query must be a string"):
        retriever.invoke(query)


@pytest.mark.asyncio
async def test_empty_query_async() -> None:
    with pytest.raises(InputError, match="query is empty"):
        await DebiasedRetriever(memory_store()).ainvoke(" ")


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"k": 0}, "k must be a positive integer, got 0"),
        ({"k": True}, "k must be a positive integer, got True"),
        ({"k": "3"}, "k must be a positive integer, got '3'"),
        ({"strategy": "mmr"}, "unknown strategy 'mmr'"),
        ({"concept": "height"}, "unknown concept 'height'"),
        ({"embedder": "all-MiniLM-L6-v2"}, "embedder is only used with a FaissIndex"),
    ],
)
def test_bad_construction_arguments(kwargs: dict, message: str) -> None:
    with pytest.raises(InputError, match=message):
        DebiasedRetriever(memory_store(), **kwargs)


def test_not_a_store() -> None:
    with pytest.raises(InputError, match="must be a LangChain VectorStore or a debiasrag FaissIndex, not list"):
        DebiasedRetriever([1, 2, 3])


def test_bad_per_call_arguments() -> None:
    retriever = DebiasedRetriever(memory_store())
    with pytest.raises(InputError, match="k must be a positive integer, got -2"):
        retriever.invoke(QUERY, k=-2)
    with pytest.raises(InputError, match="unknown strategy"):
        retriever.invoke(QUERY, strategy="nope")
    with pytest.raises(InputError, match="search_kwargs apply to a VectorStore; a FaissIndex search takes none"):
        DebiasedRetriever(faiss_index(gendered_corpus()[1]), embedder=minilm(), search_kwargs={"filter": None})
    faiss = DebiasedRetriever(faiss_index(gendered_corpus()[1]), embedder=minilm())
    with pytest.raises(InputError, match="unexpected argument.*FaissIndex search: filter"):
        faiss.invoke(QUERY, filter=lambda doc: True)


class HangingStore(InMemoryVectorStore):
    """Async search that never returns unless cancelled; records the cancellations it receives."""

    def __init__(self, fail_variant_with: str | None = None) -> None:
        super().__init__(minilm())
        self.cancelled: list[str] = []
        self.fail_marker = fail_variant_with

    async def asimilarity_search_with_score(self, query: str, k: int = 4, **kwargs: Any):
        if self.fail_marker and self.fail_marker in query:
            await asyncio.sleep(0.05)
            raise TimeoutError("shard timed out")
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            self.cancelled.append(query)
            raise
        return []


@pytest.mark.asyncio
async def test_async_cancellation_stops_every_variant_search() -> None:
    store = HangingStore()
    start = time.monotonic()
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(DebiasedRetriever(store, strategy="paper").ainvoke(QUERY), timeout=0.3)
    assert time.monotonic() - start < 3
    assert len(store.cancelled) == 2  # both variant searches were cancelled, none left running


@pytest.mark.asyncio
async def test_async_failure_cancels_the_sibling_variant() -> None:
    store = HangingStore(fail_variant_with="woman")
    with pytest.raises(DebiasragError, match="'female' variant: TimeoutError: shard timed out"):
        await asyncio.wait_for(DebiasedRetriever(store, strategy="paper").ainvoke(QUERY), timeout=5)
    assert len(store.cancelled) == 1 and "is a man." in store.cancelled[0]


def test_documents_without_ids_are_keyed_by_content() -> None:
    """Stores that return Documents without ids: the same text + metadata from both variants is one document."""

    def scored(query: str, k: int):
        docs = [Document(page_content=f"engineer {i}", metadata={"i": i}) for i in range(3)]
        scores = [0.9, 0.5, 0.4] if "woman" in query else [0.3, 0.8, 0.7]
        return sorted(zip(docs, scores), key=lambda pair: -pair[1])[:k]

    docs = DebiasedRetriever(ScriptedStore(scored), strategy=Interleave(), k=3).invoke(QUERY)  # two variants
    assert [(d.metadata["i"], d.metadata["variant"]) for d in docs] == [(0, "female"), (1, "male"), (2, "female")]
    assert all(d.id is None for d in docs)


@pytest.mark.parametrize("call", [{"concept": "race"}, {"search_kwargs": {"k": 1}}, {"score_direction": "lower"}])
def test_per_call_settings_the_store_would_ignore_are_refused(call: dict) -> None:
    """They reached the store, which ignores what it does not know: the call silently changed nothing."""
    with pytest.raises(InputError, match="cannot change per call"):
        DebiasedRetriever(memory_store()).invoke(QUERY, **call)


@pytest.mark.parametrize(
    "call, wanted",
    [({"K": 1}, "k"), ({"top_k": 1}, "k"), ({"strategey": "topk"}, "strategy"), ({"Strategy": "x"}, "strategy")],
)
def test_misspelt_k_or_strategy_is_refused_not_swallowed_by_the_store(call: dict, wanted: str) -> None:
    """InMemoryVectorStore (like many stores) takes **kwargs: invoke(q, K=1) returned k documents, strategey= ran
    the default strategy."""
    with pytest.raises(
        InputError, match=f"unexpected argument '{next(iter(call))}' for invoke; did you mean '{wanted}'"
    ):
        DebiasedRetriever(memory_store()).invoke(QUERY, **call)
    assert len(DebiasedRetriever(memory_store(), strategy="topk", k=2).invoke(QUERY, filter=lambda doc: True)) == 2


def test_embeddings_refuse_unknown_arguments_bad_neutralize_and_non_text() -> None:
    from langchain_debiasrag import DebiasragEmbeddings

    with pytest.raises(InputError, match=r"unknown argument\(s\) model .*the model is embedder="):
        DebiasragEmbeddings(model="all-MiniLM-L6-v2")
    with pytest.raises(InputError, match="neutralize must be None or how first names go"):
        DebiasragEmbeddings(neutralize="bogus")
    with pytest.raises(InputError, match="text 0 is int, not a string"):
        DebiasragEmbeddings().embed_documents([5])
