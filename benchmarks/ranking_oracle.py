"""Is ``dynamic``'s gap in the ranking or in the cut? The best per-query cut of other rankings (issue 10).

    .venv/bin/python benchmarks/ranking_oracle.py [--models default PATH ...] [--report 37 38]

Issue 10 says closing ``dynamic``'s F1 gap "needs a better ranking or better evidence". This measures the ranking
side only: for each ranking, the oracle cut — the best prefix of each query's top 10 by F1 (``oracle_cut``), the
ceiling of any cut rule on that ranking — averaged per design group (fairness_main, fairness_holdout, passages 1–36
as one mean over its sets, gendered_topics, wide_topics). Rankings, all from packaged / ``make models`` weights:

* ``plain``: the query against each whole document (what the index does);
* ``sentence max``: the query against each sentence of a document, the document scored by its best sentence
  (long chunks dilute one relevant sentence);
* ``plain + sentence max``: the sum of the two, each standardised over the query's top 50 (z-scores);
* ``+ <model>``: the plain scores of two or three models, each standardised over its own top 50, summed.

No rule is chosen here: a ranking that does not raise the oracle cannot raise any cut rule's F1 either. ``--report``
adds passage parts (as one more group) for the record.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import dynamic_versions as dv  # noqa: E402
from study_sets import run_commit  # noqa: E402

from debiasrag.bench._common import md_table  # noqa: E402
from debiasrag.bench.report import make_context  # noqa: E402
from debiasrag.datasets import RetrievalTask, load_fairness_passages  # noqa: E402
from debiasrag.embedders import embed_documents, embed_queries  # noqa: E402
from debiasrag.metrics.fairness import oracle_cut  # noqa: E402

DESIGN = ("main", "holdout", "passages", "topics", "wide")
CAP, POOL = dv.CAP, dv.POOL
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'“‘(])")


def sentences(text: str) -> list[str]:
    return [s for s in (part.strip() for part in SENTENCE_END.split(text)) if s]


def score_matrices(embedder, task: RetrievalTask) -> dict[str, np.ndarray]:
    """queries × documents: whole-document scores and best-sentence scores."""
    docs = [d.text for d in task.documents]
    queries = embed_queries(embedder, [task.queries[n] for n in task.queries])
    plain = queries @ embed_documents(embedder, docs).T
    pieces = [(i, s) for i, text in enumerate(docs) for s in sentences(text)]
    by_sentence = queries @ embed_documents(embedder, [s for _, s in pieces]).T
    best = np.full_like(plain, -np.inf)
    for column, (i, _) in enumerate(pieces):
        best[:, i] = np.maximum(best[:, i], by_sentence[:, column])
    return {"plain": plain, "sentence max": best}


def standardised(scores: np.ndarray) -> np.ndarray:
    """Each row as z-scores over its own top POOL (scale-free across models and rankings)."""
    top = -np.sort(-scores, axis=1)[:, :POOL]
    return (scores - top.mean(axis=1, keepdims=True)) / top.std(axis=1, keepdims=True)


def mean_oracle(scores: np.ndarray, task: RetrievalTask) -> float:
    ids = {str(d.id): i for i, d in enumerate(task.documents)}
    f1 = []
    for row, name in zip(scores, task.queries):
        relevant = {ids[str(r)] for r in task.relevant[name]}
        top = np.argsort(-row, kind="stable")[:CAP]
        f1.append(oracle_cut([int(i) in relevant for i in top], len(relevant))["oracle_f1"])
    return float(np.mean(f1))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=dv.MODELS, help="'default' = packaged all-MiniLM-L6-v2")
    parser.add_argument("--report", nargs="*", default=[], help="passage parts, scored as one more group")
    args = parser.parse_args(argv)
    groups: dict[str, dict[str, Callable[[], RetrievalTask]]] = {
        g: sets for g, sets in dv.group_tasks().items() if g in DESIGN
    }
    if args.report:
        groups["report " + " ".join(args.report)] = {
            p: (lambda p=p: load_fairness_passages(int(p))) for p in args.report
        }
    tasks = {name: loader() for sets in groups.values() for name, loader in sets.items()}
    models: list[str] = []
    matrices: dict[tuple[str, str], dict[str, np.ndarray]] = {}
    for model in args.models:
        embedder = make_context(None if model == "default" else model, load_now=True).embedder
        short = Path(embedder.name).name
        models.append(short)
        for name, task in tasks.items():
            matrices[short, name] = score_matrices(embedder, task)
        print(f"{short} embedded", file=sys.stderr, flush=True)

    def rankings(name: str) -> dict[str, np.ndarray]:
        out = {}
        for m in models:
            own = matrices[m, name]
            out[f"{m}: plain"] = own["plain"]
            out[f"{m}: sentence max"] = own["sentence max"]
            out[f"{m}: plain + sentence max"] = standardised(own["plain"]) + standardised(own["sentence max"])
        for k in range(2, len(models) + 1):
            out[" + ".join(models[:k])] = sum(standardised(matrices[m, name]["plain"]) for m in models[:k])
        if len(models) == 3:
            out[f"{models[0]} + {models[2]}"] = sum(standardised(matrices[m, name]["plain"]) for m in models[::2])
        return out

    by_set = {s: rankings(s) for s in tasks}  # each set's rankings once
    names = list(next(iter(by_set.values())))
    table = {
        (ranking, group): np.mean([mean_oracle(by_set[s][ranking], tasks[s]) for s in sets])
        for group, sets in groups.items()
        for ranking in names
    }
    commit = run_commit()
    print(f"debiasrag at {commit}; oracle F1 of each ranking's top {CAP}, mean over queries\n")
    rows = [[r, *(f"{table[r, g]:.3f}" for g in groups)] for r in names]
    print(md_table(["ranking", *groups], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
