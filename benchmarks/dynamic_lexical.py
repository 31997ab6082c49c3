"""Lexical evidence for ``dynamic``: does the query's words in a candidate help the ranking or the cut? (issue 10)

    .venv/bin/python benchmarks/dynamic_lexical.py [--models default PATH ...] [--report 37 38 39 40]

Every study so far cut the dense ranking (scores, the pool's vectors, versions); none looked at the words the query
and a candidate share. Here each candidate of the plain query's top 50 also gets a BM25 score (k1 1.2, b 0.75)
computed over **the pool alone** (document frequencies among the 50 candidates: what a retriever wrapping someone
else's store can compute, no corpus statistics needed) from the query's content words — stop words and every word
the gender concept counts as evidence (gendered words, pronouns, first names; :meth:`GroupDetector.mentions`) left
out, so the female, male and neutral wordings of a text get the same lexical score and the evidence cannot tilt the
groups. The fused score is ``z(dense) + w · z(bm25)`` (z: standardised over the pool), and the shipped cut and
parity run on it: keep ``fused ≥ top − τ σ_fused``, then parity swaps (δ = 1 σ of the dense scores) as shipped.
w = 0 with τ = 1.25 is the shipped rule.

Protocol as ``benchmarks/dynamic_versions.py`` (whose loader and choice this reuses): the design groups are
fairness_main, fairness_holdout, passages 1–36 (each group's mean over its sets), gendered_topics and wide_topics;
a rule is allowed if it loses at most 0.02 F1 to the shipped rule in every design group (mean over models) with
|#F − #M| ≤ 0.20; the best mean F1 among allowed rules is chosen; leave-one-group-out; the ``--report`` parts, which
no choice saw, scored last. Also printed: the oracle cut of the fused ranking (how much better the *ranking* is,
whatever the cut). Cap k = 10.
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import sys
from collections import Counter
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import dynamic_versions as dv  # noqa: E402

from debiasrag.bench._common import md_table  # noqa: E402
from debiasrag.bench.report import make_context  # noqa: E402
from debiasrag.datasets import RetrievalTask  # noqa: E402
from debiasrag.groups import GroupDetector  # noqa: E402
from debiasrag.metrics.fairness import oracle_cut  # noqa: E402
from debiasrag.versions import tokens  # noqa: E402

DESIGN = ("main", "holdout", "passages", "topics", "wide")
WEIGHTS = (0.0, 0.1, 0.25, 0.5, 1.0)
TAUS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0)
STOP = frozenset(
    "a an the of to in on for and or is are was were be been being it its this that these those with as at by from "
    "how what which who whom whose why when where do does did can could should would will shall may might must i you "
    "we me us my your our there here not no so if than then about into over under up down out just also very more "
    "most some any each every all both few many much such own same other only too get got one".split()
)
from study_sets import run_commit  # noqa: E402

DETECTOR = GroupDetector("gender")


def content_words(text: str) -> list[str]:
    """Lower-cased words minus stop words and the concept's evidence (so every wording of a text scores alike)."""
    masked = list(text)
    for mention in DETECTOR.mentions(text):
        masked[mention.start : mention.end] = " " * (mention.end - mention.start)
    return [
        w
        for w in (t.lower() for t in (t.strip("'’-") for t in tokens("".join(masked))))
        if w not in STOP and not w.isdigit()
    ]


def pool_bm25(query: str, texts: list[str], k1: float = 1.2, b: float = 0.75) -> np.ndarray:
    """BM25 of each text for ``query`` with document frequencies and mean length taken over ``texts`` alone."""
    bags = [Counter(content_words(t)) for t in texts]
    lengths = np.array([sum(bag.values()) for bag in bags], dtype=float)
    mean_length = float(lengths.mean()) or 1.0
    df = Counter(w for bag in bags for w in bag)
    n = len(texts)
    terms = set(content_words(query))
    out = np.zeros(n)
    for i, bag in enumerate(bags):
        for w in terms & bag.keys():
            idf = math.log(1 + (n - df[w] + 0.5) / (df[w] + 0.5))
            out[i] += idf * bag[w] * (k1 + 1) / (bag[w] + k1 * (1 - b + b * lengths[i] / mean_length))
    return out


def standardised(x: np.ndarray) -> np.ndarray:
    spread = x.std()
    return (x - x.mean()) / spread if spread > 0 else np.zeros_like(x)


def load(embedder, task: RetrievalTask) -> list[dv.Query]:
    """``dynamic_versions``' queries, each with its candidates' pool BM25 (attribute ``lexical``)."""
    queries = dv.load(embedder, task)
    for q, name in zip(queries, task.queries):
        q.lexical = pool_bm25(task.queries[name], q.texts)  # type: ignore[attr-defined]
    return queries


def fused(q: dv.Query, weight: float) -> np.ndarray:
    dense = standardised(q.scores)
    return dense + weight * standardised(q.lexical) if weight else dense  # type: ignore[attr-defined]


def rule(weight: float, tau: float) -> dv.Rule:
    def keep(q: dv.Query) -> list[int]:
        scores = fused(q, weight)
        order = np.argsort(-scores, kind="stable")
        ranked = scores[order]
        n = max(1, int(np.sum(ranked >= ranked[0] - tau * ranked.std())))
        return [int(i) for i in order[:n]]

    return keep


def fused_oracle(queries: list[dv.Query], weight: float) -> float:
    return float(
        np.mean(
            [
                oracle_cut(
                    [q.relevant[i] for i in np.argsort(-fused(q, weight), kind="stable")][: dv.CAP], q.n_relevant
                )["oracle_f1"]
                for q in queries
            ]
        )
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=dv.MODELS, help="'default' = packaged all-MiniLM-L6-v2")
    parser.add_argument("--report", nargs="*", default=[], help="passage parts no choice saw, scored last")
    args = parser.parse_args(argv)
    tasks, report = dv.design_and_report(DESIGN, args.report)
    data: dict[str, dict[str, list[dv.Query]]] = {}
    for model in args.models:
        embedder = make_context(None if model == "default" else model, load_now=True).embedder
        short = Path(embedder.name).name
        data[short] = {
            name: load(embedder, loader()) for sets in (*tasks.values(), report) for name, loader in sets.items()
        }
        print(f"{short} loaded", file=sys.stderr, flush=True)
    models = list(data)
    groups = list(DESIGN)
    every = groups + (["report"] if report else [])
    names = {"shipped tau=1.25 delta=1": (dv.shipped(), 1.0)}
    for weight, tau in itertools.product(WEIGHTS, TAUS):
        names[f"fused w={weight} tau={tau} delta=1"] = (rule(weight, tau), 1.0)
    scores = dv.score_groups(data, names, every)
    commit = run_commit()
    print(f"debiasrag at {commit}; cap {dv.CAP}; cells {' / '.join(models)}\n")

    def oracle_cells(group: str, weight: float) -> str:
        sets = [s for s in dv.GROUP_OF if dv.GROUP_OF[s] == group]
        return " / ".join(f"{np.mean([fused_oracle(data[m][s], weight) for s in sets]):.3f}" for m in models)

    print("oracle cut of the fused ranking (w = 0: the plain ranking):\n")
    rows = [[f"w={w}", *(oracle_cells(g, w) for g in every)] for w in WEIGHTS]
    print(md_table(["ranking", *every], rows) + "\n")

    def cells(name: str, group: str, key: str) -> str:
        return " / ".join(f"{scores[name, m, group][key]:.3f}" for m in models)

    base = "shipped tau=1.25 delta=1"
    chosen = dv.choose(scores, list(names), models, groups)
    print(f"chosen on all design groups: **{chosen}**\n")
    rows = [
        [g, n, cells(n, g, "f1"), cells(n, g, "absFM"), cells(n, g, "returned")]
        for g in every
        for n in dict.fromkeys([base, chosen])
    ]
    print(md_table(["group", "rule", "F1", "|#F−#M|", "returned"], rows) + "\n")
    print("leave-one-group-out (chosen on the other design groups, scored on the one left out):\n")
    rows = []
    for left in groups:
        pick = dv.choose(scores, list(names), models, [g for g in groups if g != left])
        rows.append([left, pick, cells(pick, left, "f1"), cells(base, left, "f1"), cells(pick, left, "absFM")])
    print(md_table(["left out", "chosen on the rest", "its F1", "shipped F1", "its |#F−#M|"], rows) + "\n")
    best = sorted(names, key=lambda n: -np.mean([scores[n, m, g]["f1"] for m in models for g in groups]))[:6]
    print("the six best rules by mean F1 over models x design groups (not all allowed):\n")
    print(md_table(["rule", *every], [[n, *(cells(n, g, "f1") for g in every)] for n in best]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
