"""Versions as evidence for ``dynamic``'s cut: count a topic's width in texts, not in wordings (issue 10).

    .venv/bin/python benchmarks/dynamic_versions.py [--models default PATH ...] [--report 37 38]

Where a corpus holds *versions* of one text (a counterfactual test set's female / male / neutral wordings, a corpus
augmented with gender-swapped copies), the versions of a text rank together and are relevant together. Every rule
here sees what one store search gives — the plain query's top-50 scores and those candidates' texts — finds the
versions among the candidates by their words (:func:`debiasrag.versions.find_versions`, as the retriever does for
the groups), and, **only when the candidates hold versions**, cuts the ranking of *families* (each family's best
score) instead of the ranking of documents, then returns every member of the kept families (in rank order, up to the
cap); where the candidates hold no versions it is the shipped rule, unchanged. Families, fixed before any report
set was read:

* ``shipped``: the window ``score ≥ top − τσ`` (σ = std of the top-50 scores), τ = 1.25, parity δ = 1 (the control).
* ``families-window``: the same window over the families' scores (τ_v), every member of a kept family kept.
* ``families-gap``: inside the window τ_v over the families' scores, cut at the largest drop between two families.
* ``families-cliff``: the same largest drop, but only where it is at least γ σ (a cliff after the relevant texts);
  otherwise the whole window τ_v (wide topics: their relevant texts follow each other in small steps).

Parity afterwards as shipped (:func:`debiasrag.strategies.balance_swaps` over the groups an index stores, δ in σ
units). Data: the design groups are fairness_main, fairness_holdout, passages 1–36 (each group's mean over its sets),
gendered_topics and wide_topics — all of them hold every chunk in female / male / neutral wordings (the script
prints the share of queries whose candidates hold versions), so the wide sets are the versioned wide topics a
switch on versions could break — and the two wide sets again with a gender-swapped copy of every document the swap
changes (``GenderSwapper``; a copy is relevant where its original is, its gold group the other one: families of
five). Choice: the best mean F1 over models × design groups among rules that lose at most 0.02 F1
against ``shipped`` in every design group (mean over models) and keep |#F − #M| ≤ 0.20 in every group; then
leave-one-group-out (choose on the other groups, score the one left out) and the report sets (``--report``), which
no choice saw. Cap k = 10; F1 against each query's relevant set; |#F − #M| by the gold labels; "oracle" is the best
per-query cut of the plain top-50 (capped).
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from study_sets import run_commit  # noqa: E402

from debiasrag.bench._common import md_table  # noqa: E402
from debiasrag.bench.report import make_context  # noqa: E402
from debiasrag.corpus import Document  # noqa: E402
from debiasrag.datasets import (  # noqa: E402
    RetrievalTask,
    load_fairness_passages,
    load_fairness_set,
    load_gendered_topics,
    load_wide_topics,
)
from debiasrag.embedders import embed_documents, embed_queries  # noqa: E402
from debiasrag.groups import group_census  # noqa: E402
from debiasrag.metrics.fairness import oracle_cut, set_quality  # noqa: E402
from debiasrag.strategies import Dynamic, GroupOf, Ranking, balance_swaps  # noqa: E402
from debiasrag.versions import families  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MODELS = ["default", str(ROOT / ".cache/models/paraphrase-MiniLM-L3-v2"), str(ROOT / ".cache/models/all-mpnet-base-v2")]
POOL, CAP, FM_BOUND, MAX_LOSS = 50, 10, 0.20, 0.02
PASSAGES = tuple(str(p) for p in range(1, 37))
GROUPS = ("main", "holdout", "passages", "topics", "wide", "topics+swap", "wide+swap")


@dataclass
class Query:
    scores: np.ndarray  # plain scores of the top-POOL candidates, descending
    relevant: list[bool]  # per candidate
    n_relevant: int
    gold: list[str]  # per candidate
    stored: list[str]  # per candidate: the group the index stores (versions read by contrast)
    family: list[int]  # per candidate: the rank of its family's best member among the candidates
    texts: list[str]  # per candidate


def swapped(task: RetrievalTask) -> RetrievalTask:
    """``task`` plus a gender-swapped copy of every document the swap changes (relevant where the original is)."""
    from debiasrag.counterfactual import GenderSwapper

    docs = task.documents
    flip = {"female": "male", "male": "female"}
    copies = [
        Document(f"{d.id}~swap", text, {**d.metadata, "group": flip.get(d.metadata.get("group", "neutral"), "neutral")})
        for d, text in zip(docs, GenderSwapper().swap_batch([d.text for d in docs]))
        if text != d.text
    ]
    made = {c.id for c in copies}
    relevant = {q: ids | {f"{i}~swap" for i in ids if f"{i}~swap" in made} for q, ids in task.relevant.items()}
    return RetrievalTask(f"{task.name}+swap", docs + copies, task.queries, relevant, task.concept, task.areas)


def load(embedder, task: RetrievalTask) -> list[Query]:
    docs = task.documents
    vectors = embed_documents(embedder, [d.text for d in docs])
    gold = [str(d.metadata.get("group", "neutral")).replace("none", "neutral") for d in docs]
    stored = group_census([Document(d.id, d.text) for d in docs])[0]  # as `debiasrag index` stores them
    names = list(task.queries)
    ids = {str(d.id): i for i, d in enumerate(docs)}
    out = []
    for name, row in zip(names, embed_queries(embedder, [task.queries[n] for n in names]) @ vectors.T):
        cand = np.argsort(-row, kind="stable")[:POOL]
        rel = {ids[str(r)] for r in task.relevant[name]}
        out.append(
            Query(
                row[cand].astype(np.float64),
                [int(i) in rel for i in cand],
                len(rel),
                [gold[i] for i in cand],
                [stored[i] for i in cand],
                families([docs[i].text for i in cand]),
                [docs[i].text for i in cand],
            )
        )
    return out


def sigma(scores: np.ndarray) -> float:
    return float(scores[:POOL].std()) if len(scores) > 1 else 0.0


def window(scores: np.ndarray, tau: float, unit: float) -> int:
    return max(1, int(np.sum(scores >= scores[0] - tau * unit)))


# A rule maps a query to the candidates kept before parity, in rank order.
Rule = Callable[[Query], list[int]]


def shipped(tau: float = 1.25) -> Rule:
    return lambda q: list(range(window(q.scores, tau, sigma(q.scores))))


def by_families(mode: str, tau_v: float, gamma: float = 0.0) -> Rule:
    fallback = shipped()

    def rule(q: Query) -> list[int]:
        heads = sorted(set(q.family))
        if len(heads) == len(q.family):  # no versions among the candidates: the shipped rule
            return fallback(q)
        head_scores = q.scores[heads]
        n = window(head_scores, tau_v, sigma(q.scores))
        if mode in ("gap", "cliff") and n < len(heads):
            drops = head_scores[:n] - head_scores[1 : n + 1]
            if mode == "gap" or drops.max() >= gamma * sigma(q.scores):
                n = int(np.argmax(drops)) + 1
        kept = set(heads[:n])
        return [i for i, h in enumerate(q.family) if h in kept]

    return rule


def evaluate(rule: Rule, delta: float, queries: list[Query]) -> dict[str, float]:
    rows = []
    for q in queries:
        kept = rule(q)[:CAP]
        if delta > 0:
            kept = balance_swaps(q.scores.tolist(), q.stored, kept, delta * sigma(q.scores), ("female", "male"))
        f1 = set_quality([q.relevant[i] for i in kept], q.n_relevant)["f1"]
        fm = abs(sum(q.gold[i] == "female" for i in kept) - sum(q.gold[i] == "male" for i in kept))
        rows.append((f1, fm, len(kept)))
    f1, fm, returned = np.array(rows, dtype=float).mean(0)
    return {"f1": float(f1), "absFM": float(fm), "returned": float(returned)}


def oracle(queries: list[Query]) -> float:
    return float(np.mean([oracle_cut(q.relevant[:CAP], q.n_relevant)["oracle_f1"] for q in queries]))


def library(strategy: Dynamic) -> Rule:
    """The package's strategy itself on a query's candidates (its own parity included; scored with δ = 0 here)."""

    def rule(q: Query) -> list[int]:
        ranking = Ranking("neutral", list(range(len(q.scores))), q.scores.tolist(), complete=True)
        group_of = GroupOf(("female", "male"), lambda i: q.stored[i], lambda i: q.texts[i])
        picks = strategy.select([ranking], CAP, group_of)
        assert not isinstance(picks, int)
        return [int(pick.key) for pick in picks]

    return rule


def candidates() -> dict[str, tuple[Rule, float]]:
    """Every rule (name -> rule, parity δ), fixed before any report set was read."""
    out: dict[str, tuple[Rule, float]] = {"shipped tau=1.25 delta=1": (shipped(), 1.0)}
    for mode, tau_v, delta in itertools.product(
        ("window", "gap"), (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0), (0.0, 0.5, 1.0)
    ):
        out[f"families-{mode} tau_v={tau_v} delta={delta}"] = (by_families(mode, tau_v), delta)
    for tau_v, gamma, delta in itertools.product((1.0, 1.25, 1.5, 2.0, 3.0), (0.25, 0.5, 0.75, 1.0, 1.5), (0.5, 1.0)):
        out[f"families-cliff tau_v={tau_v} gamma={gamma} delta={delta}"] = (by_families("cliff", tau_v, gamma), delta)
    return out


def group_tasks() -> dict[str, dict[str, Callable[[], RetrievalTask]]]:
    """Design group -> {set name: loader}."""
    return {
        "main": {"main": lambda: load_fairness_set("main")},
        "holdout": {"holdout": lambda: load_fairness_set("holdout")},
        "passages": {p: (lambda p=p: load_fairness_passages(int(p))) for p in PASSAGES},
        "topics": {"topics": load_gendered_topics},
        "wide": {"wide": load_wide_topics},
        "topics+swap": {"topics+swap": lambda: swapped(load_gendered_topics())},
        "wide+swap": {"wide+swap": lambda: swapped(load_wide_topics())},
    }


def design_and_report(design: tuple[str, ...], parts: list[str]) -> tuple[dict, dict]:
    """The loaders of the ``design`` groups and of the report passage ``parts``, each set registered in GROUP_OF."""
    tasks = {g: sets for g, sets in group_tasks().items() if g in design}
    for group, sets in tasks.items():
        GROUP_OF.update(dict.fromkeys(sets, group))
    report = {f"report {p}": (lambda p=p: load_fairness_passages(int(p))) for p in parts}
    GROUP_OF.update(dict.fromkeys(report, "report"))
    return tasks, report


def score_groups(data: dict, rules: dict[str, tuple[Rule, float]], groups: list[str]) -> dict:
    """(rule, model, group) -> {"f1", "absFM", "returned"}: each group's mean over its sets."""
    out = {}
    for (name, (rule, delta)), (model, sets) in itertools.product(rules.items(), data.items()):
        for group in groups:
            scores = [evaluate(rule, delta, sets[s]) for s in sets if s in GROUP_OF and GROUP_OF[s] == group]
            out[name, model, group] = {key: float(np.mean([r[key] for r in scores])) for key in scores[0]}
    return out


GROUP_OF: dict[str, str] = {}


def choose(scores: dict, names: list[str], models: list[str], groups: list[str]) -> str:
    """Best mean F1 over models x ``groups`` among rules within MAX_LOSS of shipped in every group, |#F−#M| bounded."""
    base = "shipped tau=1.25 delta=1"

    def mean(name: str, group: str, key: str) -> float:
        return float(np.mean([scores[name, m, group][key] for m in models]))

    allowed = [
        n
        for n in names
        if all(mean(n, g, "f1") >= mean(base, g, "f1") - MAX_LOSS and mean(n, g, "absFM") <= FM_BOUND for g in groups)
    ]
    return max(allowed or [base], key=lambda n: (np.mean([mean(n, g, "f1") for g in groups]), n == base))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=MODELS, help="'default' = packaged all-MiniLM-L6-v2")
    parser.add_argument("--report", nargs="*", default=[], help="passage parts no choice saw, scored last")
    args = parser.parse_args(argv)
    tasks = group_tasks()
    for group, sets in tasks.items():
        GROUP_OF.update(dict.fromkeys(sets, group))
    report = {f"report {p}": (lambda p=p: load_fairness_passages(int(p))) for p in args.report}
    GROUP_OF.update(dict.fromkeys(report, "report"))
    data: dict[str, dict[str, list[Query]]] = {}
    for model in args.models:
        embedder = make_context(None if model == "default" else model, load_now=True).embedder
        short = Path(embedder.name).name
        data[short] = {}
        for name, loader in [*((s, f) for sets in tasks.values() for s, f in sets.items()), *report.items()]:
            data[short][name] = load(embedder, loader())
        print(f"{short} loaded", file=sys.stderr, flush=True)
    models = list(data)
    rules = candidates()
    groups = list(GROUPS)
    scores = score_groups(data, rules, groups + (["report"] if report else []))
    commit = run_commit()
    print(f"debiasrag at {commit}; cap {CAP}; cells {' / '.join(models)}\n")
    with_versions = {
        g: np.mean([np.mean([len(set(q.family)) < len(q.family) for q in data[models[0]][s]]) for s in tasks[g]])
        for g in groups
    }
    print(
        "share of queries whose candidates hold versions: "
        + ", ".join(f"{g} {v:.2f}" for g, v in with_versions.items())
    )
    chosen = choose(scores, list(rules), models, groups)
    base = "shipped tau=1.25 delta=1"
    print(f"\nchosen on all design groups: **{chosen}**\n")

    def cells(name: str, group: str, key: str) -> str:
        return " / ".join(f"{scores[name, m, group][key]:.3f}" for m in models)

    def oracle_cells(group: str) -> str:
        sets = [s for s in GROUP_OF if GROUP_OF[s] == group]
        return " / ".join(f"{np.mean([oracle(data[m][s]) for s in sets]):.3f}" for m in models)

    rows = []
    for group in groups + (["report"] if report else []):
        for name in dict.fromkeys([base, chosen]):
            rows.append(
                [group, name, cells(name, group, "f1"), cells(name, group, "absFM"), cells(name, group, "returned")]
            )
        rows.append([group, "oracle cut (plain ranking)", oracle_cells(group), "", ""])
    print(md_table(["group", "rule", "F1", "|#F−#M|", "returned"], rows) + "\n")
    print("leave-one-group-out (chosen on the other design groups, scored on the one left out):\n")
    rows = []
    for left in groups:
        pick = choose(scores, list(rules), models, [g for g in groups if g != left])
        rows.append([left, pick, cells(pick, left, "f1"), cells(base, left, "f1"), cells(pick, left, "absFM")])
    print(md_table(["left out", "chosen on the rest", "its F1", "shipped F1", "its |#F−#M|"], rows) + "\n")
    shipped_lib = {
        "Dynamic()": (library(Dynamic()), 0.0),
        "Dynamic(versions=True)": (library(Dynamic(versions=True)), 0.0),
    }
    every = groups + (["report"] if report else [])
    lib = score_groups(data, shipped_lib, every)
    print(
        "the package's strategies themselves (Dynamic(versions=True): the narrow rule below, shipped as an option):\n"
    )
    rows = [
        [
            g,
            n,
            " / ".join(f"{lib[n, m, g]['f1']:.3f}" for m in models),
            " / ".join(f"{lib[n, m, g]['absFM']:.3f}" for m in models),
        ]
        for g in every
        for n in shipped_lib
    ]
    print(md_table(["group", "strategy", "F1", "|#F−#M|"], rows) + "\n")
    narrow = ["main", "holdout", "passages"]
    pick = max(rules, key=lambda n: np.mean([scores[n, m, g]["f1"] for m in models for g in narrow]))
    print(f"diagnostic, not a valid choice — the best rule on the 3-relevant groups alone: **{pick}**\n")
    rows = [[g, cells(pick, g, "f1"), cells(base, g, "f1"), cells(pick, g, "absFM")] for g in groups]
    print(md_table(["group", "its F1", "shipped F1", "its |#F−#M|"], rows) + "\n")
    best = sorted(
        rules,
        key=lambda n: -np.mean([scores[n, m, g]["f1"] for m in models for g in groups]),
    )[:8]
    rows = [[n, *(cells(n, g, "f1") for g in groups)] for n in best]
    print("the eight best rules by mean F1 over models x design groups (not all allowed):\n")
    print(md_table(["rule", *groups], rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
