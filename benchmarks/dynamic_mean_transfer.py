"""``dynamic``'s cut, chosen on twelve design groups and judged by its mean left-out F1 (issue 10, session 34).

    .venv/bin/python benchmarks/dynamic_mean_transfer.py [--models default PATH ...] [--cache DIR] [--blind]

Session 32's study (``dynamic_wide_design.py``) chose ``families-cliff τ_v = 1.25, γ = 1.0, δ = 0.5`` on its ten
design groups; leave-one-group-out its mean left-out gain over the shipped rule was positive for all three models
(+0.035 / +0.016 / +0.037), but the criterion fixed then — a rule transfers only where it beats shipped on *every*
group left out, for every model — kept the shipped rule (it lost on 6 of 10 groups, by at most 0.040). Issue 10
asks for a rule chosen leave-one-dataset-out and judged by mean F1 against the oracle; a per-group win for every
model rejects any rule that changes behaviour at all (narrowing the cut for one-answer queries always costs a little
on some wide group). This study sets the criterion the issue names, with a bound on the worst group. It was set with
session 32's numbers known (that rule's worst left-out loss, 0.040, is inside the 0.05 bound below), so the
design groups alone cannot show it does not overfit: the two sets written blind and never read
(``fairness_report7``, 40 queries in 5 new areas; ``wide_topics_report4``) are the report, read once with
``--blind`` after the decision, and the decision is not revisited on them.

Protocol, fixed before this script was first run (committed before its first run):

* design groups (12; each group's score the mean over its sets): narrow — main, holdout, passages 1–36, passages
  37–48, report1–5, report6; wide — gendered_topics, wide_topics, wide_report, wide_report2, wide_design2,
  wide_report3 (report6 and wide_report3 were read once as blind sets in sessions 32–33 and become design data);
* rules and choice: exactly ``dynamic_wide_design.py``'s (518 rules + shipped; LR calibrations refitted per fold;
  ``dynamic_versions.choose``: best mean F1 among rules within 0.02 of shipped in every training group with mean
  |#F − #M| ≤ 0.20);
* leave-one-group-out: choose on eleven groups, score the twelfth;
* the rule chosen on all twelve replaces shipped iff (a) for every model the mean over the twelve folds of
  (left-out F1 of the fold's choice − shipped's F1 there) is > 0; (b) in every fold the choice's mean |#F − #M| over
  models on the group left out is ≤ 0.20; (c) in no fold does the choice lose more than 0.05 F1 to shipped for any
  model; (d) the rule chosen on all twelve is a fixed rule (window, knee, cliff, regime or versions families: a
  fitted calibration would need its fit shipped too, which this session does not do).

``--blind`` then scores shipped, the choice on all twelve, and the package's ``Dynamic`` as it is at that commit
(``dynamic_versions.library``, its own parity) on ``fairness_report7`` and ``wide_topics_report4``, read once.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import dynamic_score_model as sm  # noqa: E402
import dynamic_versions as dv  # noqa: E402
import dynamic_wide_design as wd  # noqa: E402
from study_sets import run_commit, study_set  # noqa: E402

from debiasrag.bench._common import md_table  # noqa: E402
from debiasrag.datasets import RetrievalTask, load_fairness_set, load_wide_topics  # noqa: E402
from debiasrag.strategies import Dynamic  # noqa: E402

BASE = wd.BASE
SETS = {  # session 32's ten groups with report6 among the narrow ones and wide_report3 among the wide ones
    **{group: wd.GROUP_SETS[group] for group in wd.KINDS["narrow"]},
    "report6": ["report6"],
    **{group: wd.GROUP_SETS[group] for group in wd.KINDS["wide"]},
    "wide_report3": ["wide_report3"],
}
GROUPS = list(SETS)
MAX_WORST_LOSS = 0.05
FIXED_FAMILIES = ("window", "knee", "cliff", "regime", "versions")
BLIND: dict[str, Callable[[], RetrievalTask]] = {
    "fairness_report7": lambda: load_fairness_set("report7"),
    "wide_report4": lambda: load_wide_topics(report=4),
}


def cells(table: dict, name: str, group: str, key: str, models: list[str]) -> str:
    return " / ".join(f"{table[name, m, group][key]:.3f}" for m in models)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=dv.MODELS, help="'default' = packaged all-MiniLM-L6-v2")
    parser.add_argument("--cache", type=Path, default=dv.ROOT / ".cache/studies/dynamic_wide_design")
    parser.add_argument("--blind", action="store_true", help="then read fairness_report7 and wide_topics_report4 once")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    for group, names in SETS.items():
        dv.GROUP_OF.update(dict.fromkeys(names, group))
    data = wd.load_sets(args.models, args.cache, {name: study_set(name) for names in SETS.values() for name in names})
    models = list(data)
    commit = run_commit()
    print(f"debiasrag at {commit}; cap {dv.CAP}; cells {' / '.join(models)}\n")

    fixed = wd.fixed_rules()
    every = sm.rules(data, wd.sets_of(GROUPS))
    fixed.update({n: r for n, r in every.items() if wd.family(n) in ("NE", "GG")})
    fixed_scores = dv.score_groups(data, fixed, GROUPS)
    full_lr = {n: r for n, r in every.items() if wd.family(n) in wd.LR_SOURCES}
    scores = {**fixed_scores, **dv.score_groups(data, full_lr, GROUPS)}
    names = [*fixed, *full_lr]
    chosen = dv.choose(scores, names, models, GROUPS)
    oracle = {(m, g): float(np.mean([dv.oracle(data[m][s]) for s in SETS[g]])) for m in models for g in GROUPS}
    print(f"{len(names)} rules (+ shipped); chosen on all twelve groups: **{chosen}**\n")
    rows = [
        [
            g,
            cells(scores, BASE, g, "f1", models),
            cells(scores, chosen, g, "f1", models),
            " / ".join(f"{oracle[m, g]:.3f}" for m in models),
            cells(scores, chosen, g, "returned", models),
            cells(scores, chosen, g, "absFM", models),
        ]
        for g in GROUPS
    ]
    print(md_table(["group", "shipped F1", "chosen F1", "oracle F1", "chosen returned", "chosen |F−M|"], rows) + "\n")

    gains: dict[str, list[float]] = {m: [] for m in models}
    fm_ok, worst_ok, rows = True, True, []
    for left in GROUPS:
        rest = [g for g in GROUPS if g != left]
        fold_lr = wd.lr_rules(data, rest)
        table = {**fixed_scores, **dv.score_groups(data, fold_lr, GROUPS)}
        pick = dv.choose(table, [*fixed, *fold_lr], models, rest)
        delta = {m: table[pick, m, left]["f1"] - table[BASE, m, left]["f1"] for m in models}
        for m in models:
            gains[m].append(delta[m])
        fm = float(np.mean([table[pick, m, left]["absFM"] for m in models]))
        fm_ok &= fm <= dv.FM_BOUND
        worst_ok &= min(delta.values()) >= -MAX_WORST_LOSS
        rows.append(
            [
                left,
                pick,
                cells(table, pick, left, "f1", models),
                cells(table, BASE, left, "f1", models),
                " / ".join(f"{delta[m]:+.3f}" for m in models),
                f"{fm:.2f}",
            ]
        )
        print(f"fold {left} ({time.perf_counter() - started:.0f} s)", file=sys.stderr, flush=True)
    print("leave-one-group-out (choose on eleven, score the twelfth):\n")
    print(md_table(["left out", "chosen on the rest", "its F1", "shipped F1", "gain", "its |F−M|"], rows) + "\n")
    mean_gain = {m: float(np.mean(g)) for m, g in gains.items()}
    fixed_rule = wd.family(chosen) in FIXED_FAMILIES
    verdict = {
        "(a) mean left-out gain > 0 for every model": all(v > 0 for v in mean_gain.values()),
        "(b) mean |F−M| ≤ 0.20 in every fold": fm_ok,
        f"(c) no fold loses more than {MAX_WORST_LOSS} for any model": worst_ok,
        "(d) a fixed rule": fixed_rule,
    }
    print("mean left-out gain: " + " / ".join(f"{mean_gain[m]:+.4f}" for m in models))
    for what, ok in verdict.items():
        print(f"- {what}: {'yes' if ok else 'no'}")
    adopt = chosen != BASE and all(verdict.values())
    print(f"\ndecision: {'replace shipped by ' + chosen if adopt else 'shipped unchanged'}\n")
    if args.blind:
        for name in BLIND:
            dv.GROUP_OF[name] = name
        blind = wd.load_sets(args.models, args.cache, BLIND)
        rules = {n: ({**fixed, **full_lr}[n]) for n in dict.fromkeys([BASE, chosen])}
        rules["package Dynamic()"] = (dv.library(Dynamic()), 0.0)
        table = dv.score_groups(blind, rules, list(BLIND))
        rows = [
            [s, n, *(cells(table, n, s, key, list(blind)) for key in ("f1", "absFM", "returned"))]
            for s in BLIND
            for n in rules
        ]
        rows += [
            [s, "oracle (capped)", " / ".join(f"{dv.oracle(blind[m][s]):.3f}" for m in blind), "", ""] for s in BLIND
        ]
        print("blind sets, read once:\n")
        print(md_table(["set", "rule", "F1", "|#F−#M|", "returned"], rows) + "\n")
    print(f"run time {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
