"""The WEFE metric family on plain arrays: WEAT score and effect size, RND, RNSB, ECT, RIPA.

Each function takes embedding matrices (one row per word or text) and returns a flat dict. Cosine-based metrics
(WEAT, ECT) normalise rows themselves; RND and RIPA use the vectors as given, so vector length matters for them
(seed 003 Table 4: normalising a model changes RND, RNSB and RIPA but not WEAT or ECT).
"""

from __future__ import annotations

import numpy as np
from scipy.stats import spearmanr
from sklearn.linear_model import LogisticRegression

from debiasrag.errors import InputError

# Caliskan et al. (2017) divide by the *sample* standard deviation of s(w, A, B) over X ∪ Y. WEFE uses
# numpy's default (population, ddof=0), which gives a slightly larger effect size; we default to Caliskan's.
CALISKAN_DDOF = 1


def _as_matrix(x: np.ndarray, label: str) -> np.ndarray:
    x = np.asarray(x, dtype=np.float64)
    if x.ndim != 2 or x.shape[0] == 0:
        raise InputError(f"{label}: expected a non-empty (n, dim) array, got shape {x.shape}")
    return x


def _unit(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return x / norms


def association(words: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """s(w, A, B) = mean_a cos(w, a) - mean_b cos(w, b) for every row w."""
    w = _unit(_as_matrix(words, "words"))
    return (w @ _unit(_as_matrix(a, "A")).T).mean(axis=1) - (w @ _unit(_as_matrix(b, "B")).T).mean(axis=1)


def weat(t1: np.ndarray, t2: np.ndarray, a1: np.ndarray, a2: np.ndarray, *, ddof: int = CALISKAN_DDOF) -> dict:
    """WEAT test statistic and effect size (Caliskan et al. 2017).

    ``weat = Σ_{x∈T1} s(x, A1, A2) - Σ_{y∈T2} s(y, A1, A2)``;
    ``effect_size = (mean_{T1} s - mean_{T2} s) / std_{T1∪T2}(s, ddof)``.
    """
    s1, s2 = association(t1, a1, a2), association(t2, a1, a2)
    both = np.concatenate([s1, s2])
    if both.size - ddof <= 0:
        raise InputError(f"effect size with ddof={ddof} needs more than {ddof} target words")
    std = float(np.std(both, ddof=ddof))
    effect = float((s1.mean() - s2.mean()) / std) if std > 0 else 0.0
    return {"weat": float(s1.sum() - s2.sum()), "weat_effect_size": effect, "ddof": ddof}


def rnd(t1: np.ndarray, t2: np.ndarray, attributes: np.ndarray) -> dict:
    """Relative Norm Distance (Garg et al. 2018): Σ_a ‖a - mean(T1)‖ - ‖a - mean(T2)‖ (Euclidean, raw vectors).

    Negative: attributes lie closer to T1 on average; 0: no relative distance.
    """
    a = _as_matrix(attributes, "attributes")
    m1, m2 = _as_matrix(t1, "T1").mean(axis=0), _as_matrix(t2, "T2").mean(axis=0)
    diffs = np.linalg.norm(a - m1, axis=1) - np.linalg.norm(a - m2, axis=1)
    return {"rnd": float(diffs.sum())}


def rnsb(
    t1: np.ndarray,
    t2: np.ndarray,
    positive: np.ndarray,
    negative: np.ndarray,
    *,
    seed: int = 0,
) -> dict:
    """Relative Negative Sentiment Bias (Sweeney & Najafian 2019).

    A logistic regression (fit on all sentiment words, fixed ``random_state``) gives each target word a
    probability of being negative; those probabilities are normalised to a distribution P and the metric is
    KL(P ‖ uniform) = Σ p log(p · N). 0 means every target word is equally negative.
    """
    pos, neg = _as_matrix(positive, "positive"), _as_matrix(negative, "negative")
    x = np.vstack([pos, neg])
    y = np.concatenate([np.zeros(len(pos)), np.ones(len(neg))])
    model = LogisticRegression(max_iter=2000, random_state=seed).fit(x, y)
    targets = np.vstack([_as_matrix(t1, "T1"), _as_matrix(t2, "T2")])
    p_negative = model.predict_proba(targets)[:, 1]
    dist = p_negative / p_negative.sum()
    kl = float(np.sum(np.where(dist > 0, dist * np.log(dist * dist.size), 0.0)))
    return {
        "rnsb": kl,
        "rnsb_mean_negative_t1": float(p_negative[: len(t1)].mean()),
        "rnsb_mean_negative_t2": float(p_negative[len(t1) :].mean()),
    }


def ect(t1: np.ndarray, t2: np.ndarray, attributes: np.ndarray) -> dict:
    """Embedding Coherence Test (Dev & Phillips 2019).

    Spearman correlation between the attributes' cosine to the T1 mean vector and to the T2 mean vector; 1
    means both groups rank the attributes alike (no bias), so higher is better.
    """
    a = _unit(_as_matrix(attributes, "attributes"))
    if a.shape[0] < 2:
        raise InputError("ECT needs at least two attribute words")
    m1 = _unit(_as_matrix(t1, "T1").mean(axis=0, keepdims=True))[0]
    m2 = _unit(_as_matrix(t2, "T2").mean(axis=0, keepdims=True))[0]
    rho = spearmanr(a @ m1, a @ m2).statistic
    return {"ect": float(rho) if np.isfinite(rho) else 0.0}


def ripa(t1: np.ndarray, t2: np.ndarray, attributes: np.ndarray) -> dict:
    """Relational Inner Product Association (Ethayarajh et al. 2019), averaged like WEFE.

    For each target pair i, ``b_i = (t1_i - t2_i) / ‖t1_i - t2_i‖``; each attribute's score is mean_i a·b_i (raw
    vectors). ``ripa`` is the mean score (signed: positive leans to T1); ``ripa_abs`` the mean absolute score,
    which does not let opposite attributes cancel.
    """
    t1, t2 = _as_matrix(t1, "T1"), _as_matrix(t2, "T2")
    if t1.shape != t2.shape:
        raise InputError(f"RIPA pairs T1[i] with T2[i]: sets have {len(t1)} and {len(t2)} words")
    diffs = t1 - t2
    norms = np.linalg.norm(diffs, axis=1, keepdims=True)
    if np.any(norms == 0):
        raise InputError("RIPA: a target pair has identical vectors")
    scores = (_as_matrix(attributes, "attributes") @ (diffs / norms).T).mean(axis=1)
    return {"ripa": float(scores.mean()), "ripa_abs": float(np.abs(scores).mean())}
