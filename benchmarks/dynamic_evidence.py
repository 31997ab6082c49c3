"""Better evidence for ``dynamic``'s cut: the fetched pool's own vectors (issue 10).

    .venv/bin/python benchmarks/dynamic_evidence.py [--models default PATH ...]
    .venv/bin/python benchmarks/dynamic_evidence.py --latency   # cost of getting and using the pool's vectors

``dynamic`` today sees only the plain query's top-50 *scores*. Here every rule also sees the 50 candidates'
*vectors* (what ``FaissIndex.vectors_at`` reconstructs after the one search; no further store search), and the
cut then follows the same parity step as the shipped rule (:func:`debiasrag.strategies.balance_swaps`, δ in σ units
of the scores the rule cut on). Families, fixed before any score was looked at:

* ``shipped``: the window ``score ≥ top − τσ`` of the plain scores (τ, δ searched too, as a control).
* ``rocchio``: pseudo-relevance feedback inside the pool: ``q' = q + β · mean(top m candidates)``, normalised; the
  50 candidates are re-scored with ``q'`` and cut with the window rule on the new scores.
* ``seedcentroid``: the same, the feedback centroid being the shipped window itself (``top − τ₀σ``), not a fixed m.
* ``rerank``: the Rocchio re-ranking (centroid of the top m, or of the window ``top − τ₀σ``), but the *number*
  kept still comes from the shipped window on the plain scores: the evidence changes which documents, not how many.
* ``component``: the candidates' mutual-kNN graph (cosine, k_nn); keep the connected component of the top hit,
  limited to a loose window ``top − τσ`` of the plain scores (the cut follows the gap between that cluster and
  the rest).
* ``agree``: document-document agreement: start from the window ``top − τ₀σ``; add, in plain-score order,
  candidates inside a loose window ``top − τσ`` whose best cosine to the kept set is at least the pool's
  pairwise-cosine quantile ``qθ`` (scale-free per model); repeat until nothing is added.

Protocol: cap k = 10, groups inferred (``debiasrag.groups``), F1 against each query's relevant set, |#F − #M| by the
gold labels. **Primary**: every parameter of every family chosen on ``fairness_main`` plus the *design* half of
``gendered_topics`` (6 of its 12 topics; the corpus stays whole), by the best mean F1 over those two sets and the
models (ties: least |#F − #M|), then reported on ``fairness_holdout`` and the *holdout* half of ``gendered_topics``,
which no choice saw (a choice on fairness_main alone is printed too: it picks rules that fail on wide topics).
Secondary: leave-one-dataset-out over main / holdout / all of topics (models pooled) as in ``dynamic_k_models.py``.
"oracle" is the best per-query cut of the plain top-50 (uncapped, and capped at 10); "oracle re-ranked" the same
for the chosen Rocchio re-ranking (the ceiling of a better ranking).
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from debiasrag.bench.report import make_context  # noqa: E402
from debiasrag.datasets import RetrievalTask, load_fairness_set, load_gendered_topics  # noqa: E402
from debiasrag.embedders import embed_documents, embed_queries  # noqa: E402
from debiasrag.groups import detector  # noqa: E402
from debiasrag.metrics.fairness import oracle_cut, set_quality  # noqa: E402
from debiasrag.strategies import balance_swaps  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MODELS = ["default", str(ROOT / ".cache/models/paraphrase-MiniLM-L3-v2"), str(ROOT / ".cache/models/all-mpnet-base-v2")]
SETS = ("main", "holdout", "topics")  # the three sets of dynamic_k_models.py (leave-one-dataset-out)
DESIGN = ("main", "topics_design")  # primary protocol: every parameter chosen here ...
REPORT = ("holdout", "topics_holdout", "topics")  # ... and reported here (topics = both halves, for reference)
ALL = ("main", "holdout", "topics_design", "topics_holdout", "topics")
POOL = 50
CAP = 10


@dataclass
class Query:
    cand: np.ndarray  # top-POOL document indices, best first (plain query)
    scores: np.ndarray  # their plain scores
    vecs: np.ndarray  # their (unit) vectors, POOL x d
    qv: np.ndarray  # the (unit) query vector
    relevant: set[int]
    gold: list[str]
    inferred: list[str]


def load(embedder, task: RetrievalTask) -> list[Query]:
    docs = task.documents
    vectors = embed_documents(embedder, [d.text for d in docs])
    found = detector("gender")
    gold = [d.metadata.get("group", "neutral").replace("none", "neutral") for d in docs]
    inferred = [found.group(d.text) for d in docs]
    names = list(task.queries)
    q = embed_queries(embedder, [task.queries[n] for n in names])
    ids = {str(d.id): i for i, d in enumerate(docs)}
    out = []
    for name, qv, row in zip(names, q, q @ vectors.T):
        cand = np.argsort(-row)[:POOL]
        rel = {ids[str(r)] for r in task.relevant[name]}
        out.append(Query(cand, row[cand].astype(np.float64), vectors[cand], qv, rel, gold, inferred))
    return out


def load_models(
    models: Sequence[str], tasks: dict[str, Callable[[], RetrievalTask]]
) -> dict[str, dict[str, list[Query]]]:
    """``{model short name: {set name: queries}}`` for each model (``"default"`` = packaged MiniLM) and task."""
    data: dict[str, dict[str, list[Query]]] = {}
    for model in models:
        embedder = make_context(None if model == "default" else model, load_now=True).embedder
        data[Path(embedder.name).name] = {name: load(embedder, task()) for name, task in tasks.items()}
    return data


def sigma(scores: np.ndarray) -> float:
    return float(np.asarray(scores[:POOL], dtype=np.float64).std()) if len(scores) > 1 else 0.0


def window(scores: np.ndarray, tau: float) -> int:
    """How many of the descending ``scores`` satisfy score ≥ top − τσ (at least 1)."""
    return max(1, int(np.sum(scores >= scores[0] - tau * sigma(scores))))


# A rule maps a query to (candidate positions kept, in rank order; the scores of all candidates that rank/parity
# use, aligned with ``order``; the rank order of all candidates).
Rule = Callable[[Query], tuple[list[int], np.ndarray, np.ndarray]]


def shipped(tau: float) -> Rule:
    def rule(q: Query):
        order = np.arange(len(q.cand))
        return list(range(window(q.scores, tau))), q.scores, order

    return rule


def rescored(q: Query, centroid: np.ndarray, beta: float) -> tuple[np.ndarray, np.ndarray]:
    """Candidate order and scores (descending) for ``q + beta * centroid``."""
    qn = q.qv + beta * centroid
    qn = qn / np.linalg.norm(qn)
    s = q.vecs @ qn
    order = np.argsort(-s, kind="stable")
    return order, s[order].astype(np.float64)


def rocchio(m: int, beta: float, tau: float) -> Rule:
    def rule(q: Query):
        order, s = rescored(q, q.vecs[:m].mean(0), beta)
        return list(range(window(s, tau))), s, order

    return rule


def seedcentroid(tau0: float, beta: float, tau: float) -> Rule:
    def rule(q: Query):
        seed = window(q.scores, tau0)
        order, s = rescored(q, q.vecs[:seed].mean(0), beta)
        return list(range(window(s, tau))), s, order

    return rule


def rerank(m: int, tau0: float, beta: float, tau: float) -> Rule:
    """Rocchio re-ranking (centroid of the top ``m``, or of the window ``top − τ₀σ`` when m = 0), but *how many*
    to keep still comes from the shipped window ``top − τσ`` of the plain scores: only *which* documents change."""

    def rule(q: Query):
        seed = m if m else window(q.scores, tau0)
        order, s = rescored(q, q.vecs[:seed].mean(0), beta)
        return list(range(window(q.scores, tau))), s, order

    return rule


def top_component(q: Query, knn: int, inside: np.ndarray | None = None) -> list[int]:
    """Candidates linked to the top hit in the pool's mutual-kNN graph (only through those ``inside``, if given)."""
    sims = q.vecs @ q.vecs.T
    np.fill_diagonal(sims, -np.inf)
    near = np.argsort(-sims, axis=1)[:, :knn]
    adj = np.zeros(sims.shape, dtype=bool)
    adj[np.repeat(np.arange(len(sims)), knn), near.ravel()] = True
    mutual = adj & adj.T
    if inside is not None:
        mutual &= inside[None, :]
    seen, stack = {0}, [0]
    while stack:
        for j in np.nonzero(mutual[stack.pop()])[0]:
            if int(j) not in seen:
                seen.add(int(j))
                stack.append(int(j))
    return sorted(seen)


def component(knn: int, tau: float) -> Rule:
    def rule(q: Query):
        inside = np.zeros(len(q.cand), dtype=bool)
        inside[: window(q.scores, tau)] = True
        return top_component(q, knn, inside), q.scores, np.arange(len(q.cand))

    return rule


def agree(tau0: float, quant: float, tau: float) -> Rule:
    def rule(q: Query):
        sims = q.vecs @ q.vecs.T
        iu = np.triu_indices(len(sims), 1)
        theta = float(np.quantile(sims[iu], quant))
        kept = list(range(window(q.scores, tau0)))
        loose = window(q.scores, max(tau, tau0))
        changed = True
        while changed:
            changed = False
            for j in range(len(kept), loose):
                if j not in kept and sims[j, kept].max() >= theta:
                    kept.append(j)
                    changed = True
        return sorted(kept), q.scores, np.arange(len(q.cand))

    return rule


def evaluate(rule: Rule, delta: float, queries: list[Query]) -> dict[str, float]:
    rows = []
    for q in queries:
        kept, s, order = rule(q)
        kept = sorted(kept)[:CAP]
        groups = [q.inferred[int(q.cand[i])] for i in order]
        if delta > 0:
            kept = balance_swaps(s.tolist(), groups, kept, delta * sigma(s), ("female", "male"))
        picked = [int(q.cand[order[i]]) for i in kept]
        quality = set_quality([i in q.relevant for i in picked], len(q.relevant))
        recall, precision, f1 = quality["recall"], quality["precision"], quality["f1"]
        f = sum(q.gold[i] == "female" for i in picked)
        m = sum(q.gold[i] == "male" for i in picked)
        rows.append((recall, precision, f1, abs(f - m), len(picked)))
    r = np.array(rows, dtype=float).mean(0)
    return dict(zip(("recall", "precision", "f1", "absFM", "returned"), r.tolist()))


def oracle(queries: list[Query], cap: int | None, rule: Rule | None = None) -> float:
    out = []
    for q in queries:
        order = rule(q)[2] if rule is not None else np.arange(len(q.cand))
        rel = [int(q.cand[i]) in q.relevant for i in order][: cap or POOL]
        out.append(oracle_cut(rel, len(q.relevant))["oracle_f1"])
    return float(np.mean(out))


TAUS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5)
DELTAS = (0.0, 0.5, 1.0)


def candidates() -> dict[tuple[str, str], tuple[Rule, float]]:
    """(family, parameters) -> (rule, parity δ). Every grid fixed before any held-out score was seen."""
    out: dict[tuple[str, str], tuple[Rule, float]] = {}
    for tau, d in itertools.product(TAUS, DELTAS):
        out["shipped", f"tau={tau} delta={d}"] = (shipped(tau), d)
    for m, beta, tau, d in itertools.product((1, 2, 3, 5, 10), (0.25, 0.5, 1.0, 2.0), TAUS, DELTAS):
        out["rocchio", f"m={m} beta={beta} tau={tau} delta={d}"] = (rocchio(m, beta, tau), d)
    for tau0, beta, tau, d in itertools.product((0.5, 1.0, 1.25, 1.5), (0.25, 0.5, 1.0, 2.0), TAUS, DELTAS):
        out["seedcentroid", f"tau0={tau0} beta={beta} tau={tau} delta={d}"] = (seedcentroid(tau0, beta, tau), d)
    for (m, tau0), beta, tau, d in itertools.product(
        ((1, 0), (2, 0), (3, 0), (5, 0), (0, 0.5), (0, 1.0), (0, 1.25)), (0.25, 0.5, 1.0, 2.0), TAUS, DELTAS
    ):
        seed = f"m={m}" if m else f"tau0={tau0}"
        out["rerank", f"{seed} beta={beta} tau={tau} delta={d}"] = (rerank(m, tau0, beta, tau), d)
    for knn, tau, d in itertools.product((2, 3, 5, 8), (1.0, 1.5, 2.0, 3.0, 5.0), DELTAS):
        out["component", f"knn={knn} tau={tau} delta={d}"] = (component(knn, tau), d)
    for tau0, quant, tau, d in itertools.product((0.5, 1.0, 1.25), (0.8, 0.9, 0.95, 0.98), (1.5, 2.0, 3.0), DELTAS):
        out["agree", f"tau0={tau0} q={quant} tau={tau} delta={d}"] = (agree(tau0, quant, tau), d)
    return out


def latency(n: int = 100_000, rounds: int = 200) -> None:
    """Median ms per query at ``n`` vectors (flat, HNSW): the depth-50 search, reconstructing the 50 candidates'
    vectors (``FaissIndex.vectors_at``), the seed-centroid re-scoring, and re-embedding 50 candidate texts (what a
    wrapped store that returns no vectors would need), next to embedding the query (part of every strategy)."""
    from debiasrag import Document, FaissIndex, SentenceTransformerEmbedder

    embedder = SentenceTransformerEmbedder(None)  # uncached: every encode runs the model
    rng = np.random.default_rng(0)
    base = rng.normal(size=(n, embedder.dimension)).astype(np.float32)
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    texts = [d.text for d in load_gendered_topics().documents]
    queries = embed_queries(embedder, texts[:rounds] * (rounds // len(texts[:rounds]) + 1))[:rounds]

    def median_ms(fn: Callable[[int], object], reps: int) -> float:
        times = []
        for i in range(reps):
            start = time.perf_counter()
            fn(i)
            times.append(time.perf_counter() - start)
        return 1000 * float(np.median(times))

    print(f"latency at {n} vectors, {embedder.dimension}-d ({embedder.name}); median ms per query")
    print(f"  embed the query: {median_ms(lambda i: embed_queries(embedder, [texts[i % len(texts)]]), 50):.2f}")
    print(f"  re-embed 50 candidate texts: {median_ms(lambda i: embed_documents(embedder, texts[:50]), 10):.2f}")
    for kind in ("flat", "hnsw"):
        index = FaissIndex(embedder.dimension, kind=kind)
        index.add([Document(i, "x") for i in range(n)], base)
        found = [index.search(queries[i], POOL) for i in range(rounds)]
        search = median_ms(lambda i, index=index: index.search(queries[i], POOL), rounds)
        fetch = median_ms(lambda i, index=index, found=found: index.vectors_at(found[i][1][0]), rounds)

        def rescore(i: int, index: FaissIndex = index, found: list = found) -> None:
            scores, pos = found[i]
            vecs = index.vectors_at(pos[0])
            q = Query(pos[0], scores[0].astype(np.float64), vecs, queries[i], set(), [], [])
            seedcentroid(1.25, 2.0, 2.0)(q)

        print(
            f"  {kind}: search depth 50 {search:.2f}; vectors_at(50) {fetch:.3f}; "
            f"vectors_at + seed-centroid re-score {median_ms(rescore, rounds):.3f}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=MODELS, help="'default' = packaged all-MiniLM-L6-v2")
    parser.add_argument("--latency", action="store_true", help="only measure the evidence's query-time cost")
    args = parser.parse_args(argv)
    if args.latency:
        latency()
        return 0
    tasks = {
        "main": lambda: load_fairness_set("main"),
        "holdout": lambda: load_fairness_set("holdout"),
        "topics_design": lambda: load_gendered_topics("design"),
        "topics_holdout": lambda: load_gendered_topics("holdout"),
    }
    data = load_models(args.models, tasks)
    for sets in data.values():
        sets["topics"] = sets["topics_design"] + sets["topics_holdout"]
    cands = candidates()
    started = time.perf_counter()
    res = {(c, m, s): evaluate(*cands[c], data[m][s]) for c in cands for m in data for s in ALL}
    print(f"models: {', '.join(data)}; {len(cands)} candidates; cap k = {CAP}; pool {POOL}; one store search per query")
    print(f"(scoring all candidates took {time.perf_counter() - started:.0f} s)")

    def goal(train: Sequence[str]) -> Callable[[tuple[str, str]], tuple[float, float]]:
        def value(c: tuple[str, str]) -> tuple[float, float]:
            rows = [res[c, m, s] for m in data for s in train]
            return round(float(np.mean([r["f1"] for r in rows])), 3), -float(np.mean([r["absFM"] for r in rows]))

        return value

    def cells(c: tuple[str, str], s: str) -> str:
        rows = [(m, res[c, m, s]) for m in data]
        return "  ".join(f"{m[:22]:22s} F1 {r['f1']:.3f} |F-M| {r['absFM']:.2f} n {r['returned']:.1f}" for m, r in rows)

    ship = ("shipped", "tau=1.25 delta=1.0")
    print("\n== reference: oracle (best per-query cut of the plain top-50) and the shipped Dynamic() ==")
    for s in ALL:
        print(f"  {s:14s} oracle uncapped {'  '.join(f'{m[:22]:22s} {oracle(data[m][s], None):.3f}' for m in data)}")
        print(f"  {s:14s} oracle cap 10   {'  '.join(f'{m[:22]:22s} {oracle(data[m][s], CAP):.3f}' for m in data)}")
        print(f"  {s:14s} shipped         {cells(ship, s)}")

    def report(title: str, train: Sequence[str], shown: Sequence[str]) -> None:
        print(f"\n== {title} ==")
        for fam in sorted({f for f, _ in cands}):
            best = max((c for c in cands if c[0] == fam), key=goal(train))
            print(
                f"{fam} chosen: {best[1]}   (design F1 {goal(train)(best)[0]:.3f}, shipped {goal(train)(ship)[0]:.3f})"
            )
            for s in shown:
                print(f"  {s:14s} {cells(best, s)}")
            if fam in ("rocchio", "seedcentroid", "rerank"):
                rule = cands[best][0]
                for s in shown:
                    print(
                        f"  {s:14s} oracle of this re-ranking uncapped / cap 10: "
                        + "  ".join(
                            f"{m[:22]} {oracle(data[m][s], None, rule):.3f} / {oracle(data[m][s], CAP, rule):.3f}"
                            for m in data
                        )
                    )
        best = max(cands, key=goal(train))
        print(f"best over all families: {best}")
        for s in shown:
            print(f"  {s:14s} {cells(best, s)}")
            print(f"  {s:14s} shipped: {cells(ship, s)}")

    report(
        "primary: chosen on fairness_main + topics design half (models pooled); reported on the rest", DESIGN, REPORT
    )
    fixed = [c for c in cands if c[0] == "rerank" and c[1].endswith("tau=1.25 delta=1.0")]
    best = max(fixed, key=goal(DESIGN))
    print("\n== rerank with the shipped width and parity fixed (tau=1.25 delta=1.0; only centroid and beta chosen on")
    print(f"   the design data; family added after the first run) chosen: {best[1]} ==")
    for s in REPORT:
        print(f"  {s:14s} {cells(best, s)}")
        print(f"  {s:14s} shipped: {cells(ship, s)}")
    report("chosen on fairness_main alone (models pooled)", ["main"], ("holdout", "topics"))
    print("\n== secondary: leave-one-dataset-out over all families (choose on the other two sets, models pooled) ==")
    for held in SETS:
        best = max(cands, key=goal([s for s in SETS if s != held]))
        print(f"  {held:8s} chosen {best}\n           {cells(best, held)}")
        print(f"           shipped: {cells(ship, held)}")
    ceiling = max(cands, key=lambda c: min(res[c, m, "holdout"]["f1"] for m in data))
    print(
        "\n== diagnostic only, NOT a valid choice: the rule with the best worst-model F1 chosen ON fairness_holdout =="
    )
    print(f"   (what these families could do on narrow held-out topics if the width were known) {ceiling}")
    for s in ("holdout", "topics"):
        print(f"  {s:14s} {cells(ceiling, s)}")
        print(f"  {s:14s} shipped: {cells(ship, s)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
