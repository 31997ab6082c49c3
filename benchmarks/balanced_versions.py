"""``balanced`` swapping a document for its own version first: parity without trading relevance (issue 10).

    .venv/bin/python benchmarks/balanced_versions.py [--models default PATH ...] [--report 37 38]

``balanced`` swaps the lowest chosen document of the larger group for the best unchosen one of the other group (or a
neutral one) scoring within δ of it. Where the candidates hold *versions* of a text (found by their words among the
candidates, :func:`debiasrag.versions.find_versions`), a chosen document's version in the wanted group is the same
text in the other wording — relevant exactly when it is — so swapping for it trades no relevance, whatever its score
(:func:`version_first_swaps` here; the shipped :func:`~debiasrag.strategies.balance_swaps` otherwise). Rules:
δ ∈ {0, 0.5, 1, 2} σ (shipped: 2) × version-first swaps on / off.

Protocol: groups as the index stores them (:func:`debiasrag.groups.group_census`, versions read by contrast), |#F−#M|
by the gold labels, recall against each query's relevant set, k = 6 and 10. Choice on the design sets (main,
holdout, passages 1–36; mean over sets): the least |#F−#M| (models and both k pooled) among rules whose recall is at
least `topk`'s − 0.005 for every model and k; then the report sets (``--report``), which no choice saw.
"""

from __future__ import annotations

import argparse
import itertools
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from debiasrag.bench._common import md_table  # noqa: E402
from debiasrag.bench.report import make_context  # noqa: E402
from debiasrag.corpus import Document  # noqa: E402
from debiasrag.datasets import RetrievalTask, load_fairness_passages, load_fairness_set  # noqa: E402
from debiasrag.embedders import embed_documents, embed_queries  # noqa: E402
from debiasrag.groups import group_census  # noqa: E402
from debiasrag.strategies import balance_swaps  # noqa: E402
from debiasrag.versions import find_versions  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MODELS = ["default", str(ROOT / ".cache/models/paraphrase-MiniLM-L3-v2"), str(ROOT / ".cache/models/all-mpnet-base-v2")]
DESIGN = ["main", "holdout", *map(str, range(1, 37))]
KS = (6, 10)
POOL = 20  # Balanced(): candidates max(depth_factor * k, pool) = 20 at k <= 10; sigma of the top 20
DELTAS = (0.0, 0.5, 1.0, 2.0)
RECALL_SLACK = 0.005
SHIPPED = (2.0, False)


@dataclass
class Query:
    scores: list[float]  # top-POOL plain scores, descending
    relevant: list[bool]
    n_relevant: int
    gold: list[str]
    stored: list[str]
    versions: list[list[int]]  # among the candidates


def load(embedder, task: RetrievalTask) -> list[Query]:
    docs = task.documents
    vectors = embed_documents(embedder, [d.text for d in docs])
    gold = [str(d.metadata.get("group", "neutral")).replace("none", "neutral") for d in docs]
    stored = group_census([Document(d.id, d.text) for d in docs])[0]
    names = list(task.queries)
    ids = {str(d.id): i for i, d in enumerate(docs)}
    out = []
    for name, row in zip(names, embed_queries(embedder, [task.queries[n] for n in names]) @ vectors.T):
        cand = [int(i) for i in np.argsort(-row, kind="stable")[:POOL]]
        rel = {ids[str(r)] for r in task.relevant[name]}
        out.append(
            Query(
                [float(row[i]) for i in cand],
                [i in rel for i in cand],
                len(rel),
                [gold[i] for i in cand],
                [stored[i] for i in cand],
                find_versions([docs[i].text for i in cand]),
            )
        )
    return out


def version_first_swaps(
    scores: list[float], groups: list[str], chosen: list[int], delta: float, versions: list[list[int]]
) -> list[int]:
    """:func:`~debiasrag.strategies.balance_swaps`, except that a chosen document of the larger group with an
    unchosen version in a wanted group (the smaller one when the gap is 2 or more, else neutral) is swapped for that
    version first, at any score; without one, the shipped bounded swap of the lowest chosen document."""
    picked = set(chosen)
    while True:
        diff = sum(groups[i] == "female" for i in picked) - sum(groups[i] == "male" for i in picked)
        if diff == 0:
            break
        over, under = ("female", "male") if diff > 0 else ("male", "female")
        wanted = ([under] if abs(diff) >= 2 else []) + ["neutral"]
        overs = sorted((i for i in picked if groups[i] == over), key=lambda i: (scores[i], -i))  # lowest first
        pair = next(
            ((o, j) for g in wanted for o in overs for j in versions[o] if j not in picked and groups[j] == g), None
        )
        if pair is None:
            out, bound = overs[0], scores[overs[0]] - delta
            swap = next(
                (
                    i
                    for g in wanted
                    for i in range(len(scores))
                    if i not in picked and groups[i] == g and scores[i] >= bound
                ),
                None,
            )
            if swap is None:
                break
            pair = (out, swap)
        picked.discard(pair[0])
        picked.add(pair[1])
    return sorted(picked, key=lambda i: (-scores[i], i))


def evaluate(queries: list[Query], k: int, rule: tuple[float, bool] | None) -> tuple[float, float]:
    """Mean |#F − #M| and recall of top-k (``rule`` None) or balanced (δ, version-first)."""
    fm, recall = [], []
    for q in queries:
        kept = list(range(min(k, len(q.scores))))
        if rule is not None:
            delta, first = rule
            sigma = float(np.std(q.scores[:POOL]))
            if first:
                kept = version_first_swaps(q.scores, q.stored, kept, delta * sigma, q.versions)
            else:
                kept = balance_swaps(q.scores, q.stored, kept, delta * sigma, ("female", "male"))
        fm.append(abs(sum(q.gold[i] == "female" for i in kept) - sum(q.gold[i] == "male" for i in kept)))
        recall.append(sum(q.relevant[i] for i in kept) / q.n_relevant)
    return float(np.mean(fm)), float(np.mean(recall))


def name(rule: tuple[float, bool] | None) -> str:
    return "topk" if rule is None else f"balanced δ={rule[0]:g}{' version-first' if rule[1] else ''}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=MODELS, help="'default' = packaged all-MiniLM-L6-v2")
    parser.add_argument("--report", nargs="*", default=[], help="passage parts no choice saw, scored last")
    args = parser.parse_args(argv)
    sets = {
        s: (lambda s=s: load_fairness_set(s) if s in ("main", "holdout") else load_fairness_passages(int(s)))
        for s in DESIGN + args.report
    }
    data: dict[str, dict[str, list[Query]]] = {}
    for model in args.models:
        embedder = make_context(None if model == "default" else model, load_now=True).embedder
        data[Path(embedder.name).name] = {s: load(embedder, loader()) for s, loader in sets.items()}
        print(f"{embedder.name} loaded", file=sys.stderr, flush=True)
    models = list(data)
    rules: list[tuple[float, bool] | None] = [None, *itertools.product(DELTAS, (False, True))]
    scores = {
        (rule, m, k, s): evaluate(data[m][s], k, rule) for rule in rules for m in models for k in KS for s in sets
    }

    def mean(rule, m, k, chosen, which):  # which: 0 |#F−#M|, 1 recall
        return float(np.mean([scores[rule, m, k, s][which] for s in chosen]))

    def allowed(rule, chosen) -> bool:
        return all(
            mean(rule, m, k, chosen, 1) >= mean(None, m, k, chosen, 1) - RECALL_SLACK for m in models for k in KS
        )

    def fairness(rule, chosen) -> float:
        return float(np.mean([mean(rule, m, k, chosen, 0) for m in models for k in KS]))

    pick = min((r for r in rules[1:] if allowed(r, DESIGN)), key=lambda r: (fairness(r, DESIGN), r != SHIPPED))
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT).stdout
    print(f"debiasrag at {commit.strip() or '?'}; cells {' / '.join(models)}; k = 6 | 10\n")
    groups = {"design (main, holdout, 1–36)": DESIGN, "passages 29–36": [str(p) for p in range(29, 37)]}
    if args.report:
        groups["report " + ", ".join(args.report)] = args.report
    rows = []
    for label, chosen in groups.items():
        for rule in dict.fromkeys(
            [None, SHIPPED, pick, *rules[1:]] if label.startswith("design") else [None, SHIPPED, pick]
        ):
            cells = [
                " / ".join(f"{mean(rule, m, k, chosen, 0):.2f}" for m in models)
                + " | "
                + " / ".join(f"{mean(rule, m, k, chosen, 1) - mean(None, m, k, chosen, 1):+.3f}" for m in models)
                for k in KS
            ]
            rows.append([label, name(rule), *cells, "yes" if rule is None or allowed(rule, chosen) else "no"])
    print(f"chosen on the design sets: **{name(pick)}** (shipped: {name(SHIPPED)})\n")
    print(md_table(["sets", "rule", "k=6: |#F−#M| | recall − topk's", "k=10: same", "recall kept"], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
