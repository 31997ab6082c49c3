"""``dynamic``'s parity at small caps: ``balanced``'s version swaps where the cap is small (issue 10, next change).

    .venv/bin/python benchmarks/dynamic_small_caps.py [--models default PATH ...] [--cache DIR] [--blind]

``benchmarks/dynamic_parity_textcut.py`` (session 37) kept ``dynamic``'s bounded swap at cap 10 by its per-cell
criterion, and printed what the other parities do at small caps: mean |#F − #M| over its fifteen design groups at cap
2 was 0.48 as shipped against 0.013 with versions-first and neutral-out swaps (F1 0.495 → 0.509), at cap 4 0.041 →
0.010, at cap 1 0.027 → 0.004. With two or four documents the bounded swap often cannot even the groups out, while a
document's own version in the other wording trades no relevance. This study decides whether ``dynamic`` takes those
swaps where the cap is small. Written and committed in session 37 before any run; those means were known when it
was written (not the per-cell numbers), so only the blind set can show whether it overfits.

Protocol, fixed before any run:

* candidates: ``shipped`` (``Dynamic()``), and for C ∈ {2, 4} and P ∈ {``versions+neutral``, ``balanced's``} (the
  parities of ``dynamic_parity.RULES``) the rule "P where the cap is ≤ C, shipped above";
* design groups: the fifteen of ``dynamic_parity_textcut.py`` (every set read before);
* a candidate is *allowed* when at every cap 1, 2, 3 and 4, for every model and group, its F1 is at least shipped's −
  0.005 and its |#F − #M| at most shipped's + 0.005;
* the choice: the allowed candidate with the lowest mean |#F − #M| over caps 1–4 × models × groups (within 0.005 of
  each other: the higher mean F1, then the smaller C, then ``versions+neutral`` before ``balanced's``); it replaces
  shipped only if it lowers that mean by ≥ 0.005;
* caps 6 and 10 are printed as a check (a rule with C ≤ 4 does not act there);
* ``--blind`` then scores shipped and the choice once on ``fairness_report9`` (written blind in session 37, never
  read) at caps 1, 2, 3, 4 and 10.
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
import dynamic_parity_textcut as pt  # noqa: E402
import dynamic_versions as dv  # noqa: E402
import numpy as np  # noqa: E402

from debiasrag.bench._common import md_table  # noqa: E402

SMALL = (1, 2, 3, 4)  # the caps the choice is made on
CHECK = (6, 10)  # printed only
LOSS = TIE = 0.005
CANDIDATES: dict[str, tuple[str, int]] = {  # name -> (parity of dynamic_parity.RULES at caps <= C, C)
    "shipped": ("shipped", 0),
    **{f"{parity} at cap <= {c}": (parity, c) for c in (2, 4) for parity in ("versions+neutral", "balanced's")},
}
Scores = dict[tuple[str, str, str], dict[str, float]]


def rule(name: str, cap: int) -> dv.Rule:
    """The candidate ``name`` at ``cap``: its parity where the cap is small, ``Dynamic()`` above."""
    parity, small = CANDIDATES[name]
    return dv.library(dp.RULES[parity if cap <= small else "shipped"])


def score(data: dict, groups: list[str], cap: int) -> Scores:
    dv.CAP = cap  # dynamic_versions.evaluate and .library read the cap from the module
    return dv.score_groups(data, {n: (rule(n, cap), 0.0) for n in CANDIDATES}, groups)


def allowed(by_cap: dict[int, Scores], name: str, models: list[str], groups: list[str]) -> bool:
    return all(
        by_cap[c][name, m, g]["f1"] >= by_cap[c]["shipped", m, g]["f1"] - LOSS - 1e-12
        and by_cap[c][name, m, g]["absFM"] <= by_cap[c]["shipped", m, g]["absFM"] + LOSS + 1e-12
        for c in SMALL
        for m in models
        for g in groups
    )


def mean(by_cap: dict[int, Scores], name: str, key: str, models: list[str], groups: list[str]) -> float:
    return float(np.mean([by_cap[c][name, m, g][key] for c in SMALL for m in models for g in groups]))


def choose(by_cap: dict[int, Scores], models: list[str], groups: list[str]) -> str:
    names = [n for n in CANDIDATES if allowed(by_cap, n, models, groups)]  # shipped always is
    best = min(mean(by_cap, n, "absFM", models, groups) for n in names)
    near = [n for n in names if mean(by_cap, n, "absFM", models, groups) <= best + TIE]
    order = list(CANDIDATES)
    pick = max(
        near,
        key=lambda n: (round(mean(by_cap, n, "f1", models, groups), 6), -CANDIDATES[n][1], -order.index(n)),
    )
    gain = mean(by_cap, "shipped", "absFM", models, groups) - mean(by_cap, pick, "absFM", models, groups)
    return pick if gain >= TIE else "shipped"


def print_blind(models: list[str], cache: Path, pick: str) -> None:
    """Shipped and ``pick`` on ``fairness_report9`` at caps 1–4 and 10 (F1 and |#F − #M| per model)."""
    blind = pt.load_blind(models, cache)
    shown = list(dict.fromkeys(["shipped", pick]))
    rows = []
    for cap in (*SMALL, 10):
        dv.CAP = cap
        table = dv.score_groups(blind, {n: (rule(n, cap), 0.0) for n in shown}, list(pt.BLIND))
        for name in pt.BLIND:
            for n in shown:
                cells = [" / ".join(f"{table[n, m, name][k]:.3f}" for m in blind) for k in ("f1", "absFM")]
                rows.append([name, cap, n, *cells])
    print("blind set, read once:\n")
    print(md_table(["set", "cap", "candidate", "F1", "|#F−#M|"], rows) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=dv.MODELS, help="'default' = packaged all-MiniLM-L6-v2")
    parser.add_argument("--cache", type=Path, default=dv.ROOT / ".cache/studies/dynamic_parity")
    parser.add_argument("--blind", action="store_true", help="then score fairness_report9 once")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    data = pt.load_design(args.models, args.cache)
    models, groups = list(data), pt.GROUPS
    by_cap = {cap: score(data, groups, cap) for cap in (*SMALL, *CHECK)}
    head = ["candidate", "allowed", *(f"cap {c}: mean F1 / \\|#F−#M\\|" for c in (*SMALL, *CHECK))]
    rows = [
        [
            n,
            "yes" if allowed(by_cap, n, models, groups) else "no",
            *(pt.means(by_cap[c], n, models) for c in (*SMALL, *CHECK)),
        ]
        for n in CANDIDATES
    ]
    print(md_table(head, rows) + "\n")
    outside = [
        f"{n}: cap {c} {g} {m} F1 {by_cap[c][n, m, g]['f1'] - by_cap[c]['shipped', m, g]['f1']:+.4f}, "
        f"|#F−#M| {by_cap[c][n, m, g]['absFM'] - by_cap[c]['shipped', m, g]['absFM']:+.4f}"
        for n in list(CANDIDATES)[1:]
        for c in SMALL
        for g in groups
        for m in models
        if by_cap[c][n, m, g]["f1"] < by_cap[c]["shipped", m, g]["f1"] - LOSS - 1e-12
        or by_cap[c][n, m, g]["absFM"] > by_cap[c]["shipped", m, g]["absFM"] + LOSS + 1e-12
    ]
    print("cells outside the bounds:\n" + ("\n".join(f"- {line}" for line in outside) or "- none") + "\n")
    pick = choose(by_cap, models, groups)
    print(f"chosen on the fifteen groups: **{pick}**\n")
    if args.blind:
        print_blind(args.models, args.cache, pick)
    print(f"run time {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
