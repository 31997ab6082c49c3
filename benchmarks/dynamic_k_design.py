"""Design study for ``balanced`` and ``dynamic`` (v2), with a protocol that cannot overfit.

    .venv/bin/python benchmarks/dynamic_k_design.py [--model NAME]

Data (all written by us, groups labelled F / M / N; the strategies see only *inferred* groups, debiasrag.groups):
- ``main``: data/retrieval/fairness_main (60 queries, 8 areas; 3 relevant docs per query).
- ``holdout``: data/retrieval/fairness_holdout (24 queries, 4 other areas).
- ``topics``: data/retrieval/gendered_topics.json (12 occupations, 15 relevant chunks each, 20 distractors).

Protocol. Every free parameter (the cut's tau, the parity bound delta, the rule family) is chosen by mean F1
(dynamic) or by |#F − #M| at top-k's recall (balanced) on *other* data: leave-one-area-out on ``main`` (choose on
7 areas, score the 8th), then the shipped defaults are scored on ``holdout`` and ``topics``, which were never used
to choose. Everything runs through the package's own strategies and ``run_strategy`` (store calls counted).
F1 is against each query's relevant set; "oracle" is the best per-query cut of the plain ranking.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from debiasrag.concepts import load_concept  # noqa: E402
from debiasrag.datasets import RetrievalTask, load_fairness_set, load_gendered_topics  # noqa: E402
from debiasrag.embedders import SentenceTransformerEmbedder, embed_queries  # noqa: E402
from debiasrag.groups import detector  # noqa: E402
from debiasrag.metrics.fairness import oracle_cut, set_quality  # noqa: E402
from debiasrag.strategies import (  # noqa: E402
    Balanced,
    Dynamic,
    DynamicCutoff,
    GroupOf,
    Ranking,
    Strategy,
    TopK,
    run_strategy,
)

GENDER = load_concept("gender")
DEPTH = 200  # the deepest ranking a strategy may ask for in this study


@dataclass
class Query:
    area: str
    order: np.ndarray  # document indices, best first (plain query)
    scores: np.ndarray  # their scores
    relevant: set[int]
    gold: list[str]  # gold group per document index
    inferred: list[str]  # inferred group per document index


def load(embedder: SentenceTransformerEmbedder, task: RetrievalTask, debias: bool = False) -> list[Query]:
    docs = task.documents
    vectors = embedder.encode([d.text for d in docs])
    found = detector("gender")
    gold = [d.metadata.get("group", "neutral").replace("none", "neutral") for d in docs]
    inferred = [found.group(d.text) for d in docs]
    names = list(task.queries)
    q = embed_queries(embedder, [task.queries[n] for n in names])
    if debias:  # hard-debiased query: project out the concept direction (mean of the pairs' differences)
        pairs = [(a, b) for a, b in GENDER.pairs if " " not in a]
        a = embedder.encode([p[0] for p in pairs])
        b = embedder.encode([p[1] for p in pairs])
        d = (a - b).mean(0)
        d /= np.linalg.norm(d)
        q = q - np.outer(q @ d, d)
    ids = {str(d.id): i for i, d in enumerate(docs)}
    out = []
    for name, row in zip(names, q @ vectors.T):
        order = np.argsort(-row)
        out.append(
            Query(
                task.areas.get(name, name),
                order,
                row[order],
                {ids[str(r)] for r in task.relevant[name]},
                gold,
                inferred,
            )
        )
    return out


def run(strategy: Strategy, query: Query, k: int) -> tuple[list[int], int]:
    """The strategy's picks (document indices) over the query's ranking, and the number of store calls."""
    calls = 0

    def search(depth: int) -> list[Ranking]:
        nonlocal calls
        calls += 1
        n = min(depth, len(query.order))
        keys = query.order[:n].tolist()
        return [Ranking("neutral", keys, query.scores[:n].tolist(), complete=n == len(query.order))]

    groups = GroupOf(("female", "male"), lambda key: query.inferred[int(key)])
    picks = run_strategy(strategy, search, k, len(query.order), group_of=groups if strategy.uses_groups else None)
    return [int(p.key) for p in picks], calls


def score(strategy: Strategy, queries: list[Query], k: int) -> dict[str, float]:
    rows = []
    for q in queries:
        picked, calls = run(strategy, q, k)
        quality = set_quality([i in q.relevant for i in picked], len(q.relevant))
        recall, precision, f1 = quality["recall"], quality["precision"], quality["f1"]
        f = sum(q.gold[i] == "female" for i in picked)
        m = sum(q.gold[i] == "male" for i in picked)
        rows.append((recall, precision, f1, abs(f - m), f - m, len(picked), calls))
    r = np.array(rows, dtype=float).mean(0)
    return dict(zip(("recall", "precision", "f1", "absFM", "FM", "returned", "calls"), r.tolist()))


def oracle(queries: list[Query]) -> float:
    return float(
        np.mean([oracle_cut([i in q.relevant for i in q.order[:50]], len(q.relevant))["oracle_f1"] for q in queries])
    )


# --- candidate families (each parameter value is one candidate) -------------------------------------------------
TAUS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0)
POOLS = (20, 50)
DELTAS = (0.0, 0.25, 0.5, 1.0)


def dynamic_candidates() -> dict[str, Callable[[], Strategy]]:
    out: dict[str, Callable[[], Strategy]] = {}
    for pool in POOLS:
        for rule in ("relative", "gap"):
            for tau in TAUS:
                for delta in DELTAS:
                    out[f"{rule} pool={pool} tau={tau} delta={delta}"] = lambda r=rule, p=pool, t=tau, d=delta: Dynamic(
                        DynamicCutoff(tau=t, rule=r, pool=p), delta=d
                    )
    return out


def balanced_candidates() -> dict[str, Callable[[], Strategy]]:
    return {f"balanced delta={d}": (lambda d=d: Balanced(delta=d)) for d in (0.25, 0.5, 1.0, 1.5, 2.0)}


def dynamic_objective(train: list[Query]) -> Callable[[dict[str, float]], tuple[float, float]]:
    """Best mean F1 (to 3 decimals); among equals the smallest |#F − #M|."""
    return lambda r: (round(r["f1"], 3), -r["absFM"])


def fmt(r: dict[str, float]) -> str:
    return (
        f"F1 {r['f1']:.3f}  R {r['recall']:.3f}  P {r['precision']:.3f}  |F-M| {r['absFM']:.2f}  "
        f"F-M {r['FM']:+.2f}  n {r['returned']:.1f}  calls {r['calls']:.2f}"
    )


def balanced_objective(train: list[Query], k: int) -> Callable[[dict[str, float]], float]:
    """Least |#F − #M| among candidates whose recall is at least top-k's − 0.01 on the same queries."""
    floor = score(TopK(), train, k)["recall"] - 0.01
    return lambda r: -r["absFM"] if r["recall"] >= floor else -1e9


def leave_one_area_out(main: list[Query], cands: dict[str, Callable[[], Strategy]], k: int, objective) -> dict:
    """``objective(train)`` gives the function maximised over candidates on the training areas."""
    areas = sorted({q.area for q in main})
    chosen, held = [], []
    for area in areas:
        train = [q for q in main if q.area != area]
        test = [q for q in main if q.area == area]
        goal = objective(train)
        best = max(cands, key=lambda name: goal(score(cands[name](), train, k)))
        chosen.append(best)
        held.append((len(test), score(cands[best](), test, k)))
    total = sum(n for n, _ in held)
    mean = {key: sum(n * r[key] for n, r in held) / total for key in held[0][1]}
    return {"chosen": chosen, "mean": mean}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="sentence-transformers name or path (default: packaged MiniLM)")
    args = parser.parse_args(argv)
    embedder = SentenceTransformerEmbedder(args.model)
    print(f"model: {embedder.name}")
    sets = {
        "main": load(embedder, load_fairness_set("main")),
        "holdout": load(embedder, load_fairness_set("holdout")),
        "topics": load(embedder, load_gendered_topics()),
    }
    hard = {name: load(embedder, task, debias=True) for name, task in (("holdout", load_fairness_set("holdout")),)}

    print("\n== balanced (delta chosen per fold: least |F-M| with recall >= topk - 0.01 on the training areas) ==")
    for k in (6, 10):
        cands = balanced_candidates()
        loo = leave_one_area_out(sets["main"], cands, k, lambda train, k=k: balanced_objective(train, k))
        print(f"k={k} leave-one-area-out on main: chosen per fold {loo['chosen']}")
        print(f"  main LOAO balanced k={k}: {fmt(loo['mean'])}")
        goal = balanced_objective(sets["main"], k)
        best = max(cands, key=lambda c: goal(score(cands[c](), sets["main"], k)))
        print(f"  chosen on all of main at k={k}: {best}")
        for name, queries in sets.items():
            print(f"  {name:8s} topk     k={k:2d}: {fmt(score(TopK(), queries, k))}")
            print(f"  {name:8s} balanced k={k:2d}: {fmt(score(Balanced(), queries, k))}  (shipped default)")

    print("\n== dynamic (cap k=10; rule, tau, delta chosen by mean F1 on the training data) ==")
    cands = dynamic_candidates()
    loo = leave_one_area_out(sets["main"], cands, 10, dynamic_objective)
    print(f"leave-one-area-out on main, chosen per fold: {sorted(set(loo['chosen']))}")
    print(f"  main LOAO     : {fmt(loo['mean'])}")
    print("leave-one-dataset-out (choose on the other two sets, score this one):")
    for name in sets:
        train = [q for other, queries in sets.items() if other != name for q in queries]
        goal = dynamic_objective(train)
        best = max(cands, key=lambda c: goal(score(cands[c](), train, 10)))
        print(f"  {name:8s} chosen {best:38s}: {fmt(score(cands[best](), sets[name], 10))}")
    goal = dynamic_objective(sets["main"])
    best = max(cands, key=lambda c: goal(score(cands[c](), sets["main"], 10)))
    print(f"chosen on all of main alone: {best}")
    print("shipped default Dynamic() (the leave-one-dataset-out choice for the main and holdout folds) and references:")
    for name, queries in sets.items():
        print(f"  {name:8s} oracle F1 (uncapped per-query best cut of the plain ranking) {oracle(queries):.3f}")
        print(f"  {name:8s} shipped          : {fmt(score(Dynamic(), queries, 10))}")
        print(f"  {name:8s} without parity   : {fmt(score(Dynamic(delta=0.0), queries, 10))}")
        print(f"  {name:8s} topk k=3         : {fmt(score(TopK(), queries, 3))}")
    print(f"  holdout hard-debiased query, shipped: {fmt(score(Dynamic(), hard['holdout'], 10))}")
    print("\n-- all dynamic candidates on main (design data) --")
    for name, make in cands.items():
        print(f"  {name:38s} {fmt(score(make(), sets['main'], 10))}")
    print("\n-- balanced candidates, k=6 --")
    for name, queries in sets.items():
        for cand, make in balanced_candidates().items():
            print(f"  {name:8s} {cand:20s} {fmt(score(make(), queries, 6))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
