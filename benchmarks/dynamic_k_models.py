"""``dynamic``'s cut rule across three models: leave-one-dataset-out with the models pooled (issue 10).

    .venv/bin/python benchmarks/dynamic_k_models.py [--models default PATH ...]

Same data, scoring and store-call counting as ``benchmarks/dynamic_k_design.py`` (cap k = 10, groups inferred,
F1 against each query's relevant set, |#F − #M| by the gold labels), but every candidate is scored with all
models (default: packaged MiniLM plus the two of ``make models``). Protocol: for each of the three sets, the
candidate with the best mean F1 over the models and the *other two* sets is chosen, then scored on the held-out
set per model; the choice on fairness_main alone is shown too. Candidate families (fixed before looking at any
held-out score): the shipped families (window ``top − τσ`` kept whole, or cut at its largest drop), the same with
a median-relative window (``top − τ · (top − median of the top pool)``) and a hybrid (cut at the window's largest
drop only when it is ≥ γσ, else keep the window). The shipped default is printed last.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import dynamic_k_design as design  # noqa: E402

from debiasrag.bench.report import make_context  # noqa: E402
from debiasrag.datasets import load_fairness_set, load_gendered_topics  # noqa: E402
from debiasrag.strategies import Dynamic, DynamicCutoff, Strategy, _spread  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MODELS = ["default", str(ROOT / ".cache/models/paraphrase-MiniLM-L3-v2"), str(ROOT / ".cache/models/all-mpnet-base-v2")]
SETS = ("main", "holdout", "topics")


@dataclass
class HybridCutoff(DynamicCutoff):
    """The window ``top − τσ``, cut at its largest drop only when that drop is at least ``gamma`` σ."""

    gamma: float = 0.5

    def cut(self, scores: Sequence[float]) -> int:
        s = np.asarray(scores, dtype=np.float64)
        if len(s) == 0:
            return 0
        keep = self.window(scores)
        if keep < len(s):
            drops = s[:keep] - s[1 : keep + 1]
            j = int(np.argmax(drops))
            if drops[j] >= self.gamma * _spread(scores, self.pool):
                keep = j + 1
        return min(max(keep, self.min_k), self.max_k, len(s))


@dataclass
class MedianCutoff(DynamicCutoff):
    """The window ``score ≥ top − τ · (top − median of the top pool)``."""

    def threshold(self, scores: Sequence[float]) -> float:
        top = np.asarray(scores[: self.pool], dtype=np.float64)
        return float(top[0]) - self.tau * float(top[0] - np.median(top))


def candidates() -> dict[str, Callable[[], Strategy]]:
    out = {name: make for name, make in design.dynamic_candidates().items() if "delta=0.25" not in name}
    for pool in design.POOLS:
        for rule in ("relative", "gap"):
            for tau in (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0):
                for delta in (0.0, 0.5, 1.0):
                    out[f"median-{rule} pool={pool} tau={tau} delta={delta}"] = lambda r=rule, p=pool, t=tau, d=delta: (
                        Dynamic(MedianCutoff(tau=t, rule=r, pool=p), delta=d)
                    )
    for tau in (1.0, 1.25, 1.5, 2.0, 2.5, 3.0):
        for gamma in (0.25, 0.5, 0.75, 1.0, 1.5, 2.0):
            for delta in (0.0, 0.5, 1.0):
                out[f"hybrid pool=50 tau={tau} gamma={gamma} delta={delta}"] = lambda t=tau, g=gamma, d=delta: Dynamic(
                    HybridCutoff(tau=t, pool=50, gamma=g), delta=d
                )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=MODELS, help="'default' = packaged all-MiniLM-L6-v2")
    args = parser.parse_args(argv)
    data = {}
    for model in args.models:
        embedder = make_context(None if model == "default" else model, load_now=True).embedder
        name = Path(embedder.name).name
        data[name] = {
            "main": design.load(embedder, load_fairness_set("main")),
            "holdout": design.load(embedder, load_fairness_set("holdout")),
            "topics": design.load(embedder, load_gendered_topics()),
        }
    cands = candidates()
    scores = {(c, m, s): design.score(make(), data[m][s], 10) for c, make in cands.items() for m in data for s in SETS}

    def goal(train: Sequence[str]) -> Callable[[str], tuple[float, float]]:
        def value(c: str) -> tuple[float, float]:
            rows = [scores[c, m, s] for m in data for s in train]
            return round(float(np.mean([r["f1"] for r in rows])), 3), -float(np.mean([r["absFM"] for r in rows]))

        return value

    def line(c: str, s: str) -> str:
        cells = [(m, scores[c, m, s]) for m in data]
        return "  ".join(f"{m} F1 {r['f1']:.3f} |F-M| {r['absFM']:.2f} n {r['returned']:.1f}" for m, r in cells)

    print(f"models: {', '.join(data)}; {len(cands)} candidates; cap k = 10")
    print("leave-one-dataset-out (choose on the other two sets, all models pooled; score this set per model):")
    for held in SETS:
        best = max(cands, key=goal([s for s in SETS if s != held]))
        print(f"  {held:8s} chosen {best}\n           {line(best, held)}")
    best = max(cands, key=goal(["main"]))
    print(f"chosen on fairness_main alone: {best}")
    for s in SETS:
        print(f"  {s:8s} {line(best, s)}")
    shipped = "relative pool=50 tau=1.25 delta=1.0"
    print(f"shipped default Dynamic() = {shipped}")
    for s in SETS:
        print(f"  {s:8s} {line(shipped, s)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
