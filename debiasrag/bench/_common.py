"""Helpers shared by the benchmark modules: seed figures, markdown tables, number formatting."""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Any

from debiasrag.bench.base import BenchContext
from debiasrag.embedders import Embedder


def bench_data(filename: str) -> Any:
    """Parsed JSON file from ``debiasrag/data/bench/``."""
    return json.loads((resources.files("debiasrag") / "data" / "bench" / filename).read_text(encoding="utf-8"))


@cache
def seed000_figures(model_name: str) -> dict[str, Any] | None:
    """Seed 000's Table 4 / Table 9 row for ``model_name`` (canonical name), or None if the seed has no row."""
    return bench_data("seed000_figures.json")["models"].get(model_name)


@cache
def seed002_figures() -> dict[str, Any]:
    """Seed 002's tables (name bias, STS AUC, SummEval), keyed by model short name; see the file's ``source``."""
    return bench_data("seed002_figures.json")


def context_embedder(ctx: BenchContext) -> Embedder:
    """The context's embedder; a benchmark cannot run without one."""
    if ctx.embedder is None:
        raise ValueError("BenchContext.embedder is required (build contexts with debiasrag.bench.report.make_context)")
    return ctx.embedder


def fmt(value: object, digits: int = 3) -> str:
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def md_table(headers: Sequence[str], rows: Sequence[Sequence[object]], digits: int = 3) -> str:
    """A GitHub markdown table; floats with ``digits`` decimals, pipes in cells escaped."""

    def cell(v: object) -> str:
        return fmt(v, digits).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(h) for h in headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)
