"""Strategies on real MiniLM embeddings (the toy task and our gendered set) and on hand-made rankings."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from debiasrag import DebiasedRetriever, DynamicCutoff, FaissIndex, InputError, Ranking, load_concept
from debiasrag.corpus import Document
from debiasrag.datasets import load_fairness_set, load_gendered_topics, load_toy_task, toy_data
from debiasrag.strategies import (
    Balanced,
    Dynamic,
    GroupOf,
    PaperAlgorithm,
    TextCut,
    balance_swaps,
    get_strategy,
    run_strategy,
)


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


def groups_of(mapping: dict[str, str]) -> GroupOf:
    return GroupOf(("female", "male"), lambda key: mapping.get(key, "neutral"))


def test_a_document_swapped_in_and_out_again_stays_within_delta_of_the_one_first_replaced():
    # neutral_out with odd_delta = delta: F 0.67 -> N 0.54 (within 0.2), then N 0.54 -> M 0.35 (within 0.2 of N):
    # 0.32 below the F it replaced (red-team, session 34); now the second swap must stay within 0.2 of 0.67
    scores = [0.93, 0.86, 0.86, 0.83, 0.82, 0.77, 0.67, 0.67, 0.66, 0.64, 0.58, 0.54, 0.41, 0.35, 0.34, 0.32]
    name = {"F": "female", "M": "male", "N": "neutral"}
    groups = [name[g] for g in "FFMFNFNFMFMNFMFF"]
    picked = balance_swaps(scores, groups, range(10), 0.2, ("female", "male"), odd_delta=0.2, neutral_out=True)
    added = sorted(set(picked) - set(range(10)))
    assert added == [10, 11] and min(scores[i] for i in added) >= 0.67 - 0.2 - 1e-12


def test_balance_swaps_respects_the_relevance_bound():
    scores = [0.9, 0.85, 0.8, 0.7, 0.5]
    groups = ["male", "male", "male", "female", "female"]
    # Top-3 is M M M; the lowest M (0.8) may be swapped for F at 0.7 only when delta >= 0.1.
    assert balance_swaps(scores, groups, [0, 1, 2], 0.11, ("female", "male")) == [0, 1, 3]
    assert balance_swaps(scores, groups, [0, 1, 2], 0.09, ("female", "male")) == [0, 1, 2]
    # Gap of one: only a neutral document can close it; none here, so nothing changes.
    assert balance_swaps(
        scores, ["male", "female", "male", "female", "female"], [0, 1, 2], 1.0, ("female", "male")
    ) == [
        0,
        1,
        2,
    ]
    assert balance_swaps([0.9, 0.8, 0.7], ["male", "female", "neutral"], [0, 1], 1.0, ("female", "male")) == [0, 1]


def test_balanced_swaps_on_hand_made_ranking_and_is_topk_without_groups():
    ranking = Ranking("neutral", ["m1", "m2", "m3", "m4", "f1", "n1"], [0.9, 0.88, 0.86, 0.84, 0.83, 0.5])
    plain = Balanced().select([ranking], 4)
    assert [p.key for p in plain] == ["m1", "m2", "m3", "m4"]
    picks = Balanced(delta=100.0).select(
        [ranking], 4, groups_of({"f1": "female", "m1": "male", "m2": "male", "m3": "male", "m4": "male"})
    )
    # m4 -> f1 (gap 4 -> 2), then m3 -> n1 would be the only option left (no other female): gap 2 -> 1.
    assert [p.key for p in picks] == ["m1", "m2", "f1", "n1"]
    assert [p.group for p in picks] == ["male", "male", "female", "neutral"]
    tight = Balanced(delta=0.0).select([ranking], 4, groups_of({"f1": "female", "m4": "male"}))
    assert [p.key for p in tight] == ["m1", "m2", "m3", "m4"]  # nothing within the bound: top-k kept


def test_the_swap_closing_a_gap_of_one_has_its_own_bound():
    scores, groups = [0.9, 0.8, 0.78, 0.5], ["neutral", "female", "neutral", "neutral"]
    # One female too many: only a neutral document can close it; 0.5 is within delta 1 of 0.8, not within 0.1.
    assert balance_swaps(scores, groups, [0, 1, 2], 1.0, ("female", "male")) == [0, 2, 3]
    assert balance_swaps(scores, groups, [0, 1, 2], 1.0, ("female", "male"), odd_delta=0.1) == [0, 1, 2]
    # A gap of two still uses delta: the lower female goes for the male, then the gap is closed.
    two = ["female", "female", "neutral", "male"]
    assert balance_swaps(scores, two, [0, 1, 2], 1.0, ("female", "male"), odd_delta=0.1) == [0, 2, 3]
    ranking = Ranking("neutral", ["n1", "f1", "n2", "n3"], scores)
    labels = groups_of({"f1": "female"})
    assert [p.key for p in Balanced(delta=100.0, odd_delta=0.0).select([ranking], 3, labels)] == ["n1", "f1", "n2"]
    assert [p.key for p in Balanced(delta=100.0, odd_delta=100.0).select([ranking], 3, labels)] == ["n1", "n2", "n3"]
    assert [p.key for p in Balanced(delta=0.0, odd_delta=100.0).select([ranking], 3, labels)] == ["n1", "f1", "n2"]


def test_balanced_closes_a_gap_of_one_within_a_quarter_sigma_by_default():
    # Session 40: a rewritten neutral wording is no version, so the gap of one is closed by score: 0.25 σ.
    scores = [round(0.9 - 0.02 * i, 2) for i in range(20)]  # σ of the top 20 = 0.115: 0.25 σ = 0.029
    keys = [f"d{i}" for i in range(20)]
    ranking = Ranking("neutral", keys, scores)
    near = groups_of({"d2": "female"})  # d3 (neutral) 0.02 below d2: within 0.25 σ
    assert [p.key for p in Balanced().select([ranking], 3, near)] == ["d0", "d1", "d3"]
    assert [p.key for p in Balanced(odd_delta=0.0).select([ranking], 3, near)] == ["d0", "d1", "d2"]
    far = groups_of({"d2": "female", "d3": "female"})  # the next neutral one, d4, is 0.04 below: 0.35 σ
    assert [p.key for p in Balanced().select([ranking], 3, far)] == ["d0", "d1", "d2"]


def test_prefer_higher_takes_a_new_text_over_a_lower_ranked_version():
    # Session 46's walkthrough: two male documents chosen; m2 (0.316) has its female version f2 at 0.233, while
    # f3, another text, scores 0.314. Version first swaps m2 -> f2; prefer_higher takes f3, the higher document.
    scores = [0.4, 0.316, 0.314, 0.233]
    groups = ["male", "male", "female", "female"]
    versions = [[], [3], [], [1]]
    pair = ("female", "male")
    assert balance_swaps(scores, groups, [0, 1], 1.0, pair, versions) == [0, 3]
    assert balance_swaps(scores, groups, [0, 1], 1.0, pair, versions, prefer_higher=True) == [0, 2]
    # Beyond the bound the rival is no swap at all, so the version is still taken.
    assert balance_swaps(scores, groups, [0, 1], 0.001, pair, versions, prefer_higher=True) == [0, 3]


def test_a_gap_of_one_is_closed_by_a_neutral_document_making_room():
    # One female chosen, no male: the female has no neutral stand-in within the bound, but the chosen neutral
    # text at 0.78 has its male wording among the candidates (0.3): swapping it trades no relevance.
    scores, groups = [0.9, 0.8, 0.78, 0.3, 0.29], ["female", "neutral", "neutral", "male", "neutral"]
    versions = [[], [], [3], [2], []]
    pair = ("female", "male")
    assert balance_swaps(scores, groups, [0, 1, 2], 1.0, pair, versions, odd_delta=0.0) == [0, 1, 2]
    assert balance_swaps(scores, groups, [0, 1, 2], 1.0, pair, versions, odd_delta=0.0, neutral_out=True) == [0, 1, 3]
    # Without versions the male document must score within the bound below the lowest chosen neutral one (0.78).
    assert balance_swaps(scores, groups, [0, 1, 2], 1.0, pair, None, odd_delta=0.5, neutral_out=True) == [0, 1, 3]
    assert balance_swaps(scores, groups, [0, 1, 2], 1.0, pair, None, odd_delta=0.1, neutral_out=True) == [0, 1, 2]
    texts = {"f1": "Her plan won.", "n1": "A plan won.", "n2": "Their child slept.", "m2": "His child slept."}
    ranking = Ranking("neutral", ["f1", "n1", "n2", "m2", "n3"], scores)
    labels = GroupOf(pair, lambda key: dict(zip(ranking.keys, groups))[key], lambda key: texts.get(key, "Rain."))
    assert [p.key for p in Balanced().select([ranking], 3, labels)] == ["f1", "n1", "m2"]
    assert [p.key for p in Balanced(neutral_out=False).select([ranking], 3, labels)] == ["f1", "n1", "n2"]


def test_dynamic_keeps_a_lone_answer_naming_a_person_unless_a_neutral_one_is_within_a_quarter_sigma():
    # Session 41's red team: an FAQ whose only answer names a staff member ("Mrs. Mendes … she") was the window's one
    # gendered document; closing that gap of one within δ = 1 σ swapped it for an unrelated neutral entry 0.4 σ
    # below, at caps 5–10 (not at 4). Since then the gap of one is closed within 0.25 σ, as `balanced` does.
    tail = [round(0.40 - 0.006 * i, 3) for i in range(46)]
    answer = groups_of({"d2": "female"})
    keys = [f"d{i}" for i in range(50)]
    far = Ranking("neutral", keys, [0.60, 0.55, 0.48, 0.44, *tail])  # σ of the top 50 = 0.104: d3 is 0.38 σ below
    assert [p.key for p in Dynamic(text_cut=None).select([far], 10, answer)] == ["d0", "d1", "d2"]
    assert [p.key for p in Dynamic(text_cut=None, odd_delta=1.0).select([far], 10, answer)] == ["d0", "d1", "d3"]
    near = Ranking("neutral", keys, [0.60, 0.55, 0.48, 0.465, *tail])  # d3 0.14 σ below: the gap is closed
    assert [p.key for p in Dynamic(text_cut=None).select([near], 10, answer)] == ["d0", "d1", "d3"]


def test_dynamic_can_take_balanced_parity_versions_first_and_a_neutral_document_out():
    # The same candidates: dynamic's window keeps f1, n1, n2 (cap 3); its bounded swap finds nothing within 1 σ,
    # but n2's male wording m2 is a candidate — a red-team round found dynamic leaving the gap balanced closes.
    scores, groups = [0.9, 0.8, 0.78, 0.3, 0.29], ["female", "neutral", "neutral", "male", "neutral"]
    texts = {"f1": "Her plan won.", "n1": "A plan won.", "n2": "Their child slept.", "m2": "His child slept."}
    ranking = Ranking("neutral", ["f1", "n1", "n2", "m2", "n3"], scores)
    labels = GroupOf(("female", "male"), dict(zip(ranking.keys, groups)).__getitem__, lambda k: texts.get(k, "Rain."))
    # Above small_cap (default 4) the parity is dynamic's own bounded swap; at or below it, balanced's (session 38).
    assert [p.key for p in Dynamic(small_cap=2).select([ranking], 3, labels)] == ["f1", "n1", "n2"]
    assert [p.key for p in Dynamic(small_cap=0).select([ranking], 3, labels)] == ["f1", "n1", "n2"]
    assert [p.key for p in Dynamic().select([ranking], 3, labels)] == ["f1", "n1", "m2"]
    both = Dynamic(versions_first=True, neutral_out=True, odd_delta=0.0, small_cap=0)
    assert [p.key for p in both.select([ranking], 3, labels)] == ["f1", "n1", "m2"]
    with pytest.raises(InputError, match="odd_delta"):
        Dynamic(odd_delta=-1.0)
    with pytest.raises(InputError, match="small_cap"):
        Dynamic(small_cap=-1)


def test_neutral_out_at_an_even_gap_comes_after_the_swap_closing_two():
    # Two male documents too many: the bounded male -> female swap closes both; a neutral document giving way to
    # its female wording first would close one and leave a gap of one no bound allows closing (red-team, session 32).
    scores, groups = [0.90, 0.85, 0.80, 0.75, 0.50], ["male", "male", "neutral", "female", "female"]
    versions = [[], [], [4], [], [2]]
    chosen = balance_swaps(scores, groups, [0, 1, 2], 0.3, ("female", "male"), versions, 0.0, neutral_out=True)
    assert chosen == [0, 2, 3]


def test_balance_swaps_takes_a_chosen_documents_own_version_first():
    scores = [0.9, 0.85, 0.8, 0.75, 0.3]
    groups = ["male", "male", "male", "female", "female"]
    versions = [[4], [], [], [], [0]]  # candidate 4 is candidate 0's text in its female wording
    # Bounded swaps: the lowest male (0.8) for the best female within 0.11 (0.75, another text).
    assert balance_swaps(scores, groups, [0, 1, 2], 0.11, ("female", "male")) == [0, 1, 3]
    # Version first: candidate 0 for its own female wording, at any score; then no neutral to close a gap of one.
    assert balance_swaps(scores, groups, [0, 1, 2], 0.11, ("female", "male"), versions) == [1, 2, 4]
    # Without a version in the wanted group the bounded swap runs as before.
    assert balance_swaps(scores, groups, [0, 1, 2], 0.11, ("female", "male"), [[], [], [], [], []]) == [0, 1, 3]


def test_balanced_swaps_for_a_version_of_a_chosen_text_when_the_store_gives_texts():
    texts = {
        "aM": "Omar keeps the bees at the school garden and checks his hives every Monday morning.",
        "aN": "Robin keeps the bees at the school garden and checks their hives every Monday morning.",
        "bM": "Leo repairs old clocks in a small shop near the station and sells his work online.",
        "bF": "Mia repairs old clocks in a small shop near the station and sells her work online.",
        "xF": "Sara trains guide dogs on weekday afternoons at the centre by the river.",
        "c": "The ferry timetable changes in October when the winter schedule begins.",
    }
    groups = {"aM": "male", "bM": "male", "aN": "neutral", "bF": "female", "xF": "female", "c": "neutral"}
    ranking = Ranking("neutral", ["aM", "bM", "aN", "xF", "bF", "c"], [0.9, 0.85, 0.8, 0.78, 0.6, 0.2])
    with_texts = GroupOf(("female", "male"), groups.__getitem__, texts.__getitem__)
    # Top 3 holds two men: bM is swapped for bF, its own text in the female wording, not for xF (another text).
    assert [p.key for p in Balanced().select([ranking], 3, with_texts)] == ["aM", "aN", "bF"]
    assert [p.key for p in Balanced(versions_first=False).select([ranking], 3, with_texts)] == ["aM", "aN", "xF"]
    without_texts = GroupOf(("female", "male"), groups.__getitem__)
    assert [p.key for p in Balanced().select([ranking], 3, without_texts)] == ["aM", "aN", "xF"]


@pytest.fixture(scope="module")
def holdout(embedder):
    task = load_fairness_set("holdout")
    return task, DebiasedRetriever(FaissIndex.from_documents(task.documents, embedder), embedder)


def measure(task, retriever, strategy, k):
    gold = {d.id: d.metadata["group"] for d in task.documents}
    rows = []
    for name, query in task.queries.items():
        result = retriever.retrieve(query, strategy=strategy, k=k)
        hits = sum(h.id in task.relevant[name] for h in result)
        recall, precision = hits / len(task.relevant[name]), hits / max(len(result), 1)
        f1 = 2 * recall * precision / (recall + precision) if hits else 0.0
        counts = [gold[h.id] for h in result]
        rows.append((recall, f1, abs(counts.count("female") - counts.count("male"))))
    return np.array(rows).mean(0)


@pytest.mark.parametrize("k, limit", [(6, 0.15), (10, 0.25)])
def test_balanced_balances_document_groups_on_held_out_set_at_topk_recall(holdout, k, limit):
    task, retriever = holdout
    recall, _, gap = measure(task, retriever, "balanced", k)
    topk_recall, _, topk_gap = measure(task, retriever, "topk", k)
    assert recall >= topk_recall - 0.01
    assert gap <= limit
    assert gap < topk_gap  # measured with MiniLM: k=6 0.12 -> 0.08, k=10 0.62 -> 0.17
    result = retriever.retrieve(next(iter(task.queries.values())), strategy="balanced", k=k)
    assert result.balanced_groups == ("female", "male")
    assert all(hit.group in ("female", "male", "neutral") for hit in result)


def test_dynamic_on_held_out_set_meets_f1_and_parity_targets(holdout):
    task, retriever = holdout
    _, f1, gap = measure(task, retriever, "dynamic", 10)
    # benchmarks/dynamic_k_design.py (MiniLM, rule chosen without this set): F1 0.880, |#F - #M| 0.04.
    assert f1 >= 0.85
    assert gap <= 0.20


def test_dynamic_with_versions_answers_with_every_wording_of_the_best_text(holdout):
    # benchmarks/dynamic_versions.py: MiniLM-L6 on this set 0.944 (versions) vs 0.880 (default); a narrow-topic rule
    task, retriever = holdout
    _, f1, gap = measure(task, retriever, Dynamic(versions=True), 10)
    _, default_f1, _ = measure(task, retriever, "dynamic", 10)
    assert f1 >= 0.92 and f1 > default_f1 + 0.03
    assert gap <= 0.10


def test_dynamic_with_versions_on_hand_made_ranking():
    texts = {
        "aF": "Dana keeps the bees at the school garden and checks her hives every Monday morning.",
        "aM": "Omar keeps the bees at the school garden and checks his hives every Monday morning.",
        "aN": "Robin keeps the bees at the school garden and checks their hives every Monday morning.",
        "bF": "Mia repairs old clocks in a small shop near the station and sells her work online.",
        "bM": "Leo repairs old clocks in a small shop near the station and sells his work online.",
        "c": "The ferry timetable changes in October when the winter schedule begins.",
    }
    groups = {"aF": "female", "bF": "female", "aM": "male", "bM": "male", "aN": "neutral", "c": "neutral"}
    ranking = Ranking("neutral", ["aF", "bF", "aM", "bM", "aN", "c"], [0.9, 0.8, 0.79, 0.78, 0.77, 0.2], complete=True)
    with_texts = GroupOf(("female", "male"), groups.__getitem__, texts.__getitem__)
    # texts a (0.90), b (0.80), c (0.20); sigma 0.24: the window over texts 0.9 - 0.06 holds a only
    assert [p.key for p in Dynamic(versions=True).select([ranking], 10, with_texts)] == ["aF", "aM", "aN"]
    assert [p.key for p in Dynamic(versions=True).select([ranking], 2, with_texts)] == ["aF", "aM"]  # k is a cap
    by_documents = [p.key for p in Dynamic(text_cut=None).select([ranking], 10, with_texts)]
    assert by_documents == ["aF", "bF", "aM", "bM", "aN"]  # the window over documents: 0.9 - 1.25 sigma
    without_texts = GroupOf(("female", "male"), groups.__getitem__)
    assert [p.key for p in Dynamic(versions=True).select([ranking], 10, without_texts)] == by_documents
    unrelated = dict(zip(texts, ["Bees.", "Clocks and watches.", "A ferry.", "Winter.", "Gardens in May.", "Trains."]))
    no_versions = GroupOf(("female", "male"), groups.__getitem__, unrelated.__getitem__)
    assert [p.key for p in Dynamic(versions=True).select([ranking], 10, no_versions)] == by_documents


BEES = {
    "aF": "Dana keeps the bees at the school garden and checks her hives every Monday morning.",
    "aM": "Omar keeps the bees at the school garden and checks his hives every Monday morning.",
    "aN": "Robin keeps the bees at the school garden and checks their hives every Monday morning.",
    "bF": "Mia repairs old clocks in a small shop near the station and sells her work online.",
    "bM": "Leo repairs old clocks in a small shop near the station and sells his work online.",
    **{
        f"f{i}": text
        for i, text in enumerate(
            [
                "Rain is expected over the hills tonight.",
                "The museum reopens its map room in spring.",
                "Green tea should steep for two minutes.",
                "Snow closed the pass for a week.",
                "Cargo bikes need wider parking racks.",
                "The river rose after the storm.",
            ]
        )
    },
}
BEES_GROUPS = GroupOf(
    ("female", "male"),
    lambda key: {"F": "female", "M": "male"}.get(key[-1], "neutral"),
    BEES.__getitem__,
)


def test_dynamic_counts_texts_where_the_candidates_hold_versions():
    # the neutral wording of the best text ranks far below (a rephrasing, say): counting texts returns it too
    keys = ["aF", "aM", "f0", "f1", "bF", "bM", "aN"]
    ranking = Ranking("neutral", keys, [0.9, 0.85, 0.6, 0.58, 0.55, 0.52, 0.3], complete=True)
    assert [p.key for p in Dynamic().select([ranking], 10, BEES_GROUPS)] == ["aF", "aM", "aN"]
    assert [p.key for p in Dynamic(text_cut=None).select([ranking], 10, BEES_GROUPS)] == ["aF", "aM"]
    # inside the window over texts, a drop of at least gamma sigma ends it: text b (0.76) is 0.14 below a, sigma 0.12
    keys = ["aF", "aM", "bF", "bM", "f0", "f1", "f2", "f3", "f4", "f5"]
    scores = [0.9, 0.89, 0.76, 0.75, 0.62, 0.61, 0.6, 0.59, 0.58, 0.57]
    ranking = Ranking("neutral", keys, scores, complete=True)
    assert [p.key for p in Dynamic().select([ranking], 10, BEES_GROUPS)] == ["aF", "aM"]
    whole = Dynamic(text_cut=TextCut(gamma=None)).select([ranking], 10, BEES_GROUPS)
    assert [p.key for p in whole] == ["aF", "aM", "bF", "bM"]
    with pytest.raises(InputError, match="text_cut must be a TextCut or None, got float"):
        Dynamic(text_cut=1.0)  # type: ignore[arg-type]
    with pytest.raises(InputError):
        TextCut(tau=-1.0)


def test_dynamic_is_adaptive_on_held_out_queries(holdout):
    # 144 documents: a typical query needs one shallow store call (depth 50), never the whole corpus.
    task, retriever = holdout
    index = retriever.index
    depths: list[list[int]] = []
    real_search = index.search

    def counting(vectors, depth):
        depths[-1].append(depth)
        return real_search(vectors, depth)

    index.search = counting
    try:
        for query in task.queries.values():
            depths.append([])
            retriever.retrieve(query, strategy="dynamic", k=10)
    finally:
        del index.search  # back to the class method
    assert all(len(calls) <= 2 for calls in depths)
    assert np.mean([len(calls) for calls in depths]) <= 1.2  # measured 1.00
    assert all(calls[0] == 50 < len(index) for calls in depths)


def test_dynamic_on_toy_returns_only_relevant_chunks_with_parity(toy_retriever, toy_task):
    result = toy_retriever.retrieve(toy_task.queries["army"], strategy="dynamic", k=100)  # a cap above 15
    assert all(hit.id in toy_task.relevant["army"] for hit in result)
    groups = [hit.group for hit in result]
    assert groups.count("female") == groups.count("male")
    # Measured: all 15 relevant chunks, no random one (paper k=10 finds 13); the toy's chunks come in female / male
    # versions, so the cut counts texts (session 34); cutting wordings, as before, keeps 11.
    assert len(result) == 15
    wordings = toy_retriever.retrieve(toy_task.queries["army"], strategy=Dynamic(text_cut=None), k=100)
    assert len(wordings) == 11 and all(hit.id in toy_task.relevant["army"] for hit in wordings)


@pytest.fixture(scope="module")
def single_topic_results(embedder):
    task = load_gendered_topics()
    out = {}
    for topic in task.queries:
        docs = [d for d in task.documents if d.metadata["topic"] in (topic, "distractor")]
        retriever = DebiasedRetriever(FaissIndex.from_documents(docs, embedder), embedder)
        result = retriever.retrieve(task.queries[topic], strategy="dynamic", k=100)  # a cap above 15
        out[topic] = (sum(h.id in task.relevant[topic] for h in result), len(result))
    return out


def test_dynamic_on_single_topic_corpora_returns_relevant_chunks(single_topic_results):
    # Each of our 12 occupations alone with 20 distractors: 15 relevant chunks per query.
    found = sum(f for f, _ in single_topic_results.values())
    returned = sum(n for _, n in single_topic_results.values())
    assert found / returned >= 0.98  # measured: 175 returned, no distractor (session 28)
    assert all(f >= 1 for f, _ in single_topic_results.values())


@pytest.mark.xfail(
    strict=True,
    reason="dynamic v2 keeps a window relative to the top score; on some 15-chunk topics the last chunks fall "
    "outside it: measured 175 of 180 relevant (kindergarten 13, pilot 12 of 15; session 28)",
)
def test_dynamic_finds_every_chunk_of_wide_single_topics(single_topic_results):
    assert all(f == 15 for f, _ in single_topic_results.values())


def test_dynamic_k_is_a_cap(toy_retriever, toy_task):
    result = toy_retriever.retrieve(toy_task.queries["army"], strategy="dynamic", k=4)
    assert len(result) == 4
    assert all(hit.id in toy_task.relevant["army"] for hit in result)
    # The constructor's k is the same cap (it was ignored for dynamic, which then returned up to 100).
    capped = DebiasedRetriever(toy_retriever.index, toy_retriever.embedder, k=4, strategy="dynamic")
    assert [h.id for h in capped.retrieve(toy_task.queries["army"])] == [h.id for h in result]


def test_dynamic_cutoff_rule_on_hand_made_scores():
    scores = np.array([0.9, 0.7, 0.68, 0.66, 0.64, 0.3, 0.29, 0.28, 0.27, 0.1])  # std 0.249
    # tau 1: window = score >= 0.651 (4 documents); "relative" keeps it, "gap" cuts at its largest drop.
    assert DynamicCutoff(tau=1.0, rule="relative").cut(scores) == 4
    assert DynamicCutoff(tau=1.0, rule="gap").cut(scores) == 1
    # tau 1.5: window >= 0.527 (5 documents); the drop 0.64 -> 0.3 to the first outside is the largest.
    assert DynamicCutoff(tau=1.5, rule="gap").cut(scores) == 5
    assert DynamicCutoff(tau=1.5, rule="gap", max_k=2).cut(scores) == 2
    assert DynamicCutoff().cut(np.array([0.5, 0.5, 0.5, 0.5])) == 4  # nothing separates: keep the window
    assert DynamicCutoff().cut(np.array([0.9])) == 1
    with pytest.raises(InputError, match="unknown cut rule"):
        DynamicCutoff(rule="otsu")


def test_dynamic_searches_deeper_only_when_the_window_reaches_the_last_result():
    flat = Ranking("neutral", list("abcd"), [0.9, 0.9, 0.9, 0.9])
    assert Dynamic().select([flat], 10) == 8  # the window may continue past d: ask for more
    assert len(Dynamic().select([flat], 3)) == 3  # the cap is reached: no deeper search
    flat.complete = True
    assert len(Dynamic().select([flat], 10)) == 4
    cliff = Ranking("neutral", list("abcd"), [0.9, 0.89, 0.3, 0.29])
    assert [p.key for p in Dynamic().select([cliff], 10)] == ["a", "b"]


def test_user_group_metadata_overrides_inference(embedder):
    docs = [
        Document("a", "He fixed the bike chain with a new link.", {"debiasrag_group": "female"}),
        Document("b", "He fixed the bike chain and oiled it."),
        Document("c", "Someone repainted the garden fence."),
    ]
    retriever = DebiasedRetriever(FaissIndex.from_documents(docs, embedder), embedder)
    result = retriever.retrieve("How do I fix a bike chain?", strategy="balanced", k=2)
    assert {hit.id: hit.group for hit in result} == {"a": "female", "b": "male"}


def test_every_variant_embedded_in_one_batch_and_searched_in_one_call(embedder, toy_index, toy_task):
    calls = {"encode": [], "search": []}

    class CountingEmbedder:
        name, dimension = embedder.name, embedder.dimension

        def encode(self, texts):
            calls["encode"].append(len(texts))
            return embedder.encode(texts)

    class CountingIndex(FaissIndex):
        def search(self, queries, k):
            calls["search"].append(len(queries))
            return super().search(queries, k)

    index = CountingIndex(embedder.dimension, model_name=embedder.name)
    index.add(toy_task.documents, toy_index.vectors_at(np.arange(len(toy_index))))
    retriever = DebiasedRetriever(index, CountingEmbedder(), concept=toy_task.concept)
    for strategy, texts in (("topk", 1), ("balanced", 1), ("dynamic", 1)):
        calls["encode"].clear()
        calls["search"].clear()
        retriever.retrieve(toy_task.queries["army"], strategy=strategy)
        # groups not stored with the index: inferred for the candidates, their versions looked for among them
        # (debiasrag.versions) without another store call
        assert calls == {"encode": [texts], "search": [texts]}


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
    assert Dynamic().variants("q", age) == [("neutral", "q")]
    assert Balanced().variants("q", age) == [("neutral", "q")]


@pytest.mark.parametrize("value", ["yes", None, 1])
def test_version_switches_take_true_or_false_only(value):
    from debiasrag.strategies import Balanced, Dynamic

    with pytest.raises(InputError, match="versions must be True or False"):
        Dynamic(versions=value)
    with pytest.raises(InputError, match="versions_first must be True or False"):
        Balanced(versions_first=value)


PROMOTED = {
    "p1": "Linda Okafor was promoted to engineering manager after leading the payments migration; she now manages "
    "twelve people.",
    "p2": "Michael Brown was promoted to engineering manager after leading the payments migration; he now manages "
    "twelve people.",
    "p3": "Priya Nair, our senior accountant, reminds everyone that she rejects expense claims without receipts.",
    "p4": "Expense claims must be submitted within 30 days with itemised receipts attached in the finance system.",
    "p5": "The cafeteria on the ground floor serves breakfast from 7:30 and lunch from 11:45 to 14:00.",
    "p6": "Salary bands are published internally for every role and reviewed each January against market data.",
}
PROMOTED_GROUPS = {"p1": "female", "p2": "male", "p3": "female"}


@pytest.mark.parametrize(
    ("query", "told"),
    [
        ("Linda Okafor promotion", True),  # a name one version has
        ("linda's new role", True),  # without case, possessive
        ("Promoted to engineering manager", False),  # a word capitalised in one text only tells nothing
        ("Who was promoted after she led the migration?", True),  # a gendered word one version has
        ("Who was promoted to engineering manager?", False),
        ("Did the person leading the migration get promoted?", False),  # generic person words tell no version
        ("", False),
    ],
)
def test_a_query_naming_what_versions_differ_in_tells_them_apart(query, told):
    from debiasrag.versions import find_versions, query_tells_apart

    assert find_versions([PROMOTED["p1"], PROMOTED["p2"]]) == [[1], [0]]
    assert query_tells_apart(PROMOTED["p1"], PROMOTED["p2"], query) is told


@pytest.mark.parametrize(
    ("strategy", "named", "unnamed"),
    [
        (Balanced(), ["p1", "p2"], ["p3", "p2"]),  # p3 (female) gives way instead; without a name: p1 for p2
        (Dynamic(), ["p1"], ["p1", "p2"]),  # the other version is no wording of the named text
        (Dynamic(versions=True), ["p1"], ["p1", "p2"]),
    ],
)
def test_a_version_the_query_names_is_not_swapped_for_the_other(strategy, named, unnamed):
    # A user's red team (session 45): "Linda Okafor promotion" at k = 2 lost Linda's text (0.70) for Michael's
    # version (0.17), taken as trading no relevance; the answer must stay.
    ranking = Ranking(
        "neutral", ["p1", "p3", "p6", "p4", "p5", "p2"], [0.70, 0.31, 0.25, 0.22, 0.2, 0.17], complete=True
    )
    group_of = GroupOf(("female", "male"), lambda key: PROMOTED_GROUPS.get(key, "neutral"), PROMOTED.__getitem__)
    for query, expected in (("Linda Okafor promotion", named), ("engineering manager promotion", unnamed)):
        assert [p.key for p in strategy.select([ranking], 2, replace(group_of, query=query))] == expected


def test_retriever_keeps_the_version_a_query_names(embedder):
    docs = [Document(key, text) for key, text in PROMOTED.items()]
    retriever = DebiasedRetriever(FaissIndex.from_documents(docs, embedder), embedder)
    for strategy in ("balanced", "dynamic"):
        assert retriever.retrieve("Linda Okafor promotion", k=2, strategy=strategy).ids[0] == "p1"
