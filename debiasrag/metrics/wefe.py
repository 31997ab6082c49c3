"""The WEFE metric family on plain arrays: WEAT score, effect size and permutation p-value, RND, RNSB, ECT, RIPA, MAC.

Each function takes embedding matrices (one row per word or text) and returns a flat dict. Cosine-based metrics
(WEAT, ECT) normalise rows themselves; RND and RIPA use the vectors as given, so vector length matters for them
(seed 003 Table 4: normalising a model changes RND, RNSB and RIPA but not WEAT or ECT).
"""

from __future__ import annotations

import math
from itertools import combinations

import numpy as np
from scipy.stats import spearmanr
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import train_test_split

from debiasrag.errors import InputError, check_int, check_seed
from debiasrag.metrics.arrays import as_matrix, same_dimension, unit_rows

# Caliskan et al. (2017) divide by the *sample* standard deviation of s(w, A, B) over X ∪ Y. WEFE uses
# numpy's default (population, ddof=0), which gives a slightly larger effect size; we default to Caliskan's.
CALISKAN_DDOF = 1


def association(words: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """s(w, A, B) = mean_a cos(w, a) - mean_b cos(w, b) for every row w."""
    words, a, b = as_matrix(words, "words"), as_matrix(a, "A"), as_matrix(b, "B")
    same_dimension(words=words, A=a, B=b)
    w = unit_rows(words)
    return (w @ unit_rows(a).T).mean(axis=1) - (w @ unit_rows(b).T).mean(axis=1)


def weat(t1: np.ndarray, t2: np.ndarray, a1: np.ndarray, a2: np.ndarray, *, ddof: int = CALISKAN_DDOF) -> dict:
    """WEAT test statistic and effect size (Caliskan et al. 2017).

    ``weat = Σ_{x∈T1} s(x, A1, A2) - Σ_{y∈T2} s(y, A1, A2)``;
    ``effect_size = (mean_{T1} s - mean_{T2} s) / std_{T1∪T2}(s, ddof)``. The output's ``ddof`` says which
    standard deviation was used: 1 (sample, Caliskan et al.; our default) or 0 (population, WEFE's).
    """
    if ddof not in (0, 1):
        raise InputError(f"ddof must be 0 (population, WEFE) or 1 (sample, Caliskan et al.), got {ddof!r}")
    t1, t2 = as_matrix(t1, "T1"), as_matrix(t2, "T2")
    same_dimension(T1=t1, T2=t2)
    s1, s2 = association(t1, a1, a2), association(t2, a1, a2)
    both = np.concatenate([s1, s2])
    if both.size - ddof <= 0:
        raise InputError(f"effect size with ddof={ddof} needs more than {ddof} target words")
    std = float(np.std(both, ddof=ddof))
    effect = float((s1.mean() - s2.mean()) / std) if std > 0 else 0.0
    return {"weat": float(s1.sum() - s2.sum()), "weat_effect_size": effect, "ddof": ddof}


def weat_pvalue(
    t1: np.ndarray,
    t2: np.ndarray,
    a1: np.ndarray,
    a2: np.ndarray,
    *,
    alternative: str = "greater",
    max_exact: int = 100_000,
    n_samples: int = 10_000,
    seed: int = 0,
) -> dict:
    """Permutation p-value of the WEAT statistic (Caliskan et al. 2017).

    The null distribution re-splits T1 ∪ T2 into two sets of the original sizes. When there are at most
    ``max_exact`` splits every one is enumerated (``method="exact"``, p = share of splits at least as extreme);
    otherwise ``n_samples`` random splits are drawn with ``numpy.random.default_rng(seed)`` (``method="sampled"``,
    p = (count + 1) / (n_samples + 1)). ``alternative``: ``"greater"`` (Caliskan's one-sided test), ``"less"`` or
    ``"two-sided"`` (|statistic|). WEFE 1.0.x only samples, draws words *with replacement* and has no seed; this
    follows the paper's definition instead.
    """
    if alternative not in ("greater", "less", "two-sided"):
        raise InputError(f"alternative must be 'greater', 'less' or 'two-sided', got {alternative!r}")
    n_samples = check_int("n_samples", n_samples)
    max_exact = check_int("max_exact", max_exact, low=0)
    seed = check_seed(seed)
    t1, t2 = as_matrix(t1, "T1"), as_matrix(t2, "T2")
    same_dimension(T1=t1, T2=t2)
    s = np.concatenate([association(t1, a1, a2), association(t2, a1, a2)])
    n1, n = len(t1), len(s)
    observed = float(s[:n1].sum() - s[n1:].sum())
    total = s.sum()

    def stats(first: np.ndarray) -> np.ndarray:  # rows of boolean membership in the first set
        in_first = first @ s
        return in_first - (total - in_first)

    def extreme(values: np.ndarray) -> np.ndarray:
        tol = 1e-12 * max(1.0, abs(observed))  # a split equal to the observed one counts as "as extreme"
        if alternative == "greater":
            return values >= observed - tol
        if alternative == "less":
            return values <= observed + tol
        return np.abs(values) >= abs(observed) - tol

    n_splits = math.comb(n, n1)
    if n_splits <= max_exact:
        count = 0
        batch: list[tuple[int, ...]] = []
        for combo in combinations(range(n), n1):
            batch.append(combo)
            if len(batch) == 8192:
                count += _count_extreme(batch, n, stats, extreme)
                batch = []
        if batch:
            count += _count_extreme(batch, n, stats, extreme)
        return {"weat": observed, "p_value": count / n_splits, "method": "exact", "n_permutations": n_splits}
    rng = np.random.default_rng(seed)
    members = np.zeros((n_samples, n))
    order = np.argsort(rng.random((n_samples, n)), axis=1)[:, :n1]
    np.put_along_axis(members, order, 1.0, axis=1)
    count = int(np.sum(extreme(stats(members))))
    return {
        "weat": observed,
        "p_value": (count + 1) / (n_samples + 1),
        "method": "sampled",
        "n_permutations": n_samples,
    }


def _count_extreme(batch: list[tuple[int, ...]], n: int, stats, extreme) -> int:  # noqa: ANN001
    members = np.zeros((len(batch), n))
    np.put_along_axis(members, np.array(batch), 1.0, axis=1)
    return int(np.sum(extreme(stats(members))))


def mac(targets: list[np.ndarray], attributes: list[np.ndarray]) -> dict:
    """Mean Average Cosine similarity (Manzini et al. 2019), as WEFE computes it.

    For every target word t and attribute set A_j: mean over a ∈ A_j of the cosine *distance* 1 - cos(t, a); MAC
    is the mean of all these. Values near 1 mean targets are unrelated to the attributes (no association).
    """
    if not isinstance(targets, (list, tuple)) or not isinstance(attributes, (list, tuple)):
        raise InputError("MAC takes a list of target sets and a list of attribute sets (one array per set)")
    if not targets or not attributes:
        raise InputError("MAC needs at least one target set and one attribute set")
    target_sets = [as_matrix(t, f"target set {i + 1}") for i, t in enumerate(targets)]
    attribute_sets = [as_matrix(a, f"attribute set {i + 1}") for i, a in enumerate(attributes)]
    same_dimension(
        **{f"target set {i + 1}": t for i, t in enumerate(target_sets)},
        **{f"attribute set {i + 1}": a for i, a in enumerate(attribute_sets)},
    )
    scores = [(1.0 - unit_rows(t) @ unit_rows(a).T).mean(axis=1) for t in target_sets for a in attribute_sets]
    return {"mac": float(np.mean(np.concatenate(scores)))}


def rnd(t1: np.ndarray, t2: np.ndarray, attributes: np.ndarray, *, reduce: str = "mean") -> dict:
    """Relative Norm Distance (Garg et al. 2018): ‖a - mean(T1)‖ - ‖a - mean(T2)‖ per attribute (Euclidean, raw
    vectors), averaged over attributes as WEFE does (``reduce="mean"``, the default) or summed as Garg et al.'s
    formula and earlier versions of this function did (``reduce="sum"``; equals the mean × number of attributes).

    Negative: attributes lie closer to T1 on average; 0: no relative distance. The output names the reduction.
    """
    if reduce not in ("mean", "sum"):
        raise InputError(f"reduce must be 'mean' or 'sum', got {reduce!r}")
    a, t1, t2 = as_matrix(attributes, "attributes"), as_matrix(t1, "T1"), as_matrix(t2, "T2")
    same_dimension(T1=t1, T2=t2, attributes=a)
    m1, m2 = t1.mean(axis=0), t2.mean(axis=0)
    diffs = np.linalg.norm(a - m1, axis=1) - np.linalg.norm(a - m2, axis=1)
    return {"rnd": float(diffs.mean() if reduce == "mean" else diffs.sum()), "rnd_reduce": reduce}


def rnsb(
    t1: np.ndarray,
    t2: np.ndarray,
    positive: np.ndarray,
    negative: np.ndarray,
    *,
    seed: int = 0,
    holdout: bool = True,
    test_size: float = 0.2,
) -> dict:
    """Relative Negative Sentiment Bias (Sweeney & Najafian 2019), with WEFE's classifier and split.

    Classifier: ``LogisticRegression(solver="liblinear", max_iter=10000, random_state=seed)`` (WEFE's defaults),
    labels positive = 0, negative = 1. With ``holdout=True`` (WEFE's default) it is trained on a stratified,
    shuffled ``1 - test_size`` share of the sentiment words chosen by ``train_test_split(random_state=seed)``,
    so ``seed`` changes the result; ``rnsb_accuracy`` is its accuracy on the held-out words. ``holdout=False``
    trains on every sentiment word (and has no ``rnsb_accuracy``). Each target word's probability of being negative
    is normalised to a distribution P and the metric is KL(P ‖ uniform) = Σ p log(p · N); 0 means every target word
    is equally negative.
    """
    seed = check_seed(seed)
    pos, neg = as_matrix(positive, "positive"), as_matrix(negative, "negative")
    t1, t2 = as_matrix(t1, "T1"), as_matrix(t2, "T2")
    same_dimension(T1=t1, T2=t2, positive=pos, negative=neg)
    x = np.vstack([pos, neg])
    y = np.concatenate([np.zeros(len(pos)), np.ones(len(neg))])
    if holdout:
        if not 0.0 < test_size < 1.0:
            raise InputError(f"test_size must be between 0 and 1, got {test_size}")
        try:
            x_train, x_test, y_train, y_test = train_test_split(
                x, y, test_size=test_size, shuffle=True, stratify=y, random_state=seed
            )
        except ValueError as exc:
            raise InputError(f"RNSB holdout split: {exc}") from exc
    else:
        x_train, y_train = x, y
    model = LogisticRegression(solver="liblinear", max_iter=10000, random_state=seed).fit(x_train, y_train)
    targets = np.vstack([t1, t2])
    p_negative = model.predict_proba(targets)[:, 1]
    dist = p_negative / p_negative.sum()
    kl = float(np.sum(np.where(dist > 0, dist * np.log(dist * dist.size), 0.0)))
    result = {
        "rnsb": kl,
        "rnsb_mean_negative_t1": float(p_negative[: len(t1)].mean()),
        "rnsb_mean_negative_t2": float(p_negative[len(t1) :].mean()),
    }
    if holdout:  # no held-out words, no accuracy: left out rather than NaN, so the dict stays strict JSON
        result["rnsb_accuracy"] = float(model.score(x_test, y_test))
    return result


def ect(t1: np.ndarray, t2: np.ndarray, attributes: np.ndarray) -> dict:
    """Embedding Coherence Test (Dev & Phillips 2019).

    Spearman correlation between the attributes' cosine to the T1 mean vector and to the T2 mean vector; 1
    means both groups rank the attributes alike (no bias), so higher is better.
    """
    a, t1, t2 = as_matrix(attributes, "attributes"), as_matrix(t1, "T1"), as_matrix(t2, "T2")
    same_dimension(T1=t1, T2=t2, attributes=a)
    if a.shape[0] < 2:
        raise InputError("ECT needs at least two attribute words")
    a = unit_rows(a)
    m1 = unit_rows(t1.mean(axis=0, keepdims=True))[0]
    m2 = unit_rows(t2.mean(axis=0, keepdims=True))[0]
    rho = spearmanr(a @ m1, a @ m2).statistic
    return {"ect": float(rho) if np.isfinite(rho) else 0.0}


def ripa(t1: np.ndarray, t2: np.ndarray, attributes: np.ndarray) -> dict:
    """Relational Inner Product Association (Ethayarajh et al. 2019), averaged like WEFE.

    For each target pair i, ``b_i = (t1_i - t2_i) / ‖t1_i - t2_i‖``; each attribute's score is mean_i a·b_i (raw
    vectors). ``ripa`` is the mean score (signed: positive leans to T1); ``ripa_abs`` the mean absolute score,
    which does not let opposite attributes cancel.
    """
    t1, t2, a = as_matrix(t1, "T1"), as_matrix(t2, "T2"), as_matrix(attributes, "attributes")
    same_dimension(T1=t1, T2=t2, attributes=a)
    if t1.shape != t2.shape:
        raise InputError(f"RIPA pairs T1[i] with T2[i]: sets have {len(t1)} and {len(t2)} words")
    diffs = t1 - t2
    norms = np.linalg.norm(diffs, axis=1, keepdims=True)
    if np.any(norms == 0):
        raise InputError("RIPA: a target pair has identical vectors")
    scores = (a @ (diffs / norms).T).mean(axis=1)
    return {"ripa": float(scores.mean()), "ripa_abs": float(np.abs(scores).mean())}
