"""Seed 000 Appendix E toy task (Tables 10-12) for any model: recall and precision per strategy.

Prints, next to ours, the paper's figures (UAE-Large-V1): top-10 with the neutral query finds 10 of the
15 relevant chunks; Algorithm 1 with k = 10 finds all 15 and none of the 5 random chunks.

    .venv/bin/python benchmarks/toy_retrieval.py [--model NAME] [--k 10]
"""

from __future__ import annotations

import argparse
import os
import sys

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from debiasrag import DebiasedRetriever, FaissIndex, SentenceTransformerEmbedder  # noqa: E402
from debiasrag.datasets import load_toy_task, toy_data  # noqa: E402
from debiasrag.strategies import Dynamic, DynamicCutoff  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="sentence-transformers name or path (default: packaged MiniLM)")
    parser.add_argument("--k", type=int, default=10)
    args = parser.parse_args(argv)
    task = load_toy_task()
    paper = toy_data()["paper_results"]
    embedder = SentenceTransformerEmbedder(args.model)
    index = FaissIndex.from_documents(task.documents, embedder)
    retriever = DebiasedRetriever(index, embedder, concept=task.concept)
    relevant = task.relevant["army"]
    query = task.queries["army"]
    print(f"model: {embedder.name}   query: {query!r}   k = {args.k} (dynamic: cap 100)")
    print(
        f"{'strategy':14s} {'returned':>8s} {'relevant':>9s} {'random':>7s} {'recall':>7s} {'precision':>9s}"
        f"   paper ({paper['model']})"
    )
    paper_cells = {
        "topk": f"{paper['topk_neutral_k10_relevant']}/15 relevant",
        "paper": f"{paper['algorithm1_k10_relevant']}/15 relevant, {paper['algorithm1_k10_random']}/5 random",
    }
    strategies: dict[str, str | Dynamic] = {name: name for name in ("topk", "context", "paper", "balanced", "dynamic")}
    strategies["dynamic-window"] = Dynamic(text_cut=None)  # the cut before session 34 (wordings, not texts)
    for label, strategy in strategies.items():
        dynamic = label.startswith("dynamic")
        result = retriever.retrieve(query, strategy=strategy, k=DynamicCutoff().max_k if dynamic else args.k)
        found = sum(hit.id in relevant for hit in result)
        random = result.m - found
        print(
            f"{label:14s} {result.m:8d} {found:6d}/15 {random:5d}/5 {found / 15:7.2f}"
            f" {found / max(result.m, 1):9.2f}"
            f"   {paper_cells.get(label, '')}"
        )
    # The reading of Algorithm 1 that takes S̃'s k-th chunk by the first variant (not the worked example's).
    vectors = embedder.encode([text for _, text in task.concept.variant_queries(query)])
    doc_vectors = embedder.encode([d.text for d in task.documents])
    female, male = doc_vectors @ vectors[0], doc_vectors @ vectors[1]
    kth = female.argsort()[::-1][args.k - 1]
    male_order = list(male.argsort()[::-1])
    chosen = male_order[: male_order.index(kth) + 1]
    found = sum(task.documents[i].id in relevant for i in chosen)
    print(
        f"{'paper-alt':14s} {len(chosen):8d} {found:6d}/15 {len(chosen) - found:5d}/5"
        "   (Algorithm 1, k-th-chunk reading)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
