"""Fit the learned protagonist decider of ``debiasrag.groups`` (``data/groups/protagonist_model.json``).

A conditional logit over a text's candidate groups (female, male, neutral): score = w · features(group), one
weight vector shared by female and male (so the decider prefers neither for its own sake), one for neutral plus
a bias; softmax cross-entropy with an L2 penalty λ, fitted by L-BFGS from zeros (deterministic). The features
(``GroupDetector.protagonist_features``) are read from the hand-written rules' mentions, and the rules' own pick
is one of them.

Protocol: trained only on sets that already chose a rule of the detector or had their first, held-out scores
(``TRAIN``); λ chosen by leave-one-set-out accuracy over them; the other sets (never trained or chosen on) are
scored after the choice and printed for the README. Texts without any mention are left out (the detector
calls them neutral without the model).

    .venv/bin/python scripts/train_protagonist_model.py [--out PATH]   # LOSO table, report, writes the JSON
    .venv/bin/python scripts/train_protagonist_model.py --l2 0.0003 --out PATH   # one fit at a given λ, no LOSO
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.optimize import minimize

from debiasrag.datasets import load_group_sets
from debiasrag.fileio import atomic_write_text
from debiasrag.groups import NEUTRAL, PROTAGONIST_FEATURES, GroupDetector

OUT = Path(__file__).resolve().parents[1] / "debiasrag/data/groups/protagonist_model.json"
TRAIN = (
    "fairness_main",
    "gendered_topics",
    "toy",
    "triples_design",
    "triples_report",
    "fairness_passages",
    "fairness_passages2",
    "fairness_passages4",
    "fairness_passages5",
    "fairness_passages6",
    "fairness_passages7",
    "fairness_passages8",
    "fairness_passages9",  # chose nothing and had their first scores (rules, then the first learned decider)
    "fairness_passages10",  # before they joined the training sets
    "fairness_passages11",
    "fairness_passages12",
    "fairness_passages13",
    "fairness_passages14",
    "fairness_passages15",
    "fairness_passages16",
    "fairness_passages17",
    "fairness_passages18",
)
LAMBDAS = (0.0, 1e-4, 3e-4, 1e-3, 3e-3, 1e-2)
GROUPS = ("female", "male", NEUTRAL)


@dataclass
class Featurized:
    """One set: features (texts with mentions × 3 groups × features), gold group indices, the rules' picks, and
    of the texts without mentions (neutral without the model) how many are gold-neutral, and the set's size."""

    x: np.ndarray
    y: np.ndarray
    picks: np.ndarray
    empty_right: int
    total: int


def featurize(rules: GroupDetector, rows: list[tuple[str, str]]) -> Featurized:
    features, gold, picks, empty_right = [], [], [], 0
    for text, group in rows:
        found = rules.mentions(text)
        if not found:
            empty_right += group == NEUTRAL
            continue
        pick = rules._decide(text, found)
        features.append(rules.protagonist_features(text, found, pick))
        gold.append(GROUPS.index(group))
        picks.append(GROUPS.index(pick))
    x = np.array(features).reshape(-1, 3, len(PROTAGONIST_FEATURES))
    return Featurized(x, np.array(gold), np.array(picks), empty_right, len(rows))


def scores(w: np.ndarray, x: np.ndarray) -> np.ndarray:
    k = x.shape[2]
    return np.stack([x[:, 0] @ w[:k], x[:, 1] @ w[:k], x[:, 2] @ w[k : 2 * k] + w[2 * k]], axis=1)


def fit(x: np.ndarray, y: np.ndarray, lam: float) -> np.ndarray:
    k = x.shape[2]

    def loss(w: np.ndarray) -> float:
        s = scores(w, x)
        s = s - s.max(axis=1, keepdims=True)
        log_p = s - np.log(np.exp(s).sum(axis=1, keepdims=True))
        return float(-log_p[np.arange(len(y)), y].mean() + lam * (w[: 2 * k] ** 2).sum())

    return minimize(loss, np.zeros(2 * k + 1), method="L-BFGS-B").x


def accuracy(w: np.ndarray, data: Featurized) -> float:
    """The learned decider's accuracy over the whole set (texts without mentions are neutral)."""
    return (int((scores(w, data.x).argmax(axis=1) == data.y).sum()) + data.empty_right) / data.total


def rules_accuracy(data: Featurized) -> float:
    return (int((data.picks == data.y).sum()) + data.empty_right) / data.total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help=f"where to write the model (default {OUT.name})")
    parser.add_argument("--l2", type=float, help="fit at this λ only: skip the leave-one-set-out search (its table)")
    args = parser.parse_args()
    out = args.out
    sets = load_group_sets()
    missing = [name for name in TRAIN if name not in sets]
    if missing:
        sys.exit(f"unknown sets: {missing}")
    rules = GroupDetector("gender", protagonist="rules")
    data = {name: featurize(rules, rows) for name, rows in sets.items()}

    loso: dict[float, dict[str, float]] = {}
    for lam in LAMBDAS if args.l2 is None else ():
        loso[lam] = {}
        for held in TRAIN:
            x = np.concatenate([data[n].x for n in TRAIN if n != held])
            y = np.concatenate([data[n].y for n in TRAIN if n != held])
            loso[lam][held] = accuracy(fit(x, y, lam), data[held])
        mean = sum(loso[lam].values()) / len(TRAIN)
        print(f"λ = {lam:g}: leave-one-set-out mean accuracy {mean:.4f}")
    rules_mean = sum(rules_accuracy(data[n]) for n in TRAIN) / len(TRAIN)
    print(f"rules (round 11, chosen on parts of these sets): {rules_mean:.4f}")
    best = max(LAMBDAS, key=lambda lam: (round(sum(loso[lam].values()), 9), lam)) if args.l2 is None else args.l2
    print(f"chosen λ = {best:g}" if args.l2 is None else f"given λ = {best:g} (no leave-one-set-out search)")
    print(f"{'set':22} {'LOSO learned':>12} {'rules':>7}")
    for name in TRAIN:
        print(f"{name:22} {loso.get(best, {}).get(name, float('nan')):12.3f} {rules_accuracy(data[name]):7.3f}")

    x = np.concatenate([data[n].x for n in TRAIN])
    y = np.concatenate([data[n].y for n in TRAIN])
    w = fit(x, y, best)
    report = [name for name in sets if name not in TRAIN]
    print(f"\nreport only (never trained or chosen on):\n{'set':22} {'learned':>8} {'rules':>7}")
    for name in report:
        print(f"{name:22} {accuracy(w, data[name]):8.3f} {rules_accuracy(data[name]):7.3f}")
    k = len(PROTAGONIST_FEATURES)
    model = {
        "about": "Learned protagonist decider of debiasrag.groups; written by scripts/train_protagonist_model.py",
        "features": list(PROTAGONIST_FEATURES),
        "weights": {
            "gendered": [round(float(v), 6) for v in w[:k]],
            "neutral": [round(float(v), 6) for v in w[k : 2 * k]],
            "neutral_bias": round(float(w[2 * k]), 6),
        },
        "l2": best,
        "trained_on": list(TRAIN),
        "leave_one_set_out_accuracy": {name: round(v, 4) for name, v in loso.get(best, {}).items()},
        "report_only": report,
    }
    atomic_write_text(out, json.dumps(model, indent=1, ensure_ascii=False) + "\n")  # the old model stays on failure
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
