"""Double-Hard Debias (Wang et al. 2020); WEFE 1.0.x ``DoubleHardDebias`` on a matrix.

Word frequency distorts the gender direction, so before Hard Debias a "frequency" principal component of the
whole (mean-centred) vocabulary is removed. ``fit`` learns the bias direction (first PCA component of the raw,
pair-centred definitional vectors), the vocabulary mean and the vocabulary's principal components (incremental
PCA, as WEFE). ``transform`` ranks words by cos(w, "he") - cos(w, "she") and takes the ``n_words`` at each end of
the ranking (without ``target``: the most biased words of the whole vocabulary not in ``ignore``); for each of the
first ``n_components`` principal components ``u`` it removes ``u`` then the bias direction from those words and
clusters them into two groups (k-means, explicit ``random_state``); the component whose removal makes the groups
least separable is used for the final result.

Faithful to WEFE, only the selected words change, and their vectors come out centred (vocabulary mean
subtracted; the frequency component is projected from the uncentred vector). Vectors are not normalised.

``target``: WEFE 1.0.x documents that ``target`` restricts the debias to those words ("the debias method will be
performed only on the word embeddings of this set") but its code only uses the target's size (``n_words =
len(target) // 2``) and still picks the most biased words of the whole vocabulary. Here ``target`` does what WEFE
documents: exactly the target words (not in ``ignore``) are debiased; the component is chosen on the
``len(target) // 2`` words at each end of their he-she ranking (a middle word of an odd-sized target is debiased
with the chosen component too). Given every non-ignored word as the target, this is WEFE's result (plus that
middle word). Without ``target`` the result is WEFE's (``tests/debias/``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from debiasrag.errors import InputError, check_int, check_seed
from debiasrag.mitigate.base import BaseDebias, WordEmbeddings, drop, some, word_list


class DoubleHardDebias(BaseDebias):
    """Remove a frequency component, then the bias direction, from the most biased words.

    Args:
        n_words: words taken from each end of the he-she ranking when no ``target`` is given (WEFE's default 1000).
        n_components: principal components tried as the frequency direction (default 4).
        pca_components: components of the incremental vocabulary PCA (WEFE's ``pca_args`` default 10).
        random_state: seed of the k-means runs that choose the component.
        normalization: accepted for a uniform interface; DHD does not normalise.

    Fitted attributes: ``bias_direction_``, ``embeddings_mean_``, ``principal_components_``,
    ``bias_representation_``. ``transform`` stores nothing; :meth:`select` returns the chosen words and component.
    ``transform`` changes only the ``2 n_words`` most biased words not in ``ignore`` or, given ``target``, exactly
    the target words not in ``ignore`` (``n_words`` is then unused; see the module docstring).
    """

    name = "Double Hard Debias"
    short_name = "DHD"
    normalizes = False
    fitted_attributes = ("bias_direction_", "principal_components_")

    def __init__(
        self,
        n_words: int = 1000,
        n_components: int = 4,
        pca_components: int = 10,
        random_state: int = 0,
        normalization: str = "keep",
    ) -> None:
        self.n_words = n_words
        self.n_components = n_components
        self.pca_components = pca_components
        self.random_state = random_state
        self.normalization = normalization

    def fit(
        self,
        model: WordEmbeddings,
        definitional_pairs: Sequence[Sequence[str]] = (),
        bias_representation: Sequence[str] = ("he", "she"),
        vocabulary_components: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> DoubleHardDebias:
        """Learn the bias direction from ``definitional_pairs`` and the vocabulary's principal components.

        ``vocabulary_components``: ``(mean, components)`` from :meth:`vocabulary_pca` on this same model, to
        reuse one (slow, word-set independent) PCA across several fits; ``None`` computes it.
        """
        model = self._check_fit(model)
        self._check_parameters()
        representation = word_list(bias_representation, "bias_representation")
        if len(representation) != 2 or len(set(representation)) != 2:
            raise InputError(f"bias_representation must be two different words, got {representation}")
        missing = [w for w in representation if w not in model]
        if missing:
            raise InputError(
                f"Double Hard Debias ranks words by cos(w, {representation[0]!r}) - cos(w, {representation[1]!r}), "
                f"but {some(missing)} is not in the vocabulary"
            )
        self.bias_direction_ = self._bias_direction(model, definitional_pairs, normalize=False)[0]
        mean, components = vocabulary_components or self.vocabulary_pca(model)
        if components.shape[0] < self.n_components or components.shape[1] != model.vectors.shape[1]:
            raise InputError(f"vocabulary_components must hold >= {self.n_components} components of the model's size")
        self.embeddings_mean_, self.principal_components_ = mean, components
        self.bias_representation_ = representation
        return self

    def _check_parameters(self) -> None:
        check_int("n_words", self.n_words)
        check_int("pca_components", self.pca_components)
        check_int("n_components", self.n_components, 1, self.pca_components)
        check_seed(self.random_state)

    def vocabulary_pca(self, model: WordEmbeddings) -> tuple[np.ndarray, np.ndarray]:
        """``(mean, components)``: the vocabulary mean and the principal components of the centred vocabulary
        (``IncrementalPCA(n_components=pca_components)`` with sklearn's default batches, as WEFE)."""
        from sklearn.decomposition import IncrementalPCA

        model = self._check_model(model)
        check_int("pca_components", self.pca_components)
        rows, dim = model.vectors.shape
        if min(rows, dim) < self.pca_components:  # IncrementalPCA needs that many words and dimensions
            raise InputError(
                f"Double Hard Debias takes {self.pca_components} principal components of the vocabulary: it needs at "
                f"least {self.pca_components} words and dimensions, got {rows} words of {dim} dimensions"
            )
        mean = np.mean(model.vectors, axis=0)
        return mean, IncrementalPCA(n_components=self.pca_components).fit(model.vectors - mean).components_

    def _ranked(self, model: WordEmbeddings, rows: np.ndarray) -> np.ndarray:
        """``rows`` ordered by cos(w, first) - cos(w, second) of the bias representation words (stable)."""
        from sklearn.metrics import pairwise_distances

        first, second = (model.vectors[model.index[w]][None, :] for w in self.bias_representation_)
        # over the whole vocabulary, as WEFE: a subset's BLAS call could round differently and reorder near-ties
        sims = (1 - pairwise_distances(first, model.vectors, metric="cosine")[0]) - (
            1 - pairwise_distances(second, model.vectors, metric="cosine")[0]
        )
        return rows[np.argsort(sims[rows], kind="stable")]

    def _debias_rows(self, vectors: np.ndarray, component: int) -> np.ndarray:
        u = self.principal_components_[component]
        out = (vectors - self.embeddings_mean_) - np.outer(vectors @ u, u)
        return drop(out, self.bias_direction_)

    def _alignment(self, vectors: np.ndarray, n_words: int) -> float:
        from sklearn.cluster import KMeans

        # ten k-means runs, as the authors and WEFE ran it (sklearn < 1.4): one run follows the seed, not the data
        predicted = KMeans(2, n_init=10, random_state=self.random_state).fit_predict(vectors)
        truth = np.repeat([0, 1], n_words)
        accuracy = float(np.mean(predicted == truth))
        return max(accuracy, 1 - accuracy)

    def select(
        self, model: WordEmbeddings, target: Sequence[str] | None = None, ignore: Sequence[str] | None = None
    ) -> tuple[list[str], int, list[float]]:
        """The words DHD changes (in he-she ranking order), the chosen component and the k-means alignment of every
        candidate component.

        Without ``target``: the ``n_words`` words at each end of the ranking of every word not in ``ignore``. With
        ``target``: every target word not in ``ignore``, the component chosen on the ``len // 2`` at each end.
        """
        self._check_fitted("bias_direction_", "principal_components_")
        model = self._check_model(model)
        ignore = None if ignore is None else word_list(ignore, "ignore")
        if target is not None:
            rows = self._target_rows(model, target, None)
            if ignore:
                rows = np.setdiff1d(rows, model.rows(ignore))
            if len(rows) < 2:
                raise InputError(
                    f"Double Hard Debias needs at least 2 target words outside ignore (one per side of the he-she "
                    f"ranking), got {len(rows)}"
                )
            ranked = self._ranked(model, np.asarray(rows))
            n_words = len(ranked) // 2
            chosen = ranked
        else:
            n_words = check_int("n_words", self.n_words)
            ranked = self._ranked(model, self._target_rows(model, None, ignore))
            if len(ranked) < 2:
                raise InputError(f"Double Hard Debias needs at least 2 words outside ignore, got {len(ranked)}")
            if 2 * n_words > len(ranked):
                raise InputError(
                    f"Double Hard Debias changes the {n_words} words at each end of the he-she ranking, "
                    f"{2 * n_words} in all, but only {len(ranked)} words can be debiased",
                    option="n_words",
                    value=len(ranked) // 2,
                    hint="or less",
                )
            chosen = np.concatenate([ranked[:n_words], ranked[len(ranked) - n_words :]])
        sides = np.concatenate([ranked[:n_words], ranked[len(ranked) - n_words :]])
        vectors = np.asarray(model.vectors[sides])
        scores = [self._alignment(self._debias_rows(vectors, d), n_words) for d in range(self.n_components)]
        return [model.words[i] for i in chosen], int(np.argmin(scores)), scores

    def _debias(
        self, model: WordEmbeddings, target: list[str] | None, ignore: list[str] | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Debias the ``2 n_words`` most biased words not in ``ignore`` (or the ``target`` words not in ``ignore``)."""
        words, component, _ = self.select(model, target, ignore)
        rows = model.rows(words)
        out = np.asarray(model.vectors, dtype=np.float64).copy()
        out[rows] = self._debias_rows(np.asarray(model.vectors[rows]), component)
        return out, rows, np.array([], dtype=np.int64)
