"""Unusable node scores, the user's relevance function, argument errors, colliding node ids and user metadata.

Real components only: ``VectorStoreIndex`` over ``TextNode``s with the packaged MiniLM; the two retrievers below
are ordinary user retrievers built on real index retrievers.
"""

from __future__ import annotations

import asyncio
import functools
from typing import Any

import pytest
from li_support import Interleaved, minilm
from llama_index.core import VectorStoreIndex
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle, TextNode
from llama_index.retrievers.debiasrag import DebiasedRetriever

from debiasrag import DebiasragError, InputError

QUERY = "Who is the engineer that builds the backend systems?"
TEXTS = [
    "He designed the backend services that process payments.",
    "She designed the backend services that process payments.",
    "He maintains the distributed systems behind the mobile app.",
    "She maintains the distributed systems behind the mobile app.",
    "A recipe for apple pie needs cinnamon and butter.",
]


def index_of(texts: list[str], metadata: list[dict] | None = None, prefix: str = "n") -> VectorStoreIndex:
    nodes = [
        TextNode(id_=f"{prefix}{i}", text=text, metadata=dict((metadata or [{}] * len(texts))[i]))
        for i, text in enumerate(texts)
    ]
    return VectorStoreIndex(nodes, embed_model=minilm())


@functools.cache
def plain_index() -> VectorStoreIndex:
    return index_of(TEXTS)


def signature(nodes: list[NodeWithScore]) -> list[tuple[str, str, float]]:
    return [(n.node.node_id, n.node.get_content(), round(n.score or 0.0, 5)) for n in nodes]


# -- A5 / B3: the user's relevance_fn ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("returned", "shown"), [(float("nan"), "nan"), (float("inf"), "inf"), (-float("inf"), "-inf"), ("x", "'x'")]
)
@pytest.mark.parametrize("strategy", ["topk", "balanced", "dynamic"])
def test_relevance_fn_returning_nan_inf_or_text_is_an_input_error(returned: Any, shown: str, strategy: str) -> None:
    retriever = DebiasedRetriever(plain_index(), strategy=strategy, similarity_top_k=3, relevance_fn=lambda s: returned)
    pattern = rf"^relevance_fn returned {shown} for the score [-0-9.e]+; it must return a finite number$"
    with pytest.raises(InputError, match=pattern):
        retriever.retrieve(QUERY)
    with pytest.raises(InputError, match=pattern):
        asyncio.run(retriever.aretrieve(QUERY))


# -- B4: a node score that is text or a list ----------------------------------------------------------------------


class ScoreFromMetadata(BaseRetriever):
    """A user retriever that reports a score kept in each node's metadata (e.g. a reranker's output stored as
    text), assigned after the NodeWithScore was built, so pydantic never validated it."""

    def __init__(self, inner: BaseRetriever, score: Any) -> None:
        super().__init__()
        self.inner, self.score = inner, score

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        nodes = self.inner.retrieve(query_bundle)
        for node in nodes:
            node.score = self.score
        return nodes


@pytest.mark.parametrize("score", ["high", [1], {"score": 1}, float("nan"), True], ids=repr)
def test_unusable_node_scores_are_one_line_debiasrag_errors(score: Any) -> None:
    retriever = DebiasedRetriever(ScoreFromMetadata(plain_index().as_retriever(similarity_top_k=3), score))
    with pytest.raises(DebiasragError) as err:
        retriever.retrieve(QUERY)
    message = str(err.value)
    assert message == (
        f"ScoreFromMetadata returned a node without a usable score ({score!r}) for the 'neutral' variant; "
        "debiasrag needs scored retrieval with finite numeric scores"
    )


def test_numeric_text_node_scores_still_count() -> None:
    retriever = DebiasedRetriever(
        ScoreFromMetadata(plain_index().as_retriever(similarity_top_k=3), "0.5"), strategy="topk", similarity_top_k=2
    )
    assert [n.score for n in retriever.retrieve(QUERY)] == [0.5, 0.5]


# -- B6 and friends: one-line InputErrors for bad constructor arguments -----------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"retriever_kwargs": "abc"}, "retriever_kwargs must be a dict of index.as_retriever arguments, got 'abc'"),
        (
            {"retriever_kwargs": [("filters", None)]},
            "retriever_kwargs must be a dict of index.as_retriever arguments, got [('filters', None)]",
        ),
        ({"score_direction": ["higher"]}, "score_direction must be 'higher' or 'lower', got ['higher']"),
        ({"relevance_fn": 3}, "relevance_fn must be a function (or None), got 3"),
        ({"query_transform": "upper"}, "query_transform must be a function (or None), got 'upper'"),
    ],
)
def test_bad_arguments_are_one_line_input_errors(kwargs: dict, message: str) -> None:
    with pytest.raises(InputError) as err:
        DebiasedRetriever(plain_index(), **kwargs)
    assert str(err.value) == message


def test_retriever_kwargs_none_and_empty_mean_none() -> None:
    for empty in (None, {}):
        assert len(DebiasedRetriever(plain_index(), retriever_kwargs=empty, strategy="topk", similarity_top_k=2)
                   .retrieve(QUERY)) == 2  # fmt: skip


# -- A6: one node id, different texts -----------------------------------------------------------------------------


class ByVariant(BaseRetriever):
    """A user retriever routing the "woman" query variant to one index and every other query to another; the two
    indexes were built separately, so their node ids ("n0", "n1") collide."""

    def __init__(self, female: BaseRetriever, other: BaseRetriever) -> None:
        super().__init__()
        self.female, self.other = female, other

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        target = self.female if "woman" in query_bundle.query_str else self.other
        return target.retrieve(query_bundle.query_str)

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        target = self.female if "woman" in query_bundle.query_str else self.other
        return await target.aretrieve(query_bundle.query_str)


@functools.cache
def colliding() -> ByVariant:
    she = index_of([TEXTS[1], TEXTS[3]]).as_retriever(similarity_top_k=2)  # n0, n1: "She ..."
    he = index_of([TEXTS[0], TEXTS[2]]).as_retriever(similarity_top_k=2)  # n0, n1: "He ..."
    return ByVariant(she, he)


def test_same_id_different_text_keeps_both() -> None:
    retriever = DebiasedRetriever(colliding(), strategy=Interleaved(), similarity_top_k=4)
    nodes = retriever.retrieve(QUERY)
    assert sorted(n.node.get_content() for n in nodes) == sorted(TEXTS[:4])
    assert sorted(n.node.node_id for n in nodes) == ["n0", "n0", "n1", "n1"]  # the ids, unchanged
    assert [n.node.metadata["rank"] for n in nodes] == [1, 2, 3, 4]
    assert {n.node.metadata["variant"] for n in nodes} == {"female", "male"}
    assert signature(asyncio.run(retriever.aretrieve(QUERY))) == signature(nodes)


def test_exact_duplicates_still_merge() -> None:
    """The same node (same id and text) found by both variants is one result."""
    same = plain_index().as_retriever(similarity_top_k=5)
    nodes = DebiasedRetriever(ByVariant(same, same), strategy=Interleaved(), similarity_top_k=10).retrieve(QUERY)
    assert sorted(n.node.node_id for n in nodes) == [f"n{i}" for i in range(5)]


# -- C8: the user's own variant / rank ------------------------------------------------------------------------------

USER_META = {"variant": "v2", "rank": "user-rank", "group": "team-a"}


@pytest.mark.parametrize("strategy", ["topk", "balanced", "paper"])
def test_user_metadata_is_never_overwritten(strategy: str) -> None:
    index = index_of(TEXTS, [dict(USER_META) if i < 2 else {} for i in range(len(TEXTS))], prefix="u")
    nodes = DebiasedRetriever(index, strategy=strategy, similarity_top_k=4).retrieve(QUERY)
    assert len(nodes) >= 4
    for rank, hit in enumerate(nodes, 1):
        node = hit.node
        assert node.metadata["debiasrag_rank"] == rank and node.metadata["debiasrag_variant"]
        llm_view = node.get_content(metadata_mode=MetadataMode.LLM)
        assert "debiasrag_rank" not in llm_view and "debiasrag_variant" not in llm_view
        if node.node_id in ("u0", "u1"):  # the user's values are kept, and still shown to the LLM
            assert {key: node.metadata[key] for key in USER_META} == USER_META
            assert "rank: user-rank" in llm_view and "variant: v2" in llm_view
        else:  # no user value: the plain keys carry debiasrag's, hidden from the LLM as before
            assert node.metadata["rank"] == rank
            assert node.metadata["variant"] == node.metadata["debiasrag_variant"]
            assert "rank:" not in llm_view and "variant:" not in llm_view
    stored = index.docstore.get_node("u0")
    assert stored.metadata == USER_META  # the indexed node is untouched


class Capped(BaseRetriever):
    """A user retriever behind a service that returns at most ``cap`` nodes whatever is asked."""

    def __init__(self, inner: BaseRetriever, cap: int) -> None:
        super().__init__()
        self.inner, self.cap = inner, cap

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return self.inner.retrieve(query_bundle)[: self.cap]


def test_each_node_says_whether_the_groups_came_back_equal() -> None:
    """A retriever capped below k left `balanced` with one male and one neutral node and nothing saying so (a new
    user's walkthrough, session 46): each node now carries ``debiasrag_groups_equal``, hidden from the LLM."""
    inner = index_of(TEXTS).as_retriever(similarity_top_k=5)
    full = DebiasedRetriever(inner, strategy="balanced", similarity_top_k=4).retrieve(QUERY)
    assert [n.node.metadata["debiasrag_groups_equal"] for n in full] == [True] * 4
    capped = DebiasedRetriever(Capped(inner, 3), strategy="balanced", similarity_top_k=4).retrieve(QUERY)
    groups = [n.node.metadata["debiasrag_group"] for n in capped]
    assert groups.count("female") != groups.count("male")
    assert {n.node.metadata["debiasrag_groups_equal"] for n in capped} == {False}
    assert "debiasrag_groups_equal" not in capped[0].node.get_content(metadata_mode=MetadataMode.LLM)
    topk = DebiasedRetriever(inner, strategy="topk", similarity_top_k=2).retrieve(QUERY)
    assert "debiasrag_groups_equal" not in topk[0].node.metadata  # topk balances nothing
