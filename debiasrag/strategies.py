"""Retrieval strategies, written against ranked lists so any backend can drive them.

A strategy says which query texts to embed (:meth:`Strategy.variants`), how deep to search first
(:meth:`Strategy.initial_depth`), and picks results from the per-variant rankings
(:meth:`Strategy.select`). When a ranking is too shallow to decide, ``select`` returns the depth it
needs and the caller searches again; our FAISS retriever and the LangChain / LlamaIndex wrappers all
run this same loop (see :func:`run_strategy`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np

from debiasrag.concepts import Concept
from debiasrag.errors import InputError

Key = Hashable


@dataclass
class Ranking:
    """One variant's ranked results: keys with descending scores (higher = more similar)."""

    variant: str
    keys: list[Key]
    scores: list[float]
    complete: bool = False  # True when the ranking already holds every document of the corpus
    _lookup: dict[Key, float] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._lookup = {key: score for key, score in zip(self.keys, self.scores)}

    def score_of(self, key: Key) -> float | None:
        return self._lookup.get(key)

    @property
    def floor(self) -> float:
        """Upper bound on the score of any document not in this ranking."""
        return self.scores[-1] if self.scores else float("inf")


@dataclass(frozen=True)
class Pick:
    """A selected document: backend key, the score it is reported with, and the variant that found it."""

    key: Key
    score: float
    variant: str


Selection = list[Pick] | int  # picks, or the search depth the strategy needs before it can pick


class Strategy:
    """Base class: subclasses set ``name`` and implement the three hooks."""

    name = ""

    def variants(self, query: str, concept: Concept) -> list[tuple[str, str]]:
        raise NotImplementedError

    def initial_depth(self, k: int) -> int:
        return k

    def select(self, rankings: Sequence[Ranking], k: int) -> Selection:
        raise NotImplementedError


class TopK(Strategy):
    """Plain top-k with the query as given (the baseline)."""

    name = "topk"

    def variants(self, query: str, concept: Concept) -> list[tuple[str, str]]:
        return [("neutral", query)]

    def select(self, rankings: Sequence[Ranking], k: int) -> Selection:
        ranking = rankings[0]
        return [Pick(key, score, ranking.variant) for key, score in zip(ranking.keys[:k], ranking.scores[:k])]


class ContextInjection(TopK):
    """Top-k with the concept's debiasing context appended (seed 000 §2.2). Known to over-compensate."""

    name = "context"

    def variants(self, query: str, concept: Concept) -> list[tuple[str, str]]:
        return [("debiased", concept.debiased_query(query))]


class PaperAlgorithm(Strategy):
    """Seed 000 Algorithm 1, as its worked example in Appendix E.3 applies it.

    Top-k with the first group's variant gives S̃. Its lowest chunk is the one the *second* variant scores
    lowest (the worked example names female C5, 7th in the female ranking but last of S̃ in the male one).
    The result is every chunk the second variant ranks at or above that chunk; its size is m.
    """

    name = "paper"

    def variants(self, query: str, concept: Concept) -> list[tuple[str, str]]:
        return concept.variant_queries(query)

    def select(self, rankings: Sequence[Ranking], k: int) -> Selection:
        first, second = rankings
        chosen = first.keys[:k]
        second_scores = [second.score_of(key) for key in chosen]
        if any(score is None for score in second_scores) and not second.complete:
            return 2 * max(len(second.keys), k)
        # A chunk missing from an exhausted second ranking scores at most its floor.
        threshold = min(second.floor if s is None else s for s in second_scores)
        if second.scores and second.scores[-1] >= threshold and not second.complete:
            return 2 * len(second.keys)
        return [
            Pick(key, score, second.variant) for key, score in zip(second.keys, second.scores) if score >= threshold
        ]


class Balanced(Strategy):
    """Equal exposure without group labels: interleave the variants' rankings, skipping duplicates."""

    name = "balanced"

    def variants(self, query: str, concept: Concept) -> list[tuple[str, str]]:
        return concept.variant_queries(query)

    def select(self, rankings: Sequence[Ranking], k: int) -> Selection:
        picks: list[Pick] = []
        seen: set[Key] = set()
        cursors = [0] * len(rankings)
        while len(picks) < k:
            progressed = False
            for i, ranking in enumerate(rankings):
                while cursors[i] < len(ranking.keys) and ranking.keys[cursors[i]] in seen:
                    cursors[i] += 1
                if cursors[i] < len(ranking.keys) and len(picks) < k:
                    key = ranking.keys[cursors[i]]
                    seen.add(key)
                    picks.append(Pick(key, ranking.scores[cursors[i]], ranking.variant))
                    progressed = True
            if not progressed:
                break
        if len(picks) < k and not all(r.complete for r in rankings):
            return 2 * max(len(r.keys) for r in rankings)
        return picks


def fuse_max(rankings: Sequence[Ranking]) -> tuple[list[Key], np.ndarray, list[str]]:
    """Each candidate's best score over the variants (a chunk counts as close as its closest variant).

    A candidate missing from a ranking scores at most that ranking's floor, so the max over the
    rankings that hold it is exact whenever it beats the other rankings' floors.
    """
    best: dict[Key, tuple[float, str]] = {}
    for ranking in rankings:
        for key, score in zip(ranking.keys, ranking.scores):
            if key not in best or score > best[key][0]:
                best[key] = (float(score), ranking.variant)
    keys = sorted(best, key=lambda key: -best[key][0])
    return keys, np.array([best[key][0] for key in keys], dtype=np.float64), [best[key][1] for key in keys]


@dataclass
class DynamicCutoff:
    """Our dynamic-k rule: a gap-weighted two-class split of the fused variant scores.

    The counterfactual variants' scores are fused by ``max`` (a female chunk is judged by the female
    variant, a male one by the male variant, a neutral one by whichever is closer), sorted, and split
    into "relevant" and "background" at the position ``i`` that maximises

        gap(i) · w(i),   gap(i) = s[i-1] - s[i],   w(i) = i(n-i)/n² · (mean(s[:i]) - mean(s[i:]))²

    over the top ``pool`` fused scores: the between-class variance of Otsu's method, weighted by the
    drop at the cut, so the split lands on a real cliff that also separates the two groups' means.
    A cliff alone is fooled by a single outlier at the top; Otsu alone splits a wide relevant group in
    two. ``max_k`` caps the result. ``benchmarks/dynamic_k_design.py`` compares the candidates.
    """

    max_k: int = 100
    pool: int = 200
    min_k: int = 1

    def cut(self, scores: np.ndarray) -> int:
        """How many of the (descending) ``scores`` to keep."""
        s = np.asarray(scores, dtype=np.float64)[: self.pool]
        n = len(s)
        if n <= max(self.min_k, 1):
            return min(n, self.max_k)
        i = np.arange(1, n)
        above = np.cumsum(s)[:-1] / i
        below = (s.sum() - np.cumsum(s)[:-1]) / (n - i)
        objective = (i * (n - i) / n**2) * (above - below) ** 2 * (s[:-1] - s[1:])
        if objective.max() <= 1e-12:  # flat scores: nothing separates, keep them all
            return min(n, self.max_k)
        keep = int(i[int(np.argmax(objective))])
        return min(max(keep, self.min_k), self.max_k)


class Dynamic(Strategy):
    """Returns every chunk relevant to the query, whatever its group, and no unrelated ones; k is a cap."""

    name = "dynamic"

    def __init__(self, cutoff: DynamicCutoff | None = None, *, include_neutral: bool = False) -> None:
        self.cutoff = cutoff or DynamicCutoff()
        # The neutral query as a third variant finds a few more chunks in mixed corpora but costs a
        # third embedding and search (see benchmarks/dynamic_k_design.py and latency.py).
        self.include_neutral = include_neutral

    def variants(self, query: str, concept: Concept) -> list[tuple[str, str]]:
        neutral = [("neutral", query)] if self.include_neutral else []
        return neutral + concept.variant_queries(query)

    def initial_depth(self, k: int) -> int:
        return max(self.cutoff.pool, k)

    def select(self, rankings: Sequence[Ranking], k: int) -> Selection:
        keys, scores, variants = fuse_max(rankings)
        cutoff = DynamicCutoff(max_k=min(k, self.cutoff.max_k), pool=self.cutoff.pool, min_k=self.cutoff.min_k)
        keep = cutoff.cut(scores)
        return [Pick(keys[i], float(scores[i]), variants[i]) for i in range(keep)]


STRATEGIES: dict[str, Callable[[], Strategy]] = {
    "topk": TopK,
    "context": ContextInjection,
    "paper": PaperAlgorithm,
    "balanced": Balanced,
    "dynamic": Dynamic,
}


def get_strategy(strategy: str | Strategy) -> Strategy:
    """A strategy instance from its name (``topk``, ``context``, ``paper``, ``balanced``, ``dynamic``)."""
    if isinstance(strategy, Strategy):
        return strategy
    try:
        return STRATEGIES[strategy]()
    except KeyError:
        raise InputError(f"unknown strategy {strategy!r}; choose one of {', '.join(STRATEGIES)}") from None


def run_strategy(
    strategy: Strategy,
    search: Callable[[int], list[Ranking]],
    k: int,
    corpus_size: int | None = None,
) -> list[Pick]:
    """Drive ``strategy``: ``search(depth)`` returns one ranking per variant (one backend call)."""
    depth = strategy.initial_depth(k)
    if corpus_size is not None:
        depth = min(depth, corpus_size)
    while True:
        rankings = search(depth)
        selection = strategy.select(rankings, k)
        if not isinstance(selection, int):
            return selection
        wanted = selection if corpus_size is None else min(selection, corpus_size)
        if wanted <= depth:  # backend cannot go deeper: decide with what we have
            for ranking in rankings:
                ranking.complete = True
            selection = strategy.select(rankings, k)
            return selection if not isinstance(selection, int) else []
        depth = wanted
