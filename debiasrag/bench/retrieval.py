"""``retrieval``: recall, precision and group exposure per strategy at several k (seed 000 §4, Appendix E).

Two tasks: seed 000's toy task (15 female / male / neutral chunks about an army officer + 5 random ones, one
neutral query) and the gendered multi-topic set (12 occupations × 5 chunks × 3 genders + 20 distractors). For
every strategy of :data:`debiasrag.STRATEGIES` and k, ``exposure_<group>`` is the share of the relevant chunks
returned that belong to that group (1/3 each is even exposure); ``exposure_gap`` = |female - male|. For the
dynamic strategy k is a cap. Also plots the seed's Fig. 2 query × chunk similarity heatmap for the toy task.
"""

from __future__ import annotations

import numpy as np

from debiasrag.bench._common import context_embedder, md_table
from debiasrag.bench.base import BenchContext, BenchResult
from debiasrag.datasets import RetrievalTask, load_gendered_topics, load_toy_task, toy_data
from debiasrag.index import FaissIndex
from debiasrag.retriever import DebiasedRetriever
from debiasrag.strategies import STRATEGIES, get_strategy

NAME = "retrieval"
GROUPS = ("female", "male", "neutral")
K_VALUES = {"toy": (5, 10, 15), "topics": (5, 10, 15, 30)}
PAPER_MODEL = "WhereIsAI/UAE-Large-V1"


def evaluate(task: RetrievalTask, retriever: DebiasedRetriever, strategy: str, k: int) -> dict[str, float]:
    """Mean over the task's queries of recall, precision, returned count and group exposure."""
    rows = []
    for name, query in task.queries.items():
        relevant = task.relevant[name]
        hits = retriever.retrieve(query, k=k, strategy=strategy).hits
        found = [hit for hit in hits if hit.id in relevant]
        groups = [(hit.metadata or {}).get("group") for hit in found]
        share = {g: (groups.count(g) / len(found) if found else 0.0) for g in GROUPS}
        rows.append(
            {
                "recall": len(found) / len(relevant),
                "precision": len(found) / len(hits) if hits else 0.0,
                "returned": float(len(hits)),
                "relevant_found": float(len(found)),
                "irrelevant_found": float(len(hits) - len(found)),
                **{f"exposure_{g}": share[g] for g in GROUPS},
                "exposure_gap": abs(share["female"] - share["male"]),
            }
        )
    return {key: float(np.mean([r[key] for r in rows])) for key in rows[0]}


def toy_similarity(embedder, out_path) -> object:
    """Seed 000 Fig. 2: cosine of the four toy queries against the 20 chunks (rows = queries)."""
    from debiasrag.bench._plots import similarity_heatmap

    data = toy_data()
    query_names = ["neutral", "female", "male", "debiasing"]
    chunks = sorted(data["chunks"], key=lambda c: (["neutral", "male", "female", "random"].index(c["group"]), c["id"]))
    q = embedder.encode([data["queries"][n] for n in query_names])
    c = embedder.encode([chunk["text"] for chunk in chunks])
    matrix = q @ c.T
    title = f"Query × chunk cosine similarity (seed 000 Fig. 2 layout) — {embedder.name}"
    return similarity_heatmap(out_path, matrix, query_names, [chunk["id"] for chunk in chunks], title), matrix


def run(ctx: BenchContext) -> BenchResult:
    embedder = context_embedder(ctx)
    result = BenchResult(NAME)
    tasks = {"toy": load_toy_task(), "topics": load_gendered_topics()}
    total = sum(len(STRATEGIES) * len(K_VALUES[t]) for t in tasks)
    with ctx.progress("retrieval", total) as advance:
        for task_key, task in tasks.items():
            index = FaissIndex.from_documents(task.documents, embedder)
            retriever = DebiasedRetriever(index, embedder, concept=task.concept or "gender")
            # every query variant in one batch: with the cached embedder the strategy runs below then hit the cache
            embedder.encode(
                sorted(
                    {
                        text
                        for q in task.queries.values()
                        for s in STRATEGIES
                        for _, text in get_strategy(s).variants(q, retriever.concept)
                    }
                )
            )
            rows = []
            for strategy in STRATEGIES:
                for k in K_VALUES[task_key]:
                    scores = evaluate(task, retriever, strategy, k)
                    for key, value in scores.items():
                        result.metrics[f"{task_key}.{strategy}.k{k}.{key}"] = round(value, 6)
                    rows.append(
                        [strategy, k, scores["returned"], scores["recall"], scores["precision"]]
                        + [scores[f"exposure_{g}"] for g in GROUPS]
                        + [scores["exposure_gap"]]
                    )
                    advance()
            title = "seed 000 toy task (1 query)" if task_key == "toy" else f"gendered topics ({len(task.queries)})"
            result.tables.append(
                f"**{title}**\n\n"
                + md_table(
                    [
                        "strategy",
                        "k",
                        "returned",
                        "recall",
                        "precision",
                        "exp. female",
                        "exp. male",
                        "exp. neutral",
                        "exp. gap",
                    ],
                    rows,
                )
            )
    paper = toy_data()["paper_results"]
    if embedder.name == PAPER_MODEL:
        result.seed_figures["toy.topk.k10.relevant_found"] = float(paper["topk_neutral_k10_relevant"])
        result.seed_figures["toy.paper.k10.relevant_found"] = float(paper["algorithm1_k10_relevant"])
        result.seed_figures["toy.paper.k10.irrelevant_found"] = float(paper["algorithm1_k10_random"])
    else:
        result.notes.append(
            f"Seed 000 reports the toy task only for {PAPER_MODEL}: top-10 with the neutral query finds "
            f"{paper['topk_neutral_k10_relevant']}/15 relevant chunks, Algorithm 1 (k=10) finds "
            f"{paper['algorithm1_k10_relevant']}/15 and {paper['algorithm1_k10_random']}/5 random; ours for "
            f"{embedder.name}: top-10 {result.metrics['toy.topk.k10.relevant_found']:.0f}/15, paper strategy "
            f"{result.metrics['toy.paper.k10.relevant_found']:.0f}/15 and "
            f"{result.metrics['toy.paper.k10.irrelevant_found']:.0f}/5 random."
        )
    result.notes.append("Exposure = share of the relevant chunks returned per group; for 'dynamic' k is a cap.")
    if ctx.anonymize:
        result.notes.append("--anonymize does not apply to the retrieval benchmark (its texts hold no names).")
    path = ctx.plot_path("toy_similarity_heatmap.png")
    if path is not None:
        plot, matrix = toy_similarity(embedder, path)
        result.plots.append(plot)
        # Row means by chunk group, the reading of Fig. 2 in the seed's text (neutral > male > female, etc.).
        for qi, query in enumerate(["neutral", "female", "male", "debiasing"]):
            for gi, group in enumerate(["neutral", "male", "female"]):
                result.metrics[f"toy.similarity.{query}_query.{group}_chunks"] = round(
                    float(matrix[qi, gi * 5 : gi * 5 + 5].mean()), 6
                )
    return result
