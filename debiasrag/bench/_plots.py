"""PNG plots for the report (matplotlib, headless Agg backend)."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from debiasrag.fileio import atomic_write  # noqa: E402


def _save(fig: plt.Figure, path: Path) -> Path:
    """Write the figure as PNG atomically and close it: an interrupted re-run leaves the earlier report's plot
    whole, never a truncated PNG under a report that points to it."""
    buffer = io.BytesIO()
    try:
        fig.savefig(buffer, format="png", dpi=110)
    finally:
        plt.close(fig)
    return atomic_write(path, [buffer.getvalue()])


def concept_bars(
    path: Path,
    auc: Mapping[str, float],
    rho: Mapping[str, Mapping[str, float]],
    title: str,
) -> Path:
    """Seed 000 Fig. 1-style: AUC per concept (top) and |ρ| per concept and context (bottom)."""
    concepts = list(auc)
    contexts = list(next(iter(rho.values())))
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(7, 6), constrained_layout=True)
    top.bar(concepts, [auc[c] for c in concepts], color="#4c72b0")
    top.axhline(0.8, color="red", linestyle="--", linewidth=1, label="AUC 0.8 (concept captured)")
    top.set_ylim(0, 1.05)
    top.set_ylabel("AUC of concept direction")
    top.legend(loc="lower right")
    width = 0.8 / max(len(contexts), 1)
    x = np.arange(len(concepts))
    for i, context in enumerate(contexts):
        bottom.bar(x + i * width, [abs(rho[c][context]) for c in concepts], width, label=context)
    bottom.set_xticks(x + width * (len(contexts) - 1) / 2, concepts)
    bottom.set_ylim(0, 1.05)
    bottom.set_ylabel("|ρ| labels vs projections")
    bottom.legend(ncol=len(contexts), fontsize=8)
    fig.suptitle(title)
    return _save(fig, path)


def similarity_heatmap(
    path: Path,
    matrix: np.ndarray,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    title: str,
) -> Path:
    """Seed 000 Fig. 2-style query (rows) × chunk (columns) cosine-similarity heatmap."""
    size = (max(8, 0.42 * len(col_labels)), 0.6 * len(row_labels) + 2.2)
    fig, ax = plt.subplots(figsize=size, constrained_layout=True)
    image = ax.imshow(matrix, cmap="viridis", aspect="auto")
    ax.set_xticks(range(len(col_labels)), col_labels, rotation=90, fontsize=8)
    ax.set_yticks(range(len(row_labels)), row_labels, fontsize=9)
    for i in range(matrix.shape[0]):
        for j in range(matrix.shape[1]):
            ax.text(j, i, f"{matrix[i, j]:.2f}", ha="center", va="center", fontsize=5, color="white")
    fig.colorbar(image, ax=ax, label="cosine similarity")
    ax.set_title(title)
    return _save(fig, path)


def distributions(path: Path, series: Mapping[str, Sequence[float]], title: str, xlabel: str) -> Path:
    """Overlaid histograms of per-item values (e.g. per-text name-bias similarities)."""
    fig, ax = plt.subplots(figsize=(7, 4), constrained_layout=True)
    values = [np.asarray(v, dtype=float) for v in series.values() if len(v)]
    if values:
        lo, hi = min(v.min() for v in values), max(v.max() for v in values)
        bins = np.linspace(lo, hi if hi > lo else lo + 1e-6, 30).tolist()
        for label, v in series.items():
            if len(v):
                ax.hist(np.asarray(v, dtype=float), bins=bins, alpha=0.55, label=f"{label} (n={len(v)})")
        ax.legend(fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("count")
    ax.set_title(title)
    return _save(fig, path)


def grouped_bars(path: Path, values: Mapping[str, Mapping[str, float]], title: str, ylabel: str) -> Path:
    """Bars grouped by outer key, one colour per inner key (e.g. metric → before/after)."""
    groups = list(values)
    series = list(dict.fromkeys(k for inner in values.values() for k in inner))
    fig, ax = plt.subplots(figsize=(max(6, 1.1 * len(groups)), 4), constrained_layout=True)
    width = 0.8 / max(len(series), 1)
    x = np.arange(len(groups))
    for i, name in enumerate(series):
        ax.bar(x + i * width, [values[g].get(name, np.nan) for g in groups], width, label=name)
    ax.set_xticks(x + width * (len(series) - 1) / 2, groups, rotation=20, fontsize=8)
    ax.axhline(0, color="black", linewidth=0.6)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=8)
    return _save(fig, path)


def models_figure1(
    path: Path,
    models: Sequence[str],
    auc: Sequence[float] | None,
    rho: Mapping[str, Sequence[float]] | None,
    p_hat: Mapping[str, Sequence[float]] | None,
) -> Path:
    """Seed 000 Fig. 1 across models: mean AUC and mean |ρ| per context (top), mean WEAT p̂ per context (bottom)."""
    panels = [p for p in (rho, p_hat) if p]
    fig, axes = plt.subplots(
        len(panels), 1, figsize=(max(6, 1.4 * len(models)), 3.2 * len(panels)), constrained_layout=True, squeeze=False
    )
    x = np.arange(len(models))
    labels = [m.rstrip("/").split("/")[-1] for m in models]
    row = 0
    if rho:
        ax = axes[row][0]
        if auc is not None:
            ax.plot(x, auc, "k--o", label="mean AUC (concept direction)")
        for context, values in rho.items():
            ax.plot(x, values, "-o", label=f"|ρ| {context}")
        ax.set_ylabel("mean over gender / age / wealth")
        ax.set_ylim(0, 1.05)
        ax.set_xticks(x, labels, rotation=20, fontsize=8)
        ax.legend(fontsize=7)
        row += 1
    if p_hat:
        ax = axes[row][0]
        for context, values in p_hat.items():
            ax.plot(x, values, "-o", label=f"p̂ {context}")
        ax.axhline(0.5, color="grey", linewidth=0.8)
        ax.set_ylabel("WEAT p̂ (mean over concepts)")
        ax.set_ylim(-0.05, 1.05)
        ax.set_xticks(x, labels, rotation=20, fontsize=8)
        ax.legend(fontsize=7)
    fig.suptitle("Bias and context response per model (seed 000 Fig. 1 layout)")
    return _save(fig, path)
