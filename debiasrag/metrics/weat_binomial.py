"""WEAT-based binomial tests per context scenario (seed 000 §2.1.2, eq. 4-6, Table 1).

For every attribute ``a`` the mean cosine to each target set is compared. ``k1`` counts attributes closer to
their *assumed related* target set (A1 → T1, A2 → T2; the stereotype), ``k2`` counts attributes closer to T1
whatever their set (all attributes pulled towards group 1, e.g. female). Table 1's tests:

=========  ===================  ===========  ====
scenario   H0                   H1           k
=========  ===================  ===========  ====
neutral    p = 1/2              greater      k1
debiasing  p = 1/2              two-sided    k1
           p = |A1|/(|A1|+|A2|) greater      k2   ("over-compensating" test)
positive   p = |A1|/(|A1|+|A2|) greater      k2
negative   p = |A1|/(|A1|+|A2|) less         k2
=========  ===================  ===========  ====

Table 4's sample proportion is ``p̂ = k / n`` with ``k = max(k1, k2)`` for debiasing.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import binomtest

from debiasrag.errors import InputError
from debiasrag.metrics.arrays import as_matrix, same_dimension, unit_rows

SCENARIOS = ("neutral", "debiasing", "positive", "negative")


def target_similarities(t1: np.ndarray, t2: np.ndarray, attributes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each attribute row: mean cosine to T1 and to T2 (eq. 4's s-values)."""
    t1, t2, attributes = as_matrix(t1, "T1"), as_matrix(t2, "T2"), as_matrix(attributes, "attributes")
    same_dimension(T1=t1, T2=t2, attributes=attributes)
    a = unit_rows(attributes)
    return (a @ unit_rows(t1).T).mean(axis=1), (a @ unit_rows(t2).T).mean(axis=1)


def weat_counts(t1: np.ndarray, t2: np.ndarray, a1: np.ndarray, a2: np.ndarray) -> dict[str, int]:
    """k1 and k2 (eq. 5-6) and the sizes ``n1 = |A1|``, ``n2 = |A2|``, ``n = n1 + n2``."""
    s11, s21 = target_similarities(t1, t2, a1)  # A1's similarity to T1, T2
    s12, s22 = target_similarities(t1, t2, a2)  # A2's similarity to T1, T2
    a1_to_t1 = int(np.sum(s11 - s21 > 0))
    k1 = a1_to_t1 + int(np.sum(s22 - s12 > 0))
    k2 = a1_to_t1 + int(np.sum(s12 - s22 > 0))
    return {"k1": k1, "k2": k2, "n1": len(a1), "n2": len(a2), "n": len(a1) + len(a2)}


def binomial_pvalue(k: int, n: int, p: float, alternative: str) -> float:
    """Exact binomial test p-value; validates ``0 <= k <= n``, ``n >= 1`` and ``0 <= p <= 1``."""
    if n < 1:
        raise InputError("a binomial test needs at least one trial")
    if not 0 <= k <= n:
        raise InputError(f"successes k={k} outside 0..n={n}")
    if not 0.0 <= p <= 1.0:
        raise InputError(f"success probability {p} outside [0, 1]")
    return float(binomtest(int(k), int(n), p, alternative=alternative).pvalue)


def scenario_test(scenario: str, counts: dict[str, int]) -> dict[str, float | int | str]:
    """Table 1's test(s) for one scenario from :func:`weat_counts` output; flat dict with ``p_hat`` and p-values."""
    if scenario not in SCENARIOS:
        raise InputError(f"unknown scenario {scenario!r}; choose one of {', '.join(SCENARIOS)}")
    missing = [key for key in ("k1", "k2", "n1", "n") if key not in counts]
    if missing:
        raise InputError(f"counts lack {', '.join(missing)}: pass weat_counts()'s output")
    k1, k2, n = counts["k1"], counts["k2"], counts["n"]
    p_a1 = counts["n1"] / n
    result: dict[str, float | int | str] = {"k1": k1, "k2": k2, "n": n}
    if scenario == "neutral":
        result.update(k=k1, p_hat=k1 / n, p_value=binomial_pvalue(k1, n, 0.5, "greater"), test="k1 > n/2")
    elif scenario == "debiasing":
        p_two = binomial_pvalue(k1, n, 0.5, "two-sided")
        p_over = binomial_pvalue(k2, n, p_a1, "greater")
        k = max(k1, k2)
        result.update(
            k=k,
            p_hat=k / n,
            p_value=p_over if k2 > k1 else p_two,  # the test behind the displayed k
            p_value_k1_two_sided=p_two,
            p_value_k2_greater=p_over,
            over_compensating=int(k2 > k1),
            test="k1 two-sided; k2 > n|A1|/n",
        )
    elif scenario == "positive":
        result.update(k=k2, p_hat=k2 / n, p_value=binomial_pvalue(k2, n, p_a1, "greater"), test="k2 > n|A1|/n")
    else:
        result.update(k=k2, p_hat=k2 / n, p_value=binomial_pvalue(k2, n, p_a1, "less"), test="k2 < n|A1|/n")
    return result
