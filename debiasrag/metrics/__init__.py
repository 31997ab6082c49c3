"""Bias metrics on embedding arrays: pure numpy/scipy functions returning flat dicts, explicit seeds.

* :mod:`~debiasrag.metrics.geometry` — concept direction, AUC, ρ and p̂ (seed 000 §2.1.1, eq. 1-3).
* :mod:`~debiasrag.metrics.weat_binomial` — k1/k2 binomial tests per scenario (seed 000 §2.1.2, Table 1).
* :mod:`~debiasrag.metrics.wefe` — WEAT (score, effect size, permutation p-value), RND, RNSB, ECT, RIPA, MAC
  (the WEFE family, seed 003).
* :mod:`~debiasrag.metrics.query` — word-set queries and seed 003's leakage rules.
"""

from debiasrag.extras import require

# scipy and scikit-learn come with the `metrics` extra; without them, say which extra instead of a bare ImportError.
# ruff: noqa: E402
require("scipy.stats", "debiasrag.metrics")
require("sklearn", "debiasrag.metrics")

from debiasrag.metrics.geometry import (
    AUC_CAPTURED,
    ConceptDirection,
    auc_score,
    concept_auc_pvalue,
    concept_direction,
    geometric_bias,
    pearson,
    projection_correlation,
    random_projection_pvalue,
    significance_stars,
)
from debiasrag.metrics.query import Query, WordSetReport, check_word_sets
from debiasrag.metrics.weat_binomial import SCENARIOS, binomial_pvalue, scenario_test, weat_counts
from debiasrag.metrics.wefe import CALISKAN_DDOF, association, ect, mac, ripa, rnd, rnsb, weat, weat_pvalue

__all__ = [
    "AUC_CAPTURED",
    "CALISKAN_DDOF",
    "SCENARIOS",
    "ConceptDirection",
    "Query",
    "WordSetReport",
    "association",
    "auc_score",
    "concept_auc_pvalue",
    "binomial_pvalue",
    "check_word_sets",
    "concept_direction",
    "ect",
    "geometric_bias",
    "mac",
    "pearson",
    "projection_correlation",
    "random_projection_pvalue",
    "ripa",
    "rnd",
    "rnsb",
    "scenario_test",
    "significance_stars",
    "weat",
    "weat_counts",
    "weat_pvalue",
]
