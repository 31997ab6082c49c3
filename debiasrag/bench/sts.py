"""STS triplets (seed 002 §5.1, Table 6, Appendix D) and the Table 1 story example.

Ten triplets (query, positive, negative): the positive tells the same story with other names, the negative a
different story with the query's names. Each (query, positive) pair is labelled 1, each (query, negative) pair 0,
and the AUC-ROC of the cosine similarities over the 20 pairs measures whether the model follows meaning (1.0)
or names (0.0). Variants, as in Table 6:

* ``original`` — the texts as written (seed: 0.09 for all-MiniLM-L6-v2);
* ``identical_names`` — the positive's and negative's names replaced by the query's, position by position
  (``names`` in ``data/bench/sts_triplets.json`` lists role counterparts in the same order);
* ``anonymized`` — every text passed through the anonymizer (``ctx.anonymize``, default ``"ner"``; the seed used
  an LLM), names removed;
* ``anonymized_replace`` — the same anonymizer replacing names with placeholders (seed Table 18);
* ``gold_removed`` — the names listed in the triplets file deleted directly: what a perfect anonymizer would do.

The Table 1 story example (``data/bench/story_example.json``) is reported alongside: cos(story 1, story 2) should
be high (same plot, other name) and cos(story 1, story 3) low (other plot, same name); seed 0.660 / 0.853.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from debiasrag.bench._common import (
    SEED_HEADERS,
    add_seed_figures,
    context_embedder,
    md_table,
    model_short_name,
    seed002_figures,
    seed_columns,
)
from debiasrag.bench.base import BenchContext, BenchResult
from debiasrag.embedders import Embedder
from debiasrag.errors import InputError
from debiasrag.metrics.geometry import auc_score
from debiasrag.names import Triplet, gold_removed, identical_names
from debiasrag.names import load_sts_triplets as load_triplets
from debiasrag.resources import read_json

NAME = "sts"

# Seed 002 Table 6: AUC per model for (original, identical names, LLM-anonymized mean of two runs).
SEED_TABLE6: dict[str, tuple[float, float, float]] = {
    model: (row["original"], row["identical_names"], row["anonymized"])
    for model, row in seed002_figures()["sts_table6"].items()
}
# Seed 002 Table 18, last column: AUC after LLM anonymization with placeholders instead of removal.
SEED_TABLE18_REPLACE: dict[str, float] = seed002_figures()["sts_table18_replace"]


def load_story_example() -> dict[str, Any]:
    """Seed 002 Table 1: the three stories and the seed's similarities per model."""
    return read_json("bench", "story_example.json")


@dataclass(frozen=True)
class StsScores:
    """Cosine similarity of each (query, positive) and (query, negative) pair, and the AUC over all pairs."""

    positive: tuple[float, ...]
    negative: tuple[float, ...]
    auc: float


def sts_scores(embedder: Embedder, triplets: Sequence[Triplet]) -> StsScores:
    """Embed all texts in one batch and score every triplet's two pairs."""
    texts = [t for triplet in triplets for t in triplet.texts()]
    vectors = embedder.encode(texts).reshape(len(triplets), 3, -1).astype(np.float64)
    norms = np.linalg.norm(vectors, axis=2, keepdims=True)
    vectors = vectors / np.where(norms == 0, 1.0, norms)
    positive = np.einsum("td,td->t", vectors[:, 0], vectors[:, 1])
    negative = np.einsum("td,td->t", vectors[:, 0], vectors[:, 2])
    auc = auc_score(negative, positive)  # labels: positive pairs 1, negative pairs 0 (sklearn's roc_auc_score)
    return StsScores(tuple(map(float, positive)), tuple(map(float, negative)), auc)


def story_similarities(embedder: Embedder, stories: dict[str, str]) -> tuple[float, float]:
    """cos(story 1, story 2) and cos(story 1, story 3) of the Table 1 example."""
    v = embedder.encode([stories["story_1"], stories["story_2"], stories["story_3"]]).astype(np.float64)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return float(v[0] @ v[1]), float(v[0] @ v[2])


def _anonymizer(
    method: str, strategy: str = "remove", options: dict[str, Any] | None = None
) -> Callable[[list[str]], list[str]]:
    from debiasrag.anonymize import get_anonymizer

    anonymizer = get_anonymizer(method, strategy=strategy, **(options or {}))
    return lambda texts: [a.text for a in anonymizer.anonymize_batch(texts)]


# ------------------------------------------------------------------------------------------- measure


@dataclass
class StsMeasurement:
    """AUC per variant, the Table 1 story similarities, and the variants that could not be built."""

    scores: dict[str, StsScores]
    story: tuple[float, float]
    method: str
    skipped: list[str] = field(default_factory=list)


def _variants(
    triplets: list[Triplet], method: str, skipped: list[str], options: dict[str, Any] | None = None
) -> dict[str, list[Triplet]]:
    variants: dict[str, list[Triplet]] = {
        "original": triplets,
        "identical_names": [identical_names(t) for t in triplets],
        "gold_removed": [gold_removed(t) for t in triplets],
    }
    texts = [text for t in triplets for text in t.texts()]
    # Table 6 removes names; Table 18 compares replacing them with placeholders (CHAR_A, LOC_A, ...).
    for key, strategy in (("anonymized", "remove"), ("anonymized_replace", "replace")):
        try:
            anonymize = _anonymizer(method, strategy, options)
        except Exception as exc:  # noqa: BLE001 - an unavailable anonymizer skips one column, not the benchmark
            skipped.append(f"{key} variant skipped: {method} anonymizer unavailable ({exc})".splitlines()[0])
            continue
        flat = anonymize(texts)
        variants[key] = [t.with_texts(flat[3 * i : 3 * i + 3]) for i, t in enumerate(triplets)]
    return variants


def measure(ctx: BenchContext, triplets: list[Triplet]) -> StsMeasurement:
    """AUC of every variant (original, identical names, gold removal, anonymized) and the story example."""
    embedder = context_embedder(ctx)
    method = ctx.anonymize or "ner"
    skipped: list[str] = []
    variants = _variants(triplets, method, skipped, ctx.anonymize_options if ctx.anonymize else None)
    scores: dict[str, StsScores] = {}
    with ctx.progress("sts: embed triplets", len(variants) + 1) as advance:
        for key, group in variants.items():
            scores[key] = sts_scores(embedder, group)
            advance()
        story = story_similarities(embedder, load_story_example()["stories"])
        advance()
    return StsMeasurement(scores, story, method, skipped)


# ------------------------------------------------------------------------------------------- compare


def seed_figures(model: str, measured: StsMeasurement) -> dict[str, float | None]:
    """The seed's figure for each of our metric keys (Table 6, Table 18, Table 1), None where it has none."""
    row = SEED_TABLE6.get(model)
    story = load_story_example()["seed_figures"].get(model) or {}
    figures: dict[str, float | None] = {
        "original.auc": row[0] if row else None,
        "identical_names.auc": row[1] if row else None,
    }
    if "anonymized" in measured.scores:
        figures["anonymized.auc"] = row[2] if row else None
    if "anonymized_replace" in measured.scores:
        figures["anonymized_replace.auc"] = SEED_TABLE18_REPLACE.get(model) if row is not None else None
    figures["story.story1_story2"] = story.get("story1_story2")
    figures["story.story1_story3"] = story.get("story1_story3")
    return figures


# -------------------------------------------------------------------------------------------- render


def _auc_table(scores: dict[str, StsScores], figures: dict[str, float | None], model: str) -> str:
    rows = [[key, s.auc, *seed_columns(s.auc, figures.get(f"{key}.auc"))] for key, s in scores.items()]
    return md_table(["STS variant", f"AUC ({model})", *SEED_HEADERS], rows, align="lrrr")


def _pairs_table(scores: dict[str, StsScores]) -> str:
    keys = list(scores)
    headers = ["triplet", *(f"{k} {side}" for k in keys for side in ("pos", "neg"))]
    rows = [
        [i + 1, *(v for k in keys for v in (scores[k].positive[i], scores[k].negative[i]))]
        for i in range(len(scores["original"].positive))
    ]
    return md_table(headers, rows, align="r" * len(headers))


def _story_table(story: tuple[float, float], figures: dict[str, float | None], model: str) -> str:
    rows: list[tuple[str, float, str]] = [
        ("cos(story 1, story 2) — same plot, other name ↑", story[0], "story.story1_story2"),
        ("cos(story 1, story 3) — other plot, same name ↓", story[1], "story.story1_story3"),
    ]
    cells = [[label, ours, *seed_columns(ours, figures[key])] for label, ours, key in rows]
    return md_table(["Table 1 story example", model, *SEED_HEADERS], cells, align="lrrr")


def run(ctx: BenchContext) -> BenchResult:
    """Seed 002 Table 6 / 18 STS AUC per variant and the Table 1 story example, beside the seed's figures."""
    if ctx.embedder is None:
        raise InputError("sts needs an embedder")
    triplets = load_triplets()
    model = model_short_name(ctx.embedder.name)
    measured = measure(ctx, triplets)
    result = BenchResult(NAME, notes=list(measured.skipped))
    result.metrics["triplets"] = len(triplets)
    if "anonymized" in measured.scores:
        result.metrics["anonymized.method"] = measured.method
    for key, scores in measured.scores.items():
        result.metrics[f"{key}.auc"] = round(scores.auc, 6)
    result.metrics["story.story1_story2"] = round(measured.story[0], 6)
    result.metrics["story.story1_story3"] = round(measured.story[1], 6)
    figures = seed_figures(model, measured)
    add_seed_figures(result, figures)
    result.notes.append(
        "anonymized: seed 002 used LLM anonymization (mean of two runs); ours uses the "
        f"{measured.method} anonymizer. gold_removed deletes the names listed in the triplets file."
    )
    result.notes.append(
        "identical_names: positive/negative names replaced by the query's, position by position "
        "(the seed does not say how it aligned them)"
    )
    result.tables.append(_auc_table(measured.scores, figures, model))
    result.tables.append(_pairs_table(measured.scores))
    result.tables.append(_story_table(measured.story, figures, model))
    return result
