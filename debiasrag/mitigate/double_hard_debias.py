"""Double-Hard Debias (Wang et al. 2020); WEFE 1.0.x ``DoubleHardDebias`` on a matrix.

Word frequency distorts the gender direction, so before Hard Debias a "frequency" principal component of the
whole (mean-centred) vocabulary is removed. ``fit`` learns the bias direction (first PCA component of the raw,
pair-centred definitional vectors), the vocabulary mean and the vocabulary's principal components (incremental
PCA, as WEFE). ``transform`` picks the ``2 n_words`` most biased words (by cos(w, "he") - cos(w, "she") over the
whole vocabulary, ignoring ``ignore``), and for each of the first ``n_components`` principal components ``u``
removes ``u`` then the bias direction from those words and clusters them into two groups (k-means, explicit
``random_state``); the component whose removal makes the groups least separable is used for the final result.

Faithful to WEFE, only the selected words change, and their vectors come out centred (vocabulary mean
subtracted; the frequency component is projected from the uncentred vector). Vectors are not normalised.
``target``: like WEFE, only its size matters (``n_words = len(target) // 2``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from debiasrag.errors import InputError
from debiasrag.mitigate.base import BaseDebias, WordEmbeddings, drop


class DoubleHardDebias(BaseDebias):
    """Remove a frequency component, then the bias direction, from the most biased words.

    Args:
        n_words: words taken from each end of the he-she ranking (WEFE's default 1000).
        n_components: principal components tried as the frequency direction (default 4).
        pca_components: components of the incremental vocabulary PCA (WEFE's ``pca_args`` default 10).
        random_state: seed of the k-means runs that choose the component.
        normalization: accepted for a uniform interface; DHD does not normalise.

    Fitted attributes: ``bias_direction_``, ``embeddings_mean_``, ``principal_components_``,
    ``bias_representation_``. ``transform`` stores nothing; :meth:`select` returns the chosen words and component.
    ``transform`` changes only the ``2 n_words`` most biased words not in ``ignore``; of ``target`` only its size
    counts (``n_words = len(target) // 2``, as WEFE).
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
        if len(bias_representation) != 2 or any(w not in model for w in bias_representation):
            raise InputError(f"bias_representation must be two vocabulary words, got {list(bias_representation)}")
        self.bias_direction_ = self._bias_direction(model, definitional_pairs, normalize=False)[0]
        mean, components = vocabulary_components or self.vocabulary_pca(model)
        if components.shape[0] < self.n_components or components.shape[1] != model.vectors.shape[1]:
            raise InputError(f"vocabulary_components must hold >= {self.n_components} components of the model's size")
        self.embeddings_mean_, self.principal_components_ = mean, components
        self.bias_representation_ = list(bias_representation)
        return self

    def vocabulary_pca(self, model: WordEmbeddings) -> tuple[np.ndarray, np.ndarray]:
        """``(mean, components)``: the vocabulary mean and the principal components of the centred vocabulary
        (``IncrementalPCA(n_components=pca_components)`` with sklearn's default batches, as WEFE)."""
        from sklearn.decomposition import IncrementalPCA

        model = self._check_model(model)
        rows, dim = model.vectors.shape
        if min(rows, dim) < self.pca_components:  # IncrementalPCA needs that many words and dimensions
            raise InputError(
                f"Double Hard Debias takes {self.pca_components} principal components of the vocabulary: it needs at "
                f"least {self.pca_components} words and dimensions, got {rows} words of {dim} dimensions"
            )
        mean = np.mean(model.vectors, axis=0)
        return mean, IncrementalPCA(n_components=self.pca_components).fit(model.vectors - mean).components_

    def _selected_words(self, model: WordEmbeddings, n_words: int, ignore: Sequence[str] | None) -> np.ndarray:
        from sklearn.metrics import pairwise_distances

        first, second = (model.vectors[model.index[w]][None, :] for w in self.bias_representation_)
        sims = (1 - pairwise_distances(first, model.vectors, metric="cosine")[0]) - (
            1 - pairwise_distances(second, model.vectors, metric="cosine")[0]
        )
        rows = self._target_rows(model, None, ignore)
        order = rows[np.argsort(sims[rows], kind="stable")]
        return np.concatenate([order[:n_words], order[-n_words:]])

    def _debias_rows(self, vectors: np.ndarray, component: int) -> np.ndarray:
        u = self.principal_components_[component]
        out = (vectors - self.embeddings_mean_) - np.outer(vectors @ u, u)
        return drop(out, self.bias_direction_)

    def _alignment(self, vectors: np.ndarray, n_words: int) -> float:
        from sklearn.cluster import KMeans

        predicted = KMeans(2, random_state=self.random_state).fit_predict(vectors)
        truth = np.repeat([0, 1], n_words)
        accuracy = float(np.mean(predicted == truth))
        return max(accuracy, 1 - accuracy)

    def select(
        self, model: WordEmbeddings, target: Sequence[str] | None = None, ignore: Sequence[str] | None = None
    ) -> tuple[list[str], int, list[float]]:
        """The words DHD changes, the chosen component and the k-means alignment of every candidate component."""
        self._check_fitted("bias_direction_", "principal_components_")
        n_words = len(target) // 2 if target else self.n_words
        if n_words < 1 or 2 * n_words > len(model):
            raise InputError(f"n_words={n_words} does not fit a vocabulary of {len(model)} words")
        rows = self._selected_words(model, n_words, ignore)
        vectors = np.asarray(model.vectors[rows])
        scores = [self._alignment(self._debias_rows(vectors, d), n_words) for d in range(self.n_components)]
        return [model.words[i] for i in rows], int(np.argmin(scores)), scores

    def _debias(self, model: WordEmbeddings, target: Sequence[str] | None, ignore: Sequence[str] | None) -> np.ndarray:
        """Debias the ``2 n_words`` most biased words not in ``ignore``."""
        words, component, _ = self.select(model, target, ignore)
        rows = model.rows(words)
        out = np.asarray(model.vectors, dtype=np.float64).copy()
        out[rows] = self._debias_rows(np.asarray(model.vectors[rows]), component)
        return out
