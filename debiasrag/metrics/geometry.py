"""Geometric bias identification (seed 000 §2.1.1, eq. 1-3).

The concept subspace comes from the SVD of the pair differences ``ΔX = X2 - X1``; the concept direction ``g`` is
the right singular vector whose projections best separate ``X1`` from ``X2`` (highest AUC, eq. 1), not just the
first one. Bias is ``ρ = corr(y, A g)`` between human labels and attribute projections (eq. 2), and its
significance ``p̂`` is the share of random Gaussian projections reaching ``|ρ|`` (eq. 3).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import rankdata

from debiasrag.errors import InputError, check_int, check_seed
from debiasrag.metrics.arrays import as_matrix, same_dimension

AUC_CAPTURED = 0.8  # seed 000: below this the concept direction "does not capture the concept well"


def auc_score(negatives: np.ndarray, positives: np.ndarray) -> float:
    """Area under the ROC curve of scores: P(positive > negative) + ½ P(tie) (Mann-Whitney U / (n₀ n₁))."""
    negatives = np.asarray(negatives, dtype=np.float64).ravel()
    positives = np.asarray(positives, dtype=np.float64).ravel()
    if negatives.size == 0 or positives.size == 0:
        raise InputError("AUC needs at least one score in each class")
    ranks = rankdata(np.concatenate([negatives, positives]))  # average ranks handle ties
    u = ranks[negatives.size :].sum() - positives.size * (positives.size + 1) / 2
    return float(u / (negatives.size * positives.size))


def pearson(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson correlation; 0.0 when either side is constant (instead of NaN)."""
    x = np.asarray(x, dtype=np.float64) - np.mean(x)
    y = np.asarray(y, dtype=np.float64) - np.mean(y)
    denom = np.sqrt((x * x).sum() * (y * y).sum())
    return float((x * y).sum() / denom) if denom > 0 else 0.0


@dataclass(frozen=True)
class ConceptDirection:
    """The chosen concept direction and how well it separates the defining pairs."""

    direction: np.ndarray  # unit vector, oriented so that group-2 words project higher
    component: int  # 0-based index of the singular vector chosen
    auc: float  # AUC of the chosen component (eq. 1)
    first_auc: float  # AUC of the first singular vector (Bolukbasi's default), for comparison
    aucs: tuple[float, ...]  # AUC of every component considered

    @property
    def captured(self) -> bool:
        """Whether the AUC reaches the threshold at which the concept counts as captured."""
        return self.auc >= AUC_CAPTURED


def _pair_components(
    x1: np.ndarray, x2: np.ndarray, max_components: int | None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The checked pair matrices and the right singular vectors of ``X2 - X1`` with non-zero singular values (at
    most ``max_components``), rows of the last array."""
    x1, x2 = as_matrix(x1, "X1"), as_matrix(x2, "X2")
    if x1.shape != x2.shape:
        raise InputError(f"concept pairs need two equal-shape (n, p) arrays, got {x1.shape} and {x2.shape}")
    _, singular, vt = np.linalg.svd(x2 - x1, full_matrices=False)
    keep = int(np.sum(singular > singular.max() * 1e-10)) if singular.size and singular.max() > 0 else 0
    if keep == 0:
        raise InputError("the pair differences are all zero: the two word lists embed identically")
    if max_components is not None:
        keep = min(keep, max_components)
    return x1, x2, vt[:keep]


def concept_direction(x1: np.ndarray, x2: np.ndarray, max_components: int | None = None) -> ConceptDirection:
    """Best-AUC singular vector of ``X2 - X1`` (eq. 1).

    Each right singular vector ``b`` is scored by the AUC of classifying ``X1`` (class 0) against ``X2``
    (class 1) from their projections; the sign of ``b`` is arbitrary, so a component's AUC is
    ``max(auc, 1 - auc)`` and the returned direction is flipped so that ``X2`` projects higher.
    """
    x1, x2, vt = _pair_components(x1, x2, max_components)
    aucs, signs = [], []
    for b in vt:
        auc = auc_score(x1 @ b, x2 @ b)
        aucs.append(max(auc, 1.0 - auc))
        signs.append(1.0 if auc >= 0.5 else -1.0)
    best = int(np.argmax(aucs))  # first maximum: ties go to the larger singular value
    return ConceptDirection(
        direction=vt[best] * signs[best],
        component=best,
        auc=aucs[best],
        first_auc=aucs[0],
        aucs=tuple(aucs),
    )


def concept_auc_pvalue(
    x1: np.ndarray, x2: np.ndarray, auc: float, *, n: int = 1000, seed: int = 0, max_components: int | None = None
) -> float:
    """How often pairs with no concept reach ``auc``: the share of ``n`` random relabellings (each pair's two words
    swapped with probability ½) whose best-component AUC (as :func:`concept_direction` picks it) is ≥ ``auc``,
    as (1 + count) / (1 + n).

    :func:`concept_direction` scores every component on the pairs it was fitted on and keeps the best, so its AUC
    is high by construction for a handful of pairs: 12 pairs of unrelated nouns passed seed 000's 0.8 in 8 of 20
    draws (a new user's audit, session 46). Swapping words within pairs keeps the SVD (its right singular vectors
    do not change when rows change sign) and breaks only which word belongs to which group, so a small p says the
    groups, not the fitting, separate the pairs.
    """
    x1, x2, vt = _pair_components(x1, x2, max_components)
    n, seed = check_int("n", n), check_seed(seed)
    if isinstance(auc, bool) or not isinstance(auc, (int, float, np.floating, np.integer)) or not 0 <= auc <= 1:
        raise InputError(f"auc must be a number from 0 to 1, got {auc!r}")
    pairs = x1.shape[0]
    # A swap only moves words between the classes: every word keeps its rank among the 2 × pairs projections, so
    # group 2's rank sum (Mann-Whitney U, as auc_score) is a sum over pairs of one of the pair's two ranks.
    ranks = np.apply_along_axis(rankdata, 0, np.concatenate([x1, x2]) @ vt.T)  # (2 × pairs, components)
    ranks1, ranks2 = ranks[:pairs], ranks[pairs:]
    swaps = np.random.default_rng(seed).random((n, pairs)) < 0.5
    rank_sums = swaps @ ranks1 + (~swaps) @ ranks2  # (n, components): group 2's rank sum per relabelling
    aucs = (rank_sums - pairs * (pairs + 1) / 2) / (pairs * pairs)
    best = np.maximum(aucs, 1.0 - aucs).max(axis=1)
    return float((1 + np.sum(best >= auc - 1e-12)) / (1 + n))


def projection_correlation(attributes: np.ndarray, labels: np.ndarray, direction: np.ndarray) -> float:
    """ρ = corr(y, A g) (eq. 2)."""
    attributes, labels = _attributes_and_labels(attributes, labels)
    direction = as_matrix(np.reshape(direction, (1, -1)) if np.ndim(direction) == 1 else direction, "direction")
    same_dimension(attributes=attributes, direction=direction)
    return pearson(labels, attributes @ direction[0])


def _attributes_and_labels(attributes: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The attribute matrix and its labels, checked: finite, one label per attribute, at least three."""
    attributes = as_matrix(attributes, "attributes")
    try:
        labels = np.asarray(labels, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError("labels: expected one number per attribute") from None
    if labels.ndim != 1 or labels.shape[0] != attributes.shape[0]:
        raise InputError(f"{attributes.shape[0]} attribute vectors but labels of shape {labels.shape}")
    if not np.isfinite(labels).all():
        raise InputError("labels hold NaN or infinity")
    if attributes.shape[0] < 3:
        raise InputError("a correlation needs at least 3 labelled attributes")
    return attributes, labels


def random_projection_pvalue(
    attributes: np.ndarray, labels: np.ndarray, rho: float, *, n: int = 10_000, seed: int = 0
) -> float:
    """p̂ = (1/N) Σ 1[corr(y, A a_i) ≥ |ρ|] with a_i ~ N(0, I) (eq. 3; one-sided as written in the seed).

    As the seed writes it, p̂ is 0 when no random projection reaches |ρ|: read it as p̂ < 1/N."""
    attributes, labels = _attributes_and_labels(attributes, labels)
    n, seed = check_int("n", n), check_seed(seed)
    if isinstance(rho, bool) or not isinstance(rho, (int, float, np.floating, np.integer)) or not np.isfinite(rho):
        raise InputError(f"rho must be a finite correlation, got {rho!r}")
    rng = np.random.default_rng(seed)
    projections = attributes @ rng.standard_normal((attributes.shape[1], n))  # (m, N)
    yc = labels - labels.mean()
    pc = projections - projections.mean(axis=0, keepdims=True)
    denom = np.sqrt((yc @ yc) * (pc * pc).sum(axis=0))
    corrs = np.divide(yc @ pc, denom, out=np.zeros(n), where=denom > 0)
    return float(np.mean(corrs >= abs(rho)))


def significance_stars(p: float) -> str:
    """Seed 000's notation: *, **, *** for p below 10 %, 5 %, 1 %."""
    return "***" if p < 0.01 else "**" if p < 0.05 else "*" if p < 0.10 else ""


def geometric_bias(
    x1: np.ndarray,
    x2: np.ndarray,
    attributes: np.ndarray,
    labels: np.ndarray,
    *,
    n_random: int = 10_000,
    seed: int = 0,
) -> dict[str, float | int]:
    """All of §2.1.1 in one flat dict: auc, first_auc, component, rho, abs_rho, p_hat."""
    concept = concept_direction(x1, x2)
    rho = projection_correlation(attributes, labels, concept.direction)
    return {
        "auc": concept.auc,
        "first_auc": concept.first_auc,
        "component": concept.component,
        "rho": rho,
        "abs_rho": abs(rho),
        "p_hat": random_projection_pvalue(attributes, labels, rho, n=n_random, seed=seed),
    }
