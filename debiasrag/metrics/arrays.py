"""Arrays for the metric (and mitigation) functions: embedding matrices of finite numbers, of one dimension, and
rows scaled to unit length."""

from __future__ import annotations

from typing import Any

import numpy as np

from debiasrag.errors import InputError


def as_matrix(x: Any, label: str) -> np.ndarray:
    """``x`` as a non-empty (n, dim) float64 array of finite numbers; anything else is an InputError naming
    ``label`` (a NaN row would otherwise give a finite, even "significant", score)."""
    try:
        matrix = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{label}: expected an (n, dim) array of numbers") from None
    if matrix.ndim != 2 or matrix.shape[0] == 0 or matrix.shape[1] == 0:
        raise InputError(f"{label}: expected a non-empty (n, dim) array, got shape {matrix.shape}")
    bad = int(np.sum(~np.isfinite(matrix).all(axis=1)))
    if bad:
        raise InputError(f"{label}: {bad} vector(s) hold NaN or infinity")
    return matrix


def same_dimension(**matrices: np.ndarray) -> None:
    """Refuse matrices whose vectors differ in length ("T1 has 4-d vectors, A1 5-d"): they come from two models."""
    dims = {label: m.shape[1] for label, m in matrices.items()}
    if len(set(dims.values())) > 1:
        shown = ", ".join(f"{label} {dim}-d" for label, dim in dims.items())
        raise InputError(f"vectors of different dimensions ({shown}): all sets must come from one model")


def unit_rows(x: np.ndarray) -> np.ndarray:
    """Rows divided by their L2 norm, in float64 (zero rows are left as they are)."""
    x = np.asarray(x, dtype=np.float64)
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return x / np.where(norms == 0, 1.0, norms)
