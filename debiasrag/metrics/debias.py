"""Hard-debias projection (Bolukbasi et al. 2016), fit/transform style, as a mitigation to measure against.

``fit`` learns the bias direction from definition pairs: the first principal component of the pair members
centred on their pair mean. ``transform`` neutralises the rows marked neutral (removes their component along
the direction). Bolukbasi's method works on unit vectors; following seed 003 §4 we put the original length
back afterwards (``keep_norm=True``) so RND / RIPA changes come from the mitigation, not from normalisation.
The equalize step is left out: it only moves definition pairs, which seed 003's rules never score.
"""

from __future__ import annotations

import numpy as np

from debiasrag.errors import InputError


class HardDebias:
    """Neutralize step of Hard Debias. ``direction_`` is set by :meth:`fit`."""

    def __init__(self, *, keep_norm: bool = True) -> None:
        self.keep_norm = keep_norm
        self.direction_: np.ndarray | None = None
        self.explained_variance_ratio_: float | None = None

    def fit(self, x1: np.ndarray, x2: np.ndarray) -> HardDebias:
        """Learn the direction from definition pairs ``(x1[i], x2[i])`` (e.g. she/he), oriented x2 - x1."""
        x1 = np.asarray(x1, dtype=np.float64)
        x2 = np.asarray(x2, dtype=np.float64)
        if x1.shape != x2.shape or x1.ndim != 2 or x1.shape[0] < 1:
            raise InputError(f"hard debias needs two equal-shape (n, dim) arrays of pairs, got {x1.shape}, {x2.shape}")
        u1, u2 = _unit(x1), _unit(x2)
        centre = (u1 + u2) / 2
        stacked = np.vstack([u1 - centre, u2 - centre])
        _, singular, vt = np.linalg.svd(stacked, full_matrices=False)
        if singular[0] <= 0:
            raise InputError("hard debias: the definition pairs embed identically")
        direction = vt[0]
        if np.mean((u2 - u1) @ direction) < 0:
            direction = -direction
        self.direction_ = direction
        self.explained_variance_ratio_ = float(singular[0] ** 2 / np.sum(singular**2))
        return self

    def transform(self, vectors: np.ndarray, neutral: np.ndarray | None = None) -> np.ndarray:
        """Return a copy with the ``neutral`` rows (boolean mask; default all) neutralised."""
        if self.direction_ is None:
            raise InputError("HardDebias.transform called before fit")
        vectors = np.asarray(vectors, dtype=np.float64)
        out = vectors.copy()
        mask = np.ones(len(vectors), dtype=bool) if neutral is None else np.asarray(neutral, dtype=bool)
        rows = vectors[mask]
        norms = np.linalg.norm(rows, axis=1, keepdims=True)
        unit = _unit(rows)
        unit = _unit(unit - np.outer(unit @ self.direction_, self.direction_))
        out[mask] = unit * norms if self.keep_norm else unit
        return out


def _unit(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return x / norms
