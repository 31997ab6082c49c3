"""``balanced``'s gap of one, closed the other way: a neutral document out, one of the smaller group in (issue 10).

    .venv/bin/python benchmarks/balanced_neutral_out.py [--models default PATH ...] [--blind]

With one female document too many, ``balanced`` swaps the lowest female one for the best unchosen *neutral* one
within ``odd_delta`` (0.5 σ, ``benchmarks/balanced_odd_gap.py``). On the blind wide-topics set ``wide_topics_report2``
(session 31) that left 3 of 6 set × model × k cells above issue 10's |#F−#M| targets, every uneven list holding an
odd number of gendered documents. The same gap closes the other way: a *chosen neutral* document out, one of the
smaller group in — first the neutral document's own version in that group (the same text, relevant exactly when it
is: any score, like the version-first swaps), else the best unchosen one within the same bound below the lowest
chosen neutral document (:func:`debiasrag.strategies.balance_swaps` ``neutral_out=True``). Rules, fixed before any
run: ``neutral_out`` off / on × ``odd_delta`` ∈ {0, 0.25, 0.5, 1} σ (δ = 2 σ and version-first as shipped).

Protocol, fixed before any run: groups as the index stores them, |#F−#M| by the gold labels, recall against each
query's relevant set, k = 6 and 10, the three models. Choose on the design sets — main, holdout, passages 1–36,
gendered_topics, wide_topics and wide_topics_design2 — by issue 10's targets read per set (as
``balanced_odd_gap.py``): count the set × model × k cells with recall below `topk`'s − 0.01 or |#F−#M| above 0.15
(k = 6) / 0.25 (k = 10); fewest wins (ties: the shipped rule). Then score, with nothing chosen on them, the sets
already reported once (passages 37–48 in pairs, report1–5, wide_topics_report, wide_topics_report2) and, with
``--blind``, the blind set ``wide_topics_report3`` (run once, session 32).
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import balanced_odd_gap as og  # noqa: E402
import balanced_versions as bv  # noqa: E402  (this folder's study: its loader and protocol constants)
from balanced_odd_gap import units_of  # noqa: E402
from study_sets import run_commit, study_set  # noqa: E402

from debiasrag.bench._common import md_table  # noqa: E402
from debiasrag.bench.report import make_context  # noqa: E402
from debiasrag.datasets import RetrievalTask  # noqa: E402

ODD_DELTAS = (0.0, 0.25, 0.5, 1.0)
SHIPPED = (0.5, False)  # Balanced() when this study ran: odd_delta 0.5 σ (session 28); it chose (0, True), now shipped
DELTA = bv.SHIPPED[0]
Rule = tuple[float, bool]  # (odd_delta, neutral_out)


def loaders(blind: bool) -> dict[str, dict[str, Callable[[], RetrievalTask]]]:
    """Role -> {set name: loader}; the roles are design, read (reported once before), blind."""
    design = {
        "main": study_set("main"),
        "holdout": study_set("holdout"),
        **{str(p): study_set(f"passages{p}") for p in range(1, 37)},
        **{name: study_set(name) for name in ("topics", "wide", "wide_design2")},
    }
    read = {
        **{str(p): study_set(f"passages{p}") for p in range(37, 49)},
        **{name: study_set(name) for name in (*(f"report{i}" for i in range(1, 6)), "wide_report", "wide_report2")},
    }
    out = {"design": design, "read": read}
    if blind:
        out["blind"] = {"wide_report3": study_set("wide_report3")}
    return out


def evaluate(queries: list[bv.Query], k: int, rule: Rule | None) -> tuple[float, float]:
    """Mean |#F − #M| and recall of top-k (``rule`` None) or balanced with that (odd_delta, neutral_out)."""
    return og.evaluate(queries, k, None) if rule is None else og.evaluate(queries, k, *rule)


def name(rule: Rule | None) -> str:
    return "topk" if rule is None else f"odd_delta={rule[0]:g}{' neutral-out' if rule[1] else ''}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=bv.MODELS, help="'default' = packaged all-MiniLM-L6-v2")
    parser.add_argument("--blind", action="store_true", help="also score wide_topics_report3 (run once)")
    args = parser.parse_args(argv)
    roles = loaders(args.blind)
    sets = {s: f for by_set in roles.values() for s, f in by_set.items()}
    data: dict[str, dict[str, list[bv.Query]]] = {}
    for model in args.models:
        embedder = make_context(None if model == "default" else model, load_now=True).embedder
        data[Path(embedder.name).name] = {s: bv.load(embedder, f()) for s, f in sets.items()}
        print(f"{embedder.name} loaded", file=sys.stderr, flush=True)
    models = list(data)
    rules: list[Rule | None] = [None, *itertools.product(ODD_DELTAS, (False, True))]
    scores = {(r, m, k, s): evaluate(data[m][s], k, r) for r in rules for m in models for k in bv.KS for s in sets}

    def mean(rule: Rule | None, m: str, k: int, unit: list[str], which: int) -> float:  # 0 |#F−#M|, 1 recall
        return float(np.mean([scores[rule, m, k, s][which] for s in unit]))

    def violations(rule: Rule | None, units: list[list[str]]) -> tuple[int, int, int]:
        recall = fm = 0
        for unit, m, k in itertools.product(units, models, bv.KS):
            recall += mean(rule, m, k, unit, 1) < mean(None, m, k, unit, 1) - bv.RECALL_BOUND - 1e-9
            fm += mean(rule, m, k, unit, 0) > bv.FM_TARGET[k] + 1e-9
        return recall, fm, len(units) * len(models) * len(bv.KS)

    design = [[s] for s in roles["design"]]
    pick = min(rules[1:], key=lambda r: (sum(violations(r, design)[:2]), r != SHIPPED))
    commit = run_commit()
    print(f"debiasrag at {commit}; cells {' / '.join(models)}; δ = {DELTA:g} σ, version-first\n")
    print(f"chosen on the design sets by issue 10's targets per set: **{name(pick)}** (shipped {name(SHIPPED)})\n")
    groups = {"design: " + ", ".join(s for s in roles["design"] if not s.isdigit()) + ", 1–36": design}
    groups["read: 37–48 (pairs), report1–5, wide_report, wide_report2"] = units_of(list(roles["read"]))
    for label in ("wide_report", "wide_report2"):
        groups[label] = [[label]]
    if args.blind:
        groups["blind: wide_report3"] = [["wide_report3"]]
    rows = []
    for label, units in groups.items():
        pooled = [s for unit in units for s in unit]
        for rule in rules[1:] if label.startswith(("design", "read")) else dict.fromkeys([SHIPPED, pick]):
            recall, fm, cells = violations(rule, units)
            cols = og.gap_recall_cells(mean, rule, models, pooled)
            rows.append([label, name(rule), f"{recall} / {fm} of {cells}", *cols])
        topk = [" / ".join(f"{mean(None, m, k, pooled, 0):.2f}" for m in models) for k in bv.KS]
        rows.append([label, "topk", "", *topk])
    head = ["sets", "rule", "cells breaking recall / |#F−#M|", "k=6: |#F−#M| | recall − topk's", "k=10: same"]
    print(md_table(head, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
