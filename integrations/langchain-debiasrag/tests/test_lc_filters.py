"""Metadata filters on stores that filter after a shallow search (LanceDB's default), and argument precedence."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_debiasrag import DebiasedRetriever
from lc_support import gendered_corpus, in_memory_store, minilm

from debiasrag.errors import InputError

STRATEGIES = ["topk", "balanced", "paper", "dynamic"]
QUERY = gendered_corpus()[0]


class PostFilterStore(InMemoryVectorStore):
    """Searches the ``k`` nearest documents, then drops those the filter rejects (as LanceDB does without
    ``prefilter=True``): a selective filter leaves fewer than ``k``. Records every ``k`` it was asked for."""

    def __init__(self) -> None:
        super().__init__(minilm())
        self.asked: list[int] = []

    def similarity_search_with_score(self, query: str, k: int = 4, filter: Any = None, **kwargs: Any):  # noqa: A002
        self.asked.append(k)
        nearest = super().similarity_search_with_score(query, k=k, **kwargs)
        return [(doc, score) for doc, score in nearest if filter is None or filter(doc)]

    async def asimilarity_search_with_score(self, query: str, k: int = 4, filter: Any = None, **kwargs: Any):  # noqa: A002
        return self.similarity_search_with_score(query, k=k, filter=filter, **kwargs)


def corpus() -> list[Document]:
    """The gendered corpus plus 60 engineering notes: its 5 off-topic distractors rank below all 70 others."""
    fillers = [
        Document(id=f"f{i}", page_content=f"Engineering note {i}: the team reviewed the structural design.")
        for i in range(60)
    ]
    for doc in fillers:
        doc.metadata = {"gender": "none", "topic": "eng"}
    return gendered_corpus()[1] + fillers


@functools.cache
def stores() -> tuple[PostFilterStore, InMemoryVectorStore]:
    post = PostFilterStore()
    post.add_documents(corpus())
    return post, in_memory_store(corpus())  # InMemoryVectorStore filters before ranking


def off_topic(doc: Document) -> bool:
    return doc.metadata["topic"] == "other"


def ids(docs: list[Document]) -> list[str | None]:
    return [d.id for d in docs]


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_post_filtering_store_returns_what_a_prefiltering_one_does(strategy: str) -> None:
    post, pre = stores()
    expected = DebiasedRetriever(pre, strategy=strategy, k=4, search_kwargs={"filter": off_topic}).invoke(QUERY)
    assert expected and all(off_topic(d) for d in expected)
    if strategy in ("topk", "balanced", "paper"):
        assert len(expected) >= 4  # exactly 4 for topk / balanced, a floor for paper
    post.asked.clear()
    docs = DebiasedRetriever(post, strategy=strategy, k=4, search_kwargs={"filter": off_topic}).invoke(QUERY)
    assert ids(docs) == ids(expected)
    assert [d.metadata["score"] for d in docs] == pytest.approx([d.metadata["score"] for d in expected])
    assert max(post.asked) > 20  # it had to search deeper than the strategy's first depth
    # Without deepening the shallow search finds none of the 5 off-topic documents among its nearest.
    assert DebiasedRetriever(post, strategy=strategy, k=4, max_fetch=0).invoke(QUERY, filter=off_topic) == []


@pytest.mark.asyncio
@pytest.mark.parametrize("strategy", STRATEGIES)
async def test_post_filtering_async(strategy: str) -> None:
    post, pre = stores()
    expected = await DebiasedRetriever(pre, strategy=strategy, k=4).ainvoke(QUERY, filter=off_topic)
    docs = await DebiasedRetriever(post, strategy=strategy, k=4).ainvoke(QUERY, filter=off_topic)
    assert ids(docs) == ids(expected) and docs


def test_deepening_stops_at_max_fetch_and_without_a_filter() -> None:
    post, _ = stores()
    post.asked.clear()
    assert DebiasedRetriever(post, strategy="topk", k=4, max_fetch=16).invoke(QUERY, filter=off_topic) == []
    assert post.asked == [4, 16]
    post.asked.clear()
    docs = DebiasedRetriever(post, strategy="topk", k=100).invoke(QUERY)  # 75 documents, no filter: one call
    assert len(docs) == 75 and post.asked == [100]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"search_kwargs": {"k": 50}}, "search_kwargs must not set 'k': the strategy sets each search's depth"),
        ({"top_k": 3}, "unknown DebiasedRetriever argument\\(s\\): top_k"),
        ({"stratgy": "topk", "kk": 1}, "unknown DebiasedRetriever argument\\(s\\): kk, stratgy"),
        ({"max_fetch": -1}, "max_fetch must be a non-negative integer, got -1"),
        ({"max_fetch": True}, "max_fetch must be a non-negative integer, got True"),
    ],
)
def test_bad_arguments_are_refused(kwargs: dict, message: str) -> None:
    with pytest.raises(InputError, match=message):
        DebiasedRetriever(stores()[1], **kwargs)


def test_per_call_k_sets_the_count_and_search_kwargs_cannot() -> None:
    retriever = DebiasedRetriever(stores()[1], strategy="topk", k=2, search_kwargs={"filter": off_topic})
    assert len(retriever.invoke(QUERY)) == 2
    assert len(retriever.invoke(QUERY, k=5)) == 5
