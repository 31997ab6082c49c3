"""Hubness-corrected scores as a better ranking for ``dynamic``? (issue 10; chooses nothing.)

    .venv/bin/python benchmarks/ranking_hubness.py [MODEL]

Each document's score minus a multiple of its mean cosine to its nearest documents (CSLS, as in cross-lingual
retrieval; ``skip`` leaves out the nearest few, a text's own versions), minus its cosine to the corpus centroid, or
query and documents re-centred on that centroid — corpus-level evidence computed once at index time. Per design group
(fairness_main, fairness_holdout, passages 1–36, gendered_topics, wide_topics): the oracle cut of each ranking's top
10 / the shipped window's F1 (``score ≥ top − 1.25 σ``, no parity). Session 29 (MiniLM-L6): the best gain is 0.014
(csls k = 10, skip 3, a = 0.25 / 0.5: holdout window 0.880 → 0.894, passages 0.787 → 0.800), while the same variants
lose on the wide topics (0.733 → 0.705–0.728) and the oracle moves by at most +0.007 anywhere: no better ranking, so
the index computes none of them.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import dynamic_versions as dv  # noqa: E402
from ranking_oracle import CAP, POOL, mean_oracle  # noqa: E402

from debiasrag.bench.report import make_context  # noqa: E402
from debiasrag.datasets import RetrievalTask  # noqa: E402
from debiasrag.embedders import embed_documents, embed_queries  # noqa: E402

GROUPS = ("main", "holdout", "passages", "topics", "wide")


def shipped_f1(scores: np.ndarray, task: RetrievalTask, tau: float = 1.25) -> float:
    """Mean F1 of the shipped window (score >= top - tau * sigma of the top POOL), capped at CAP, no parity."""
    ids = {str(d.id): i for i, d in enumerate(task.documents)}
    out = []
    for row, name in zip(scores, task.queries):
        relevant = {ids[str(r)] for r in task.relevant[name]}
        order = np.argsort(-row, kind="stable")[:POOL]
        top = row[order]
        keep = order[top >= top[0] - tau * top.std()][:CAP]
        hits = sum(int(i) in relevant for i in keep)
        precision, recall = hits / len(keep), hits / len(relevant)
        out.append(0.0 if hits == 0 else 2 * precision * recall / (precision + recall))
    return float(np.mean(out))


def variants(queries: np.ndarray, docs: np.ndarray) -> dict[str, np.ndarray]:
    """The plain scores and the corpus-corrected ones."""
    scores = queries @ docs.T
    between = docs @ docs.T
    np.fill_diagonal(between, -np.inf)
    nearest = -np.sort(-between, axis=1)
    out = {"plain": scores}
    for k in (10, 30):
        for skip in (0, 3):
            r = nearest[:, skip : skip + k].mean(axis=1)
            for a in (0.25, 0.5):
                out[f"csls k{k} skip{skip} a{a}"] = scores - a * r[None, :]
    centroid = docs.mean(axis=0)
    for a in (0.5, 1.0):
        out[f"centroid a{a}"] = scores - a * (docs @ centroid)[None, :]
    d, q = docs - centroid, queries - centroid
    out["centred"] = (q / np.linalg.norm(q, axis=1, keepdims=True)) @ (d / np.linalg.norm(d, axis=1, keepdims=True)).T
    return out


def main() -> None:
    model = sys.argv[1] if len(sys.argv) > 1 else None
    embedder = make_context(model, load_now=True).embedder
    groups = {g: sets for g, sets in dv.group_tasks().items() if g in GROUPS}
    results: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for group, sets in groups.items():
        for loader in sets.values():
            task = loader()
            docs = embed_documents(embedder, [d.text for d in task.documents])
            queries = embed_queries(embedder, [task.queries[n] for n in task.queries])
            for name, scores in variants(queries, docs).items():
                results.setdefault((name, group), []).append((mean_oracle(scores, task), shipped_f1(scores, task)))
    print(f"{embedder.name}: oracle F1 / shipped-window F1, mean over each group's sets\n")
    names = sorted({n for n, _ in results}, key=lambda n: (n != "plain", n))
    print("variant".ljust(28), *(g.ljust(14) for g in groups))
    for name in names:
        cells = ("{:.3f}/{:.3f}".format(*np.mean(results[name, g], axis=0)) for g in groups)
        print(name.ljust(28), *(c.ljust(14) for c in cells))


if __name__ == "__main__":
    main()
