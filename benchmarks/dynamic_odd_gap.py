"""``dynamic``'s bound for closing a gap of one (issue 10, session 41).

    .venv/bin/python benchmarks/dynamic_odd_gap.py [--models default PATH ...] [--sets NAME ...] [--out FILE.json]

A red team's FAQ (session 41) lost its only answer when that answer named a staff member: the answer was the
window's one gendered document, and closing that gap of one within ``dynamic``'s δ = 1 σ swapped it for an unrelated
neutral entry 0.4 σ below. ``balanced`` closes a gap of one within 0.25 σ (:data:`debiasrag.strategies.ODD_DELTA`);
this script compares ``dynamic``'s bounds for that step — δ (as shipped until session 41, ``odd_delta=1.0``),
0.25 σ (since session 41) and exact ties (0) — through the real retriever
(:func:`debiasrag.bench.retrieval.build_retriever`), at caps 6 and 10, on every labelled set read before (default:
main, holdout, passages 1–48, gendered topics, wide_topics, wide_topics_design2, report1–11,
wide_topics_report … report5). It prints, per model and cap, mean F1, mean |#F−#M| by the gold labels and the number
of sets above issue 10's 0.20, and the cells whose F1 moves most. ``--sets report12`` reads the set written blind in
session 40 (read once, in session 41, after the rule for adopting 0.25 σ was fixed).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from study_sets import query_reports, study_set  # noqa: E402

from debiasrag.bench._common import md_table  # noqa: E402
from debiasrag.bench.report import make_context  # noqa: E402
from debiasrag.bench.retrieval import build_retriever  # noqa: E402
from debiasrag.strategies import Dynamic  # noqa: E402

READ_SETS = [
    "main",
    "holdout",
    *(f"passages{p}" for p in range(1, 49)),
    "topics",
    "wide",
    "wide_design2",
    *(f"report{i}" for i in range(1, 12)),
    *(f"wide_report{i}" for i in ("", 2, 3, 4, 5)),
]
RULES = {"delta (before)": Dynamic(odd_delta=1.0), "0.25 sigma": Dynamic(), "exact ties": Dynamic(odd_delta=0.0)}
CAPS = (6, 10)


def measure(models: list[str], sets: list[str]) -> dict[str, dict[str, float]]:
    """``{"model|set|rule|cap": {"f1", "recall", "abs_female_minus_male"}}``, means over each set's queries."""
    out: dict[str, dict[str, float]] = {}
    for model in models:
        embedder = make_context(None if model == "default" else model, load_now=True).embedder
        for name in sets:
            task = study_set(name)()
            retriever = build_retriever(task, embedder)
            for rule, strategy in RULES.items():
                for cap in CAPS:
                    rows = query_reports(task, retriever, strategy, cap)
                    out[f"{model}|{name}|{rule}|{cap}"] = {
                        m: float(np.mean([r[m] for r in rows])) for m in ("f1", "recall", "abs_female_minus_male")
                    }
        print(f"{model}: done", file=sys.stderr, flush=True)
    return out


def summary(results: dict[str, dict[str, float]], models: list[str], sets: list[str]) -> str:
    rows = []
    for cap in CAPS:
        for model in models:
            for rule in RULES:
                cells = [results[f"{model}|{s}|{rule}|{cap}"] for s in sets]
                rows.append(
                    [
                        cap,
                        Path(model).name,
                        rule,
                        float(np.mean([c["f1"] for c in cells])),
                        float(np.mean([c["abs_female_minus_male"] for c in cells])),
                        sum(c["abs_female_minus_male"] > 0.20 + 1e-9 for c in cells),
                    ]
                )
    headers = ["cap", "model", "gap of one closed within", "mean F1", "mean |#F−#M|", "sets above 0.20"]
    return md_table(headers, rows, digits=4)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["default"])
    parser.add_argument("--sets", nargs="+", default=READ_SETS)
    parser.add_argument("--out", type=Path, help="write every cell as JSON")
    args = parser.parse_args(argv)
    results = measure(args.models, args.sets)
    print(summary(results, args.models, args.sets))
    moves = sorted(
        (results[f"{m}|{s}|0.25 sigma|{c}"]["f1"] - results[f"{m}|{s}|delta (before)|{c}"]["f1"], Path(m).name, s, c)
        for m in args.models
        for s in args.sets
        for c in CAPS
    )
    print("\nF1 moves, 0.25 sigma − delta: lowest", [(round(d, 4), m, s, c) for d, m, s, c in moves[:3]])
    print("                               highest", [(round(d, 4), m, s, c) for d, m, s, c in moves[-3:]])
    if args.out:
        args.out.write_text(json.dumps(results, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
