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

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from debiasrag.bench._common import seed002_figures
from debiasrag.bench.base import BenchContext, BenchResult
from debiasrag.bench.name_bias import model_short_name, remove_names, replace_names
from debiasrag.embedders import Embedder
from debiasrag.errors import InputError
from debiasrag.metrics.geometry import auc_score

NAME = "sts"
ROLES = ("query", "positive", "negative")

# Seed 002 Table 6: AUC per model for (original, identical names, LLM-anonymized mean of two runs).
SEED_TABLE6: dict[str, tuple[float, float, float]] = {
    model: (row["original"], row["identical_names"], row["anonymized"])
    for model, row in seed002_figures()["sts_table6"].items()
}
# Seed 002 Table 18, last column: AUC after LLM anonymization with placeholders instead of removal.
SEED_TABLE18_REPLACE: dict[str, float] = seed002_figures()["sts_table18_replace"]


@dataclass(frozen=True)
class Triplet:
    """One Appendix D triplet and the names in each of its texts (role counterparts in the same order)."""

    query: str
    positive: str
    negative: str
    names: dict[str, tuple[str, ...]]

    def texts(self) -> tuple[str, str, str]:
        return self.query, self.positive, self.negative

    def with_texts(self, texts: Sequence[str]) -> Triplet:
        return Triplet(texts[0], texts[1], texts[2], self.names)


def load_triplets(path: str | Path | None = None) -> list[Triplet]:
    """Read ``data/bench/sts_triplets.json`` (or a file with the same schema)."""
    try:
        if path is None:
            text = resources.files("debiasrag").joinpath("data", "bench", "sts_triplets.json").read_text("utf-8")
        else:
            text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot read the STS triplets ({path or 'data/bench/sts_triplets.json'}): {exc}") from exc
    data = json.loads(text)
    triplets = []
    for number, row in enumerate(data.get("triplets", []), 1):
        missing = [k for k in (*ROLES, "names") if k not in row]
        if missing:
            raise InputError(f"STS triplet {number}: missing {', '.join(missing)}")
        names = {role: tuple(row["names"].get(role, ())) for role in ROLES}
        triplets.append(Triplet(row["query"], row["positive"], row["negative"], names))
    if not triplets:
        raise InputError("the STS triplets file holds no triplets")
    return triplets


def load_story_example() -> dict[str, Any]:
    """Seed 002 Table 1: the three stories and the seed's similarities per model."""
    return json.loads(resources.files("debiasrag").joinpath("data", "bench", "story_example.json").read_text("utf-8"))


def identical_names(triplet: Triplet) -> Triplet:
    """Give the positive and negative the query's names: the i-th name of each becomes the query's i-th.

    A text with more names than the query cycles through the query's names; names already equal stay.
    """
    query_names = triplet.names["query"]
    if not query_names:
        return triplet
    texts = [triplet.query]
    for role in ROLES[1:]:
        mapping = {
            name: query_names[i % len(query_names)]
            for i, name in enumerate(triplet.names[role])
            if name != query_names[i % len(query_names)]
        }
        texts.append(replace_names(getattr(triplet, role), mapping))
    return triplet.with_texts(texts)


def gold_removed(triplet: Triplet) -> Triplet:
    """Delete every listed name of the triplet from all three texts."""
    every_name = [n for role in ROLES for n in triplet.names[role]]
    return triplet.with_texts([remove_names(t, every_name) for t in triplet.texts()])


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


def _anonymizer(method: str, strategy: str = "remove") -> Callable[[list[str]], list[str]]:
    from debiasrag.anonymize import get_anonymizer

    anonymizer = get_anonymizer(method, strategy=strategy)
    return lambda texts: [a.text for a in anonymizer.anonymize_batch(texts)]


def run(ctx: BenchContext) -> BenchResult:
    if ctx.embedder is None:
        raise InputError("sts needs an embedder")
    triplets = load_triplets()
    model = model_short_name(ctx.embedder.name)
    seed_row = SEED_TABLE6.get(model)
    result = BenchResult(NAME)
    result.metrics["triplets"] = len(triplets)

    variants: dict[str, list[Triplet]] = {
        "original": triplets,
        "identical_names": [identical_names(t) for t in triplets],
        "gold_removed": [gold_removed(t) for t in triplets],
    }
    method = ctx.anonymize or "ner"
    texts = [text for t in triplets for text in t.texts()]
    # Table 6 removes names; Table 18 compares replacing them with placeholders (CHAR_A, LOC_A, ...).
    for key, strategy in (("anonymized", "remove"), ("anonymized_replace", "replace")):
        try:
            anonymize = _anonymizer(method, strategy)
        except Exception as exc:  # noqa: BLE001 - an unavailable anonymizer skips one column, not the benchmark
            result.notes.append(f"{key} variant skipped: {method} anonymizer unavailable ({exc})".splitlines()[0])
            continue
        flat = anonymize(texts)
        variants[key] = [t.with_texts(flat[3 * i : 3 * i + 3]) for i, t in enumerate(triplets)]
    if "anonymized" in variants:
        result.metrics["anonymized.method"] = method

    scores: dict[str, StsScores] = {}
    with ctx.progress("sts: embed triplets", len(variants) + 1) as advance:
        for key, group in variants.items():
            scores[key] = sts_scores(ctx.embedder, group)
            result.metrics[f"{key}.auc"] = round(scores[key].auc, 6)
            advance()
        story = load_story_example()
        s12, s13 = story_similarities(ctx.embedder, story["stories"])
        advance()
    result.metrics["story.story1_story2"] = round(s12, 6)
    result.metrics["story.story1_story3"] = round(s13, 6)

    if seed_row is not None:
        result.seed_figures["original.auc"] = seed_row[0]
        result.seed_figures["identical_names.auc"] = seed_row[1]
        if "anonymized" in scores:
            result.seed_figures["anonymized.auc"] = seed_row[2]
        if "anonymized_replace" in scores and model in SEED_TABLE18_REPLACE:
            result.seed_figures["anonymized_replace.auc"] = SEED_TABLE18_REPLACE[model]
    story_seed = story["seed_figures"].get(model)
    if story_seed is not None:
        result.seed_figures["story.story1_story2"] = story_seed["story1_story2"]
        result.seed_figures["story.story1_story3"] = story_seed["story1_story3"]
    result.notes.append(
        "anonymized: seed 002 used LLM anonymization (mean of two runs); ours uses the "
        f"{method} anonymizer. gold_removed deletes the names listed in the triplets file."
    )
    result.notes.append(
        "identical_names: positive/negative names replaced by the query's, position by position "
        "(the seed does not say how it aligned them)"
    )
    result.tables.append(_auc_table(scores, seed_row, model))
    result.tables.append(_pairs_table(scores))
    result.tables.append(_story_table(s12, s13, story_seed, model))
    return result


def _fmt_diff(ours: float, seed: float | None) -> str:
    return f"{ours - seed:+.3f}" if seed is not None else "—"


def _auc_table(scores: dict[str, StsScores], seed_row: tuple[float, float, float] | None, model: str) -> str:
    seed_for = {"original": 0, "identical_names": 1, "anonymized": 2}
    lines = [f"| STS variant | AUC ({model}) | seed | ours − seed |", "|---|---:|---:|---:|"]
    for key, s in scores.items():
        seed = seed_row[seed_for[key]] if seed_row is not None and key in seed_for else None
        if key == "anonymized_replace":
            seed = SEED_TABLE18_REPLACE.get(model)
        lines.append(f"| {key} | {s.auc:.3f} | {'—' if seed is None else f'{seed:.3f}'} | {_fmt_diff(s.auc, seed)} |")
    return "\n".join(lines)


def _pairs_table(scores: dict[str, StsScores]) -> str:
    keys = list(scores)
    header = " | ".join(f"{k} pos | {k} neg" for k in keys)
    lines = [f"| triplet | {header} |", "|---:|" + "---:|" * (2 * len(keys))]
    for i in range(len(scores["original"].positive)):
        cells = " | ".join(f"{scores[k].positive[i]:.3f} | {scores[k].negative[i]:.3f}" for k in keys)
        lines.append(f"| {i + 1} | {cells} |")
    return "\n".join(lines)


def _story_table(s12: float, s13: float, seed: dict[str, float] | None, model: str) -> str:
    rows = [("cos(story 1, story 2) — same plot, other name ↑", s12, seed and seed["story1_story2"]),
            ("cos(story 1, story 3) — other plot, same name ↓", s13, seed and seed["story1_story3"])]  # fmt: skip
    lines = [f"| Table 1 story example | {model} | seed | ours − seed |", "|---|---:|---:|---:|"]
    for label, ours, seed_value in rows:
        seed_cell = "—" if seed_value is None else f"{seed_value:.3f}"
        lines.append(f"| {label} | {ours:.3f} | {seed_cell} | {_fmt_diff(ours, seed_value)} |")
    return "\n".join(lines)
