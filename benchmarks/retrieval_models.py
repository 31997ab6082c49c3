"""The retrieval fairness benchmark for several embedding models side by side (issue 10: no conclusion on MiniLM alone).

For each model and each fairness set (main and held-out, or ``--data PATH``), every strategy at k = 3, 6, 10 gets
the metrics of ``debiasrag bench retrieval``; rows of the same strategy and k sit next to each other per model.
The extra models come from ``make models`` (folders under .cache/models/).

    .venv/bin/python benchmarks/retrieval_models.py [--models default PATH ...] [--data PATH] [--k 3 6 10]
        [--gold-groups]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from study_sets import run_commit

from debiasrag.bench._common import md_table
from debiasrag.bench.report import make_context
from debiasrag.bench.retrieval import FAIRNESS_K, build_retriever, compare, group_agreement, measure_fairness
from debiasrag.datasets import load_fairness_set, load_labelled_set
from debiasrag.groups import GROUP_KEY
from debiasrag.strategies import STRATEGIES

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_MODELS = [
    "default",
    str(ROOT / ".cache/models/paraphrase-MiniLM-L3-v2"),
    str(ROOT / ".cache/models/all-mpnet-base-v2"),
]
COLUMNS = (
    ("returned", "returned"),
    ("recall", "recall"),
    ("precision", "precision"),
    ("F1", "f1"),
    ("F1/oracle", "f1_vs_oracle"),
    ("#F−#M", "female_minus_male"),
    ("|#F−#M|", "abs_female_minus_male"),
    ("ARaB", "arab"),
    ("NFaiRR", "nfairr"),
    ("exp. F−M", "exposure_disparity"),
)


def short_name(name: str) -> str:
    return Path(name).name if "/" in name else name


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=DEFAULT_MODELS, help="'default' = packaged all-MiniLM-L6-v2")
    parser.add_argument("--data", type=Path, default=None, help="a labelled set instead of the bundled ones")
    parser.add_argument("--k", type=int, nargs="+", default=list(FAIRNESS_K), help="k values to print (oracle always)")
    parser.add_argument("--cache-dir", type=Path, default=None, help="embedding cache (default ~/.cache/debiasrag)")
    parser.add_argument(
        "--gold-groups",
        action="store_true",
        help="give the strategies each document's labelled group (debiasrag_group) instead of inferring it",
    )
    args = parser.parse_args()
    missing = [m for m in args.models if m != "default" and "/" in m and not Path(m).exists()]
    if missing:
        print(f"missing model folder(s): {', '.join(missing)} — run `make models` first", file=sys.stderr)
        return 2
    if not set(args.k) <= set(FAIRNESS_K):
        print(f"--k must be among {FAIRNESS_K}", file=sys.stderr)
        return 2
    if args.data is not None:
        tasks = {"data": load_labelled_set(args.data)}
    else:
        tasks = {"main": load_fairness_set("main"), "holdout": load_fairness_set("holdout")}
    if args.gold_groups:  # the strategies then balance the true groups: what a perfect detector would give
        for task in tasks.values():
            for doc in task.documents:
                doc.metadata[GROUP_KEY] = doc.metadata["group"]
    scores: dict[tuple[str, str], dict] = {}  # (set, model) -> {(strategy, k): metrics}
    used: dict[str, list[str]] = {}  # set -> the groups the index stored (versions read by contrast)
    for model in args.models:
        ctx = make_context(None if model == "default" else model, cache_dir=args.cache_dir, load_now=True)
        for key, task in tasks.items():
            start = time.perf_counter()
            retriever = build_retriever(task, ctx.embedder)
            used.setdefault(key, retriever.index.groups[retriever.concept.name].groups)  # the first model's
            result = measure_fairness(task, retriever)
            compare(result)
            scores[key, short_name(ctx.embedder.name)] = result
            print(
                f"{short_name(ctx.embedder.name)} on {task.name}: {time.perf_counter() - start:.0f} s", file=sys.stderr
            )
    commit = run_commit()
    groups = "labelled groups given (--gold-groups)" if args.gold_groups else "groups inferred from the text"
    print(f"debiasrag at {commit}; {groups}; means over queries; for 'dynamic' k is a cap.\n")
    for key, task in tasks.items():
        models = [m for (s, m) in scores if s == key]
        rows = []
        for strategy, k in [("oracle", "best"), *[(s, str(k)) for s in STRATEGIES for k in args.k]]:
            for model in models:
                row = scores[key, model][strategy, k]
                rows.append([strategy, k, model, *[row[m] for _, m in COLUMNS]])
        agreement = group_agreement(task, used[key])
        print(f"**{task.name}: {len(task.queries)} queries, {len(task.documents)} documents**")
        print(
            f"(groups the strategies use agree with the labels on {agreement['accuracy']:.3f} of the documents; "
            f"the detector on each document alone {agreement['accuracy_per_document']:.3f})\n"
        )
        print(md_table(["strategy", "k", "model", *[h for h, _ in COLUMNS]], rows, digits=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
