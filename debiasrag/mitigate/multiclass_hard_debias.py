"""Multiclass Hard Debias (Manzini et al. 2019): Hard Debias over a k-dimensional bias subspace learnt from
definitional *sets* of any size (e.g. ``[["jew", "christian", "muslim"], ...]``); WEFE 1.0.x
``MulticlassHardDebias`` on a matrix.

``fit`` takes the first ``n_components`` principal components of the unit definitional vectors, each centred on
its set mean, and keeps the unit vectors of the equalize sets. ``transform`` normalises every vector, removes the
subspace from the target words (never from the definitional words) and renormalises them, normalises again, then
re-centres each equalize set on its subspace-free mean, and normalises once more.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from debiasrag.errors import InputError
from debiasrag.mitigate.base import BaseDebias, WordEmbeddings, bias_subspace, unit_rows


class MulticlassHardDebias(BaseDebias):
    """Neutralize and equalize along a learnt bias subspace.

    Args:
        n_components: dimension of the bias subspace (WEFE's default 10; capped by the number of rows).
        normalization: ``"keep"`` (unit vectors) or ``"reverse"`` (original lengths back, seed 003 §4).

    Fitted attributes: ``bias_subspace_`` (k × dim, orthonormal rows), ``explained_variance_ratio_``,
    ``equalize_sets_`` and ``equalize_embeddings_``. ``transform`` never neutralizes the definitional words.
    """

    name = "Multiclass Hard Debias"
    short_name = "MHD"
    normalizes = True
    fitted_attributes = ("bias_subspace_", "equalize_sets_")

    def __init__(self, n_components: int = 10, normalization: str = "keep") -> None:
        self.n_components = n_components
        self.normalization = normalization

    def fit(
        self,
        model: WordEmbeddings,
        definitional_sets: Sequence[Sequence[str]] = (),
        equalize_sets: Sequence[Sequence[str]] = (),
    ) -> MulticlassHardDebias:
        """Learn the subspace from ``definitional_sets``; remember ``equalize_sets`` (default: the same sets)."""
        model = self._check_fit(model)
        sets = self._pairs(definitional_sets, "definitional sets", size=None)
        if any(len(s) < 2 for s in sets):
            raise InputError("definitional sets: every set needs at least two words")
        known = self._known_sets(model, sets, "definitional sets")
        self.bias_subspace_, self.explained_variance_ratio_ = bias_subspace(model, known, self.n_components)
        self.definitional_words_ = sorted({w for s in sets for w in s})
        equalize = self._pairs(equalize_sets or sets, "equalize sets", size=None)
        self.equalize_sets_ = [s for s in equalize if all(w in model for w in s)]
        self.equalize_embeddings_ = [model.unit_vectors(s) for s in self.equalize_sets_]
        return self

    def _project(self, x: np.ndarray) -> np.ndarray:
        return (x @ self.bias_subspace_.T) @ self.bias_subspace_

    def _debias(self, model: WordEmbeddings, target: Sequence[str] | None, ignore: Sequence[str] | None) -> np.ndarray:
        """Neutralize ``target`` (default: every word not in ``ignore``) except definitional words; equalize."""
        out = unit_rows(model.vectors)
        rows = self._target_rows(model, target, ignore)
        rows = np.setdiff1d(rows, model.rows(self.definitional_words_))
        out[rows] = unit_rows(out[rows] - self._project(out[rows]))
        out = unit_rows(out)
        for words, embeddings in zip(self.equalize_sets_, self.equalize_embeddings_, strict=True):
            mean = embeddings.mean(axis=0)
            mean_b = self._project(mean[None, :])[0]
            upsilon = mean - mean_b
            frac = unit_rows(self._project(embeddings) - mean_b)
            out[model.rows(words)] = upsilon + np.sqrt(1 - np.sum(upsilon**2)) * frac
        return unit_rows(out)
