"""Hard Debias (Bolukbasi et al. 2016): neutralize, then equalize; WEFE 1.0.x ``HardDebias`` on a matrix.

``fit`` learns the bias direction: the first principal component of the definitional pairs' unit vectors, each
centred on its pair mean, and keeps the unit vectors of the equalize pairs (lower-, Title- and UPPER-case
variants, like WEFE). ``transform`` normalises every vector, removes the direction from the target words
(neutralize), normalises again, then places each equalize pair symmetrically about the direction (equalize) and
normalises once more, so with ``normalization="keep"`` every vector comes out unit length, also the words not
debiased. With ``normalization="reverse"`` (seed 003 §4) the neutralized and equalized vectors get their original
length back and every other word keeps its input vector exactly.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from debiasrag.errors import InputError
from debiasrag.mitigate.base import BaseDebias, WordEmbeddings, drop, unit_rows


class HardDebias(BaseDebias):
    """Neutralize and equalize along one learnt bias direction.

    Args:
        n_components: components of the definitional-pair PCA (only the first is used), from 1 to the vectors'
            dimension; ``None``: WEFE's default 10, or the dimension if smaller.
        normalization: ``"keep"`` (unit vectors, as the algorithm leaves them) or ``"reverse"`` (original lengths).

    Fitted attributes: ``bias_direction_`` (unit, dim), ``explained_variance_ratio_`` (per component),
    ``equalize_pairs_`` (the pairs found in the vocabulary) and ``equalize_embeddings_`` (their unit vectors in
    the fit model). ``transform`` equalizes each pair from the vectors of the model it transforms — for the fit
    model the same, as WEFE; for another model (same words, other vectors) its own pairs, not fit's.
    """

    name = "Hard Debias"
    short_name = "HD"
    normalizes = True
    fitted_attributes = ("bias_direction_", "equalize_pairs_")

    def __init__(self, n_components: int | None = None, normalization: str = "keep") -> None:
        self.n_components = n_components
        self.normalization = normalization

    def fit(
        self,
        model: WordEmbeddings,
        definitional_pairs: Sequence[Sequence[str]] = (),
        equalize_pairs: Sequence[Sequence[str]] | None = None,
    ) -> HardDebias:
        """Learn the bias direction from ``definitional_pairs`` (e.g. ``[["she", "he"], ...]``).

        ``equalize_pairs``: pairs to equalize (``None``: the definitional pairs, as WEFE; ``[]``: none).
        """
        model = self._check_fit(model)
        n_components = self._check_components(self.n_components, model, "the definitional pairs' PCA")
        self.bias_direction_, self.explained_variance_ratio_ = self._bias_direction(
            model, definitional_pairs, n_components
        )
        equalize_source = definitional_pairs if equalize_pairs is None else equalize_pairs
        if isinstance(equalize_source, (str, bytes)):
            raise InputError("equalize pairs: expected a list of word pairs, got one string")
        equalize_source = list(equalize_source)
        equalize = self._pairs(equalize_source, "equalize pairs") if equalize_source else []
        candidates = [
            [case(a), case(b)] for a, b in equalize for case in (str.lower, str.title, str.upper)
        ]  # WEFE tries the three casings of every pair
        self.equalize_pairs_ = [p for p in candidates if p[0] in model and p[1] in model]
        self.equalize_embeddings_ = [model.unit_vectors(p) for p in self.equalize_pairs_]
        return self

    def _debias(
        self, model: WordEmbeddings, target: list[str] | None, ignore: list[str] | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Neutralize ``target`` (default: every word not in ``ignore``), then equalize the fitted pairs."""
        direction = self.bias_direction_
        out = unit_rows(model.vectors)
        rows = self._target_rows(model, target, ignore)
        out[rows] = drop(out[rows], direction)
        out = unit_rows(out)
        equalized = []
        for word_a, word_b in self.equalize_pairs_:
            if word_a not in model or word_b not in model:  # transform on another vocabulary than fit's
                continue
            # the transformed model's own vectors (WEFE reuses fit's: another model's pair would get fit's vectors)
            emb_a, emb_b = model.unit_vectors((word_a, word_b))
            y = drop(((emb_a + emb_b) / 2)[None, :], direction)[0]
            z = np.sqrt(max(0.0, 1 - np.linalg.norm(y) ** 2))
            if (emb_a - emb_b) @ direction < 0:
                z = -z
            out[model.index[word_a]] = z * direction + y
            out[model.index[word_b]] = -z * direction + y
            equalized += [model.index[word_a], model.index[word_b]]
        return unit_rows(out), rows, np.array(equalized, dtype=np.int64)
