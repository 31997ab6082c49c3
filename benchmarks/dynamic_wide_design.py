"""Several wide design groups for ``dynamic``'s cut: does an earlier rule family transfer leave-one-group-out?

    .venv/bin/python benchmarks/dynamic_wide_design.py [--models default PATH ...] [--cache DIR]

Issue 10. The earlier studies (``dynamic_versions.py``, ``dynamic_score_model.py``, ``dynamic_width.py``) found no
cut rule that transfers: chosen with every kind of topic in training a rule looked good, but leave-one-group-out it
lost on the group left out — above all whenever the only wide-topic group (``wide_topics``) was left out, so that
nothing in training was wide. Four more wide sets may now be designed on, so here leaving one wide group out still
leaves three or four to learn from. This script chooses nothing new: it reuses those scripts' loader, rules, scoring
and choice by import and only changes the design data.

Design groups (each group's score is the mean over its sets, as ``dynamic_versions.score_groups`` computes it):

* narrow (3 relevant wordings per query): ``main`` (fairness_main), ``holdout`` (fairness_holdout), ``passages``
  (fairness_passages 1–36), ``passages_late`` (37–48), ``reports`` (``load_fairness_set("report1" … "report5")``);
* wide (3–18 relevant per query): ``topics`` (gendered_topics, 15 relevant each), ``wide`` (wide_topics),
  ``wide_report`` (``load_wide_topics(report=True)``), ``wide_report2`` (``load_wide_topics(report=2)``),
  ``wide_design2`` (``data/retrieval/wide_topics_design2`` read by ``load_labelled_set``, not registered).

Candidate rules, every one from an earlier study and fixed before this script was first run (one store search: the
plain query's top-50 scores, and for ``versions`` those candidates' texts; parity by ``balance_swaps``, δ in σ):

* ``shipped``: window ``score ≥ top − 1.25σ``, δ = 1 (the control, ``dynamic_versions.shipped``);
* ``window``: the same window with τ ∈ {0.5 … 3} and δ ∈ {0, 0.5, 1} (``dynamic_width`` family ``shipped``);
* ``knee``, ``cliff``, ``regime`` (steep/flat switch on r = (s₁ − s₁₀)/(s₁ − s₅₀)): ``dynamic_width``'s score-only
  families with their grids (its vector families need the candidates' vectors, which the loader does not keep);
* ``versions``: ``dynamic_versions.candidates`` (families-window / -gap / -cliff over the versions' families);
* ``NE``, ``GG``: ``dynamic_score_model``'s normal+exponential and two-normal EM mixtures, cut by expected F1 or
  p ≥ θ (θ ∈ {0.3, 0.5, 0.7}), δ ∈ {0, 0.5, 1};
* ``LR``, ``LRb``, ``LRm``, ``LRmb``: ``dynamic_score_model``'s logistic calibration of score-curve features (plain,
  every training group weighted alike, with the mixture's width features, both), same cuts and δ; fitted on the
  training groups' candidates (three models pooled) and **refitted for every leave-one-group-out fold**.

Protocol (cap k = 10; F1 against each query's relevant set; |#F − #M| by the gold labels; "oracle" the best
per-query cut of the plain top 50, capped): a rule is allowed if it loses at most 0.02 F1 against ``shipped`` in
every training group (mean over models) and keeps mean |#F − #M| ≤ 0.20 there; the choice is the best mean F1 over
models × training groups among allowed rules (``dynamic_versions.choose``). Variant ``kinds``: the same filter, but
the objective weighs narrow and wide groups equally (mean over kinds of the mean over that kind's groups; on all ten
groups, five of each, it is the plain choice). Printed: the choice on all ten groups and its score per group; then
leave-one-group-out for every group (choose on the other nine, score the one left out), over all rules and within
each family alone (family + shipped). A rule *transfers* to the group left out when its F1 there is above
shipped's for every model and its mean |#F − #M| over models is ≤ 0.20. Last, a diagnostic that is not a choice:
the rules whose worst margin over shipped (over every model and group, LR fitted on all ten groups) is highest.

The loaded candidates are cached per model and set as pickles under ``--cache`` (embedding every set with mpnet on
two cores takes a while); delete the folder to reload.

Outcome (session 32): no rule transfers to every group left out, so ``dynamic`` is unchanged. ``--blind`` then
scores shipped and the choice on all ten groups on ``wide_topics_report3`` — a measurement, not a choice.
"""

from __future__ import annotations

import argparse
import os
import pickle
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import dynamic_score_model as sm  # noqa: E402
import dynamic_versions as dv  # noqa: E402
import dynamic_width as dw  # noqa: E402
from study_sets import run_commit, study_set  # noqa: E402

from debiasrag.bench._common import md_table  # noqa: E402
from debiasrag.bench.report import make_context  # noqa: E402
from debiasrag.datasets import RetrievalTask  # noqa: E402

BASE = sm.BASE
KINDS = {
    "narrow": ("main", "holdout", "passages", "passages_late", "reports"),
    "wide": ("topics", "wide", "wide_report", "wide_report2", "wide_design2"),
}
GROUPS = [g for kind in KINDS.values() for g in kind]
KIND_OF = {g: kind for kind, groups in KINDS.items() for g in groups}
FAMILIES = ("window", "knee", "cliff", "regime", "versions", "NE", "GG", "LR", "LRb", "LRm", "LRmb")
LR_SOURCES = ("LR", "LRb", "LRm", "LRmb")


GROUP_SETS: dict[str, list[str]] = {
    "main": ["main"],
    "holdout": ["holdout"],
    "passages": [f"passages{p}" for p in range(1, 37)],
    "passages_late": [f"passages{p}" for p in range(37, 49)],
    "reports": [f"report{r}" for r in range(1, 6)],
    **{group: [group] for group in ("topics", "wide", "wide_report", "wide_report2", "wide_design2")},
}
"""Design group -> the names of its sets (``study_sets.study_set``)."""


def group_tasks() -> dict[str, dict[str, Callable[[], RetrievalTask]]]:
    """Design group -> {set name: loader}."""
    return {group: {name: study_set(name) for name in names} for group, names in GROUP_SETS.items()}


def load_all(models: list[str], cache: Path) -> dict[str, dict[str, list[dv.Query]]]:
    """model key -> set name -> candidates (``dynamic_versions.load``), cached per model and set under ``cache``."""
    return load_sets(models, cache, {name: load for sets in group_tasks().values() for name, load in sets.items()})


def load_sets(
    models: list[str], cache: Path, sets: dict[str, Callable[[], RetrievalTask]]
) -> dict[str, dict[str, list[dv.Query]]]:
    """model key -> set name -> candidates of each of ``sets`` (name -> loader), cached as pickles per model and set
    under ``cache`` (the model is loaded only for a set not cached yet)."""
    data: dict[str, dict[str, list[dv.Query]]] = {}
    for model in models:
        key = Path(model).name
        folder = cache / key
        folder.mkdir(parents=True, exist_ok=True)
        embedder = None
        data[key] = {}
        for name, loader in sets.items():
            file = folder / f"{name}.pkl"
            if not file.exists():
                if embedder is None:
                    embedder = make_context(None if model == "default" else model, load_now=True).embedder
                file.write_bytes(pickle.dumps(dv.load(embedder, loader())))
            data[key][name] = pickle.loads(file.read_bytes())
        print(f"{key} loaded", file=sys.stderr, flush=True)
    return data


def family(name: str) -> str:
    if name == BASE:
        return "shipped"
    head = name.split()[0]
    return "versions" if head.startswith("families-") else head


def fixed_rules() -> dict[str, tuple[dv.Rule, float]]:
    """Every rule without fitted parameters (name -> rule, parity δ)."""

    def as_rule(width: dw.Width) -> dv.Rule:
        return lambda q: list(range(width(q)))

    out: dict[str, tuple[dv.Rule, float]] = {BASE: (dv.shipped(), 1.0)}
    for (fam, params), (width, delta) in dw.candidates().items():
        if fam in ("shipped", "knee", "cliff", "regime") and (fam, params) != ("shipped", "tau=1.25 delta=1.0"):
            out[f"{'window' if fam == 'shipped' else fam} {params}"] = (as_rule(width), delta)
    out.update({n: r for n, r in dv.candidates().items() if n != BASE})
    return out


def sets_of(groups: list[str]) -> list[str]:
    return [s for s in dv.GROUP_OF if dv.GROUP_OF[s] in groups]


def lr_rules(data: dict, groups: list[str]) -> dict[str, tuple[dv.Rule, float]]:
    """``dynamic_score_model``'s logistic rules fitted on ``groups``."""
    return {n: r for n, r in sm.rules(data, sets_of(groups)).items() if family(n) in LR_SOURCES}


def choose_kinds(scores: dict, names: list[str], models: list[str], groups: list[str]) -> str:
    """``dynamic_versions.choose``'s filter; objective: narrow and wide groups weighted equally."""
    allowed = [n for n in names if n != BASE and dv.choose(scores, [n], models, groups) == n]

    def value(name: str) -> float:
        kinds = {KIND_OF[g] for g in groups}
        return float(
            np.mean(
                [np.mean([scores[name, m, g]["f1"] for m in models for g in groups if KIND_OF[g] == k]) for k in kinds]
            )
        )

    return max([BASE, *allowed], key=lambda n: (value(n), n == BASE))


CHOICES = {"plain": dv.choose, "kinds": choose_kinds}


def transfers(scores: dict, name: str, group: str, models: list[str]) -> bool:
    better = all(scores[name, m, group]["f1"] > scores[BASE, m, group]["f1"] for m in models)
    return better and float(np.mean([scores[name, m, group]["absFM"] for m in models])) <= dv.FM_BOUND


def margin(scores: dict, name: str, group: str, models: list[str]) -> float:
    """Worst-model F1 gain over shipped on ``group``."""
    return min(scores[name, m, group]["f1"] - scores[BASE, m, group]["f1"] for m in models)


def print_blind(models: list[str], cache: Path, rules: dict[str, tuple[dv.Rule, float]]) -> None:
    """Shipped and the rule chosen on all ten groups, scored on the blind ``wide_topics_report3`` (nothing chosen)."""
    dv.GROUP_OF["wide_report3"] = "blind"
    data = {}
    for model in models:
        file = cache / Path(model).name / "wide_report3.pkl"
        if not file.exists():
            embedder = make_context(None if model == "default" else model, load_now=True).embedder
            file.write_bytes(pickle.dumps(dv.load(embedder, study_set("wide_report3")())))
        data[Path(model).name] = {"wide_report3": pickle.loads(file.read_bytes())}
    table = dv.score_groups(data, rules, ["blind"])
    rows = [
        [
            name,
            *(" / ".join(f"{table[name, m, 'blind'][key]:.3f}" for m in data) for key in ("f1", "returned", "absFM")),
        ]
        for name in rules
    ]
    oracle = " / ".join(f"{dv.oracle(data[m]['wide_report3']):.3f}" for m in data)
    print(f"blind: wide_topics_report3, read once (oracle F1 {oracle}):\n")
    print(md_table(["rule", "F1", "returned", "|F−M|"], rows) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=dv.MODELS, help="'default' = packaged all-MiniLM-L6-v2")
    parser.add_argument(
        "--cache", type=Path, default=dv.ROOT / ".cache/studies/dynamic_wide_design", help="pickled candidates per set"
    )
    parser.add_argument("--blind", action="store_true", help="last, score wide_topics_report3 (run once, session 32)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    tasks = group_tasks()
    for group, sets in tasks.items():
        dv.GROUP_OF.update(dict.fromkeys(sets, group))
    data = load_all(args.models, args.cache)
    models = list(data)
    loaded = time.perf_counter()
    commit = run_commit()
    print(f"debiasrag at {commit}; cap {dv.CAP}; cells {' / '.join(models)}\n")
    first = data[models[0]]
    rows = [
        [
            g,
            KIND_OF[g],
            str(len(tasks[g])),
            str(sum(len(first[s]) for s in tasks[g])),
            f"{np.mean([q.n_relevant for s in tasks[g] for q in first[s]]):.1f}",
        ]
        for g in GROUPS
    ]
    print(md_table(["group", "kind", "sets", "queries", "mean relevant"], rows) + "\n")

    fixed = fixed_rules()
    every = sm.rules(data, sets_of(GROUPS))
    fixed.update({n: r for n, r in every.items() if family(n) in ("NE", "GG")})
    fixed_scores = dv.score_groups(data, fixed, GROUPS)
    full_lr = {n: r for n, r in every.items() if family(n) in LR_SOURCES}
    scores = {**fixed_scores, **dv.score_groups(data, full_lr, GROUPS)}
    names = [*fixed, *full_lr]
    counts = {f: sum(family(n) == f for n in names) for f in FAMILIES}
    print(f"{len(names)} rules: " + ", ".join(f"{f} {c}" for f, c in counts.items()) + " (+ shipped)\n")
    oracle = {(m, g): float(np.mean([dv.oracle(data[m][s]) for s in tasks[g]])) for m in models for g in GROUPS}

    def cells(table: dict, name: str, group: str, key: str) -> str:
        return " / ".join(f"{table[name, m, group][key]:.3f}" for m in models)

    def oracle_cells(group: str) -> str:
        return " / ".join(f"{oracle[m, group]:.3f}" for m in models)

    picks = {}
    for variant, choose in CHOICES.items():
        chosen = picks[variant] = choose(scores, names, models, GROUPS)
        print(f"chosen on all ten groups ({variant}): **{chosen}**\n")
        rows = [
            [
                g,
                cells(scores, BASE, g, "f1"),
                cells(scores, chosen, g, "f1"),
                oracle_cells(g),
                cells(scores, BASE, g, "returned"),
                cells(scores, chosen, g, "returned"),
                cells(scores, chosen, g, "absFM"),
            ]
            for g in GROUPS
        ]
        header = [
            "group",
            "shipped F1",
            "chosen F1",
            "oracle F1",
            "shipped returned",
            "chosen returned",
            "chosen |F−M|",
        ]
        print(md_table(header, rows) + "\n")

    folds = {}
    for left in GROUPS:
        rest = [g for g in GROUPS if g != left]
        fold_lr = lr_rules(data, rest)
        folds[left] = (rest, {**fixed_scores, **dv.score_groups(data, fold_lr, GROUPS)}, [*fixed, *fold_lr])
        print(f"fold {left} scored ({time.perf_counter() - started:.0f} s)", file=sys.stderr, flush=True)

    for variant, choose in CHOICES.items():
        print(f"leave-one-group-out, all rules, choice {variant} (LR refitted on the nine other groups):\n")
        rows = []
        for left, (rest, table, fold_names) in folds.items():
            pick = choose(table, fold_names, models, rest)
            rows.append(
                [
                    left,
                    pick,
                    cells(table, pick, left, "f1"),
                    cells(table, BASE, left, "f1"),
                    oracle_cells(left),
                    cells(table, pick, left, "returned"),
                    cells(table, pick, left, "absFM"),
                    "yes" if transfers(table, pick, left, models) else "no",
                ]
            )
        header = [
            "left out",
            "chosen on the rest",
            "its F1",
            "shipped F1",
            "oracle F1",
            "returned",
            "|F−M|",
            "transfers",
        ]
        print(md_table(header, rows) + "\n")

    for variant, choose in CHOICES.items():
        print(
            f"leave-one-group-out within each family (family + shipped, choice {variant}): worst-model F1 gain over "
            "shipped on the group left out; * = transfers (every model better, |F−M| ≤ 0.20); · = shipped kept\n"
        )
        rows = []
        for fam in FAMILIES:
            row, wins = [fam], 0
            for left, (rest, table, fold_names) in folds.items():
                pick = choose(table, [BASE, *(n for n in fold_names if family(n) == fam)], models, rest)
                if pick == BASE:
                    row.append("·")
                    continue
                ok = transfers(table, pick, left, models)
                wins += ok
                row.append(f"{margin(table, pick, left, models):+.3f}{'*' if ok else ''}")
            rows.append([*row, f"{wins}/{len(GROUPS)}"])
        print(md_table(["family", *GROUPS, "transfers"], rows) + "\n")

    print("diagnostic, not a choice: the rules with the best worst-model-and-group F1 gain over shipped (LR on all):\n")

    def worst(name: str) -> float:
        return min(margin(scores, name, g, models) for g in GROUPS)

    best = sorted((n for n in names if n != BASE), key=worst, reverse=True)[:8]
    rows = [
        [
            n,
            f"{worst(n):+.3f}",
            *(f"{margin(scores, n, g, models):+.3f}" for g in GROUPS),
            f"{max(np.mean([scores[n, m, g]['absFM'] for m in models]) for g in GROUPS):.2f}",
        ]
        for n in best
    ]
    print(md_table(["rule", "worst", *GROUPS, "max |F−M|"], rows) + "\n")
    if args.blind:
        print_blind(
            args.models, args.cache, {n: {**fixed, **full_lr}[n] for n in dict.fromkeys([BASE, *picks.values()])}
        )
    print(f"run time: loading {loaded - started:.0f} s, scoring {time.perf_counter() - loaded:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
