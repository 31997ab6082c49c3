"""Run benchmarks for one or more models and write ``report.md``, ``results.json`` and plots.

``results.json`` layout (keys stable across runs; ``elapsed_s`` is the only run-dependent number)::

    {"format": 1, "command": "...", "seed": 0, "models": [...], "benchmarks": [...],
     "results": {MODEL: {BENCHMARK: {"name", "metrics", "seed_figures", "seed_comparison", "tables",
                                     "plots", "notes", "series", "status", "elapsed_s"}}}}
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import time
import traceback
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from debiasrag.bench._common import SEED000_CONCEPTS, context_embedder, md_table
from debiasrag.bench.base import (
    BenchContext,
    BenchResult,
    discover_benchmarks,
    get_benchmark,
    no_progress,
    plotting_available,
)
from debiasrag.embedding_cache import CachedEmbedder
from debiasrag.errors import DebiasragError, InputError
from debiasrag.fileio import atomic_write_text, dumps_strict

ProgressFactory = Callable[[str, int | None], AbstractContextManager[Callable[..., None]]]


def model_slug(name: str) -> str:
    """File-system-safe short name for a model (``sentence-transformers/all-MiniLM-L6-v2`` → ``all-MiniLM-L6-v2``)."""
    tail = name.rstrip("/").split("/")[-1] or name
    return re.sub(r"[^A-Za-z0-9._-]+", "_", tail)


def make_context(
    model: str | None,
    *,
    cache_dir: str | Path | None = None,
    out_dir: str | Path | None = None,
    anonymize: str | None = None,
    anonymize_options: dict[str, Any] | None = None,
    seed: int = 0,
    progress: ProgressFactory = no_progress,
    load_now: bool = False,
) -> BenchContext:
    """A context with a cached embedder for ``model``; plots go to ``out_dir/plots/<model>/``.

    With ``load_now`` a model never seen by the cache is loaded immediately, so a bad name fails before any
    benchmark starts (as an :class:`InputError`).
    """
    if anonymize not in (None, "ner", "llm"):
        raise InputError(f"anonymize must be 'ner' or 'llm', got {anonymize!r}")
    embedder = CachedEmbedder.for_model(model, cache_dir)
    if load_now and embedder._dimension is None:
        try:
            embedder.inner  # noqa: B018 - loads the model
        except DebiasragError:
            raise
        except Exception as exc:  # noqa: BLE001 - any loader failure is a bad model for the user
            first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            raise InputError(f"cannot load embedding model {model!r}: {first}") from exc
    plots = Path(out_dir) / "plots" / model_slug(embedder.name) if out_dir is not None else None
    return BenchContext(
        model=model,
        embedder=embedder,
        anonymize=anonymize,
        anonymize_options=dict(anonymize_options or {}),
        out_dir=plots,
        seed=seed,
        progress=progress,
        cache_dir=embedder.cache_dir,
    )


def distinct_plot_folders(contexts: Sequence[BenchContext]) -> None:
    """Give models whose names end alike ("runA/model", "runB/model") plot folders of their own: the short name
    and a digest of the whole one. One shared folder let the second model's plots replace the first's, and the
    report showed them under both (a red-team round, session 36)."""
    by_folder: dict[Path, list[BenchContext]] = {}
    for ctx in contexts:
        if ctx.out_dir is not None:
            by_folder.setdefault(ctx.out_dir, []).append(ctx)
    for folder, sharing in by_folder.items():
        if len(sharing) > 1:
            for ctx in sharing:
                digest = hashlib.sha1(context_embedder(ctx).name.encode("utf-8")).hexdigest()[:8]
                ctx.out_dir = folder.with_name(f"{folder.name}-{digest}")


def resolve_names(name: str) -> list[str]:
    """``all`` → every discovered benchmark; otherwise the one name (InputError if unknown)."""
    if name == "all":
        return list(discover_benchmarks())
    get_benchmark(name)
    return [name]


def run_one(name: str, ctx: BenchContext, *, keep_going: bool) -> tuple[BenchResult, str, float]:
    """Run a benchmark; with ``keep_going`` a failure becomes a result whose note says what went wrong."""
    start = time.perf_counter()
    try:
        result = get_benchmark(name).run(ctx)
        status = "skipped" if getattr(result, "skipped", "") else "ok"
    except DebiasragError as exc:
        if not keep_going:
            raise
        result, status = BenchResult(name, notes=[f"failed: {exc}"]), "error"
    except Exception as exc:  # noqa: BLE001 - one broken benchmark must not stop `bench all`
        if not keep_going:
            raise
        where = traceback.extract_tb(exc.__traceback__)[-1]
        note = f"failed: {type(exc).__name__}: {exc} ({Path(where.filename).name}:{where.lineno})"
        result, status = BenchResult(name, notes=[note]), "error"
    if not isinstance(result, BenchResult):
        raise TypeError(f"benchmark {name!r} returned {type(result).__name__}, expected BenchResult")
    return result, status, time.perf_counter() - start


def result_record(result: BenchResult, status: str, elapsed: float) -> dict[str, Any]:
    """One benchmark's ``results.json`` record: the result, its seed comparison rows, status and time."""
    record = result.to_dict()
    record["seed_comparison"] = [
        {"key": key, "seed": seed, "ours": ours, "difference": diff}
        for key, seed, ours, diff in result.seed_comparison()
    ]
    record["status"] = status
    record["elapsed_s"] = round(elapsed, 2)
    return record


def _plot_series(result: BenchResult, ctx: BenchContext) -> None:
    """Benchmarks that return per-item values but no plot get a distribution plot from the report."""
    if not result.series or result.plots or ctx.out_dir is None or not plotting_available():
        return
    from debiasrag.bench._plots import distributions

    ctx.out_dir.mkdir(parents=True, exist_ok=True)
    path = ctx.out_dir / f"{model_slug(result.name)}_distribution.png"
    result.plots.append(distributions(path, result.series, f"{result.name} — {context_embedder(ctx).name}", "value"))


def run_suite(
    names: Sequence[str],
    contexts: Sequence[BenchContext],
    *,
    keep_going: bool = True,
    on_done: Callable[[str, str, str, float], None] | None = None,
) -> dict[str, dict[str, dict[str, Any]]]:
    """Run every benchmark for every context (one per model); ``{model: {benchmark: record}}``."""
    results: dict[str, dict[str, dict[str, Any]]] = {}
    for ctx in contexts:
        model = context_embedder(ctx).name
        results[model] = {}
        for name in names:
            result, status, elapsed = run_one(name, ctx, keep_going=keep_going)
            _plot_series(result, ctx)
            results[model][name] = result_record(result, status, elapsed)
            if on_done is not None:
                on_done(model, name, status, elapsed)
    return results


def suite_document(
    results: dict[str, dict[str, dict[str, Any]]], names: Sequence[str], *, command: str, seed: int
) -> dict[str, Any]:
    """The whole ``results.json`` document (layout in the module docstring)."""
    return {
        "format": 1,
        "command": command,
        "seed": seed,
        "models": list(results),
        "benchmarks": list(names),
        "results": results,
    }


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4f}"
    return "" if value is None else str(value)


def render_markdown(document: dict[str, Any], out_dir: Path | None = None) -> str:
    """The human report: seed comparisons first, then each benchmark's tables, notes and plots."""
    models, names, results = document["models"], document["benchmarks"], document["results"]
    lines = [
        "# debiasrag benchmark report",
        "",
        f"Command: `{document['command']}`",
        "",
        f"Models: {', '.join(f'`{m}`' for m in models)}; seed {document['seed']}.",
        "",
    ]
    if document.get("run_id"):  # the same id in results.json: a pair with two ids is from two runs
        lines[-1:-1] = ["", f"Run: `{document['run_id']}` (as in results.json)."]
    statuses = [results[m][n]["status"] for m in models for n in names]
    skipped = [f"{n} ({results[m][n].get('skipped', '')})" for m in models for n in names
               if results[m][n]["status"] == "skipped"]  # fmt: skip
    lines += [
        f"Summary: {statuses.count('ok')} ok, {statuses.count('skipped')} skipped, {statuses.count('error')} failed"
        + (f"; skipped: {'; '.join(skipped)}" if skipped else "")
        + ".",
        "",
    ]
    comparisons = [
        (model, name, row) for model in models for name in names for row in results[model][name]["seed_comparison"]
    ]
    lines += ["## Seed figures vs ours", ""]
    if comparisons:
        rows = []
        for model, name, row in comparisons:
            diff = row["difference"]
            ok = "" if diff is None else ("yes" if abs(diff) <= 0.01 + 1e-9 else "no")
            diff_cell = "" if diff is None else f"{diff:+.4f}"
            rows.append([model, name, row["key"], _fmt(row["seed"]), _fmt(row["ours"]), diff_cell, ok])
        headers = ["model", "benchmark", "metric", "seed", "ours", "difference", "within ±0.01"]
        lines.append(md_table(headers, rows))
    else:
        lines.append("No benchmark run here has a seed figure for these models.")
    lines.append("")
    if out_dir is not None and not plotting_available():
        lines += ["Plots skipped: matplotlib is not installed (`pip install matplotlib`).", ""]
    if document.get("figure1_plot"):
        shown = Path(document["figure1_plot"])
        if out_dir is not None:
            try:
                shown = shown.resolve().relative_to(out_dir.resolve())
            except ValueError:
                pass
        lines += [f"![AUC, |ρ| and WEAT p̂ per model (seed 000 Fig. 1)]({shown.as_posix()})", ""]
    if len(models) > 1:
        lines += ["## Model comparison", ""]
        for name in names:
            keys = list(dict.fromkeys(k for m in models for k in results[m][name]["metrics"]))
            if not keys:
                continue
            rows = [[key, *(_fmt(results[m][name]["metrics"].get(key)) for m in models)] for key in keys]
            lines += [f"### {name}", "", md_table(["metric", *models], rows), ""]
    for name in names:
        lines += [f"## {name}", ""]
        for model in models:
            record = results[model][name]
            lines += [f"### {model} ({record['status']}, {record['elapsed_s']:.1f} s)", ""]
            for table in record["tables"]:
                lines += [table, ""]
            for note in record["notes"]:
                lines.append(f"- {note}")
            if record["notes"]:
                lines.append("")
            for plot in record["plots"]:
                shown = Path(plot)
                if out_dir is not None:
                    try:
                        shown = Path(plot).resolve().relative_to(out_dir.resolve())
                    except ValueError:
                        pass
                lines += [f"![{name}]({shown.as_posix()})", ""]
    return "\n".join(lines).rstrip() + "\n"


def _write_atomic(path: Path, text: str) -> None:
    atomic_write_text(path, text)  # fsynced; on failure the old file stays intact and no temp file is left


def figure1_plot(document: dict[str, Any], out_dir: Path) -> Path | None:
    """Seed 000 Fig. 1 across the run's models, from concept-auc and weat metrics (None if neither ran)."""
    models, results = document["models"], document["results"]

    def mean_of(name: str, pattern: str) -> list[float] | None:
        values = []
        for model in models:
            record = results[model].get(name)
            if record is None or record["status"] != "ok":
                return None
            found = [record["metrics"].get(pattern.format(c)) for c in SEED000_CONCEPTS]
            if any(not isinstance(v, int | float) for v in found):
                return None
            values.append(float(sum(found) / len(found)))
        return values

    auc = mean_of("concept-auc", "{}.auc")
    rho = {
        ctx: v
        for ctx in ("neutral", "debiasing", "positive")
        if (v := mean_of("concept-auc", "{}." + ctx + ".abs_rho")) is not None
    }
    p_hat = {
        ctx: v
        for ctx in ("neutral", "debiasing", "positive", "negative")
        if (v := mean_of("weat", "{}." + ctx + ".p_hat")) is not None
    }
    if (not rho and not p_hat) or not plotting_available():
        return None
    from debiasrag.bench._plots import models_figure1

    (out_dir / "plots").mkdir(parents=True, exist_ok=True)
    return models_figure1(out_dir / "plots" / "figure1_models.png", models, auc, rho or None, p_hat or None)


def _plots_relative_to(document: dict[str, Any], out: Path) -> None:
    """Plot paths in ``document`` made relative to the report folder ``out`` (in place), so results.json still
    finds its plots when the folder is moved or read from elsewhere (they were relative to the run's working
    folder: a red-team round, session 36); a path outside ``out`` stays as it is."""

    def relative(path: Any) -> Any:
        try:
            return Path(path).resolve().relative_to(out.resolve()).as_posix()
        except (TypeError, ValueError, OSError):
            return path

    if document.get("figure1_plot"):
        document["figure1_plot"] = relative(document["figure1_plot"])
    for records in document.get("results", {}).values():
        for record in records.values():
            if isinstance(record, dict) and isinstance(record.get("plots"), list):
                record["plots"] = [relative(plot) for plot in record["plots"]]


def write_report(document: dict[str, Any], out_dir: str | Path) -> tuple[Path, Path]:
    """Write ``results.json``, ``report.md`` and the cross-model Fig. 1 plot into ``out_dir`` (files replaced
    atomically)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    figure = figure1_plot(document, out)
    if figure is not None:
        document["figure1_plot"] = str(figure)
    _plots_relative_to(document, out)
    json_path, md_path = out / "results.json", out / "report.md"
    # Each file is replaced atomically, but not the two together: a run killed between them would leave a
    # report beside another run's results, which this shared id tells apart.
    document.setdefault("run_id", secrets.token_hex(6))
    plain = json.loads(json.dumps(document, default=str))  # paths and other objects as strings
    _write_atomic(json_path, dumps_strict(plain, indent=1, sort_keys=True) + "\n")  # NaN/inf as null: strict JSON
    _write_atomic(md_path, render_markdown(document, out))
    return md_path, json_path
