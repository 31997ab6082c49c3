"""Half-Sibling Regression (Yang & Feng 2020); WEFE 1.0.x ``HalfSiblingRegression`` on a matrix.

The gender-definitional words' vectors ``B`` (dim × k) are the "half siblings": a ridge regression of every
other vector ``v`` on them, ``w = (BᵀB + αI)⁻¹ Bᵀ v``, predicts the part of ``v`` that gender explains,
``B w``, and the debiased vector is ``v - B w``. Equivalently ``v - P v`` with the fitted ``P = B (BᵀB + αI)⁻¹
Bᵀ``, so each word is transformed independently. Vectors are not normalised (``normalization`` has no effect).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from debiasrag.errors import InputError, check_number
from debiasrag.mitigate.base import BaseDebias, WordEmbeddings, some, word_list


class HalfSiblingRegression(BaseDebias):
    """Subtract the ridge prediction of each vector from the definitional words' vectors.

    Args:
        alpha: ridge penalty (WEFE's and the paper's default 60).
        normalization: accepted for a uniform interface; HSR does not normalise, so both values give the same.

    Fitted attributes: ``definitional_words_`` (those in the vocabulary) and ``projection_`` (dim × dim, ``P``).
    ``transform`` never changes the definitional words.
    """

    name = "Half Sibling Regression"
    short_name = "HSR"
    normalizes = False
    fitted_attributes = ("projection_",)

    def __init__(self, alpha: float = 60.0, normalization: str = "keep") -> None:
        self.alpha = alpha
        self.normalization = normalization

    def fit(self, model: WordEmbeddings, definitional_words: Sequence[str] = ()) -> HalfSiblingRegression:
        """Learn ``P`` from ``definitional_words`` (a flat list, e.g. every word of the definition pairs)."""
        model = self._check_fit(model)
        words = word_list(definitional_words, "definitional words (a flat list, e.g. ['she', 'he'])")
        if not words:
            raise InputError("definitional words: expected a non-empty list of words")
        alpha = check_number("alpha", self.alpha)
        known = list(dict.fromkeys(w for w in words if w in model))
        if not known:
            raise InputError(f"definitional words: none is in the vocabulary ({some(words)})")
        bias = np.asarray(model.vectors[model.rows(known)], dtype=np.float64).T  # dim × k
        if not np.any(bias):
            raise InputError("definitional words: their vectors are all zero, so they predict nothing")
        gram = bias.T @ bias + alpha * np.eye(bias.shape[1])
        try:
            self.projection_ = bias @ np.linalg.solve(gram, bias.T)
        except np.linalg.LinAlgError:  # alpha=0 and linearly dependent words
            raise InputError(
                "definitional words: their vectors are linearly dependent, so the regression has no unique solution "
                "(use a ridge penalty alpha > 0)"
            ) from None
        self.definitional_words_ = known
        return self

    def _debias(
        self, model: WordEmbeddings, target: list[str] | None, ignore: list[str] | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Debias ``target`` (default: every word not in ``ignore``); definitional words are never changed."""
        out = np.asarray(model.vectors, dtype=np.float64).copy()
        rows = np.setdiff1d(self._target_rows(model, target, ignore), model.rows(self.definitional_words_))
        out[rows] = out[rows] - out[rows] @ self.projection_.T
        return out, rows, np.array([], dtype=np.int64)
