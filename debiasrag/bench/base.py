"""Benchmark plugin API.

A benchmark is a module in :mod:`debiasrag.bench` that defines ``NAME: str`` and ``run(ctx: BenchContext) ->
BenchResult``. Modules are discovered automatically (like the CLI commands), so adding a benchmark means adding
one file. ``run`` gets everything it needs from the context (model, cached embedder, seed, output folder, progress)
and returns flat metrics with stable keys; the report code turns results into markdown, JSON and plots.

Example (a complete benchmark module ``debiasrag/bench/my_bench.py``)::

    from debiasrag.bench.base import BenchContext, BenchResult

    NAME = "my-bench"

    def run(ctx: BenchContext) -> BenchResult:
        nurse, engineer = ctx.embedder.encode(["a nurse", "an engineer"])
        return BenchResult(NAME, metrics={"cosine": float(nurse @ engineer)})
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import warnings
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from debiasrag.embedders import Embedder
from debiasrag.errors import InputError

if TYPE_CHECKING:
    from debiasrag.concepts import Concept
    from debiasrag.datasets import RetrievalTask

MetricValue = float | int | str

# Modules of the package that are framework, not benchmarks.
_FRAMEWORK_MODULES = {"base", "cache", "report"}


def plotting_available() -> bool:
    """Whether matplotlib is installed (plots are skipped, not failed, without it)."""
    return importlib.util.find_spec("matplotlib") is not None


@contextmanager
def no_progress(description: str, total: int | None) -> Iterator[Callable[..., None]]:
    """Progress context that draws nothing; yields ``advance(n=1)`` like the CLI's progress bar."""
    yield lambda n=1: None


@dataclass
class BenchContext:
    """What a benchmark run may use.

    Attributes:
        model: the model name or path the user asked for (``None`` = packaged all-MiniLM-L6-v2).
        embedder: an :class:`~debiasrag.embedders.Embedder` with an on-disk cache keyed by model + text
            (see :class:`debiasrag.embedding_cache.CachedEmbedder`); it loads the model only on a cache miss.
        anonymize: ``"ner"`` / ``"llm"`` to add an anonymized variant where a benchmark supports it, else ``None``.
        anonymize_options: keyword arguments for that anonymizer (e.g. the LLM's ``model`` and ``timeout``).
        out_dir: folder for plots and extra files (``None``: do not write files).
        seed: seed for every random choice (random projections, logistic regressions, perturbations).
        progress: ``progress(description, total)`` context manager yielding ``advance(n=1)``.
        cache_dir: the embedding cache folder, for benchmarks that build extra cached embedders (e.g. GloVe).
        data: a user's labelled data set for benchmarks that accept one (``retrieval``): its file or folder, or
            the set already read by :func:`~debiasrag.datasets.load_labelled_set` (then ``unknown_groups`` is
            what that call was given).
        unknown_groups: what reading ``data`` does with labels other than female / male / neutral
            (:data:`debiasrag.datasets.UNKNOWN_GROUPS`).
        neutralize: ``retrieval`` searches a gender-blind index whose first names are removed this way
            (``"ner"``, ``"table"``, ``"keep"``; :class:`~debiasrag.counterfactual.GenderNeutralizer`), else ``None``.
        concepts: the concepts ``concept-auc`` and ``weat`` measure: bundled names, concept files or
            :class:`~debiasrag.concepts.Concept` objects; empty (the default) = the bundled gender, age and wealth.
    """

    model: str | None = None
    embedder: Embedder | None = None
    anonymize: str | None = None
    anonymize_options: dict[str, Any] = field(default_factory=dict)
    out_dir: Path | None = None
    seed: int = 0
    progress: Callable[[str, int | None], AbstractContextManager[Callable[..., None]]] = no_progress
    cache_dir: Path | None = None
    data: Path | RetrievalTask | None = None
    unknown_groups: str = "error"
    neutralize: str | None = None
    concepts: tuple[str | Path | Concept, ...] = ()

    def plot_path(self, filename: str) -> Path | None:
        """``out_dir / filename`` (folder created), or ``None`` when there is no output folder or no matplotlib."""
        if self.out_dir is None or not plotting_available():
            return None
        self.out_dir.mkdir(parents=True, exist_ok=True)
        return self.out_dir / filename


@dataclass
class BenchResult:
    """Outcome of one benchmark on one model.

    Attributes:
        name: the benchmark ``NAME``.
        metrics: flat ``{key: number or short string}`` with stable keys (they become ``results.json`` keys).
        seed_figures: ``{key: seed value}`` for the metrics whose value the seed reports for this model;
            keys are the same as in ``metrics`` so the report can print seed, ours and the difference.
        tables: markdown tables for the report.
        plots: PNG files written under ``ctx.out_dir``.
        notes: one-line remarks (which corpus was used, what was skipped and why, flags such as
            "concept not captured").
        series: optional per-item values (e.g. per-text name-bias similarities) the report may plot as
            distributions; ``{label: [values]}``.
        skipped: why the benchmark could not run (its data or model is absent); non-empty makes the report's
            status ``skipped`` instead of ``ok``.
    """

    name: str
    metrics: dict[str, MetricValue] = field(default_factory=dict)
    seed_figures: dict[str, float] = field(default_factory=dict)
    tables: list[str] = field(default_factory=list)
    plots: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    series: dict[str, list[float]] = field(default_factory=dict)
    skipped: str = ""

    def seed_comparison(self) -> list[tuple[str, float, MetricValue | None, float | None]]:
        """Rows ``(key, seed, ours, ours - seed)`` for each metric with a seed figure.

        ``ours`` is None when the metric is missing; the difference is None unless ``ours`` is a number.
        """
        rows = []
        for key, seed_value in self.seed_figures.items():
            ours = self.metrics.get(key)
            diff = float(ours) - float(seed_value) if isinstance(ours, int | float) else None
            rows.append((key, float(seed_value), ours, diff))
        return rows

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready copy (paths as strings)."""
        return {
            "name": self.name,
            "metrics": dict(self.metrics),
            "seed_figures": dict(self.seed_figures),
            "tables": list(self.tables),
            "plots": [str(p) for p in self.plots],
            "notes": list(self.notes),
            "series": {k: list(v) for k, v in self.series.items()},
            "skipped": self.skipped,
        }


def _is_benchmark(module: ModuleType) -> bool:
    return isinstance(getattr(module, "NAME", None), str) and callable(getattr(module, "run", None))


def discover_benchmarks() -> dict[str, ModuleType]:
    """Import every module of :mod:`debiasrag.bench` that defines ``NAME`` and ``run``; ``{NAME: module}``, sorted.

    A module that fails to import is skipped with a warning so one broken benchmark does not hide the others.
    """
    from debiasrag import bench

    found: dict[str, ModuleType] = {}
    for info in sorted(pkgutil.iter_modules(bench.__path__), key=lambda m: m.name):
        if info.name.startswith("_") or info.name in _FRAMEWORK_MODULES:
            continue
        try:
            module = importlib.import_module(f"debiasrag.bench.{info.name}")
        except Exception as exc:  # noqa: BLE001 - report and keep the other benchmarks usable
            warnings.warn(f"benchmark module {info.name!r} failed to import: {exc}", stacklevel=2)
            continue
        if _is_benchmark(module):
            if module.NAME in found:
                raise InputError(f"two benchmark modules define NAME {module.NAME!r}")
            found[module.NAME] = module
    return dict(sorted(found.items()))


def get_benchmark(name: str) -> ModuleType:
    """The benchmark module called ``name``; InputError listing the known names otherwise."""
    benchmarks = discover_benchmarks()
    if name not in benchmarks:
        known = ", ".join(benchmarks) or "none"
        raise InputError(f"unknown benchmark {name!r} (known: {known}, or 'all')")
    return benchmarks[name]


def run_benchmark(name: str, ctx: BenchContext) -> BenchResult:
    """Run one benchmark by name and check it returned a :class:`BenchResult` with flat metrics."""
    result = get_benchmark(name).run(ctx)
    if not isinstance(result, BenchResult):
        raise TypeError(f"benchmark {name!r} returned {type(result).__name__}, expected BenchResult")
    for key, value in result.metrics.items():
        if not isinstance(value, int | float | str):
            raise TypeError(f"benchmark {name!r}: metric {key!r} is {type(value).__name__}, expected a number or str")
    return result
