"""Bad input to the metric functions (red-team round 5): one InputError naming the problem, never a finite score
from NaN vectors, a raw numpy / sklearn error, or a recall above 1 from a repeated document."""

from __future__ import annotations

import numpy as np
import pytest

from debiasrag.errors import InputError
from debiasrag.metrics import (
    concept_direction,
    ect,
    mac,
    projection_correlation,
    random_projection_pvalue,
    ripa,
    rnd,
    rnsb,
    scenario_test,
    weat,
    weat_counts,
    weat_pvalue,
)
from debiasrag.metrics.fairness import group_exposure, mean_report, nfairr, query_report, rank_bias, set_quality

RNG = np.random.default_rng(0)
T1, T2, A1, A2 = (RNG.standard_normal((4, 5)) for _ in range(4))


def _with_nan(x: np.ndarray) -> np.ndarray:
    x = x.copy()
    x[1, 2] = np.nan
    return x


@pytest.mark.parametrize(
    "call",
    [
        lambda t1: weat(t1, T2, A1, A2),
        lambda t1: weat_pvalue(t1, T2, A1, A2),
        lambda t1: weat_counts(t1, T2, A1, A2),
        lambda t1: ect(t1, T2, A1),
        lambda t1: rnd(t1, T2, A1),
        lambda t1: ripa(t1, T2, A1),
        lambda t1: rnsb(t1, T2, np.vstack([A1, A1 + 1]), np.vstack([A2, A2 - 1])),
        lambda t1: mac([t1], [A1]),
        lambda t1: concept_direction(t1, T2),
    ],
)
def test_nan_and_other_dimensions_are_refused(call):
    with pytest.raises(InputError, match="NaN or infinity"):
        call(_with_nan(T1))
    with pytest.raises(InputError, match="different dimensions|equal-shape"):
        call(RNG.standard_normal((4, 6)))


def test_concept_direction_with_infinity_names_it():
    x1 = T1.copy()
    x1[0, 0] = np.inf
    with pytest.raises(InputError, match="NaN or infinity"):
        concept_direction(x1, T2)


def test_projection_pvalue_refuses_nan_rho_and_bad_seed():
    labels = np.array([1.0, -1.0, 1.0, -1.0])
    with pytest.raises(InputError, match="rho"):
        random_projection_pvalue(A1, labels, float("nan"))
    with pytest.raises(InputError, match="seed"):
        random_projection_pvalue(A1, labels, 0.3, seed=-1)
    with pytest.raises(InputError, match="n must be"):
        random_projection_pvalue(A1, labels, 0.3, n=0)
    with pytest.raises(InputError, match="labels"):
        projection_correlation(A1, labels[:3], np.ones(5))
    with pytest.raises(InputError, match="different dimensions"):
        projection_correlation(A1, labels, np.ones(4))


def test_weat_options_are_checked():
    with pytest.raises(InputError, match="seed"):
        weat_pvalue(T1, T2, A1, A2, max_exact=0, seed=-1)
    with pytest.raises(InputError, match="n_samples"):
        weat_pvalue(T1, T2, A1, A2, max_exact=0, n_samples=2.5)
    with pytest.raises(InputError, match="ddof"):
        weat(T1, T2, A1, A2, ddof=-1)
    with pytest.raises(InputError, match="array of numbers"):
        weat(np.array([["a", "b"]]), T2, A1, A2)
    with pytest.raises(InputError, match="list of target sets"):
        mac(T1, A1)
    with pytest.raises(InputError, match="lack k2"):
        scenario_test("negative", {"k1": 1, "n1": 4, "n": 8})


def test_a_repeated_document_is_refused_not_counted_twice():
    groups = {"d1": "male", "d2": "female", "d3": "neutral"}
    with pytest.raises(InputError, match="'d1' twice"):
        group_exposure(["d1", "d2", "d1"], groups)
    with pytest.raises(InputError, match="'d1' twice"):
        query_report(["d1", "d2", "d1"], groups, {"d1", "d2"}, cutoff=3)
    with pytest.raises(InputError, match="returned twice"):
        set_quality([True, True, True], 1)
    with pytest.raises(InputError, match="no group for document 'd9'"):
        query_report(["d1", "d9"], groups, {"d1"}, cutoff=2)


def test_nfairr_background_holds_the_returned_documents():
    groups = {"d1": "neutral", "d2": "neutral", "d3": "neutral", "d4": "male"}
    # a background without the (all neutral) returned list: the ideal is the list itself, not a male document
    report = query_report(["d1", "d2", "d3"], groups, {"d1"}, cutoff=3, background=["d4"])
    assert report["nfairr"] == pytest.approx(1.0)
    with pytest.raises(InputError, match=r"\[-1, 1\]"):
        nfairr([1.0, 1.0], [-2.0, 1.0], 2)
    from debiasrag.metrics.fairness import document_neutrality

    omega = document_neutrality([1, 0, 1], [0, 1, 1], portion=0.3)  # eq. 1 at another portion: -0.4 for a woman's
    assert nfairr(omega, omega, 3)["nfairr"] > 0


def test_rank_bias_checks_lengths_before_the_cutoff_and_the_cutoff_type():
    with pytest.raises(InputError, match="one length"):
        rank_bias([1, 0, 0, 1, 0], [0, 1, 0], cutoff=2)
    with pytest.raises(InputError, match="cutoff"):
        rank_bias([1, 0], [0, 1], cutoff=2.5)
    with pytest.raises(InputError, match=">= 0"):
        rank_bias([1, -1], [0, 1], cutoff=2)


def test_mean_report_refuses_rows_of_different_kinds():
    with pytest.raises(InputError, match="different metrics"):
        mean_report([{"recall": 1.0}, {"precision": 1.0}])


def test_word_sets_given_as_one_string_are_refused_not_read_letter_by_letter():
    from debiasrag.metrics import Query, check_word_sets

    query = Query.build([["she", "woman"], ["he", "man"]], [["nurse"], ["engineer"]])
    with pytest.raises(InputError, match="definition: expected a list of words"):
        check_word_sets(query, "she", on_leak="ignore")
    with pytest.raises(InputError, match="target set 1: expected a list of words"):
        Query.build(["she", "he"], [["nurse"]])
    with pytest.raises(InputError, match="target_names needs two names"):
        Query.build([["a"], ["b"]], [["c"]], target_names=["F"])
    # blanks and case are read alike by both checkers
    assert check_word_sets(query, [" She "], on_leak="ignore").leaks == {"definition words scored as targets": ["she"]}
