"""Helpers shared by the benchmark plugins: seed figures, comparing with them, markdown tables, formatting.

Every plugin has the same shape: **measure** (numbers only) → **compare** with the seed's figures
(:func:`add_seed_figures`) → **render** (:func:`~debiasrag.markdown.md_table`, :func:`seed_columns`,
:mod:`debiasrag.bench._plots`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from debiasrag.bench.base import BenchContext, BenchResult
from debiasrag.concepts import Concept, is_bundled, load_concepts
from debiasrag.embedders import Embedder
from debiasrag.markdown import fmt, md_table
from debiasrag.resources import read_json

# Seed 000's concepts: what the concept benches measure unless told otherwise, and what its figures are for.
SEED000_CONCEPTS = ("gender", "age", "wealth")
# Headers of the two columns :func:`seed_columns` fills.
SEED_HEADERS = ("seed", "ours − seed")
NO_FIGURE = "—"


def bench_data(filename: str) -> Any:
    """Parsed JSON file from ``debiasrag/data/bench/``."""
    return read_json("bench", filename)


def bench_concepts(ctx: BenchContext, check: Callable[[Concept], None]) -> list[Concept]:
    """The concepts a concept bench measures (``ctx.concepts``, else :data:`SEED000_CONCEPTS`), each passed to the
    bench's ``check`` (an :class:`~debiasrag.errors.InputError` for a concept it cannot measure)."""
    concepts = load_concepts(ctx.concepts or SEED000_CONCEPTS)
    for concept in concepts:
        check(concept)
    return concepts


def compared_with_seed(concept: Concept, seed: dict[str, Any] | None, result: BenchResult) -> bool:
    """Whether ``concept``'s numbers go beside the seed's: only a bundled concept as shipped (the seed's figures
    are for its own word lists); a note in ``result`` says when figures exist but the concept differs."""
    if seed is None:
        return False
    if not is_bundled(concept):
        result.notes.append(f"{concept.name}: not a bundled concept as shipped; no seed comparison.")
        return False
    return True


@cache
def seed000_figures(model_name: str) -> dict[str, Any] | None:
    """Seed 000's Table 4 / Table 9 row for ``model_name``, or None if the seed has no row.

    ``model_name`` is a canonical name (``sentence-transformers/all-mpnet-base-v2``) or a local folder whose last
    part is the model's short name (``.cache/models/all-mpnet-base-v2`` from ``make models``).
    """
    models = bench_data("seed000_figures.json")["models"]
    if model_name in models:
        return models[model_name]
    short = model_short_name(model_name)
    return next((row for name, row in models.items() if model_short_name(name) == short), None)


@cache
def seed002_figures() -> dict[str, Any]:
    """Seed 002's tables (name bias, STS AUC, SummEval), keyed by model short name; see the file's ``source``."""
    return bench_data("seed002_figures.json")


def model_short_name(name: str) -> str:
    """``sentence-transformers/all-MiniLM-L6-v2`` -> ``all-MiniLM-L6-v2`` (also for local paths)."""
    return name.rstrip("/").rsplit("/", 1)[-1]


def context_embedder(ctx: BenchContext) -> Embedder:
    """The context's embedder; a benchmark cannot run without one."""
    if ctx.embedder is None:
        raise ValueError("BenchContext.embedder is required (build contexts with debiasrag.bench.report.make_context)")
    return ctx.embedder


def add_seed_figures(result: BenchResult, figures: Mapping[str, float | None]) -> None:
    """Compare step: attach the seed's figure for each metric key that has one (``None``: the seed has none).

    Keys are the keys of ``result.metrics``, so the report prints seed, ours and the difference side by side
    (:meth:`BenchResult.seed_comparison`).
    """
    result.seed_figures.update({key: float(value) for key, value in figures.items() if value is not None})


def seed_columns(ours: float, seed: float | None, digits: int = 3) -> list[str]:
    """The ``seed`` and ``ours − seed`` cells of a table row (:data:`SEED_HEADERS`); dashes without a figure."""
    if seed is None:
        return [NO_FIGURE, NO_FIGURE]
    return [f"{seed:.{digits}f}", f"{ours - seed:+.{digits}f}"]


__all__ = [
    "NO_FIGURE",
    "SEED_HEADERS",
    "add_seed_figures",
    "bench_data",
    "context_embedder",
    "fmt",
    "md_table",
    "model_short_name",
    "seed000_figures",
    "seed002_figures",
    "seed_columns",
]
