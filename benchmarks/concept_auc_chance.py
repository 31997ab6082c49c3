"""How often seed 000's "concept captured" (AUC ≥ 0.8) passes for word pairs that hold no concept, beside
``auc_chance_p`` (``debiasrag.metrics.concept_auc_pvalue``) for the same pairs and for the bundled concepts.

    .venv/bin/python benchmarks/concept_auc_chance.py [--model M] [--draws 20] [--pairs 12] [--seed 1]

Each draw splits 24 of 30 everyday nouns at random into two "groups" of 12 and pairs them in order: no concept
separates them. ``concept_direction`` scores every component on those pairs and keeps the best, so its AUC is high by
construction; ``auc_chance_p`` compares it with 1,000 relabellings of the same pairs. A new user's audit (session 46)
found 8 of 20 such draws "captured" with the packaged MiniLM-L6.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from debiasrag.concepts import load_concept  # noqa: E402
from debiasrag.embedders import load_embedder  # noqa: E402
from debiasrag.metrics import concept_auc_pvalue, concept_direction  # noqa: E402

NOUNS = (
    "table river pencil cloud engine banana window guitar carpet rocket mirror forest bottle ladder candle helmet "
    "wallet garden tunnel violin spoon marble jacket anchor kettle lemon needle ocean parrot saddle"
).split()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="default: the packaged all-MiniLM-L6-v2")
    parser.add_argument("--draws", type=int, default=20)
    parser.add_argument("--pairs", type=int, default=12)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    embedder = load_embedder(args.model)
    rng = np.random.default_rng(args.seed)
    print(f"model {embedder.name}; {args.draws} draws of {args.pairs} noun pairs; seed {args.seed}\n")
    print("| draw | AUC | captured (≥ 0.8) | auc_chance_p |")
    print("|---:|---:|---|---:|")
    captured, significant = 0, 0
    for draw in range(1, args.draws + 1):
        order = rng.permutation(len(NOUNS))
        first = [NOUNS[i] for i in order[: args.pairs]]
        second = [NOUNS[i] for i in order[args.pairs : 2 * args.pairs]]
        x1, x2 = embedder.encode(first), embedder.encode(second)
        direction = concept_direction(x1, x2)
        chance = concept_auc_pvalue(x1, x2, direction.auc, seed=draw)
        captured += direction.captured
        significant += chance < 0.05
        print(f"| {draw} | {direction.auc:.3f} | {'yes' if direction.captured else 'no'} | {chance:.3f} |")
    print(
        f"\nrandom nouns: captured {captured} of {args.draws}; auc_chance_p < 0.05 in {significant} of {args.draws}\n"
    )
    print("| bundled concept | pairs | AUC | auc_chance_p |")
    print("|---|---:|---:|---:|")
    for name in ("gender", "age", "wealth"):
        concept = load_concept(name)
        x1 = embedder.encode([a for a, _ in concept.pairs])
        x2 = embedder.encode([b for _, b in concept.pairs])
        direction = concept_direction(x1, x2)
        print(
            f"| {name} | {len(concept.pairs)} | {direction.auc:.3f} | {concept_auc_pvalue(x1, x2, direction.auc):.4f} |"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
