"""DebiasedRetriever over a real in-memory VectorStoreIndex and over wrapped LlamaIndex retrievers."""

from __future__ import annotations

import asyncio
from collections import Counter

import pytest
from li_support import Interleaved, minilm, toy
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.indices.vector_store.retrievers import VectorIndexRetriever
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle, TextNode
from llama_index.retrievers.debiasrag import DebiasedRetriever

from debiasrag import STRATEGIES

ALL = list(STRATEGIES)


def query() -> str:
    task, _ = toy()
    return task.queries["army"]


def test_class() -> None:
    """LlamaIndex's integration convention."""
    names_of_base_classes = [b.__name__ for b in DebiasedRetriever.__mro__]
    assert BaseRetriever.__name__ in names_of_base_classes


@pytest.mark.parametrize("strategy", ALL)
def test_scores_variant_and_rank(strategy: str) -> None:
    _, index = toy()
    nodes = DebiasedRetriever(index, strategy=strategy, similarity_top_k=4).retrieve(query())
    assert [n.node.metadata["rank"] for n in nodes] == list(range(1, len(nodes) + 1))
    # balanced / dynamic (v2) search the plain query only; paper searches one variant per group
    expected = {"context": {"debiased"}, "paper": {"female", "male"}}.get(strategy, {"neutral"})
    assert {n.node.metadata["variant"] for n in nodes} <= expected
    assert all(isinstance(n.score, float) and -1 <= n.score <= 1 for n in nodes)
    assert all(n.node.metadata["topic"] == "army" for n in nodes)  # the node's own metadata is kept
    if strategy in ("balanced", "dynamic"):  # the group each node was balanced on (inferred from its text)
        assert [n.node.metadata["debiasrag_group"] for n in nodes] == [n.node.metadata["group"] for n in nodes]
        counts = Counter(n.node.metadata["debiasrag_group"] for n in nodes)
        assert abs(counts["female"] - counts["male"]) <= 1
    else:
        assert all("debiasrag_group" not in n.node.metadata for n in nodes)
    # bookkeeping stays out of what the LLM and the embedder see
    assert "variant" not in nodes[0].node.get_content(MetadataMode.LLM)
    assert "rank" not in nodes[0].node.get_content(MetadataMode.EMBED)
    assert "debiasrag_group" not in nodes[0].node.get_content(MetadataMode.LLM)
    if strategy in ("topk", "context", "balanced"):
        assert len(nodes) == 4
    if strategy == "dynamic":
        assert len(nodes) <= 4  # k is a cap


def test_stored_nodes_are_not_mutated() -> None:
    _, index = toy()
    DebiasedRetriever(index, strategy="balanced", similarity_top_k=3).retrieve(query())
    plain = index.as_retriever(similarity_top_k=3).retrieve(query())
    assert all("variant" not in n.node.metadata for n in plain)


def test_topk_equals_the_plain_vector_retriever() -> None:
    _, index = toy()
    plain = index.as_retriever(similarity_top_k=5).retrieve(query())
    ours = DebiasedRetriever(index, strategy="topk", similarity_top_k=5).retrieve(query())
    assert [n.node.node_id for n in ours] == [n.node.node_id for n in plain]
    assert [n.score for n in ours] == pytest.approx([n.score for n in plain], abs=1e-6)


class RecordingRetriever(VectorIndexRetriever):
    """A real VectorIndexRetriever that records the QueryBundle objects it is handed."""

    bundles: list[tuple[QueryBundle, str, bool]] = []  # the bundle objects are kept alive: ids stay unique

    def _retrieve(self, query_bundle: QueryBundle):
        RecordingRetriever.bundles.append((query_bundle, query_bundle.query_str, query_bundle.embedding is None))
        return super()._retrieve(query_bundle)


def test_fresh_query_bundle_per_variant_and_deeper_copies() -> None:
    _, index = toy()
    RecordingRetriever.bundles = []
    wrapped = RecordingRetriever(index, similarity_top_k=2)
    user_bundle = QueryBundle(query_str=query())
    # a two-variant strategy whose first search is 1 deep, then asks for a 6-deep one
    nodes = DebiasedRetriever(wrapped, strategy=Interleaved(first_depth=1), similarity_top_k=6).retrieve(user_bundle)
    assert len(nodes) == 6  # deeper than the wrapped retriever's own top-2: searched through a copy
    assert wrapped.similarity_top_k == 2  # the user's retriever is unchanged
    assert user_bundle.embedding is None  # and so is the user's bundle
    bundles, texts, unembedded = zip(*RecordingRetriever.bundles)
    assert len(bundles) == 4  # two variants, two searches (depth 1, then 6)
    assert len({id(b) for b in bundles}) == len(bundles) and all(unembedded)  # a new, un-embedded bundle for every call
    assert {t.rsplit(".", 2)[-2].strip() for t in texts} == {"This person is a woman", "This person is a man"}
    # variants really were embedded separately: a node found by both scores differently under each
    strategy = Interleaved()
    DebiasedRetriever(wrapped, strategy=strategy, similarity_top_k=6).retrieve(query())
    female, male = strategy.rankings
    shared = set(female.keys) & set(male.keys)
    assert shared and all(female.score_of(key) != male.score_of(key) for key in shared)


class FixedRetriever(BaseRetriever):
    """A retriever without a top-k setting: always the same scored nodes (scores flipped for the male variant)."""

    def __init__(self, scored: list[tuple[str, float | None]]) -> None:
        super().__init__()
        self.scored = scored

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        items = [NodeWithScore(node=TextNode(id_=i, text=f"text {i}"), score=s) for i, s in self.scored]
        if query_bundle.query_str.endswith("is a man."):
            items = [NodeWithScore(node=n.node, score=None if n.score is None else 1 - n.score) for n in items]
        return sorted(items, key=lambda n: -(n.score or 0))


def test_fixed_depth_retriever_is_reranked_within_its_results() -> None:
    fixed = FixedRetriever([("a", 0.9), ("b", 0.6), ("c", 0.2)])
    nodes = DebiasedRetriever(fixed, strategy=Interleaved(), similarity_top_k=5).retrieve("who leads?")
    assert [(n.node.node_id, n.node.metadata["variant"]) for n in nodes] == [
        ("a", "female"),
        ("c", "male"),
        ("b", "female"),
    ]
    assert [n.score for n in nodes] == pytest.approx([0.9, 0.8, 0.6])
    # balanced searches the plain query once; the fixed results are all it gets (fewer than k)
    plain = DebiasedRetriever(fixed, strategy="balanced", similarity_top_k=5).retrieve("who leads?")
    assert [(n.node.node_id, n.node.metadata["variant"]) for n in plain] == [
        ("a", "neutral"),
        ("b", "neutral"),
        ("c", "neutral"),
    ]


def test_distance_scores_with_lower_direction() -> None:
    fixed = FixedRetriever([("near", 0.1), ("far", 0.9)])  # 'female' ranking: distances
    nodes = DebiasedRetriever(fixed, strategy="topk", similarity_top_k=2, score_direction="lower").retrieve("q")
    assert [n.node.node_id for n in nodes] == ["near", "far"] and [n.score for n in nodes] == [-0.1, -0.9]


@pytest.mark.asyncio
@pytest.mark.parametrize("strategy", ALL)
async def test_async_matches_sync(strategy: str) -> None:
    _, index = toy()
    retriever = DebiasedRetriever(index, strategy=strategy, similarity_top_k=5)
    sync = [(n.node.node_id, n.node.metadata["variant"]) for n in retriever.retrieve(query())]
    assert [(n.node.node_id, n.node.metadata["variant"]) for n in await retriever.aretrieve(query())] == sync


class BarrierRetriever(BaseRetriever):
    """Async retrieval that waits until both variants have started: passes only if they run concurrently."""

    def __init__(self, inner: BaseRetriever) -> None:
        super().__init__()
        self.inner, self.arrived, self.sync_calls = inner, 0, 0
        self.all_in: asyncio.Event | None = None

    def _retrieve(self, query_bundle: QueryBundle):
        self.sync_calls += 1
        return self.inner.retrieve(query_bundle)

    async def _aretrieve(self, query_bundle: QueryBundle):
        self.all_in = self.all_in or asyncio.Event()
        self.arrived += 1
        if self.arrived % 2 == 0:
            self.all_in.set()
        await asyncio.wait_for(self.all_in.wait(), timeout=5)
        return await self.inner.aretrieve(query_bundle)


@pytest.mark.asyncio
async def test_aretrieve_runs_variants_concurrently() -> None:
    _, index = toy()
    barrier = BarrierRetriever(index.as_retriever(similarity_top_k=6))
    # a two-variant strategy: both variants must be in flight at once for the barrier to open
    nodes = await DebiasedRetriever(barrier, strategy=Interleaved(), similarity_top_k=4).aretrieve(query())
    assert len(nodes) == 4 and barrier.sync_calls == 0 and barrier.arrived == 2


def test_embedding_adapter_matches_the_core_embedder() -> None:
    vectors = minilm().get_text_embedding_batch(["a nurse", "an engineer"])
    core = minilm().embedder.inner.encode(["a nurse", "an engineer"])  # the model itself, not the test cache
    for row, expected in zip(vectors, core.tolist()):
        assert row == pytest.approx(expected, abs=1e-6)
    assert minilm().get_query_embedding("a nurse") == pytest.approx(core[0].tolist(), abs=1e-6)
