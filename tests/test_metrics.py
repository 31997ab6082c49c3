"""Hand-computed fixtures for every metric in debiasrag.metrics (tiny vectors, answers worked out by hand)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from debiasrag.errors import InputError
from debiasrag.metrics import (
    Query,
    auc_score,
    binomial_pvalue,
    check_word_sets,
    concept_direction,
    ect,
    geometric_bias,
    projection_correlation,
    random_projection_pvalue,
    ripa,
    rnd,
    rnsb,
    scenario_test,
    significance_stars,
    weat,
    weat_counts,
)

# --- AUC and the concept direction (seed 000 eq. 1) -------------------------------------------------------


def test_auc_hand_values():
    assert auc_score([0, 1], [2, 3]) == 1.0
    assert auc_score([2, 3], [0, 1]) == 0.0
    assert auc_score([0, 2], [1, 3]) == 0.75  # 3 of 4 (neg, pos) pairs ordered
    assert auc_score([1], [1]) == 0.5  # a tie counts one half


def test_auc_needs_both_classes():
    with pytest.raises(InputError):
        auc_score([], [1.0])


def test_concept_direction_single_component():
    # ΔX = [[0, 2], [0, 2]]: one non-zero singular vector, e1, which separates the pairs perfectly.
    x1 = np.array([[1.0, 0.0], [0.0, 1.0]])
    x2 = np.array([[1.0, 2.0], [0.0, 3.0]])
    concept = concept_direction(x1, x2)
    assert concept.component == 0
    assert concept.auc == 1.0
    np.testing.assert_allclose(concept.direction, [0.0, 1.0], atol=1e-12)


def test_concept_direction_prefers_best_auc_over_first_component():
    # ΔX rows (±10, 1): ΔXᵀΔX = diag(400, 4), so b1 = e0 (noise, AUC 0.5) and b2 = e1 (the concept, AUC 1).
    x1 = np.array([[0.0, 0.0], [10.0, 0.0], [-10.0, 0.0], [0.0, 0.0]])
    delta = np.array([[10.0, 1.0], [-10.0, 1.0], [10.0, 1.0], [-10.0, 1.0]])
    concept = concept_direction(x1, x1 + delta)
    assert concept.first_auc == 0.5
    assert concept.component == 1
    assert concept.auc == 1.0
    np.testing.assert_allclose(concept.direction, [0.0, 1.0], atol=1e-12)  # oriented so x2 projects higher


def test_concept_direction_rejects_identical_lists():
    x = np.eye(3)
    with pytest.raises(InputError, match="identically"):
        concept_direction(x, x)


# --- ρ and p̂ (seed 000 eq. 2-3) ---------------------------------------------------------------------------


def test_projection_correlation_hand_values():
    a = np.array([[1.0, 5.0], [2.0, -1.0], [3.0, 0.0]])
    assert projection_correlation(a, [0.0, 0.5, 1.0], [1.0, 0.0]) == pytest.approx(1.0)
    assert projection_correlation(a, [1.0, 0.5, 0.0], [1.0, 0.0]) == pytest.approx(-1.0)
    # projections (5, -1, 0): deviations (11, -7, -4)/3; labels deviations (-.5, 0, .5)
    # cov sum = -11/6 - 4/6 = -2.5; corr = -2.5 / sqrt(0.5 * 186/9) = -0.7777138
    assert projection_correlation(a, [0.0, 0.5, 1.0], [0.0, 1.0]) == pytest.approx(-2.5 / math.sqrt(0.5 * 186 / 9))


def test_random_projection_pvalue_one_dimension():
    # In 1-D every random projection is a·x with corr(y, a·x) = sign(a) = ±1, so p̂ = share of a > 0 ≈ 1/2.
    a = np.array([[1.0], [2.0], [3.0]])
    p = random_projection_pvalue(a, [0.0, 0.5, 1.0], 0.5, n=10_000, seed=3)
    assert abs(p - 0.5) < 0.02
    assert p == random_projection_pvalue(a, [0.0, 0.5, 1.0], 0.5, n=10_000, seed=3)  # same seed, same value
    assert random_projection_pvalue(a, [0.0, 0.5, 1.0], -0.5, n=10_000, seed=3) == p  # uses |ρ|


def test_geometric_bias_is_deterministic_and_flat():
    rng = np.random.default_rng(0)
    x1, x2 = rng.normal(size=(6, 8)), rng.normal(size=(6, 8))
    attributes, labels = rng.normal(size=(10, 8)), rng.uniform(size=10)
    first = geometric_bias(x1, x2, attributes, labels, n_random=2000, seed=7)
    assert first == geometric_bias(x1, x2, attributes, labels, n_random=2000, seed=7)
    assert set(first) == {"auc", "first_auc", "component", "rho", "abs_rho", "p_hat"}
    assert 0.0 < first["p_hat"] < 1.0
    assert first["p_hat"] != geometric_bias(x1, x2, attributes, labels, n_random=2000, seed=8)["p_hat"]


def test_significance_stars():
    assert [significance_stars(p) for p in (0.005, 0.01, 0.049, 0.05, 0.099, 0.1)] == ["***", "**", "**", "*", "*", ""]


# --- WEAT binomial tests (seed 000 eq. 5-6, Table 1) --------------------------------------------------------

T1 = np.array([[1.0, 0.0]])
T2 = np.array([[0.0, 1.0]])
A1 = np.array([[1.0, 0.1], [0.1, 1.0]])  # first closer to T1 (stereotype holds), second closer to T2
A2 = np.array([[0.2, 1.0], [1.0, 0.2], [0.1, 1.0]])  # rows 1 and 3 closer to T2, row 2 closer to T1


def test_weat_counts_hand_values():
    # k1 = 1 (A1→T1) + 2 (A2→T2); k2 = 1 (A1→T1) + 1 (A2→T1)
    assert weat_counts(T1, T2, A1, A2) == {"k1": 3, "k2": 2, "n1": 2, "n2": 3, "n": 5}


def test_scenario_tests_hand_values():
    counts = weat_counts(T1, T2, A1, A2)
    neutral = scenario_test("neutral", counts)
    assert neutral["p_hat"] == 0.6
    assert neutral["p_value"] == pytest.approx(16 / 32)  # P(X>=3), X~B(5, 1/2) = (10+5+1)/32
    debiasing = scenario_test("debiasing", counts)
    assert debiasing["k"] == 3 and debiasing["p_hat"] == 0.6 and debiasing["over_compensating"] == 0
    assert debiasing["p_value_k1_two_sided"] == pytest.approx(1.0)
    p_ge_2 = 1 - 0.6**5 - 5 * 0.4 * 0.6**4  # P(X>=2), X~B(5, |A1|/n = 0.4) = 0.66304
    assert debiasing["p_value_k2_greater"] == pytest.approx(p_ge_2)
    assert scenario_test("positive", counts)["p_value"] == pytest.approx(p_ge_2)
    assert scenario_test("positive", counts)["p_hat"] == 0.4
    p_le_2 = 0.6**5 + 5 * 0.4 * 0.6**4 + 10 * 0.4**2 * 0.6**3  # P(X<=2) = 0.68256
    assert scenario_test("negative", counts)["p_value"] == pytest.approx(p_le_2)


def test_debiasing_reports_over_compensation():
    # every attribute closer to T1: k1 = |A1| = 2, k2 = 5, so the displayed k is k2 with the "greater" test
    a2_to_t1 = np.array([[1.0, 0.2], [1.0, 0.3], [1.0, 0.0]])
    result = scenario_test("debiasing", weat_counts(T1, T2, np.array([[1.0, 0.0], [1.0, 0.5]]), a2_to_t1))
    assert (result["k1"], result["k2"], result["k"], result["over_compensating"]) == (2, 5, 5, 1)
    assert result["p_value"] == pytest.approx(0.4**5)  # P(X>=5), X~B(5, 0.4)


def test_binomial_pvalue_edge_cases():
    assert binomial_pvalue(0, 5, 0.5, "greater") == 1.0
    assert binomial_pvalue(5, 5, 0.5, "greater") == pytest.approx(1 / 32)
    assert binomial_pvalue(0, 5, 0.5, "less") == pytest.approx(1 / 32)
    assert binomial_pvalue(5, 5, 0.5, "less") == 1.0
    assert binomial_pvalue(1, 1, 0.5, "greater") == pytest.approx(0.5)
    assert binomial_pvalue(0, 1, 0.5, "two-sided") == pytest.approx(1.0)
    for k, n, p in [(6, 5, 0.5), (-1, 5, 0.5), (0, 0, 0.5), (1, 2, 1.5)]:
        with pytest.raises(InputError):
            binomial_pvalue(k, n, p, "greater")
    with pytest.raises(InputError, match="unknown scenario"):
        scenario_test("sideways", weat_counts(T1, T2, A1, A2))


# --- WEFE family --------------------------------------------------------------------------------------------

W_T1 = np.array([[1.0, 0.0], [1.0, 1.0]])  # s(w, A1, A2) = cos(w, e0) - cos(w, e1) = 1 and 0
W_T2 = np.array([[0.0, 1.0], [1.0, 1.0]])  # s = -1 and 0
W_A1 = np.array([[1.0, 0.0]])
W_A2 = np.array([[0.0, 1.0]])


def test_weat_score_and_effect_size_ddof():
    sample = weat(W_T1, W_T2, W_A1, W_A2)  # Caliskan: sample std (ddof=1) of (1, 0, -1, 0) = sqrt(2/3)
    assert sample["weat"] == pytest.approx(2.0)
    assert sample["ddof"] == 1
    assert sample["weat_effect_size"] == pytest.approx(1.0 / math.sqrt(2 / 3))
    population = weat(W_T1, W_T2, W_A1, W_A2, ddof=0)  # WEFE's numpy default: std = sqrt(1/2)
    assert population["weat_effect_size"] == pytest.approx(math.sqrt(2))
    assert weat(W_T1, W_T2, W_A2, W_A1)["weat"] == pytest.approx(-2.0)  # swapping attributes flips the sign


def test_rnd_hand_value():
    # |a - m1| - |a - m2|: (1 - 1) + (0 - 2) = -2
    # per attribute: (1,0) -> 1 - 1 = 0; (0,0) -> 0 - 2 = -2. WEFE averages (-1); Garg's formula sums (-2)
    t1, t2, attrs = np.array([[0.0, 0.0]]), np.array([[2.0, 0.0]]), np.array([[1.0, 0.0], [0.0, 0.0]])
    assert rnd(t1, t2, attrs) == {"rnd": -1.0, "rnd_reduce": "mean"}
    assert rnd(t1, t2, attrs, reduce="sum")["rnd"] == -2.0
    with pytest.raises(InputError, match="reduce"):
        rnd(t1, t2, attrs, reduce="median")


def test_ect_hand_values():
    attributes = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    assert ect(T1, T2, attributes)["ect"] == pytest.approx(-1.0)  # opposite rankings: fully biased
    assert ect(T1, T1, attributes)["ect"] == pytest.approx(1.0)  # same group vectors: no bias


def test_ripa_hand_values():
    result = ripa(np.array([[1.0, 0.0]]), np.array([[0.0, 0.0]]), np.array([[2.0, 5.0], [-1.0, 0.0]]))
    assert result == {"ripa": pytest.approx(0.5), "ripa_abs": pytest.approx(1.5)}
    two_pairs = ripa(np.array([[1.0, 0.0], [0.0, 3.0]]), np.zeros((2, 2)), np.array([[2.0, 4.0]]))
    assert two_pairs["ripa"] == pytest.approx(3.0)  # mean of 2 (pair 1) and 4 (pair 2)
    with pytest.raises(InputError, match="pairs"):
        ripa(np.ones((2, 2)), np.ones((3, 2)), np.ones((1, 2)))


def test_rnsb_zero_when_groups_embed_alike_and_kl_formula():
    positive = np.array([[2.0, 0.0], [1.5, 0.2], [1.8, -0.1]])
    negative = np.array([[-2.0, 0.0], [-1.5, 0.1], [-1.7, -0.2]])
    same = np.array([[0.3, 0.0]])
    assert rnsb(same, same, positive, negative)["rnsb"] == pytest.approx(0.0, abs=1e-12)
    result = rnsb(np.array([[-1.0, 0.0]]), np.array([[1.0, 0.0]]), positive, negative, seed=0)
    p1, p2 = result["rnsb_mean_negative_t1"], result["rnsb_mean_negative_t2"]
    assert p1 > 0.5 > p2  # the T1 word sits with the negative words
    q = p1 / (p1 + p2)
    assert result["rnsb"] == pytest.approx(q * math.log(2 * q) + (1 - q) * math.log(2 * (1 - q)))
    assert result == rnsb(np.array([[-1.0, 0.0]]), np.array([[1.0, 0.0]]), positive, negative, seed=0)
    assert result["rnsb_accuracy"] == 1.0  # the held-out words are separable


def test_rnsb_seed_controls_the_holdout_split():
    rng = np.random.default_rng(3)
    positive, negative = rng.normal(0.3, 1.0, size=(20, 5)), rng.normal(-0.3, 1.0, size=(20, 5))
    t1, t2 = rng.normal(size=(4, 5)), rng.normal(size=(4, 5))
    values = {round(rnsb(t1, t2, positive, negative, seed=s)["rnsb"], 12) for s in range(6)}
    assert len(values) > 1  # different splits, different classifiers
    assert rnsb(t1, t2, positive, negative, seed=4) == rnsb(t1, t2, positive, negative, seed=4)
    all_words = {round(rnsb(t1, t2, positive, negative, seed=s, holdout=False)["rnsb"], 12) for s in range(3)}
    assert len(all_words) == 1  # without a split the seed only matters to liblinear's shuffling, not here
    assert "rnsb_accuracy" not in rnsb(t1, t2, positive, negative, holdout=False)  # no held-out words (was NaN)
    with pytest.raises(InputError, match="test_size"):
        rnsb(t1, t2, positive, negative, test_size=1.5)


def test_weat_pvalue_exact_by_hand_and_sampled_with_seed():
    from debiasrag.metrics import weat_pvalue

    # 1-d: s(w) = cos(w, a1) - cos(w, a2) is +2 for positive w and -2 for negative w
    a1, a2 = np.array([[1.0]]), np.array([[-1.0]])
    t1, t2 = np.array([[1.0], [1.0]]), np.array([[-1.0], [-1.0]])
    exact = weat_pvalue(t1, t2, a1, a2)
    # 6 splits of {+2, +2, -2, -2} into halves; only the observed one reaches the statistic 8
    assert exact == {"weat": 8.0, "p_value": 1 / 6, "method": "exact", "n_permutations": 6}
    assert weat_pvalue(t1, t2, a1, a2, alternative="two-sided")["p_value"] == 2 / 6
    assert weat_pvalue(t1, t2, a1, a2, alternative="less")["p_value"] == 1.0
    rng = np.random.default_rng(0)
    t1, t2 = rng.normal(size=(9, 3)) + 0.5, rng.normal(size=(9, 3))
    a1, a2 = rng.normal(size=(4, 3)) + 0.5, rng.normal(size=(4, 3))
    sampled = weat_pvalue(t1, t2, a1, a2, max_exact=10, n_samples=2000, seed=1)
    assert sampled["method"] == "sampled" and sampled["n_permutations"] == 2000
    assert sampled == weat_pvalue(t1, t2, a1, a2, max_exact=10, n_samples=2000, seed=1)
    full = weat_pvalue(t1, t2, a1, a2)  # C(18, 9) = 48,620 splits: exact
    assert full["method"] == "exact" and abs(sampled["p_value"] - full["p_value"]) < 0.03
    with pytest.raises(InputError, match="alternative"):
        weat_pvalue(t1, t2, a1, a2, alternative="bigger")


def test_mac_hand_value():
    from debiasrag.metrics import mac

    # cos distances: t=(1,0) to a=(1,0) -> 0, to (0,1) -> 1; mean over the attribute set = 0.5
    assert mac([np.array([[1.0, 0.0]])], [np.array([[1.0, 0.0], [0.0, 1.0]])])["mac"] == pytest.approx(0.5)
    assert mac([np.array([[1.0, 0.0]]), np.array([[-1.0, 0.0]])], [np.array([[1.0, 0.0]])])["mac"] == 1.0


# --- Word-set rules (seed 003 Table 3) -----------------------------------------------------------------------

SPECIFIC = ["she", "he", "woman", "man", "Beard", "womb"]


def _query(targets=(["woman"], ["man"]), attributes=(["nurse"], ["engineer"])) -> Query:
    return Query.build(targets, attributes, ("female", "male"))


def test_clean_word_sets_pass():
    assert check_word_sets(_query(), definition=["she", "he"], gender_specific=SPECIFIC).ok


def test_leakage_is_refused_with_every_broken_rule():
    leaky = _query(targets=(["woman", "she"], ["man", "girl"]), attributes=(["nurse", "beard"], ["engineer"]))
    with pytest.raises(InputError) as err:
        check_word_sets(leaky, definition=["she", "he"], gender_specific=SPECIFIC)
    message = str(err.value)
    assert "definition words scored as targets: she" in message
    assert "attributes inside the gender-specific set: beard" in message  # case-insensitive match
    assert "targets outside the gender-specific set: girl" in message
    assert "\n" not in message


def test_leakage_warn_mode_reports_without_raising():
    leaky = _query(attributes=(["nurse", "he"], ["engineer"]))
    with pytest.warns(UserWarning, match="definition words scored as attributes: he"):
        report = check_word_sets(leaky, definition=["she", "he"], gender_specific=SPECIFIC, on_leak="warn")
    assert not report.ok
    assert report.leaks["definition words scored as attributes"] == ["he"]


def test_query_validation():
    with pytest.raises(InputError, match="two target sets"):
        Query.build([["a"]], [["b"]])
    with pytest.raises(InputError, match="empty"):
        Query.build([["a"], []], [["b"]])


def _swapped_best_aucs(x1, x2, n, seed):
    """concept_auc_pvalue's null, the slow way: relabel, then concept_direction on the relabelled pairs."""
    from debiasrag.metrics import concept_direction

    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        swap = rng.random(x1.shape[0]) < 0.5
        a, b = np.where(swap[:, None], x2, x1), np.where(swap[:, None], x1, x2)
        out.append(concept_direction(a, b).auc)
    return np.array(out)


def test_concept_auc_pvalue_is_the_share_of_relabellings_reaching_the_auc():
    """Best-of-n components on the fitted pairs passes 0.8 by chance (a new user's audit, session 46): the
    permutation p-value says whether the groups, not the fitting, separate the pairs."""
    from debiasrag.metrics import concept_auc_pvalue, concept_direction

    rng = np.random.default_rng(3)
    noise1, noise2 = rng.normal(size=(10, 16)), rng.normal(size=(10, 16))
    observed = concept_direction(noise1, noise2).auc
    slow = _swapped_best_aucs(noise1, noise2, 200, seed=5)
    assert concept_auc_pvalue(noise1, noise2, observed, n=200, seed=5) == pytest.approx(
        (1 + np.sum(slow >= observed - 1e-12)) / 201
    )
    assert concept_auc_pvalue(noise1, noise2, observed, n=200, seed=5) > 0.05  # no concept: not significant
    shift = np.zeros(16)
    shift[0] = 3.0  # group 2 sits apart along one axis: a concept
    group2 = noise1 + shift + 0.3 * rng.normal(size=(10, 16))
    real = concept_direction(noise1, group2)
    assert real.auc > 0.85
    assert concept_auc_pvalue(noise1, group2, real.auc, n=200) < 0.01


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((np.ones((3, 4)), np.ones((2, 4)), 0.9), "equal-shape"),
        ((np.ones((3, 4)), np.ones((3, 4)), 0.9), "all zero"),
        ((np.eye(3, 4), np.eye(3, 4)[::-1], 1.5), "auc must be a number from 0 to 1"),
    ],
)
def test_concept_auc_pvalue_refuses_bad_input(args, message):
    from debiasrag.metrics import concept_auc_pvalue

    with pytest.raises(InputError, match=message):
        concept_auc_pvalue(*args)
