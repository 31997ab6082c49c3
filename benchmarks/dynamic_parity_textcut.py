"""``dynamic``'s group parity as ``balanced``'s, again, now that ``dynamic`` cuts over texts (session 37).

    .venv/bin/python benchmarks/dynamic_parity_textcut.py [--models default PATH ...] [--cache DIR] [--blind]

Session 33's study (``dynamic_parity.py``) scored four parities after ``dynamic``'s cut and kept the bounded swap
alone: ``balanced``'s parity (versions first, a neutral document out, a gap of one closed only at exact ties) lowered
mean |#F − #M| from 0.043 to 0.012 and raised mean F1 by 0.005, but lost 0.0052 F1 on one group for MiniLM-L3, just
over the 0.005 bound fixed beforehand. Since session 34 ``dynamic`` cuts over texts where its candidates hold versions
(``TextCut``), with its own swap bound (0.5 σ), so the swaps after the cut are not the ones session 33 measured. A
red-team round (session 35) also found the bounded swap at caps 1 and 2 trading the best document for another text's
neutral document although the best document's own neutral wording was a candidate.

Protocol, fixed before any run (committed before its first run):

* rules: ``dynamic_parity.RULES`` (``shipped`` = ``Dynamic()`` as it is now; ``versions``; ``versions+neutral``;
  ``balanced's``), the cut unchanged;
* design groups (15; each group's score the mean over its sets, every set read before): session 32's ten
  (``dynamic_wide_design.GROUP_SETS``), ``report6``, ``wide_report3`` (session 34's twelve), and ``report7``,
  ``report8``, ``wide_report4`` (read once as blind sets in sessions 34 and 37);
* the choice: ``dynamic_parity.choose`` at cap 10 over the fifteen groups — a rule is allowed when, for every model and
  every group, its F1 is at least shipped's − 0.005 and its |#F − #M| at most shipped's + 0.005; among the allowed the
  lowest mean |#F − #M| (within 0.005: the higher mean F1, then the simpler); it replaces shipped only if it lowers
  mean |#F − #M| by ≥ 0.005 or raises mean F1 by ≥ 0.005 — session 33's criterion, unchanged;
* caps 4, 2 and 1 are printed for every rule (means over the fifteen groups), not part of the choice;
* ``--blind`` then scores shipped and the choice once on ``fairness_report9`` (written blind in session 37, never
  read), at caps 10, 4, 2 and 1.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import dynamic_parity as dp  # noqa: E402
import dynamic_versions as dv  # noqa: E402
import dynamic_wide_design as wd  # noqa: E402
from study_sets import run_commit, study_set  # noqa: E402

from debiasrag.bench._common import md_table  # noqa: E402

SETS = {
    **wd.GROUP_SETS,
    **{name: [name] for name in ("report6", "wide_report3", "report7", "report8", "wide_report4")},
}
GROUPS = list(SETS)
CAPS = (10, 4, 2, 1)  # the choice at 10; the others printed
BLIND = {"fairness_report9": "report9"}


def score(data: dict, rules: list[str], groups: list[str], cap: int) -> dp.Scores:
    """(rule, model, group) -> F1, |#F − #M|, returned at ``cap``."""
    dv.CAP = cap  # dynamic_versions.evaluate and .library read the cap from the module
    return dv.score_groups(data, {n: (dv.library(dp.RULES[n]), 0.0) for n in rules}, groups)


def cells(scores: dp.Scores, name: str, group: str, key: str, models: list[str], digits: int = 3) -> str:
    return " / ".join(f"{scores[name, m, group][key]:.{digits}f}" for m in models)


def means(scores: dp.Scores, name: str, models: list[str]) -> str:
    """Mean F1 / mean |#F − #M| over models × the fifteen groups."""
    return f"{dp.mean(scores, name, 'f1', models, GROUPS):.4f} / {dp.mean(scores, name, 'absFM', models, GROUPS):.4f}"


def load_design(models: list[str], cache: Path) -> dict:
    """model -> set -> candidates of the fifteen design groups (cached under ``cache``), each set registered with its
    group."""
    for group, names in SETS.items():
        dv.GROUP_OF.update(dict.fromkeys(names, group))
    return wd.load_sets(models, cache, {name: study_set(name) for names in SETS.values() for name in names})


def load_blind(models: list[str], cache: Path) -> dict:
    """model -> set -> candidates of the blind set (read once), registered as its own group."""
    dv.GROUP_OF.update({name: name for name in BLIND})
    return wd.load_sets(models, cache, {name: study_set(s) for name, s in BLIND.items()})


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=dv.MODELS, help="'default' = packaged all-MiniLM-L6-v2")
    parser.add_argument("--cache", type=Path, default=dv.ROOT / ".cache/studies/dynamic_parity")
    parser.add_argument("--blind", action="store_true", help="then score fairness_report9 once")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    data = load_design(args.models, args.cache)
    models, rules = list(data), list(dp.RULES)
    commit = run_commit()
    print(f"debiasrag at {commit}; cells {' / '.join(models)}\n")

    by_cap = {cap: score(data, rules, GROUPS, cap) for cap in CAPS}
    scores = by_cap[10]
    rows = [
        [g, n, cells(scores, n, g, "f1", models), cells(scores, n, g, "absFM", models, 2)]
        + [cells(scores, n, g, "returned", models, 1)]
        for g in GROUPS
        for n in rules
    ]
    print("cap 10, per group:\n")
    print(md_table(["group", "rule", "F1", "|#F−#M|", "returned"], rows) + "\n")
    summary = [
        [
            n,
            "yes" if dp.allowed(scores, n, models, GROUPS) else "no",
            *(means(by_cap[cap], n, models) for cap in CAPS),
        ]
        for n in rules
    ]
    head = ["rule", "allowed (cap 10)", *(f"cap {cap}: mean F1 / mean |#F−#M|" for cap in CAPS)]
    print(md_table(head, summary) + "\n")
    failing = [
        f"{n}: {g} {m} F1 {scores[n, m, g]['f1'] - scores['shipped', m, g]['f1']:+.4f}, "
        f"|#F−#M| {scores[n, m, g]['absFM'] - scores['shipped', m, g]['absFM']:+.4f}"
        for n in rules[1:]
        for g in GROUPS
        for m in models
        if scores[n, m, g]["f1"] < scores["shipped", m, g]["f1"] - dp.LOSS - 1e-12
        or scores[n, m, g]["absFM"] > scores["shipped", m, g]["absFM"] + dp.LOSS + 1e-12
    ]
    print("cells outside the bounds (cap 10):\n" + ("\n".join(f"- {line}" for line in failing) or "- none") + "\n")
    pick = dp.choose(scores, models, GROUPS)
    print(f"chosen on the fifteen groups at cap 10: **{pick}**\n")
    if args.blind:
        blind = load_blind(args.models, args.cache)
        shown = list(dict.fromkeys(["shipped", pick]))
        rows = []
        for cap in CAPS:
            table = score(blind, shown, list(BLIND), cap)
            for name in BLIND:
                for n in shown:
                    rows.append([name, cap, n, cells(table, n, name, "f1", list(blind))])
                    rows[-1] += [cells(table, n, name, "absFM", list(blind), 2)]
                    rows[-1] += [cells(table, n, name, "returned", list(blind), 1)]
                rows.append(
                    [name, cap, "oracle (capped)", " / ".join(f"{dv.oracle(blind[m][name]):.3f}" for m in blind)]
                )
                rows[-1] += ["", ""]
        print("blind set, read once:\n")
        print(md_table(["set", "cap", "rule", "F1", "|#F−#M|", "returned"], rows) + "\n")
    print(f"run time {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
