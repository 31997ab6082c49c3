"""Strategies on real MiniLM embeddings (the toy task and our gendered set) and on hand-made rankings."""

from __future__ import annotations

import numpy as np
import pytest

from debiasrag import DebiasedRetriever, DynamicCutoff, FaissIndex, InputError, Ranking, load_concept
from debiasrag.datasets import load_gendered_topics, load_toy_task, toy_data
from debiasrag.strategies import Balanced, Dynamic, PaperAlgorithm, get_strategy, run_strategy


@pytest.fixture(scope="module")
def toy_task():
    return load_toy_task()


@pytest.fixture(scope="module")
def toy_retriever(embedder, toy_index, toy_task):
    return DebiasedRetriever(toy_index, embedder, concept=toy_task.concept)


def relevant_count(result, task) -> int:
    return sum(hit.id in task.relevant["army"] for hit in result)


def test_topk_is_plain_neutral_search(toy_retriever, toy_task, embedder, toy_index):
    result = toy_retriever.retrieve(toy_task.queries["army"], strategy="topk", k=10)
    scores = toy_index.vectors_at(np.arange(20)) @ embedder.encode([toy_task.queries["army"]])[0]
    expected = [toy_index.ids[i] for i in np.argsort(-scores)[:10]]
    assert result.ids == expected
    assert {hit.variant for hit in result} == {"neutral"}
    assert [hit.rank for hit in result] == list(range(1, 11))
    assert all(a.score >= b.score for a, b in zip(result.hits, result.hits[1:]))
    # MiniLM misses 5 of the 15 relevant chunks with plain top-10 (the measurement).
    assert relevant_count(result, toy_task) == 10


def test_context_injects_debiasing_sentence(toy_retriever, toy_task):
    result = toy_retriever.retrieve(toy_task.queries["army"], strategy="context", k=10)
    assert result.variants == {"debiased": toy_data()["queries"]["debiasing"]}  # seed 000 Table 11
    assert {hit.variant for hit in result} == {"debiased"}
    assert len(result) == 10


def test_paper_matches_brute_force_worked_example_reading(toy_retriever, toy_task, embedder, toy_index):
    variants = toy_task.concept.variant_queries(toy_task.queries["army"])
    female, male = embedder.encode([t for _, t in variants])
    doc_vectors = toy_index.vectors_at(np.arange(len(toy_index)))
    for k in (3, 5, 10):
        first = np.argsort(-(doc_vectors @ female))[:k]
        threshold = (doc_vectors @ male)[first].min()
        expected = {toy_index.ids[i] for i in np.where(doc_vectors @ male >= threshold - 1e-6)[0]}
        result = toy_retriever.retrieve(toy_task.queries["army"], strategy="paper", k=k)
        assert set(result.ids) == expected
        assert result.m == len(expected)
        assert {hit.variant for hit in result} == {"male"}
    # Measured with MiniLM: 13 of 15 relevant, no random chunk (the paper reports 15/15 with UAE-Large-V1).
    result = toy_retriever.retrieve(toy_task.queries["army"], strategy="paper", k=10)
    assert (result.m, relevant_count(result, toy_task)) == (13, 13)


def test_paper_on_hand_made_rankings_needs_deeper_search():
    first = Ranking("female", ["a", "b", "c"], [0.9, 0.8, 0.7])
    second = Ranking("male", ["b", "x"], [0.95, 0.6])
    # "a" is in S̃ but not yet in the male ranking: the strategy must ask for more depth.
    assert PaperAlgorithm().select([first, second], 2) == 4
    second = Ranking("male", ["b", "x", "a", "y"], [0.95, 0.6, 0.5, 0.4], complete=True)
    picks = PaperAlgorithm().select([first, second], 2)
    assert [p.key for p in picks] == ["b", "x", "a"]  # down to S̃'s lowest chunk by the male score ("a", 0.5)


def test_balanced_interleaves_and_skips_duplicates():
    first = Ranking("female", ["f1", "n1", "f2", "n2"], [0.9, 0.8, 0.7, 0.6])
    second = Ranking("male", ["n1", "m1", "m2", "n2"], [0.85, 0.75, 0.65, 0.55])
    picks = Balanced().select([first, second], 4)
    # female: f1; male: n1; female's next unseen is f2 (n1 taken); male's next is m1.
    assert [(p.key, p.variant) for p in picks] == [("f1", "female"), ("n1", "male"), ("f2", "female"), ("m1", "male")]


def test_balanced_on_toy_gives_each_variant_equal_share(toy_retriever, toy_task):
    result = toy_retriever.retrieve(toy_task.queries["army"], strategy="balanced", k=10)
    variants = [hit.variant for hit in result]
    assert variants.count("female") == variants.count("male") == 5
    assert len(set(result.ids)) == 10


def test_dynamic_finds_all_relevant_and_no_random_on_toy(toy_retriever, toy_task):
    result = toy_retriever.retrieve(toy_task.queries["army"], strategy="dynamic")
    assert set(result.ids) == toy_task.relevant["army"]
    groups = [hit.metadata["group"] for hit in result]
    assert groups.count("female") == groups.count("male") == groups.count("neutral") == 5


@pytest.mark.parametrize("topic", ["nurse", "nanny", "surgeon", "pilot", "hairdresser", "electrician"])
def test_dynamic_generalises_to_other_topics_in_both_stereotype_directions(embedder, topic):
    task = load_gendered_topics()
    docs = [d for d in task.documents if d.metadata["topic"] in (topic, "distractor")]
    retriever = DebiasedRetriever(FaissIndex.from_documents(docs, embedder), embedder)
    result = retriever.retrieve(task.queries[topic], strategy="dynamic")
    assert set(result.ids) == task.relevant[topic]


def test_dynamic_k_is_a_cap(toy_retriever, toy_task):
    result = toy_retriever.retrieve(toy_task.queries["army"], strategy="dynamic", k=4)
    assert len(result) == 4
    assert all(hit.id in toy_task.relevant["army"] for hit in result)


def test_dynamic_cutoff_rule_on_hand_made_scores():
    cut = DynamicCutoff(max_k=100)
    assert cut.cut(np.array([0.7, 0.69, 0.68, 0.2, 0.19, 0.18, 0.17])) == 3
    assert cut.cut(np.array([0.5, 0.5, 0.5, 0.5])) == 4  # nothing separates: keep all
    assert cut.cut(np.array([0.9])) == 1
    assert DynamicCutoff(max_k=2).cut(np.array([0.7, 0.69, 0.68, 0.2])) == 2
    # One outlier at the top does not fool it into keeping a single chunk when a wide group follows.
    scores = np.array([0.9, 0.6, 0.59, 0.58, 0.57, 0.56, 0.55, 0.1, 0.09, 0.08, 0.07, 0.06, 0.05])
    assert cut.cut(scores) == 7


def test_every_variant_embedded_in_one_batch_and_searched_in_one_call(embedder, toy_index, toy_task):
    calls = {"encode": [], "search": 0}

    class CountingEmbedder:
        name, dimension = embedder.name, embedder.dimension

        def encode(self, texts):
            calls["encode"].append(len(texts))
            return embedder.encode(texts)

    class CountingIndex(FaissIndex):
        def search(self, queries, k):
            calls["search"] += 1
            return super().search(queries, k)

    index = CountingIndex(embedder.dimension, model_name=embedder.name)
    index.add(toy_task.documents, toy_index.vectors_at(np.arange(len(toy_index))))
    retriever = DebiasedRetriever(index, CountingEmbedder(), concept=toy_task.concept)
    for strategy in ("balanced", "dynamic"):
        calls["encode"].clear()
        calls["search"] = 0
        retriever.retrieve(toy_task.queries["army"], strategy=strategy)
        assert calls == {"encode": [2], "search": 1}


def test_run_strategy_stops_when_backend_is_exhausted():
    depths = []

    def search(depth):
        depths.append(depth)
        return [Ranking("female", ["a"], [0.9]), Ranking("male", ["b"], [0.8])]

    picks = run_strategy(get_strategy("paper"), search, k=5)
    # "a" never shows up in the male ranking, so the threshold falls to that ranking's floor: all of it.
    assert [p.key for p in picks] == ["b"]
    assert depths == [5, 10]


@pytest.mark.parametrize("bad", ["", "   ", None, 3])
def test_bad_queries_are_rejected(toy_retriever, bad):
    with pytest.raises(InputError):
        toy_retriever.retrieve(bad)


@pytest.mark.parametrize("k", [0, -1, 2.5, True])
def test_bad_k_is_rejected(toy_retriever, k):
    with pytest.raises(InputError, match="k must be a positive integer"):
        toy_retriever.retrieve("army officers", k=k)


def test_unknown_strategy_and_concept(toy_retriever, toy_index, embedder):
    with pytest.raises(InputError, match="unknown strategy 'fair'"):
        toy_retriever.retrieve("army officers", strategy="fair")
    with pytest.raises(InputError, match="unknown concept 'race'"):
        DebiasedRetriever(toy_index, embedder, concept="race")


def test_age_and_wealth_concepts_drive_variants():
    age = load_concept("age")
    assert age.variant_queries("Who leads the team?") == [
        ("old", "Who leads the team? This person is old."),
        ("young", "Who leads the team? This person is young."),
    ]
    assert load_concept("wealth").debiased_query("a tenant") == "a tenant. This person's social status is unknown."
    assert Dynamic(include_neutral=True).variants("q", age)[0] == ("neutral", "q")
