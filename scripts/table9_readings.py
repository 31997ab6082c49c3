"""Seed 000 Table 9 (|ρ|, all-MiniLM-L6-v2): try 32 readings of how the concept direction and ρ were computed.

Axes: definition pairs embedded as plain words or inside each context template; ΔX centred (PCA) or not (SVD);
best-AUC component (eq. 1) or the first; attributes inside the templates or as plain words; Pearson or Spearman.
Prints, best first: cells within ±0.01 of the seed (of 9), mean |ours - seed|, the reading, our nine |ρ|
(gender, age, wealth × neutral, debiasing, positive).

    .venv/bin/python scripts/table9_readings.py
    .venv/bin/python scripts/table9_readings.py --model .cache/models/all-mpnet-base-v2 --row 10

``--model`` / ``--row`` compare another model with another row of Table 9 (columns gender, wealth, age; row 13 is
all-MiniLM-L6-v2; Table 4's row 10 matches all-mpnet-base-v2, Table 3's order would give it row 11).
"""

import argparse
import itertools
import re
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr

from debiasrag.concepts import load_concept
from debiasrag.embedders import load_embedder
from debiasrag.metrics.geometry import auc_score

CTX = ("neutral", "debiasing", "positive")


def direction(x1, x2, centred, pick):
    d = x2 - x1
    if centred:
        d = d - d.mean(axis=0)
    _, _, vt = np.linalg.svd(d, full_matrices=False)
    if pick == "first":
        b = vt[0]
    else:
        aucs = [max(auc_score(x1 @ b, x2 @ b), 1 - auc_score(x1 @ b, x2 @ b)) for b in vt[: len(d)]]
        b = vt[int(np.argmax(aucs))]
    return b


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="model name or folder (default: the packaged MiniLM)")
    parser.add_argument(
        "--row", type=int, default=None, help="Table 9 row (1-19) to compare with (default: 13's values)"
    )
    args = parser.parse_args()
    emb = load_embedder(args.model)
    seed = {"gender": (0.42, 0.32, 0.29), "age": (0.19, 0.12, 0.11), "wealth": (0.03, 0.21, 0.20)}  # row 13
    if args.row is not None:
        lines = next(Path("/work/shared/seeds").glob("000_*.txt")).read_text().splitlines()
        appendix = next(i for i, line in enumerate(lines) if line.startswith("Appendix D"))
        first = next(i for i in range(appendix, len(lines)) if lines[i].startswith("Concept = gender, Attributes"))
        first += 2  # the header lines, then one line per model
        values = [float(v) for v in re.findall(r"(?:^| )(\d\.\d+?)(?:superscript|\d\.\d)", lines[first + args.row - 1])]
        assert len(values) == 9, values
        seed = {"gender": tuple(values[0:3]), "wealth": tuple(values[3:6]), "age": tuple(values[6:9])}
    print(f"model {emb.name}; seed |rho| {seed}")

    cache = {}

    def enc(texts):
        key = tuple(texts)
        if key not in cache:
            cache[key] = emb.encode(list(texts))
        return cache[key]

    results = []
    for pairs_in_template, centred, pick, attr_template, corr in itertools.product(
        [False, True], [False, True], ["auc", "first"], [True, False], ["pearson", "spearman"]
    ):
        cells = []
        for cname in ("gender", "age", "wealth"):
            c = load_concept(cname)
            w1 = [a for a, _ in c.pairs]
            w2 = [b for _, b in c.pairs]
            names = list(c.attributes)
            y = np.array([c.attributes[n] for n in names])
            for i, ctx in enumerate(CTX):
                if pairs_in_template:
                    x1 = enc([c.templates[ctx].format(attribute=w) for w in w1])
                    x2 = enc([c.templates[ctx].format(attribute=w) for w in w2])
                else:
                    x1 = enc(w1)
                    x2 = enc(w2)
                g = direction(x1, x2, centred, pick)
                a = enc([c.templates[ctx].format(attribute=n) for n in names]) if attr_template else enc(names)
                p = a @ g
                r = np.corrcoef(y, p)[0, 1] if corr == "pearson" else spearmanr(y, p).statistic
                cells.append((abs(r), seed[cname][i]))
        ours = np.array([c[0] for c in cells])
        s = np.array([c[1] for c in cells])
        results.append(
            (
                int(np.sum(np.abs(ours - s) <= 0.01)),
                float(np.mean(np.abs(ours - s))),
                dict(
                    pairs_in_template=pairs_in_template,
                    centred=centred,
                    pick=pick,
                    attr_template=attr_template,
                    corr=corr,
                ),
                np.round(ours, 2).tolist(),
            )
        )
    for r in sorted(results, key=lambda r: (-r[0], r[1])):
        print(r)


if __name__ == "__main__":
    main()
