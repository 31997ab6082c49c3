"""Benchmarks reproducing the seeds' bias measurements; see :mod:`debiasrag.bench.base` for the plugin API."""

from debiasrag.bench.base import (
    BenchContext,
    BenchResult,
    discover_benchmarks,
    get_benchmark,
    no_progress,
    run_benchmark,
)

__all__ = ["BenchContext", "BenchResult", "discover_benchmarks", "get_benchmark", "no_progress", "run_benchmark"]
