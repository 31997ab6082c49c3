"""Repulsion-Attraction-Neutralization (Kumar et al. 2020); WEFE 1.0.x ``RepulsionAttractionNeutralization``.

``fit`` learns the bias direction like Hard Debias (unit definitional vectors, pair-centred PCA). ``transform``
normalises every vector and, for each target word ``w``, optimises a new vector ``w_b`` (Adam, ``epochs`` steps,
starting at ``w``) minimising ``weights · (repulsion, attraction, neutralization)``:

* repulsion: mean |cos(w_b, n)| over the neighbours ``n`` of ``w`` (its ``n_neighbours`` nearest words) whose
  indirect bias ``(w·n - cos(w⊥, n⊥)) / (w·n)`` exceeds ``theta`` (⊥: bias direction removed);
* attraction: |cos(w_b, w) - 1| / 2 (stay close to the original meaning);
* neutralization: |w_b · d| for the bias direction ``d``.

The result is ``w_b / ‖w_b‖``.

WEFE 1.0.x wires its loss module with the two vectors swapped (``RAN_Loss(self.w, self.w_b, ...)`` against the
signature ``(w_b, w, ...)``): both become trainable, the repulsion and neutralization terms act on a copy of the
original vector, and the vector WEFE returns is the attraction anchor, which only follows that copy through the
attraction term. ``wefe_compatible=True`` (the default, so results agree with WEFE and seed 003, which used it)
reproduces this; ``wefe_compatible=False`` keeps the anchor fixed at ``w`` and returns the optimised vector, as
Kumar et al. describe.

WEFE optimises one word at a time; here all target words are optimised together in
one batch. Adam updates each coordinate from its own gradient and the words' losses are independent, so the batch
gives the same vectors (to float32 rounding) in a fraction of the time. Needs PyTorch (installed with the
sentence-transformers dependency).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from debiasrag.errors import InputError, check_bool, check_int, check_number, shown
from debiasrag.mitigate.base import BaseDebias, WordEmbeddings


def _unit_rows_native(x: np.ndarray) -> np.ndarray:
    """Rows divided by their L2 norm in the matrix's own dtype, as gensim (and so WEFE) normalises.

    RAN's output is ill-conditioned in its input (Adam on |·| terms), so the unit vectors must be bit-identical
    to WEFE's for the results to agree: normalising float32 vectors in float64 and rounding back differs from
    WEFE's float32 division by one ulp in some coordinates, which moved outputs by up to 0.02.
    """
    norms = np.linalg.norm(x, axis=1)[:, None]
    return x / np.where(norms == 0, 1, norms).astype(x.dtype)


class RepulsionAttractionNeutralization(BaseDebias):
    """Per-word optimisation away from biased neighbours and the bias direction, towards the original vector.

    Args:
        epochs: Adam steps (WEFE's default 300).
        theta: indirect-bias threshold for the repulsion set (0.05).
        n_neighbours: neighbours examined per word (100).
        learning_rate: Adam learning rate (0.01).
        weights: weights of repulsion, attraction and neutralization (0.33 each).
        batch_size: words optimised at once (memory: batch × n_neighbours × dim floats).
        normalization: ``"keep"`` (unit vectors) or ``"reverse"`` (original lengths back, seed 003 §4).
        wefe_compatible: reproduce WEFE 1.0.x exactly (default; see the module docstring) or, with ``False``,
            optimise the vector against a fixed anchor at the original vector and return it (the paper's form).

    Fitted attributes: ``bias_direction_``, ``explained_variance_ratio_``. In ``transform``, unlike the other
    algorithms, ``ignore`` also applies when ``target`` is given (as in WEFE's RAN).
    """

    name = "Repulsion Attraction Neutralization"
    short_name = "RAN"
    normalizes = True
    fitted_attributes = ("bias_direction_",)

    def __init__(
        self,
        epochs: int = 300,
        theta: float = 0.05,
        n_neighbours: int = 100,
        learning_rate: float = 0.01,
        weights: Sequence[float] = (0.33, 0.33, 0.33),
        batch_size: int = 4096,
        normalization: str = "keep",
        wefe_compatible: bool = True,
    ) -> None:
        self.epochs = epochs
        self.theta = theta
        self.n_neighbours = n_neighbours
        self.learning_rate = learning_rate
        self.weights = weights
        self.batch_size = batch_size
        self.normalization = normalization
        self.wefe_compatible = wefe_compatible

    def fit(
        self, model: WordEmbeddings, definitional_pairs: Sequence[Sequence[str]] = ()
    ) -> RepulsionAttractionNeutralization:
        """Learn the bias direction from ``definitional_pairs``."""
        model = self._check_fit(model)
        self._check_parameters()
        self.bias_direction_, self.explained_variance_ratio_ = self._bias_direction(model, definitional_pairs)
        return self

    def _check_parameters(self) -> None:
        """Every parameter's type and range, as an InputError naming it (torch and numpy would raise TypeErrors)."""
        weights = self.weights
        if isinstance(weights, (str, bytes)) or not hasattr(weights, "__len__") or len(weights) != 3:
            raise InputError(f"RAN needs three weights (repulsion, attraction, neutralization), got {shown(weights)}")
        for name, weight in zip(("repulsion", "attraction", "neutralization"), weights):
            check_number(f"the {name} weight", weight)
        check_int("epochs", self.epochs, 0)
        check_int("n_neighbours", self.n_neighbours)
        check_int("batch_size", self.batch_size)
        check_number("theta", self.theta, float("-inf"))
        if check_number("learning_rate", self.learning_rate) == 0:
            raise InputError("learning_rate must be above 0, got 0")
        check_bool("wefe_compatible", self.wefe_compatible)

    def neighbours(self, unit: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """``n_neighbours`` nearest rows (cosine, the word itself excluded) of each row in ``rows``, nearest first."""
        k = min(self.n_neighbours, len(unit) - 1)
        out = np.empty((len(rows), k), dtype=np.int64)
        for start in range(0, len(rows), 1024):
            chunk = rows[start : start + 1024]
            sims = unit[chunk] @ unit.T
            sims[np.arange(len(chunk)), chunk] = -np.inf
            top = np.argpartition(-sims, k - 1, axis=1)[:, :k]
            order = np.argsort(-np.take_along_axis(sims, top, axis=1), axis=1, kind="stable")
            out[start : start + len(chunk)] = np.take_along_axis(top, order, axis=1)
        return out

    def repulsion_mask(self, unit: np.ndarray, rows: np.ndarray, neighbours: np.ndarray) -> np.ndarray:
        """Which neighbours have indirect bias above ``theta`` (the repulsion set of each word)."""
        d = self.bias_direction_
        w = unit[rows].astype(np.float64)
        n = unit[neighbours].astype(np.float64)  # words × k × dim
        wv = np.einsum("kd,knd->kn", w, n)
        n_orth = n - (n @ d)[..., None] * d
        w_orth = w - (w @ d)[:, None] * d
        cos_orth = np.einsum("kd,knd->kn", w_orth, n_orth) / (
            np.linalg.norm(w_orth, axis=1)[:, None] * np.linalg.norm(n_orth, axis=2)
        )
        with np.errstate(divide="ignore", invalid="ignore"):
            return (wv - cos_orth) / wv > self.theta

    def _optimise(self, w: np.ndarray, repulsion: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Optimise the rows of ``w``; words are batched by repulsion-set size so each mean adds what WEFE adds."""
        out = np.empty(w.shape, dtype=np.float32)
        counts = mask.sum(axis=1)
        for count in np.unique(counts):
            rows = np.flatnonzero(counts == count)
            sets = np.stack([repulsion[i][mask[i]] for i in rows]) if count else None
            out[rows] = self._optimise_group(w[rows], sets)
        return out

    def _optimise_group(self, w: np.ndarray, repulsion: np.ndarray | None) -> np.ndarray:
        import torch

        direction = torch.tensor(self.bias_direction_, dtype=torch.float32)
        rep = None if repulsion is None else torch.tensor(repulsion, dtype=torch.float32)  # words × r × dim
        # ``moved`` gets all three terms; ``anchor`` is the vector the attraction term compares it with.
        moved = torch.nn.Parameter(torch.tensor(w, dtype=torch.float32))
        anchor = torch.nn.Parameter(torch.tensor(w, dtype=torch.float32), requires_grad=self.wefe_compatible)
        optimizer = torch.optim.Adam([anchor, moved] if self.wefe_compatible else [moved], lr=self.learning_rate)
        w1, w2, w3 = self.weights
        for _ in range(self.epochs):
            optimizer.zero_grad()
            loss = torch.abs(torch.cosine_similarity(moved, anchor, dim=1) - 1) / 2 * w2
            loss = loss + torch.abs(moved @ direction) * w3
            if rep is not None:
                cos = torch.matmul(rep, moved.unsqueeze(-1)).squeeze(-1) / (
                    rep.norm(dim=2) * moved.norm(dim=1)[:, None]
                )
                loss = loss + torch.abs(cos).mean(dim=1) * w1
            loss.sum().backward()
            optimizer.step()
        result = (anchor if self.wefe_compatible else moved).detach()
        return (result / result.norm(dim=1, keepdim=True)).numpy()

    def _debias(
        self, model: WordEmbeddings, target: list[str] | None, ignore: list[str] | None
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Debias ``target`` words not in ``ignore`` (default: the whole vocabulary minus ``ignore``).

        Unlike the other algorithms, ``ignore`` also applies when ``target`` is given (as in WEFE's RAN).
        """
        unit = _unit_rows_native(model.vectors)
        rows = self._target_rows(model, target, None)
        if ignore:
            rows = np.setdiff1d(rows, model.rows(ignore))
        zero = rows[~np.any(model.vectors[rows] != 0, axis=1)]
        if zero.size:  # a zero vector has no direction: RAN's cosines would turn it into NaN
            some = ", ".join(repr(model.words[i]) for i in zero[:5])
            raise InputError(f"RAN cannot debias {zero.size} all-zero word vector(s): {some} (leave them out)")
        out = unit.astype(np.float64)
        for start in range(0, len(rows), self.batch_size):
            chunk = rows[start : start + self.batch_size]
            near = self.neighbours(unit, chunk)
            mask = self.repulsion_mask(unit, chunk, near)
            out[chunk] = self._optimise(unit[chunk], unit[near], mask)
        return out, rows, np.array([], dtype=np.int64)
