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
        n_components: dimension of the bias subspace, from 1 to the vectors' dimension (``None``: WEFE's default
            10, lowered to the dimension if that is smaller; capped by the number of rows of the centred sets, as
            WEFE's PCA). Components beyond the directions the sets
            span (a set of k words spans k - 1) carry no variance; WEFE keeps them, and so do we, to agree with it.
        normalization: ``"keep"`` (unit vectors) or ``"reverse"`` (original lengths back, seed 003 §4).

    Fitted attributes: ``bias_subspace_`` (k × dim, orthonormal rows), ``explained_variance_ratio_``,
    ``equalize_sets_`` and ``equalize_embeddings_`` (fit model's unit vectors; ``transform`` equalizes from the
    vectors of the model it transforms, the same for the fit model). It never neutralizes the definitional words.
    """

    name = "Multiclass Hard Debias"
    short_name = "MHD"
    normalizes = True
    fitted_attributes = ("bias_subspace_", "equalize_sets_")

    def __init__(self, n_components: int | None = None, normalization: str = "keep") -> None:
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
        n_components = self._check_components(self.n_components, model, "the bias subspace")
        self.bias_subspace_, self.explained_variance_ratio_ = bias_subspace(model, known, n_components)
        self.definitional_words_ = sorted({w for s in sets for w in s})
        if isinstance(equalize_sets, (str, bytes)):
            raise InputError("equalize sets: expected a list of word sets, got one string")
        equalize_sets = list(equalize_sets)
        equalize = self._pairs(equalize_sets or sets, "equalize sets", size=None)
        self.equalize_sets_ = [s for s in equalize if all(w in model for w in s)]
        self.equalize_embeddings_ = [model.unit_vectors(s) for s in self.equalize_sets_]
        return self

    def _project(self, x: np.ndarray) -> np.ndarray:
        return (x @ self.bias_subspace_.T) @ self.bias_subspace_

    def _debias(
        self, model: WordEmbeddings, target: list[str] | None, ignore: list[str] | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Neutralize ``target`` (default: every word not in ``ignore``) except definitional words; equalize."""
        out = unit_rows(model.vectors)
        rows = self._target_rows(model, target, ignore)
        rows = np.setdiff1d(rows, model.rows(self.definitional_words_))
        out[rows] = unit_rows(out[rows] - self._project(out[rows]))
        out = unit_rows(out)
        equalized = []
        for words in self.equalize_sets_:
            if any(w not in model for w in words):  # transform on another vocabulary than fit's
                continue
            embeddings = model.unit_vectors(words)  # the transformed model's own vectors (as HardDebias)
            mean = embeddings.mean(axis=0)
            mean_b = self._project(mean[None, :])[0]
            upsilon = mean - mean_b
            frac = unit_rows(self._project(embeddings) - mean_b)
            out[model.rows(words)] = upsilon + np.sqrt(max(0.0, 1 - np.sum(upsilon**2))) * frac
            equalized += list(model.rows(words))
        return unit_rows(out), rows, np.array(equalized, dtype=np.int64)
