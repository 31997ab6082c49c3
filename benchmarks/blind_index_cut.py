"""A cut over texts for the gender-blind index, chosen leave-one-group-out (issue 10, session 42).

    .venv/bin/python benchmarks/blind_index_cut.py [--models default PATH ...] [--report]

``blind_index_dynamic.py`` showed the gender-blind index (``debiasrag index --neutralize``) is a better ranking for
our sets (the best per-query cut up in 21 of 24 group × model cells) while `dynamic`'s shipped cut, chosen on plain
scores, turns only part of that into F1. On a blind index the wordings of a text embed (nearly) alike, so the cut
over texts may want another width. This study chooses one, for the retriever to use on blind indexes as it already
uses ``BLIND_INDEX_DELTA`` for `balanced`.

Protocol, fixed before this script first ran (committed before its first run, session 42):

* indexes: every set of ``blind_index_dynamic.GROUPS`` on the blind index (names by NER, as ``debiasrag index
  --neutralize``), each model of ``--models`` (default: the three packaged ones);
* rules: ``Dynamic(text_cut=TextCut(tau, gamma, delta=0.5))`` for tau in {0.5, 0.75, 1.0, 1.25, 1.5} and gamma in
  {0, 0.5, 1.0, None} (20 rules; tau 1.25, gamma 1.0 is the shipped cut) and ``Dynamic(versions=True)`` (the
  one-answer cut), cap 10, the package's own parity;
* choice on a list of groups: the rule with the highest mean over models of the mean over the groups of F1, among
  rules whose mean |#F − #M| over the groups is ≤ 0.20 for every model (ties: the shipped rule, then the earlier in
  the list above);
* leave-one-group-out over the eight groups; adopt the rule chosen on all eight as the blind index's cut iff
  (a) for every model the mean over the eight folds of (left-out F1 of the fold's choice − the shipped cut's F1
  there) is > 0, (b) in no fold does the fold's choice lose more than 0.05 F1 to the shipped cut for any model, and
  (c) it is not the shipped cut;
* ``--report`` (only after the decision, once): ``fairness_report13``, written blind in session 41 and never read —
  `dynamic` on the plain index, the shipped cut on the blind index and the rule chosen on all eight, three models.
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

from blind_index_dynamic import GROUPS  # noqa: E402
from study_sets import missing_model_folders, query_reports, run_commit, study_set  # noqa: E402

from debiasrag.bench._common import md_table  # noqa: E402
from debiasrag.bench.report import make_context  # noqa: E402
from debiasrag.bench.retrieval import build_retriever  # noqa: E402
from debiasrag.metrics.fairness import mean_report  # noqa: E402
from debiasrag.strategies import Dynamic, Strategy, TextCut  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MODELS = ["default", str(ROOT / ".cache/models/paraphrase-MiniLM-L3-v2"), str(ROOT / ".cache/models/all-mpnet-base-v2")]
SHIPPED = "tau=1.25 gamma=1"
CAP, FM_BOUND, MAX_LOSS = 10, 0.20, 0.05


def rules() -> dict[str, Strategy]:
    out: dict[str, Strategy] = {}
    for tau in (0.5, 0.75, 1.0, 1.25, 1.5):
        for gamma in (0.0, 0.5, 1.0, None):
            out[f"tau={tau:g} gamma={'none' if gamma is None else f'{gamma:g}'}"] = Dynamic(
                text_cut=TextCut(tau=tau, gamma=gamma, delta=0.5)
            )
    out["versions=True"] = Dynamic(versions=True)
    return out


def choose(scores: dict, names: list[str], models: list[str], groups: list[str]) -> str:
    """The protocol's choice on ``groups``; ``scores[model, rule, group]`` = (F1, |#F − #M|)."""

    def mean(rule: str, model: str, i: int) -> float:
        return float(np.mean([scores[model, rule, g][i] for g in groups]))

    allowed = [r for r in names if all(mean(r, m, 1) <= FM_BOUND for m in models)]
    order = {r: n for n, r in enumerate(names)}
    return max(allowed, key=lambda r: (round(np.mean([mean(r, m, 0) for m in models]), 9), r == SHIPPED, -order[r]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=MODELS)
    parser.add_argument("--report", action="store_true", help="read fairness_report13 once (after the decision)")
    parser.add_argument("--sets", nargs="+", help="a smoke run on these groups only (no decision)")
    args = parser.parse_args()
    if missing_model_folders(args.models):
        return 2
    commit = run_commit()
    candidates = rules()
    names = list(candidates)
    labels = {m: Path(make_context(None if m == "default" else m).embedder.name).name for m in args.models}
    groups = {"report13": ["report13"]} if args.report else GROUPS
    if args.sets and not args.report:
        groups = {g: sets for g, sets in GROUPS.items() if g in args.sets}
    per_set: dict[tuple[str, str, str], tuple[float, float]] = {}
    plain: dict[tuple[str, str], tuple[float, float]] = {}
    for model in args.models:
        ctx = make_context(None if model == "default" else model, load_now=True)
        for sets in groups.values():
            for name in sets:
                start = time.perf_counter()
                task = study_set(name)()
                retriever = build_retriever(task, ctx.embedder, "ner")
                for rule, strategy in candidates.items():
                    report = mean_report(query_reports(task, retriever, strategy, CAP))
                    per_set[labels[model], rule, name] = (report["f1"], report["abs_female_minus_male"])
                if args.report:
                    report = mean_report(query_reports(task, build_retriever(task, ctx.embedder), "dynamic", CAP))
                    plain[labels[model], name] = (report["f1"], report["abs_female_minus_male"])
                print(f"{labels[model]} {name}: {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)
    models = list(labels.values())
    scores = {
        (m, r, g): tuple(float(np.mean([per_set[m, r, s][i] for s in sets])) for i in (0, 1))
        for m in models
        for r in names
        for g, sets in groups.items()
    }
    print(f"debiasrag at {commit}; blind index (names by NER); cap {CAP}; F1 / |#F−#M| per group\n")
    rows = [
        [r, *(f"{scores[m, r, g][0]:.3f} / {scores[m, r, g][1]:.2f}" for m in models for g in groups)] for r in names
    ]
    print(md_table(["rule", *(f"{m} {g}" for m in models for g in groups)], rows) + "\n")
    if args.report:
        print("**fairness_report13 (blind, read once): F1 / |#F−#M|**\n")
        rows = [
            [
                "`dynamic`, plain index",
                *(f"{plain[m, 'report13'][0]:.3f} / {plain[m, 'report13'][1]:.2f}" for m in models),
            ]
        ]
        rows += [
            [
                f"blind index, {r}",
                *(f"{scores[m, r, 'report13'][0]:.3f} / {scores[m, r, 'report13'][1]:.2f}" for m in models),
            ]
            for r in names
        ]
        print(md_table(["rule", *models], rows) + "\n")
        return 0
    if len(groups) < 2:  # a smoke run on one group: no fold to leave out
        return 0
    folds = []
    for left in groups:
        pick = choose(scores, names, models, [g for g in groups if g != left])
        gains = {m: scores[m, pick, left][0] - scores[m, SHIPPED, left][0] for m in models}
        folds.append((left, pick, gains))
    rows = [[left, pick, *(f"{gains[m]:+.3f}" for m in models)] for left, pick, gains in folds]
    print(
        "**Leave one group out: the choice on the other seven, its F1 gain over the shipped cut on the group left "
        "out**\n"
    )
    print(md_table(["left out", "chosen", *models], rows) + "\n")
    final = choose(scores, names, models, list(groups))
    mean_gain = {m: float(np.mean([g[m] for _, _, g in folds])) for m in models}
    worst = {m: min(g[m] for _, _, g in folds) for m in models}
    ok = all(v > 0 for v in mean_gain.values()) and all(v >= -MAX_LOSS for v in worst.values()) and final != SHIPPED
    ok = ok and list(groups) == list(GROUPS)
    print(f"chosen on all eight: {final}")
    print("mean left-out gain: " + ", ".join(f"{m} {v:+.4f}" for m, v in mean_gain.items()))
    print("worst fold: " + ", ".join(f"{m} {v:+.3f}" for m, v in worst.items()))
    print(f"adopt as the blind index's cut: {'yes' if ok else 'no'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
