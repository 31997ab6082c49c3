"""Does `dynamic` gain on a gender-blind index? The shipped rules on the plain and the blind index, side by side.

    .venv/bin/python benchmarks/blind_index_dynamic.py [--models default PATH ...] [--sets NAME ...] [--report]

Issue 10 says `dynamic`'s F1 gap "needs a better ranking or better evidence". On the sets whose neutral wordings are
paraphrases (generic advice beside a narrative about a named woman or man), the plain index ranks the person-free
wording far above the others, and the cut drops the narratives; the gender-blind index (``debiasrag index
--neutralize``: every document embedded in its neutral rewrite, queries rewritten alike) ranks them together. This
script measures that, with no rule changed: for each model, each labelled set and each index (plain; blind with
NER names, the shipped ``GenderNeutralizer``), the mean over queries of `dynamic` (cap 10) F1 and |#F−#M|, the
best per-query cut of the plain query's top 10 (``oracle_cut``), `topk` recall at k = 3, 6, 10, and `balanced`
|#F−#M| and recall at k = 6 and 10 (on the blind index `balanced` is ``Balanced(delta=BLIND_INDEX_DELTA)``, as the
retriever picks it). |#F−#M| by the sets' gold groups.

The question is only whether to recommend the blind index to `dynamic`'s users; the criterion was fixed before this
script first ran (session 42): on the read sets (every registered set but ``fairness_report13``), grouped as main,
holdout, passages (one mean over parts 1–48), gendered topics, wide topics, wide_design2, report1–12 (one mean),
wide reports 1–5 (one mean), recommend it when for every model the mean over the groups of `dynamic`'s F1 rises,
no group's F1 falls by more than 0.02, its mean |#F−#M| stays ≤ 0.20, and `topk`'s mean recall at k = 6 falls by at
most 0.01. ``--report`` adds the blind ``fairness_report13`` (read once, after the decision).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from study_sets import missing_model_folders, query_reports, run_commit, study_set  # noqa: E402

from debiasrag.bench._common import md_table  # noqa: E402
from debiasrag.bench.report import make_context  # noqa: E402
from debiasrag.bench.retrieval import build_retriever  # noqa: E402
from debiasrag.datasets import RetrievalTask  # noqa: E402
from debiasrag.metrics.fairness import mean_report, oracle_cut  # noqa: E402

GROUPS: dict[str, list[str]] = {
    "main": ["main"],
    "holdout": ["holdout"],
    "passages": [f"passages{p}" for p in range(1, 49)],
    "topics": ["topics"],
    "wide": ["wide"],
    "wide_design2": ["wide_design2"],
    "reports": [f"report{i}" for i in range(1, 13)],
    "wide_reports": ["wide_report", *(f"wide_report{i}" for i in range(2, 6))],
}
REPORT = {"report13": ["report13"]}
INDEXES = {"plain": None, "blind": "ner"}
RUNS = (("dynamic", 10), ("topk", 3), ("topk", 6), ("topk", 10), ("balanced", 6), ("balanced", 10))


def measure(task: RetrievalTask, embedder, neutralize: str | None) -> dict[str, float]:
    """The means over the task's queries (flat: ``"<strategy> @k <metric>"`` and ``"oracle f1"``)."""
    retriever = build_retriever(task, embedder, neutralize)
    out: dict[str, float] = {}
    for strategy, k in RUNS:
        report = mean_report(query_reports(task, retriever, strategy, k))
        for metric in ("f1", "recall", "abs_female_minus_male"):
            out[f"{strategy} @{k} {metric}"] = report[metric]
    oracles = []
    for name, query in task.queries.items():
        relevant = {str(d) for d in task.relevant[name]}
        ranked = [str(h.id) for h in retriever.retrieve(query, k=10, strategy="topk")]
        oracles.append(oracle_cut([d in relevant for d in ranked], len(relevant))["oracle_f1"])
    out["oracle f1"] = float(np.mean(oracles))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["default"], help="'default' = packaged all-MiniLM-L6-v2")
    parser.add_argument("--sets", nargs="+", help="only these groups (names in GROUPS)")
    parser.add_argument("--report", action="store_true", help="also the blind fairness_report13 (read once)")
    args = parser.parse_args()
    if missing_model_folders(args.models):
        return 2
    commit = run_commit()
    groups = {g: sets for g, sets in GROUPS.items() if not args.sets or g in args.sets}
    if args.report:
        groups |= REPORT
    results: dict[tuple[str, str, str], dict[str, float]] = {}  # (model, index, set) -> metrics
    for model in args.models:
        ctx = make_context(None if model == "default" else model, load_now=True)
        label = Path(ctx.embedder.name).name
        for sets in groups.values():
            for name in sets:
                start = time.perf_counter()
                task = study_set(name)()
                for index, neutralize in INDEXES.items():
                    results[label, index, name] = measure(task, ctx.embedder, neutralize)
                print(f"{label} {name}: {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    models = list(dict.fromkeys(m for m, _, _ in results))
    print(f"debiasrag at {commit}; per group the mean over its sets of the mean over queries\n")

    def group_mean(model: str, index: str, group: str, key: str) -> float:
        return float(np.nanmean([results[model, index, s][key] for s in groups[group]]))

    keys = ["dynamic @10 f1", "dynamic @10 abs_female_minus_male", "oracle f1", "topk @3 recall", "topk @6 recall"]
    keys += ["topk @10 recall", "balanced @6 abs_female_minus_male", "balanced @6 recall"]
    keys += ["balanced @10 abs_female_minus_male", "balanced @10 recall"]
    short = ["dyn F1", "dyn |F−M|", "oracle", "topk R@3", "R@6", "R@10", "bal@6 |F−M|", "bal@6 R", "bal@10 |F−M|"]
    short += ["bal@10 R"]
    rows = [
        [model, group, index, *(group_mean(model, index, group, key) for key in keys)]
        for model in models
        for group in groups
        for index in INDEXES
    ]
    print(md_table(["model", "group", "index", *short], rows, digits=3) + "\n")
    design = [g for g in groups if g in GROUPS]
    if len(design) == len(GROUPS):
        print("**The criterion (fixed before the first run), over the read groups:**\n")
        verdicts = []
        for model in models:
            delta = {g: group_mean(model, "blind", g, keys[0]) - group_mean(model, "plain", g, keys[0]) for g in design}
            mean_gain = float(np.mean(list(delta.values())))
            worst = min(delta, key=lambda g: delta[g])
            parity = float(np.mean([group_mean(model, "blind", g, keys[1]) for g in design]))
            recall = float(
                np.mean(
                    [group_mean(model, "blind", g, keys[4]) - group_mean(model, "plain", g, keys[4]) for g in design]
                )
            )
            ok = mean_gain > 0 and delta[worst] >= -0.02 and parity <= 0.20 and recall >= -0.01
            verdicts.append(ok)
            print(
                f"- {model}: mean F1 gain {mean_gain:+.3f}, worst group {worst} {delta[worst]:+.3f}, "
                f"mean |#F−#M| {parity:.3f}, topk recall @6 {recall:+.3f} → {'met' if ok else 'not met'}"
            )
        print(f"\nrecommend the blind index for `dynamic`: {'yes' if all(verdicts) else 'no'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
