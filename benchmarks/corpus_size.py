"""Does a strategy's result depend on the corpus around a query? The same queries on their own set and merged.

    .venv/bin/python benchmarks/corpus_size.py [--model M] [--sets main holdout]

Each set's queries are run twice with the shipped strategies (``dynamic`` cap 10, ``balanced`` k = 6): on an index
of that set alone and on one index of all the given sets merged (more, unrelated documents around every query). A
cut in units of the candidates' score spread should give about the same result on both. Chooses nothing.
"""

from __future__ import annotations

import argparse
import os

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from debiasrag.bench._common import md_table  # noqa: E402
from debiasrag.bench.report import make_context  # noqa: E402
from debiasrag.bench.retrieval import build_retriever  # noqa: E402
from debiasrag.datasets import RetrievalTask, load_fairness_set  # noqa: E402
from debiasrag.metrics.fairness import query_report  # noqa: E402

RUNS = (("dynamic", 10), ("balanced", 6))
KEYS = ("f1", "recall", "precision", "abs_female_minus_male", "returned")


def scores(task: RetrievalTask, names: list[str], embedder) -> dict[str, dict[str, float]]:
    """Mean metrics of ``names``' queries on an index of ``task``'s documents, per strategy."""
    retriever = build_retriever(task, embedder)
    groups = {str(d.id): d.metadata["group"] for d in task.documents}
    out = {}
    for strategy, k in RUNS:
        rows = [
            query_report(
                [str(h.id) for h in retriever.retrieve(task.queries[n], k=k, strategy=strategy)],
                groups,
                {str(x) for x in task.relevant[n]},
                cutoff=k,
            )
            for n in names
        ]
        out[strategy] = {key: float(np.mean([r[key] for r in rows])) for key in KEYS}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="default: the packaged all-MiniLM-L6-v2")
    parser.add_argument("--sets", nargs="+", default=["main", "holdout"], help="load_fairness_set splits")
    args = parser.parse_args(argv)
    embedder = make_context(args.model, load_now=True).embedder
    tasks = {s: load_fairness_set(s) for s in args.sets}
    merged = RetrievalTask(
        "merged",
        [d for t in tasks.values() for d in t.documents],
        {q: t.queries[q] for t in tasks.values() for q in t.queries},
        {q: t.relevant[q] for t in tasks.values() for q in t.relevant},
    )
    rows = []
    for name, task in tasks.items():
        for corpus, result in (
            ("alone", scores(task, list(task.queries), embedder)),
            ("merged", scores(merged, list(task.queries), embedder)),
        ):
            size = len(task.documents) if corpus == "alone" else len(merged.documents)
            for strategy, k in RUNS:
                r = result[strategy]
                rows.append([name, f"{corpus} ({size})", f"{strategy} k={k}", *(f"{r[key]:.3f}" for key in KEYS)])
    print(f"{embedder.name}\n")
    print(md_table(["set", "corpus (documents)", "strategy", *KEYS], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
