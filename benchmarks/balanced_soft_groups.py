"""Can `balanced` use how sure the group detector is? Hard labels vs two uses of its probabilities (MiniLM-L6).

    .venv/bin/python benchmarks/balanced_soft_groups.py

For every query the plain ranking's top max(2k, 20) candidates are balanced as `balanced` does (δ = 2 σ of the top 20
scores) with (1) the detector's groups (shipped), (2) the same with documents whose most likely group has a
probability under c counted as neutral, and (3) parity of the *expected* counts: swaps while |Σ p(female) −
p(male)| ≥ 0.5, each swap lowering it by at least 0.25, under the same bound. |#F−#M| of the returned documents by
the gold labels, mean per query; summed over the design sets (the fairness splits and the passage parts that chose
detector rules) to choose, printed per set for the parts that chose nothing. `GroupDetector.group_probabilities`
gives the probabilities.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from debiasrag.datasets import load_fairness_passages, load_fairness_set, load_wide_topics
from debiasrag.embedders import load_embedder
from debiasrag.groups import NEUTRAL, GroupDetector
from debiasrag.strategies import _spread, balance_swaps

DESIGN = ("main", "holdout", "p1", "p2", "p4", "p5", "p6", "p7", "p8")
REPORT = ("p3", "wide", "p9", "p10", "p11", "p12")
GROUPS = ("female", "male", NEUTRAL)
CONFIDENCE = (0.6, 0.7, 0.8, 0.9)


def load(name: str):  # noqa: ANN201 - a RetrievalTask
    if name in ("main", "holdout"):
        return load_fairness_set(name)
    if name == "wide":
        return load_wide_topics()
    return load_fairness_passages(int(name[1:]))


def expected_parity(scores: Sequence[float], lean: Sequence[float], k: int, delta: float) -> list[int]:
    """Swaps like `balanced`, but on Σ p(female) − p(male) of the picked documents."""
    picked = set(range(k))
    while True:
        diff = sum(lean[i] for i in picked)
        if abs(diff) < 0.5:
            break
        sign = 1 if diff > 0 else -1
        out_of = [i for i in picked if lean[i] * sign > 0.25]
        if not out_of:
            break
        out = max(out_of, key=lambda i: (-scores[i], i))
        best = None
        for i in range(len(scores)):
            if i in picked or scores[i] < scores[out] - delta:
                continue
            after = abs(diff - lean[out] + lean[i])
            if after < abs(diff) - 0.25 and (best is None or after < best[0] - 1e-9):
                best = (after, i)
        if best is None:
            break
        picked.discard(out)
        picked.add(best[1])
    return sorted(picked, key=lambda i: (-scores[i], i))


def main() -> None:
    embedder = load_embedder()
    detector = GroupDetector("gender")
    sets = {}
    for name in DESIGN + REPORT:
        task = load(name)
        docs = task.documents
        vectors = np.asarray(embedder.encode_documents([d.text for d in docs]), dtype=np.float32)
        queries = np.asarray(embedder.encode_queries(list(task.queries.values())), dtype=np.float32)
        vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
        queries /= np.linalg.norm(queries, axis=1, keepdims=True)
        probs = np.array([[detector.group_probabilities(d.text)[g] for g in GROUPS] for d in docs])
        sets[name] = (queries @ vectors.T, [d.metadata["group"] for d in docs], probs)

    def run(name: str, method: str, k: int, c: float = 0.0) -> float:
        similarity, gold, probs = sets[name]
        total = 0.0
        for row in similarity:
            candidates = np.argsort(-row, kind="stable")[: max(2 * k, 20)]
            scores = row[candidates]
            delta = 2.0 * _spread(scores, 20)
            if method == "topk":
                chosen = list(range(k))
            elif method == "hard":
                labels = [GROUPS[int(probs[j].argmax())] if probs[j].max() >= c else NEUTRAL for j in candidates]
                chosen = balance_swaps(scores, labels, range(k), delta, ("female", "male"))
            else:
                chosen = expected_parity(scores, [probs[j][0] - probs[j][1] for j in candidates], k, delta)
            picked = [gold[candidates[i]] for i in chosen]
            total += abs(picked.count("female") - picked.count("male"))
        return total / len(similarity)

    methods = [("topk", 0.0), ("hard", 0.0), *(("hard", c) for c in CONFIDENCE), ("expected", 0.0)]
    for k in (6, 10):
        print(f"\nk = {k}: |#F−#M|, design sets summed; then each report set ({', '.join(REPORT)})")
        for method, c in methods:
            label = f"{method} c={c}" if c else method
            design = sum(run(name, method, k, c) for name in DESIGN)
            report = " ".join(f"{run(name, method, k, c):.2f}" for name in REPORT)
            print(f"  {label:14} {design:6.2f}   {report}")


if __name__ == "__main__":
    main()
