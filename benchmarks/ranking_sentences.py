"""Better evidence for `dynamic` from stored vectors: each candidate's best sentence, fused with its whole-text score.

    .venv/bin/python benchmarks/ranking_sentences.py [--models default PATH ...] [--sets NAME ...]
        [--weights 0 0.5 1 2 best]

Issue 10 says `dynamic`'s F1 gap "needs a better ranking or better evidence, not a better-tuned threshold". Session
45's late interaction (MaxSim over token vectors) ranked better but needed a model pass over the 50 candidates per
query. A passage's pooled vector averages its sentences: a query about one of them (the topic sentence of a 150-word
chunk) meets it diluted by the scene around it. Sentence vectors can be computed at index time, so re-scoring costs
only dot products at query time. The query's top 50 by the plain score are re-scored by ``z(plain) + w · z(best
sentence)`` (z-scores over those 50, as in ``ranking_late_interaction.py``), ``best`` = the best sentence's cosine
alone; ``0`` is the plain ranking, as shipped. Sentences: the text split after ``.``, ``!`` or ``?`` and a space;
a one-sentence text's best sentence is the text, so single-sentence sets move only through the z-scores' mix.

Per set and weight: `dynamic`'s mean F1 at cap 10 / mean |#F−#M| (gold groups) / best F1 any prefix of the top 10
reaches. Default sets: the thirteen design groups of the cut studies; a weight is to be chosen on them and reported
on sets no choice saw (``report13`` is refused: it stays unread for the next rule change).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))
from ranking_late_interaction import DESIGN, POOL, print_weight_tables, zscores  # noqa: E402
from study_sets import missing_model_folders  # noqa: E402

from debiasrag.bench.retrieval import build_retriever  # noqa: E402
from debiasrag.embedders import embed_documents, normalize_rows  # noqa: E402
from debiasrag.retriever import DebiasedRetriever  # noqa: E402
from debiasrag.strategies import Ranking  # noqa: E402

_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def sentences(text: str) -> list[str]:
    parts = [p.strip() for p in _SENTENCE_END.split(text) if p.strip()]
    return parts or [text]


class SentenceVectors:
    """Unit-length vectors of each text's sentences under one embedder, cached per text."""

    def __init__(self, embedder: Any) -> None:
        self.embedder = embedder
        self._cache: dict[str, np.ndarray] = {}

    def add(self, texts: list[str]) -> None:
        new = [t for t in dict.fromkeys(texts) if t not in self._cache]
        pieces = [s for t in new for s in sentences(t)]
        if not pieces:
            return
        vectors = normalize_rows(np.asarray(embed_documents(self.embedder, pieces), dtype=np.float32))
        at = 0
        for text in new:
            n = len(sentences(text))
            self._cache[text] = vectors[at : at + n]
            at += n

    def __getitem__(self, text: str) -> np.ndarray:
        return self._cache[text]


class SentenceRescored(DebiasedRetriever):
    """A retriever whose rankings are the top ``POOL`` re-scored by ``z(plain) + weight · z(best sentence)``."""

    weight: float | None = 0.0  # None: the best sentence alone
    sentence_vectors: SentenceVectors

    def _rankings(self, variants: list[tuple[str, str]], vectors: np.ndarray, depth: int) -> list[Ranking]:
        rankings = super()._rankings(variants, vectors, depth)
        if self.weight == 0.0:
            return rankings
        out = []
        for query, ranking in zip(normalize_rows(np.asarray(vectors, dtype=np.float32)), rankings):
            keys, plain = ranking.keys[:POOL], np.asarray(ranking.scores[:POOL])
            best = np.array([float((self.sentence_vectors[self.index.texts[k]] @ query).max()) for k in keys])
            score = zscores(best) if self.weight is None else zscores(plain) + self.weight * zscores(best)
            order = np.argsort(-score, kind="stable")
            out.append(
                Ranking(ranking.variant, [keys[i] for i in order], [float(score[i]) for i in order], complete=True)
            )
        return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["default"], help="'default' = packaged all-MiniLM-L6-v2")
    parser.add_argument("--sets", nargs="+", default=DESIGN)
    parser.add_argument("--weights", nargs="+", default=["0", "0.5", "1", "2", "best"])
    args = parser.parse_args()
    if missing_model_folders(args.models):
        return 2
    if "report13" in args.sets:
        print("report13 is kept unread for the next rule change", file=sys.stderr)
        return 2
    weights = [None if w == "best" else float(w) for w in args.weights]

    def retriever_for(model: str, embedder: Any, task: Any) -> SentenceRescored:
        plain = build_retriever(task, embedder)
        retriever = SentenceRescored(plain.index, plain.embedder, concept=plain.concept)
        retriever.sentence_vectors = SentenceVectors(embedder)
        retriever.sentence_vectors.add([d.text for d in task.documents])
        return retriever

    print_weight_tables(args.models, args.sets, weights, "best sentence alone", retriever_for)
    return 0


if __name__ == "__main__":
    sys.exit(main())
