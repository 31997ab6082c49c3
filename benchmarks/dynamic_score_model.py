"""Score-distribution models for ``dynamic``'s cut: a probability of relevance per candidate, then the cut that
maximises expected F1 (issue 10).

    .venv/bin/python benchmarks/dynamic_score_model.py [--models default PATH ...] [--report 37 ... 46]

Every cut studied so far was a threshold on the score curve (a window, a drop, a knee). The IR literature's other
answer to "where to stop reading a ranked list" (Manmatha, Rath & Feng 2001; Arampatzis, Kamps & Robertson 2009) is
to model the scores of one query's candidates as a mixture of a relevant and a non-relevant component, read off
each candidate's probability of relevance p_i, and return the top K that maximises the expected F1,
``2 Σ_{i≤K} p_i / (K + Σ_i p_i)``. That cut has no threshold: it is wide where many candidates look relevant and
narrow where few do — the width question every earlier rule failed to answer both ways. Rules (one store search:
the plain query's top-50 scores; fixed before any report set was read):

* ``NE``: normal (relevant) + exponential (non-relevant, from the pool's lowest score) fitted by EM per query;
* ``GG``: two normals fitted by EM per query;
* ``LR``: p from a logistic regression on σ-scaled features of the score curve (distance to the top, z-score in the
  pool, gap to the next score, log rank, the top's lead over the second), fitted on the training groups' candidates
  (three models pooled) — the only rule with fitted parameters, refitted for every leave-one-group-out fold;

each cut by expected F1 (``EF``) or by p ≥ θ (θ ∈ {0.3, 0.5, 0.7}), then parity as shipped (δ ∈ {0, 0.5, 1} σ).
Protocol and data as ``benchmarks/dynamic_versions.py`` (whose loader, scoring and choice this reuses): design groups
fairness_main, fairness_holdout, passages 1–36, gendered_topics, wide_topics; a rule is allowed if it loses at most
0.02 F1 against the shipped rule in every design group (mean over models) with |#F − #M| ≤ 0.20; best mean F1
among allowed rules; leave-one-group-out; the ``--report`` parts, which no choice saw, scored last. Cap k = 10.
"""

from __future__ import annotations

import argparse
import itertools
import os
import pickle
import sys
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import dynamic_versions as dv  # noqa: E402
from study_sets import run_commit  # noqa: E402

from debiasrag.bench._common import md_table  # noqa: E402
from debiasrag.bench.report import make_context  # noqa: E402

DESIGN = ("main", "holdout", "passages", "topics", "wide")
THETAS = (0.3, 0.5, 0.7)
DELTAS = (0.0, 0.5, 1.0)
BASE = "shipped tau=1.25 delta=1"


def _normal(x: np.ndarray, mu: float, var: float) -> np.ndarray:
    return np.exp(-((x - mu) ** 2) / (2 * var)) / np.sqrt(2 * np.pi * var)


def mixture_posteriors(scores: np.ndarray, non_relevant: str, iterations: int = 200) -> np.ndarray:
    """P(relevant | score) per candidate (scores descending) from a two-component mixture fitted by EM.

    The relevant component is normal; the non-relevant one exponential from the pool's lowest score ("NE") or
    normal ("GG"). Starts from the top tenth as relevant; variances are floored at (σ/10)² so one candidate cannot
    collapse a component, and the relevant mean is kept above the non-relevant one."""
    s = np.asarray(scores, dtype=np.float64)
    n = len(s)
    spread = float(s.std()) or 1.0
    floor = (spread / 10) ** 2
    x = s - s.min() + spread / 100
    m = max(2, n // 10)
    p = np.r_[np.ones(m), np.zeros(n - m)]
    for _ in range(iterations):
        w = np.clip(p, 1e-9, 1 - 1e-9)
        prior = w.mean()
        mu = float((w * s).sum() / w.sum())
        var = max(float((w * (s - mu) ** 2).sum() / w.sum()), floor)
        if non_relevant == "NE":
            rate = (1 - w).sum() / ((1 - w) * x).sum()
            other = rate * np.exp(-rate * x)
        else:
            mu0 = float(((1 - w) * s).sum() / (1 - w).sum())
            var0 = max(float(((1 - w) * (s - mu0) ** 2).sum() / (1 - w).sum()), floor)
            if mu0 > mu:
                mu0 = mu
            other = _normal(s, mu0, var0)
        rel = prior * _normal(s, mu, var)
        new = rel / (rel + (1 - prior) * other + 1e-300)
        if np.abs(new - p).max() < 1e-7:
            p = new
            break
        p = new
    return p


def curve_features(scores: np.ndarray, mixture: bool = False) -> np.ndarray:
    """Per candidate: distance to the top, z-score, gap to the next score (all in σ of the pool), log rank, and the
    top's lead over the second (the same for every candidate of a query); with ``mixture`` also the NE mixture's
    posterior and its estimate of the number of relevant candidates (log Σ p): a width estimate."""
    s = np.asarray(scores, dtype=np.float64)
    sigma = float(s.std()) or 1.0
    gap = np.r_[s[:-1] - s[1:], 0.0] / sigma
    lead = np.full(len(s), (s[0] - s[1]) / sigma if len(s) > 1 else 0.0)
    out = np.c_[(s[0] - s) / sigma, (s - s.mean()) / sigma, gap, np.log1p(np.arange(len(s))), lead]
    if mixture:
        p = cached_posteriors(scores, "NE")
        out = np.c_[out, p, np.full(len(s), np.log1p(p.sum()))]
    return out


_MIXTURES: dict[tuple[str, bytes], np.ndarray] = {}


def cached_posteriors(scores: np.ndarray, non_relevant: str) -> np.ndarray:
    """:func:`mixture_posteriors`, fitted once per score list: the fits do not depend on the training groups, so
    every leave-one-group-out fold (and the logistic's mixture features) reuses them."""
    key = (non_relevant, np.asarray(scores, dtype=np.float64).tobytes())
    if key not in _MIXTURES:
        _MIXTURES[key] = mixture_posteriors(scores, non_relevant)
    return _MIXTURES[key]


def expected_f1_cut(p: np.ndarray) -> int:
    """The K that maximises 2 Σ_{i≤K} p_i / (K + Σ p), p in rank order."""
    k = np.arange(1, len(p) + 1)
    return int(np.argmax(2 * np.cumsum(p) / (k + p.sum()))) + 1


def memoized(posteriors):  # noqa: ANN001, ANN201 - a callable on a Query
    """``posteriors`` computed once per query (an EM fit per rule and query would dominate the run)."""
    memo: dict[int, np.ndarray] = {}

    def cached(q: dv.Query) -> np.ndarray:
        if id(q) not in memo:
            memo[id(q)] = posteriors(q)
        return memo[id(q)]

    return cached


def cut_rule(posteriors, mode: str, theta: float = 0.5) -> dv.Rule:  # noqa: ANN001 - a callable on a Query
    def rule(q: dv.Query) -> list[int]:
        p = posteriors(q)
        if mode == "EF":
            n = expected_f1_cut(p)
        else:  # every candidate down to the last one with p ≥ θ (at least the top)
            above = np.flatnonzero(p >= theta)
            n = int(above[-1]) + 1 if len(above) else 1
        return list(range(n))

    return rule


def fit_logistic(data: dict, sets: list[str], mixture: bool = False, balanced: bool = False):  # noqa: ANN201
    """p(relevant | curve features) fitted on ``sets`` (all models pooled); ``balanced`` weighs every design group
    alike (passages 1–36 would otherwise hold most candidates and teach a narrow cut)."""
    from sklearn.linear_model import LogisticRegression

    rows = [(s, q) for model in data.values() for s in sets for q in model[s]]
    x = np.concatenate([curve_features(q.scores, mixture) for _, q in rows])
    y = np.concatenate([q.relevant for _, q in rows])
    weight = np.ones(len(y))
    if balanced:
        size: dict[str, int] = {}
        for s, q in rows:
            size[dv.GROUP_OF[s]] = size.get(dv.GROUP_OF[s], 0) + len(q.scores)
        weight = np.concatenate([np.full(len(q.scores), len(y) / size[dv.GROUP_OF[s]]) for s, q in rows])
    model = LogisticRegression(C=1.0, max_iter=2000).fit(x, y, sample_weight=weight)
    return lambda q: model.predict_proba(curve_features(q.scores, mixture))[:, 1]


def rules(data: dict, sets: list[str]) -> dict[str, tuple[dv.Rule, float]]:
    """Every rule; the logistic ones fitted on ``sets``."""
    out: dict[str, tuple[dv.Rule, float]] = {BASE: (dv.shipped(), 1.0)}
    sources = {
        "NE": lambda q: cached_posteriors(q.scores, "NE"),
        "GG": lambda q: cached_posteriors(q.scores, "GG"),
        "LR": fit_logistic(data, sets),
        "LRb": fit_logistic(data, sets, balanced=True),
        "LRm": fit_logistic(data, sets, mixture=True),
        "LRmb": fit_logistic(data, sets, mixture=True, balanced=True),
    }
    sources = {name: memoized(post) for name, post in sources.items()}
    for (name, post), delta in itertools.product(sources.items(), DELTAS):
        out[f"{name} EF delta={delta}"] = (cut_rule(post, "EF"), delta)
        for theta in THETAS:
            out[f"{name} p>={theta} delta={delta}"] = (cut_rule(post, "theta", theta), delta)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=dv.MODELS, help="'default' = packaged all-MiniLM-L6-v2")
    parser.add_argument("--report", nargs="*", default=[], help="passage parts no choice saw, scored last")
    parser.add_argument(
        "--cache",
        type=Path,
        help="pickle of the loaded candidates: read if present (its models, not --models), else written",
    )
    args = parser.parse_args(argv)
    tasks, report = dv.design_and_report(DESIGN, args.report)
    data: dict[str, dict[str, list[dv.Query]]] = {}
    if args.cache and args.cache.exists():
        data = pickle.loads(args.cache.read_bytes())
    for model in [] if data else args.models:
        embedder = make_context(None if model == "default" else model, load_now=True).embedder
        short = Path(embedder.name).name
        data[short] = {
            name: dv.load(embedder, loader()) for sets in (*tasks.values(), report) for name, loader in sets.items()
        }
        print(f"{short} loaded", file=sys.stderr, flush=True)
    if args.cache and not args.cache.exists():
        args.cache.write_bytes(pickle.dumps(data))
    models = list(data)
    groups = list(DESIGN)
    every = groups + (["report"] if report else [])
    commit = run_commit()
    print(f"debiasrag at {commit}; cap {dv.CAP}; cells {' / '.join(models)}\n")

    def design_sets(chosen_groups: list[str]) -> list[str]:
        return [s for s in dv.GROUP_OF if dv.GROUP_OF[s] in chosen_groups]

    every_rule = rules(data, design_sets(groups))
    scores = dv.score_groups(data, every_rule, every)

    def cells(table: dict, name: str, group: str, key: str) -> str:
        return " / ".join(f"{table[name, m, group][key]:.3f}" for m in models)

    chosen = dv.choose(scores, list(every_rule), models, groups)
    print(f"chosen on all design groups: **{chosen}**\n")
    rows = [
        [g, n, cells(scores, n, g, "f1"), cells(scores, n, g, "absFM"), cells(scores, n, g, "returned")]
        for g in every
        for n in dict.fromkeys([BASE, chosen, *(f"{s} EF delta=1.0" for s in ("NE", "GG", "LR", "LRb", "LRm", "LRmb"))])
    ]
    print(md_table(["group", "rule", "F1", "|#F−#M|", "returned"], rows) + "\n")
    print("leave-one-group-out (LR refitted, rule chosen on the other design groups, scored on the one left out):\n")
    rows = []
    for left in groups:
        rest = [g for g in groups if g != left]
        fold = rules(data, design_sets(rest))
        fold_scores = dv.score_groups(data, fold, groups)
        pick = dv.choose(fold_scores, list(fold), models, rest)
        rows.append(
            [
                left,
                pick,
                cells(fold_scores, pick, left, "f1"),
                cells(fold_scores, BASE, left, "f1"),
                cells(fold_scores, "LR EF delta=1.0", left, "f1"),
                cells(fold_scores, "LRmb EF delta=1.0", left, "f1"),
                cells(fold_scores, pick, left, "absFM"),
            ]
        )
    header = ["left out", "chosen on the rest", "its F1", "shipped F1", "LR EF F1", "LRmb EF F1", "its |#F−#M|"]
    print(md_table(header, rows) + "\n")
    best = sorted(every_rule, key=lambda n: -np.mean([scores[n, m, g]["f1"] for m in models for g in groups]))[:8]
    print("the eight best rules by mean F1 over models x design groups (not all allowed):\n")
    print(md_table(["rule", *every], [[n, *(cells(scores, n, g, "f1") for g in every)] for n in best]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
