"""Design study for the ``dynamic`` strategy: dynamic-k candidates compared on data we built.

Settings (all with the same embedder, MiniLM by default):
- ``toy``: seed 000 Appendix E (15 relevant army chunks in female/male/neutral form, 5 random).
- ``single``: each of our 12 occupations alone: its 15 chunks + the 20 distractors (``single5``: + 5),
  half of them female-stereotyped (nurse, nanny, ...), half male-stereotyped.
- ``mixed``: all 12 occupations + distractors in one corpus; another occupation's chunks count as
  unrelated. Some topics overlap in meaning (kindergarten teacher / nanny / librarian), so no
  score threshold separates them: this setting shows the cost of a rule, not a reachable 100 %.
Cells: relevant found/total, +unrelated returned, queries answered with exactly the relevant set.

    .venv/bin/python benchmarks/dynamic_k_design.py [--model NAME]
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from debiasrag.concepts import Concept, load_concept  # noqa: E402
from debiasrag.datasets import load_gendered_topics, load_toy_task  # noqa: E402
from debiasrag.embedders import SentenceTransformerEmbedder  # noqa: E402
from debiasrag.strategies import DynamicCutoff  # noqa: E402

# A rule gets the score matrix (n_docs × [neutral, first variant, second variant]) and returns indices.
Rule = Callable[[np.ndarray], np.ndarray]
COLUMNS = {"neutral": [0], "first": [1], "second": [2], "max(f,m)": [1, 2], "max(f,m,n)": [0, 1, 2]}


def fused(S: np.ndarray, columns: str, how: str = "max") -> np.ndarray:
    cols = S[:, COLUMNS[columns]]
    return cols.max(1) if how == "max" else cols.mean(1)


def topk(k: int) -> Rule:
    return lambda S: np.argsort(-S[:, 0])[:k]


def paper(k: int) -> Rule:
    """Algorithm 1 as the seed's worked example applies it: lowest chunk of S̃ by the second variant."""

    def select(S: np.ndarray) -> np.ndarray:
        first = np.argsort(-S[:, 1])[:k]
        return np.where(S[:, 2] >= S[first, 2].min())[0]

    return select


def paper_tenth_chunk(k: int) -> Rule:
    """The other reading: S̃'s lowest chunk is its k-th by the first variant; cut the second ranking there."""

    def select(S: np.ndarray) -> np.ndarray:
        first = np.argsort(-S[:, 1])[:k]
        order = np.argsort(-S[:, 2])
        return order[: int(np.where(order == first[-1])[0][0]) + 1]

    return select


def split_rule(columns: str, objective: str, how: str = "max", pool: int = 200) -> Rule:
    def select(S: np.ndarray) -> np.ndarray:
        s = fused(S, columns, how)
        order = np.argsort(-s)
        ss = s[order][:pool]
        n = len(ss)
        i = np.arange(1, n)
        above = np.cumsum(ss)[:-1] / i
        below = (ss.sum() - np.cumsum(ss)[:-1]) / (n - i)
        variance = i * (n - i) / n**2 * (above - below) ** 2
        gap = ss[:-1] - ss[1:]
        score = {"gap": gap, "otsu": variance, "gap*otsu": gap * variance}[objective]
        return order[: int(i[np.argmax(score)])]

    return select


def shipped(cutoff: DynamicCutoff, columns: str = "max(f,m)") -> Rule:
    """The shipped DynamicCutoff on the max-fused scores, through the package's own code."""

    def select(S: np.ndarray) -> np.ndarray:
        s = fused(S, columns)
        order = np.argsort(-s)
        return order[: cutoff.cut(s[order])]

    return select


def candidates() -> dict[str, Rule]:
    return {
        "topk k=10, neutral query": topk(10),
        "paper k=10 (worked-example reading)": paper(10),
        "paper k=10 (10th-chunk reading)": paper_tenth_chunk(10),
        "largest gap, neutral": split_rule("neutral", "gap"),
        "largest gap, max(f,m)": split_rule("max(f,m)", "gap"),
        "otsu, max(f,m)": split_rule("max(f,m)", "otsu"),
        "gap*otsu, neutral": split_rule("neutral", "gap*otsu"),
        "gap*otsu, female variant only": split_rule("first", "gap*otsu"),
        "gap*otsu, mean(f,m)": split_rule("max(f,m)", "gap*otsu", how="mean"),
        "gap*otsu, max(f,m,n)": split_rule("max(f,m,n)", "gap*otsu"),
        "SHIPPED dynamic (default): gap*otsu, max(f,m)": shipped(DynamicCutoff()),
        "SHIPPED dynamic include_neutral=True": shipped(DynamicCutoff(), "max(f,m,n)"),
    }


def settings(embedder: SentenceTransformerEmbedder) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(setting, score matrix, relevant mask) for every query of every setting."""

    def scores(doc_vectors: np.ndarray, query: str, concept: Concept) -> np.ndarray:
        texts = [query] + [text for _, text in concept.variant_queries(query)]
        return doc_vectors @ embedder.encode(texts).T

    out = []
    toy = load_toy_task()
    vectors = embedder.encode([d.text for d in toy.documents])
    mask = np.array([d.id in toy.relevant["army"] for d in toy.documents])
    out.append(("toy", scores(vectors, toy.queries["army"], toy.concept), mask))
    topics = load_gendered_topics()
    vectors = embedder.encode([d.text for d in topics.documents])
    topic_of = np.array([d.metadata["topic"] for d in topics.documents])
    gender = load_concept("gender")
    for name, query in topics.queries.items():
        S = scores(vectors, query, gender)
        relevant = topic_of == name
        distractors = np.where(topic_of == "distractor")[0]
        for label, keep in (("single", distractors), ("single5", distractors[:5])):
            idx = np.concatenate([np.where(relevant)[0], keep])
            out.append((label, S[idx], relevant[idx]))
        out.append(("mixed", S, relevant))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="sentence-transformers name or path (default: packaged MiniLM)")
    args = parser.parse_args(argv)
    embedder = SentenceTransformerEmbedder(args.model)
    data = settings(embedder)
    names = ["toy", "single", "single5", "mixed"]
    print(f"model: {embedder.name}")
    print("cells: relevant found/total +unrelated returned, exact = queries answered with exactly the relevant set")
    header = f"{'candidate':44s}" + "".join(f" | {n:>24s}" for n in names)
    print(header)
    print("-" * len(header))
    for label, rule in candidates().items():
        cells = []
        for setting in names:
            found = total = wrong = exact = count = 0
            for name, S, relevant in data:
                if name != setting:
                    continue
                chosen = np.zeros(len(S), dtype=bool)
                chosen[rule(S)] = True
                found += int((chosen & relevant).sum())
                total += int(relevant.sum())
                wrong += int((chosen & ~relevant).sum())
                exact += int((chosen == relevant).all())
                count += 1
            cells.append(f"{found:3d}/{total:<3d} +{wrong:<3d} exact {exact:2d}/{count:<2d}")
        print(f"{label:44s}" + "".join(f" | {c:>24s}" for c in cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
