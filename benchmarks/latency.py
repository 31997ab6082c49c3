"""Query latency of every strategy against plain top-k on one 100k-vector index, plus build throughput.

All strategies run on the same FaissIndex and embedder, interleaved query by query (so machine load
hits them alike); each latency is end to end: embedding the query variants + FAISS search + selection.

Index build throughput (docs/s: embedding + FAISS add) is measured on ``--embed-n`` generated texts.
The 100k vectors are those real embeddings plus up to ``n / embed-n`` jittered copies (Gaussian noise,
renormalised) unless ``--embed-n`` equals ``--n``; embedding 100k texts on 2 CPU cores takes several
minutes, so the default jitters. Peak memory is the process's max RSS.

    .venv/bin/python benchmarks/latency.py [--n 100000] [--embed-n 5000] [--rounds 20] [--kind flat]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from debiasrag import DebiasedRetriever, Document, FaissIndex, SentenceTransformerEmbedder  # noqa: E402
from debiasrag.datasets import load_gendered_topics, load_toy_task  # noqa: E402
from debiasrag.strategies import STRATEGIES  # noqa: E402


def generated_texts(n: int, seed: int = 0) -> list[str]:
    """Distinct sentences: our topic chunks with varied openings and endings."""
    rng = np.random.default_rng(seed)
    base = [d.text for d in load_gendered_topics().documents]
    openings = ["", "Last year, ", "According to the report, ", "In the city, ", "Once again, ", "Reportedly, "]
    endings = ["", " It was widely reported.", " Nobody expected it.", " The local paper covered the story."]
    texts = []
    for i in range(n):
        text = base[rng.integers(len(base))]
        texts.append(
            f"{openings[rng.integers(len(openings))]}{text[0].lower()}{text[1:]}"
            f"{endings[rng.integers(len(endings))]} (#{i})"
        )
    return texts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=100_000, help="vectors in the index")
    parser.add_argument("--embed-n", type=int, default=5_000, help="texts embedded for real")
    parser.add_argument("--rounds", type=int, default=20, help="passes over the query set")
    parser.add_argument("--kind", choices=["flat", "ivf", "hnsw"], default="flat")
    parser.add_argument("--model", default=None)
    args = parser.parse_args(argv)
    embed_n = min(args.embed_n, args.n)
    embedder = SentenceTransformerEmbedder(args.model, batch_size=128)
    texts = generated_texts(embed_n)
    documents = [Document(i, t) for i, t in enumerate(texts)]
    start = time.perf_counter()
    built = FaissIndex.from_documents(documents, embedder, kind=args.kind)
    build_seconds = time.perf_counter() - start
    spin = os.environ.get("GOMP_SPINCOUNT", "default")
    print(f"model {embedder.name}; index kind {args.kind}; GOMP_SPINCOUNT={spin}")
    print(
        f"build throughput: {embed_n / build_seconds:.1f} docs/s "
        f"({embed_n} docs embedded + added in {build_seconds:.1f} s)"
    )

    vectors = built.vectors_at(np.arange(embed_n))
    rng = np.random.default_rng(1)
    copies = [vectors]
    while sum(len(c) for c in copies) < args.n:
        noisy = vectors + rng.normal(0, 0.02, vectors.shape).astype(np.float32)
        copies.append(noisy / np.linalg.norm(noisy, axis=1, keepdims=True))
    all_vectors = np.concatenate(copies)[: args.n]
    index = FaissIndex(embedder.dimension, model_name=embedder.name, kind=args.kind)
    index.add([Document(i, texts[i % embed_n]) for i in range(args.n)], all_vectors)
    print(f"index: {len(index)} vectors ({embed_n} embedded, {args.n - embed_n} jittered copies)")

    queries = list(load_gendered_topics().queries.values()) + list(load_toy_task().queries.values())
    retriever = DebiasedRetriever(index, embedder)
    timings: dict[str, list[float]] = {name: [] for name in STRATEGIES}
    for query in queries[:2]:  # warm-up
        for name in STRATEGIES:
            retriever.retrieve(query, strategy=name, k=10)
    for _ in range(args.rounds):
        for query in queries:
            for name in STRATEGIES:
                t0 = time.perf_counter()
                retriever.retrieve(query, strategy=name, k=None if name == "dynamic" else 10)
                timings[name].append(time.perf_counter() - t0)
    base = statistics.median(timings["topk"])
    print(f"query latency over {len(queries)} queries x {args.rounds} rounds (k=10; dynamic uncapped, pool 200):")
    print(f"{'strategy':10s} {'median ms':>10s} {'p90 ms':>8s} {'x topk':>7s}   goal")
    for name, values in timings.items():
        med = statistics.median(values)
        p90 = float(np.percentile(values, 90))
        goal = "<= 1.3x" if name in ("balanced", "dynamic") else ""
        print(f"{name:10s} {med * 1000:10.2f} {p90 * 1000:8.2f} {med / base:7.2f}   {goal}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory (max RSS): {peak:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
