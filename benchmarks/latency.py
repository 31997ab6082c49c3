"""Query latency of every strategy against plain top-k on 100k-vector indexes (flat and HNSW), plus build throughput.

All strategies run on the same embedder and on a flat and an HNSW index over the same vectors, interleaved query
by query and index by index (so machine load hits them alike), in an order shuffled for each query (seeded; so no
strategy always follows `paper`'s deeper searches or the other index); each latency is end to end: embedding the query
variants + FAISS search(es) + group lookup (inferred from the text, memoized) + selection. ``dynamic`` runs with
its cap at k=10 and uncapped (k = its cutoff's max_k, 100), and with ``versions=True`` (the generated texts hold
female / male / neutral wordings and, in the jittered copies, repeats: versions among every query's candidates); the
mean number of store calls per query is printed.

Index build throughput (docs/s: embedding + FAISS add) is measured on ``--embed-n`` generated texts.
The 100k vectors are those real embeddings plus up to ``n / embed-n`` jittered copies (Gaussian noise,
renormalised) unless ``--embed-n`` equals ``--n``; embedding 100k texts on 2 CPU cores takes several
minutes, so the default jitters. Peak memory is the process's max RSS.

    GOMP_SPINCOUNT=100000 .venv/bin/python benchmarks/latency.py [--n 100000] [--embed-n 5000] [--rounds 20]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import sys
import time

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from debiasrag import DebiasedRetriever, Document, FaissIndex, SentenceTransformerEmbedder  # noqa: E402
from debiasrag.datasets import load_gendered_topics, load_toy_task  # noqa: E402
from debiasrag.strategies import STRATEGIES, Dynamic, DynamicCutoff, Strategy  # noqa: E402


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
    parser.add_argument("--kinds", default="flat,hnsw", help="comma-separated index kinds measured side by side")
    parser.add_argument("--model", default=None)
    args = parser.parse_args(argv)
    kinds = args.kinds.split(",")
    embed_n = min(args.embed_n, args.n)
    embedder = SentenceTransformerEmbedder(args.model, batch_size=128)
    texts = generated_texts(embed_n)
    documents = [Document(i, t) for i, t in enumerate(texts)]
    start = time.perf_counter()
    built = FaissIndex.from_documents(documents, embedder, kind="flat")
    build_seconds = time.perf_counter() - start
    spin = os.environ.get("GOMP_SPINCOUNT", "default")
    print(f"model {embedder.name}; index kinds {', '.join(kinds)}; GOMP_SPINCOUNT={spin}")
    print(
        f"build throughput (flat): {embed_n / build_seconds:.1f} docs/s "
        f"({embed_n} docs embedded + added in {build_seconds:.1f} s)"
    )

    vectors = built.vectors_at(np.arange(embed_n))
    rng = np.random.default_rng(1)
    copies = [vectors]
    while sum(len(c) for c in copies) < args.n:
        noisy = vectors + rng.normal(0, 0.02, vectors.shape).astype(np.float32)
        copies.append(noisy / np.linalg.norm(noisy, axis=1, keepdims=True))
    all_vectors = np.concatenate(copies)[: args.n]
    retrievers = {}
    for kind in kinds:
        index = FaissIndex(embedder.dimension, model_name=embedder.name, kind=kind)
        index.add([Document(i, texts[i % embed_n]) for i in range(args.n)], all_vectors)
        retrievers[kind] = DebiasedRetriever(index, embedder)
    print(f"indexes: {args.n} vectors each ({embed_n} embedded, {args.n - embed_n} jittered copies)")

    queries = list(load_gendered_topics().queries.values()) + list(load_toy_task().queries.values())
    runs: dict[str, tuple[str | Strategy, int | None]] = {name: (name, 10) for name in STRATEGIES}
    runs["dynamic"] = ("dynamic", 10)
    runs["dynamic uncapped"] = ("dynamic", DynamicCutoff().max_k)  # retrieve() without k caps at 10 since session 32
    runs["dynamic versions"] = (Dynamic(versions=True), 10)  # an option: versions found among the candidates
    timings: dict[tuple[str, str], list[float]] = {(kind, run): [] for kind in kinds for run in runs}
    calls: dict[tuple[str, str], list[int]] = {(kind, run): [] for kind in kinds for run in runs}
    for kind, retriever in retrievers.items():  # count store calls (and warm up the group memo)
        original = retriever.index.search
        counter = [0]

        def counting(queries_, k_, original=original, counter=counter):
            counter[0] += 1
            return original(queries_, k_)

        retriever.index.search = counting  # type: ignore[method-assign]
        for query in queries:
            for run, (name, k) in runs.items():
                counter[0] = 0
                retriever.retrieve(query, strategy=name, k=k)
                calls[(kind, run)].append(counter[0])
        retriever.index.search = original  # type: ignore[method-assign]
    # The order is shuffled query by query (seeded): a strategy timed right after `paper` (6.6 store calls) or right
    # after the other index paid for it — in a fixed order (session 40) `balanced` read 1.38x on flat, 0.95x with
    # `paper` moved last.
    order = [(kind, run) for kind in retrievers for run in runs]
    shuffle = random.Random(0).shuffle
    for _ in range(args.rounds):
        for query in queries:
            shuffle(order)
            for kind, run in order:
                name, k = runs[run]
                t0 = time.perf_counter()
                retrievers[kind].retrieve(query, strategy=name, k=k)
                timings[(kind, run)].append(time.perf_counter() - t0)
    print(f"query latency, median over {len(queries)} queries x {args.rounds} rounds (k=10):")
    header = f"{'strategy':17s}" + "".join(f" | {kind + ' ms':>9s} {'x topk':>6s} {'calls':>5s}" for kind in kinds)
    print(header + "   goal")
    for run in runs:
        cells = []
        for kind in kinds:
            base = statistics.median(timings[(kind, "topk")])
            med = statistics.median(timings[(kind, run)])
            cells.append(f" | {med * 1000:9.2f} {med / base:6.2f} {statistics.mean(calls[(kind, run)]):5.2f}")
        goal = "<= 1.2x" if run in ("balanced", "dynamic", "dynamic uncapped") else ""
        print(f"{run:17s}" + "".join(cells) + f"   {goal}")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak memory (max RSS): {peak:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
