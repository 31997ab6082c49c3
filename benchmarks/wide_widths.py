"""Where the shipped strategies lose on topics of different widths: per-width scores on a wide-topics set.

    .venv/bin/python benchmarks/wide_widths.py [--report 2] [--models default PATH ...]

For every query of a wide-topics set (``load_wide_topics``; ``--report 0`` the design set, ``1`` / ``2`` / ``3`` the
report sets written blind) the shipped ``dynamic`` (cap 10), ``topk`` at k = 10 and ``balanced`` at k = 6 and 10 run on
an index of the whole set, as ``debiasrag bench retrieval`` runs them (groups stored at index time). Printed per
width (how many relevant documents a query has): F1 and the number returned for ``dynamic`` and ``topk``, and for
``balanced`` the mean |#F − #M| by the gold labels and the share of its lists with an odd number of gendered
documents (those cannot reach |#F − #M| = 0 without trading a neutral document for a gendered one, which
``balanced`` does only within its ``odd_delta`` bound, or since session 32 for the neutral document's own
version). Chooses nothing: the report sets are for reporting only.
"""

from __future__ import annotations

import argparse
import os
from collections import defaultdict

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from debiasrag.bench._common import md_table  # noqa: E402
from debiasrag.bench.report import make_context  # noqa: E402
from debiasrag.bench.retrieval import build_retriever  # noqa: E402
from debiasrag.datasets import load_wide_topics  # noqa: E402
from debiasrag.metrics.fairness import query_report  # noqa: E402

MODELS = ["default", ".cache/models/paraphrase-MiniLM-L3-v2", ".cache/models/all-mpnet-base-v2"]
RUNS = (("dynamic", 10), ("topk", 10), ("balanced", 6), ("balanced", 10))


def per_width(report: int, model: str) -> tuple[str, dict[int, dict[str, float]]]:
    """Mean scores per width for one model: ``{width: {"<strategy>@<k> <metric>": value}}``."""
    task = load_wide_topics(report=report)
    embedder = make_context(None if model == "default" else model, load_now=True).embedder
    retriever = build_retriever(task, embedder)
    gold = {str(d.id): d.metadata["group"] for d in task.documents}
    cells: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for name, query in task.queries.items():
        relevant = {str(x) for x in task.relevant[name]}
        for strategy, k in RUNS:
            ids = [str(h.id) for h in retriever.retrieve(query, k=k, strategy=strategy)]
            row = query_report(ids, gold, relevant, cutoff=k)
            cell = cells[len(relevant)]
            cell[f"{strategy}@{k} f1"].append(row["f1"])
            cell[f"{strategy}@{k} returned"].append(len(ids))
            cell[f"{strategy}@{k} |F-M|"].append(row["abs_female_minus_male"])
            gendered = sum(gold[i] != "neutral" for i in ids)
            cell[f"{strategy}@{k} odd"].append(float(gendered % 2))
    means = {w: {key: float(np.mean(v)) for key, v in cell.items()} for w, cell in sorted(cells.items())}
    return embedder.name, means


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--report", type=int, default=2, choices=(0, 1, 2, 3), help="0: design set; 1-3: report sets")
    parser.add_argument("--models", nargs="+", default=MODELS, help="'default' = packaged all-MiniLM-L6-v2")
    args = parser.parse_args(argv)
    head = [
        "width",
        "queries",
        "`dynamic` F1 ; returned",
        "`topk` k=10 F1",
        "`balanced` k=6 |F−M| ; odd lists",
        "`balanced` k=10 |F−M| ; odd lists",
    ]
    task = load_wide_topics(report=args.report)
    counts = defaultdict(int)
    for ids in task.relevant.values():
        counts[len(ids)] += 1
    for model in args.models:
        name, means = per_width(args.report, model)
        rows = [
            [
                w,
                counts[w],
                f"{m['dynamic@10 f1']:.3f} ; {m['dynamic@10 returned']:.1f}",
                f"{m['topk@10 f1']:.3f}",
                f"{m['balanced@6 |F-M|']:.2f} ; {m['balanced@6 odd']:.2f}",
                f"{m['balanced@10 |F-M|']:.2f} ; {m['balanced@10 odd']:.2f}",
            ]
            for w, m in means.items()
        ]
        print(f"\n{task.name} — {name}\n")
        print(md_table(head, rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
