"""DebiasedRetriever over InMemoryVectorStore, debiasrag's FaissIndex and a distance-returning FAISS store."""

from __future__ import annotations

import asyncio
import functools
import json
from collections import Counter
from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_debiasrag import DebiasedRetriever
from lc_support import Interleave, L2FaissStore, faiss_index, gendered_corpus, in_memory_store, minilm

from debiasrag import STRATEGIES

ALL = list(STRATEGIES)


@functools.cache
def memory_store() -> InMemoryVectorStore:
    return in_memory_store(gendered_corpus()[1])


@functools.cache
def l2_store(relevance: bool) -> L2FaissStore:
    _, docs = gendered_corpus()
    store = L2FaissStore(minilm(), relevance=relevance)
    store.add_texts([d.page_content for d in docs], [d.metadata for d in docs], ids=[d.id for d in docs])
    return store


@functools.cache
def index():
    return faiss_index(gendered_corpus()[1])


QUERY = gendered_corpus()[0]


def summary(docs) -> list[tuple[str, str, int]]:
    return [(d.id, d.metadata["variant"], d.metadata["rank"]) for d in docs]


@pytest.mark.parametrize("strategy", ALL)
def test_metadata_and_ranks(strategy: str) -> None:
    docs = DebiasedRetriever(memory_store(), strategy=strategy, k=4).invoke(QUERY)
    assert [d.metadata["rank"] for d in docs] == list(range(1, len(docs) + 1))
    # balanced / dynamic search once with the plain query; paper once per concept variant.
    expected_variants = {"context": {"debiased"}, "paper": {"female", "male"}}.get(strategy, {"neutral"})
    assert {d.metadata["variant"] for d in docs} <= expected_variants
    assert all(isinstance(d.metadata["score"], float) and -1.0 <= d.metadata["score"] <= 1.0 for d in docs)
    assert all(d.metadata["gender"] in ("female", "male", "none") for d in docs)  # original metadata kept
    scores = [d.metadata["score"] for d in docs]
    assert scores == sorted(scores, reverse=True)  # every strategy reports its picks best first
    if strategy in ("balanced", "dynamic"):  # they report each document's inferred group (debiasrag.groups)
        assert [d.metadata["debiasrag_group"] for d in docs] == [d.metadata["gender"] for d in docs]
    else:
        assert all("debiasrag_group" not in d.metadata for d in docs)


def test_store_documents_are_not_mutated() -> None:
    DebiasedRetriever(memory_store(), strategy="topk", k=3).invoke(QUERY)
    stored = memory_store().get_by_ids(["t0-female"])[0]
    assert set(stored.metadata) == {"gender", "topic"}


@pytest.mark.parametrize("strategy", ALL)
def test_in_memory_and_faiss_index_agree(strategy: str) -> None:
    """Both backends score by cosine on the same vectors: same documents, same order, same scores."""
    memory = DebiasedRetriever(memory_store(), strategy=strategy, k=5).invoke(QUERY)
    faiss = DebiasedRetriever(index(), embedder=minilm(), strategy=strategy, k=5).invoke(QUERY)
    assert summary(memory) == summary(faiss)
    assert [d.metadata["score"] for d in memory] == pytest.approx([d.metadata["score"] for d in faiss], abs=1e-5)


@pytest.mark.parametrize("relevance", [True, False], ids=["store-relevance-fn", "negated-distance"])
@pytest.mark.parametrize("strategy", ALL)
def test_distance_store_is_detected_and_normalised(strategy: str, relevance: bool) -> None:
    """Squared-L2 distances (lower = closer) give the same picks as cosine similarities once normalised."""
    memory = DebiasedRetriever(memory_store(), strategy=strategy, k=5).invoke(QUERY)
    retriever = DebiasedRetriever(l2_store(relevance), strategy=strategy, k=5)
    distance = retriever.invoke(QUERY)
    assert retriever._known_direction() == "lower"
    assert summary(distance) == summary(memory)
    if relevance:  # the store's own mapping 1 - d/2 is exactly cosine for unit vectors
        assert [d.metadata["score"] for d in distance] == pytest.approx([d.metadata["score"] for d in memory], abs=1e-5)
    else:  # negated squared L2 = 2·cos - 2
        assert [d.metadata["score"] for d in distance] == pytest.approx(
            [2 * d.metadata["score"] - 2 for d in memory], abs=1e-5
        )


def test_wrong_direction_would_return_the_least_similar() -> None:
    """Why direction matters: reading distances as similarities ranks the store's five nearest backwards."""
    right = DebiasedRetriever(l2_store(True), strategy="topk", k=5).invoke(QUERY)
    wrong = DebiasedRetriever(
        l2_store(True), strategy="topk", k=5, score_direction="higher", relevance_fn=lambda d: d
    ).invoke(QUERY)
    assert [d.id for d in wrong] == [d.id for d in right][::-1]


def test_k_at_construction_and_per_call() -> None:
    retriever = DebiasedRetriever(memory_store(), strategy="balanced", k=2)
    assert len(retriever.invoke(QUERY)) == 2
    assert len(retriever.invoke(QUERY, k=6)) == 6
    assert [d.metadata["variant"] for d in retriever.invoke(QUERY, k=3, strategy="topk")] == ["neutral"] * 3


def test_dynamic_k_is_a_cap() -> None:
    """Uncapped, dynamic keeps the ten engineer chunks and stops before the distractors (fewer than k=15);
    so in the standard suite (k = 1, 3) it is the cap that decides the count. Within a cap it still balances
    the groups: plain top-3 is three "he" chunks, dynamic's 3 are drawn from the same ten, 2 he + 1 she."""
    retriever = DebiasedRetriever(memory_store(), strategy="dynamic", k=15)
    docs = retriever.invoke(QUERY)
    assert len(docs) == 10 and {d.metadata["topic"] for d in docs} == {"eng"}
    assert Counter(d.metadata["debiasrag_group"] for d in docs) == {"female": 5, "male": 5}
    capped = retriever.invoke(QUERY, k=3)
    assert len(capped) == 3 and {d.id for d in capped} <= {d.id for d in docs}
    assert Counter(d.metadata["debiasrag_group"] for d in capped) == {"male": 2, "female": 1}
    plain = DebiasedRetriever(memory_store(), strategy="topk", k=3).invoke(QUERY)
    assert [d.metadata["gender"] for d in plain] == ["male"] * 3


@pytest.mark.asyncio
@pytest.mark.parametrize("strategy", ALL)
async def test_async_matches_sync(strategy: str) -> None:
    for retriever in (
        DebiasedRetriever(memory_store(), strategy=strategy, k=4),
        DebiasedRetriever(index(), embedder=minilm(), strategy=strategy, k=4),
    ):
        assert summary(await retriever.ainvoke(QUERY)) == summary(retriever.invoke(QUERY))


class BarrierStore(InMemoryVectorStore):
    """Async search waits until every variant's search has started: passes only if they run concurrently."""

    def __init__(self, parties: int) -> None:
        super().__init__(minilm())
        self.parties, self.arrived, self.sync_calls = parties, 0, 0
        self.all_in: asyncio.Event | None = None

    def similarity_search_with_score(self, query: str, k: int = 4, **kwargs: Any):
        self.sync_calls += 1
        return super().similarity_search_with_score(query, k, **kwargs)

    async def asimilarity_search_with_score(self, query: str, k: int = 4, **kwargs: Any):
        self.all_in = self.all_in or asyncio.Event()
        self.arrived += 1
        if self.arrived % self.parties == 0:
            self.all_in.set()
        await asyncio.wait_for(self.all_in.wait(), timeout=5)
        return await super().asimilarity_search_with_score(query, k, **kwargs)


@pytest.mark.asyncio
async def test_async_runs_variants_concurrently_on_the_async_api() -> None:
    store = BarrierStore(parties=2)
    store.add_documents(gendered_corpus()[1])
    docs = await DebiasedRetriever(store, strategy=Interleave(), k=4).ainvoke(QUERY)  # two variants, one pass
    assert len(docs) == 4 and {d.metadata["variant"] for d in docs} == {"female", "male"}
    assert store.arrived == 2
    assert store.sync_calls == 0  # the async path used the store's async search, not an executor hop


class Recorder(BaseCallbackHandler):
    def __init__(self) -> None:
        self.retriever_runs: list[UUID] = []
        self.children: list[tuple[str, UUID | None]] = []

    def on_retriever_start(self, serialized, query, *, run_id, parent_run_id=None, **kwargs):
        self.retriever_runs.append(run_id)

    def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, **kwargs):
        self.children.append((kwargs.get("name") or "", parent_run_id))


def assert_variant_children(recorder: Recorder) -> None:
    (run_id,) = recorder.retriever_runs
    assert sorted(recorder.children) == [("debiasrag_search[female]", run_id), ("debiasrag_search[male]", run_id)]


def test_child_callbacks_are_passed_down() -> None:
    recorder = Recorder()
    DebiasedRetriever(memory_store(), strategy=Interleave(), k=2).invoke(QUERY, {"callbacks": [recorder]})
    assert_variant_children(recorder)

    recorder = Recorder()  # balanced searches once, with the plain query: one child run
    DebiasedRetriever(memory_store(), strategy="balanced", k=2).invoke(QUERY, {"callbacks": [recorder]})
    assert recorder.children == [("debiasrag_search[neutral]", recorder.retriever_runs[0])]

    recorder = Recorder()
    DebiasedRetriever(index(), embedder=minilm(), k=2).invoke(QUERY, {"callbacks": [recorder]})
    assert recorder.children == [("debiasrag_faiss_search", recorder.retriever_runs[0])]


@pytest.mark.asyncio
async def test_child_callbacks_are_passed_down_async() -> None:
    recorder = Recorder()
    await DebiasedRetriever(memory_store(), strategy=Interleave(), k=2).ainvoke(QUERY, {"callbacks": [recorder]})
    assert_variant_children(recorder)


def test_search_kwargs_reach_the_store() -> None:
    def only_female(doc):
        return doc.metadata["gender"] == "female"

    retriever = DebiasedRetriever(memory_store(), strategy="balanced", k=4, search_kwargs={"filter": only_female})
    docs = retriever.invoke(QUERY)
    assert [d.metadata["gender"] for d in docs] == ["female"] * 4
    docs = DebiasedRetriever(memory_store(), strategy="balanced", k=4).invoke(QUERY, filter=only_female)
    assert [d.metadata["gender"] for d in docs] == ["female"] * 4


def test_query_transform_is_applied_first() -> None:
    seen: list[str] = []

    def transform(query: str) -> str:
        seen.append(query)
        return "Who is the engineer that builds the backend systems?"

    docs = DebiasedRetriever(memory_store(), strategy="topk", k=3, query_transform=transform).invoke("Kim, an engineer")
    assert seen == ["Kim, an engineer"]
    assert summary(docs) == summary(DebiasedRetriever(memory_store(), strategy="topk", k=3).invoke(QUERY))


def test_embeddings_adapter_matches_the_core_embedder() -> None:
    core = minilm().embedder.inner.encode(["a nurse", "an engineer"])  # the model itself, not the test cache
    for row, expected in zip(minilm().embed_documents(["a nurse", "an engineer"]), core.tolist()):
        assert row == pytest.approx(expected, abs=1e-6)
    assert minilm().embed_query("a nurse") == pytest.approx(core[0].tolist(), abs=1e-6)


def test_user_group_labels_override_inference() -> None:
    """A ``debiasrag_group`` metadata label wins over the text: labelled all neutral, balanced is plain top-k."""
    _, docs = gendered_corpus()
    labelled = in_memory_store(
        [d.model_copy(update={"metadata": {**d.metadata, "debiasrag_group": "neutral"}}) for d in docs]
    )
    balanced = DebiasedRetriever(labelled, strategy="balanced", k=4).invoke(QUERY)
    plain = DebiasedRetriever(labelled, strategy="topk", k=4).invoke(QUERY)
    assert [d.id for d in balanced] == [d.id for d in plain]
    assert [d.metadata["debiasrag_group"] for d in balanced] == ["neutral"] * 4
    inferred = DebiasedRetriever(memory_store(), strategy="balanced", k=4).invoke(QUERY)
    assert [d.id for d in inferred] != [d.id for d in plain]  # without labels the text's groups are balanced


def test_an_anonymized_faiss_index_anonymizes_queries_as_the_cli_does(tmp_path) -> None:
    import json

    from debiasrag import FaissIndex
    from debiasrag.cli import main

    texts = {
        "a": "Maria Lopez works night shifts as a nurse.",
        "b": "James Okafor performs heart surgery at the hospital.",
        "c": "Maria Lopez bakes bread every morning.",
        "d": "A recipe for apple pie needs cinnamon.",
    }
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in texts.items()), encoding="utf-8")
    assert main(["index", str(corpus), "--out", str(tmp_path / "ix"), "--anonymize", "ner"]) == 0
    index = FaissIndex.load(tmp_path / "ix", embedder=minilm().embedder)
    query = "What does Maria Lopez do?"
    docs = DebiasedRetriever(vectorstore=index, embedder=minilm(), strategy="topk", k=4).invoke(query)
    assert docs[0].id == "a"  # with the names left in the query, b came first (names pull by gender and origin)
    off = DebiasedRetriever(vectorstore=index, embedder=minilm(), strategy="topk", k=4, query_transform=None)
    assert off.invoke(query)[0].id == "b"  # None turns it off, as in the core retriever
    seen: list[str] = []

    def mine(text: str) -> str:  # a user's own transform replaces the recorded one: applied once, nothing after it
        seen.append(text)
        return "Instruct: find the documents about Lopez\nQuery: " + text

    mine_docs = DebiasedRetriever(vectorstore=index, embedder=minilm(), strategy="topk", k=4, query_transform=mine)
    assert mine_docs.invoke(query) and seen == [query]
    assert mine_docs._core is not None and mine_docs._core.query_transform is mine  # no recorded NER after it


def test_balanced_over_a_gender_blind_faiss_index_takes_the_core_retrievers_bound(tmp_path) -> None:
    # the wrapper resolved "balanced" itself and ran the plain index's 2 sigma, not the blind index's 0.5 sigma
    # (BLIND_INDEX_DELTA): another document than the library and the CLI for the same index (red-team, session 34)
    from debiasrag import BLIND_INDEX_DELTA, FaissIndex
    from debiasrag import DebiasedRetriever as CoreRetriever
    from debiasrag.cli import main

    _, docs = gendered_corpus()
    corpus = tmp_path / "c.jsonl"
    rows = [{"id": d.id, "text": d.page_content} for d in docs]
    corpus.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    assert main(["index", str(corpus), "--out", str(tmp_path / "ix"), "--neutralize", "table"]) == 0
    index = FaissIndex.load(tmp_path / "ix", embedder=minilm().embedder)
    wrapped = DebiasedRetriever(vectorstore=index, embedder=minilm(), strategy="balanced", k=3)
    assert wrapped._core is not None and wrapped._core.strategy.delta == BLIND_INDEX_DELTA
    per_call = DebiasedRetriever(vectorstore=index, embedder=minilm(), strategy="topk", k=3)
    core = CoreRetriever(index, minilm().embedder, strategy="balanced")
    for query in ("Who repairs the engines?", "nurse on night shifts", "Who writes the code?"):
        expected = [hit.id for hit in core.retrieve(query, k=3)]
        assert [d.metadata["debiasrag_id"] for d in wrapped.invoke(query)] == expected
        assert [d.metadata["debiasrag_id"] for d in per_call.invoke(query, strategy="balanced")] == expected


def test_changing_a_setting_over_a_faiss_index_keeps_the_loaded_embedding_model() -> None:
    # each assignment built the retriever again and loaded the index's model again (seconds per change)
    _, docs = gendered_corpus()
    index = faiss_index(docs)
    retriever = DebiasedRetriever(vectorstore=index, strategy="topk", k=3)  # the model named by the index
    assert retriever._core is not None
    loaded = retriever._core.embedder
    retriever.strategy = "balanced"
    assert retriever._core.embedder is loaded and retriever._core.strategy.name == "balanced"
    assert retriever.embedder is None and "embedder" not in retriever.model_fields_set  # as the caller left it
    copy = retriever.model_copy(update={"k": 2})
    assert copy._core is not None and copy._core.embedder is loaded and copy.k == 2
    from debiasrag import DebiasedRetriever as CoreRetriever

    core = CoreRetriever(index, loaded, strategy="balanced", k=3)  # what a fresh build gives, without a second load
    query = "Who repairs the engines?"
    assert [d.id for d in retriever.invoke(query)] == [str(hit.id) for hit in core.retrieve(query)]
    retriever.embedder = minilm()  # a new embedder setting is taken as given
    assert retriever._core.embedder is minilm().embedder


@pytest.mark.parametrize("strategy", ["balanced", "dynamic"])
def test_a_version_the_query_names_stays(strategy: str) -> None:
    """A new user's red team (session 45): "Linda Okafor promotion" at k = 2 lost Linda's text (0.70) for Michael's
    version of it (0.17), swapped as if it traded no relevance; the wrapper hands the query to the strategy."""
    from langchain_core.documents import Document

    texts = {
        "p1": "Linda Okafor was promoted to engineering manager after leading the payments migration; she now "
        "manages twelve people.",
        "p2": "Michael Brown was promoted to engineering manager after leading the payments migration; he now "
        "manages twelve people.",
        "p3": "Priya Nair, our senior accountant, reminds everyone that she rejects expense claims without receipts.",
        "p4": "The cafeteria on the ground floor serves breakfast from 7:30 and lunch from 11:45 to 14:00.",
    }
    store = in_memory_store(Document(page_content=text, id=key) for key, text in texts.items())
    docs = DebiasedRetriever(store, strategy=strategy, k=2).invoke("Linda Okafor promotion")
    assert docs[0].id == "p1"
