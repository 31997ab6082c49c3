"""Fairness metrics on small cases computed by hand (values in the comments)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from debiasrag.errors import InputError
from debiasrag.metrics.fairness import (
    attention,
    document_neutrality,
    group_counts,
    group_exposure,
    label_magnitudes,
    mean_report,
    nfairr,
    oracle_cut,
    query_report,
    rank_bias,
    set_quality,
)


def test_set_quality_counts_hits_over_relevant_and_returned():
    # 2 of 3 returned are relevant, the query has 4 relevant: R = 1/2, P = 2/3, F1 = 2PR/(P+R) = 4/7
    scores = set_quality([True, False, True], 4)
    assert scores["recall"] == pytest.approx(0.5)
    assert scores["precision"] == pytest.approx(2 / 3)
    assert scores["f1"] == pytest.approx(4 / 7)
    assert set_quality([], 3) == {"recall": 0.0, "precision": 0.0, "f1": 0.0, "returned": 0.0}


def test_oracle_cut_picks_the_prefix_with_best_f1():
    # F1@k = 2·hits/(k + 3): k=1 .5, k=2 .4, k=3 .667, k=4 .571, k=5 .75, k=6 .667 → k = 5
    best = oracle_cut([True, False, True, False, True, False], 3)
    assert best == {"oracle_f1": pytest.approx(0.75), "oracle_k": 5.0, "oracle_recall": 1.0, "oracle_precision": 0.6}
    # ties go to the shorter cut: [T, F] with 1 relevant → k = 1 (F1 1.0)
    assert oracle_cut([True, False], 1)["oracle_k"] == 1.0


def test_group_counts_signed_and_absolute_difference():
    counts = group_counts(["male", "male", "female", "neutral", "male"])
    assert counts["count_male"] == 3 and counts["count_female"] == 1 and counts["count_neutral"] == 1
    assert counts["female_minus_male"] == -2 and counts["abs_female_minus_male"] == 2


def test_rank_bias_male_on_top_is_positive():
    # ranks: male, female, neutral. RaB@1 = 1-0, RaB@2 = .5-.5, RaB@3 = 1/3-1/3 → RaB@3 = 0, ARaB@3 = 1/3
    female, male = label_magnitudes(["male", "female", "neutral"])
    bias = rank_bias(female, male, 3)
    assert bias["rab"] == pytest.approx(0.0)
    assert bias["arab"] == pytest.approx(1 / 3)
    # swapping the genders flips the sign
    assert rank_bias(male, female, 3)["arab"] == pytest.approx(-1 / 3)
    # the cutoff truncates: at t = 1 only the male document counts
    assert rank_bias(female, male, 1) == {"rab": 1.0, "arab": 1.0, "arab_female": 0.0, "arab_male": 1.0}


def test_rank_bias_matches_the_authors_worked_example():
    # GenderBias_IR step 2 test list (female, male magnitudes per rank): female 3 at rank 2, male 5 at rank 8 and
    # 2 at rank 10. RaB@10 = 7/10 - 3/10 = 0.4. ARaB@10 female part = mean(0, 3/2, 3/3, …, 3/10).
    female = [0, 3, 0, 0, 0, 0, 0, 0, 0, 0]
    male = [0, 0, 0, 0, 0, 0, 0, 5, 0, 2]
    female_part = (0 + 3 / 2 + 3 / 3 + 3 / 4 + 3 / 5 + 3 / 6 + 3 / 7 + 3 / 8 + 3 / 9 + 3 / 10) / 10
    male_part = (5 / 8 + 5 / 9 + 7 / 10) / 10
    bias = rank_bias(female, male, 10)
    assert bias["rab"] == pytest.approx(0.4)
    assert bias["arab"] == pytest.approx(male_part - female_part)


def test_document_neutrality_labels_and_threshold():
    # female only / male only → 0, no evidence → 1, balanced → 1, 3:1 → 1 - .25 - .25 = .5
    omega = document_neutrality([1, 0, 0, 2, 3], [0, 1, 0, 2, 1])
    assert omega.tolist() == pytest.approx([0.0, 0.0, 1.0, 1.0, 0.5])
    # the authors' threshold 1 ignores a single gendered word
    assert document_neutrality([1, 0], [0, 1], threshold=1).tolist() == [1.0, 1.0]


def test_nfairr_normalises_by_the_ideal_background_order():
    # returned ω = [0, 1]: FaiRR@2 = 0/log2 2 + 1/log2 3; ideal from [0, 1, 1, 0] = 1 + 1/log2 3
    scores = nfairr([0.0, 1.0], [0.0, 1.0, 1.0, 0.0], 2)
    assert scores["fairr"] == pytest.approx(1 / math.log2(3))
    assert scores["ideal_fairr"] == pytest.approx(1 + 1 / math.log2(3))
    assert scores["nfairr"] == pytest.approx((1 / math.log2(3)) / (1 + 1 / math.log2(3)))
    assert nfairr([1.0, 1.0], [1.0, 1.0, 0.0], 2)["nfairr"] == pytest.approx(1.0)
    assert nfairr([0.0], [0.0, 0.0], 2)["nfairr"] == 0.0


def test_group_exposure_uses_log_attention_and_zero_for_missing():
    # a at rank 1 → 1, b at rank 3 → 1/log2 4 = .5, c not returned → 0: female 1, male (.5 + 0)/2 = .25
    exposure = group_exposure(["a", "x", "b"], {"a": "female", "b": "male", "c": "male"})
    assert exposure["exposure_female"] == pytest.approx(1.0)
    assert exposure["exposure_male"] == pytest.approx(0.25)
    assert math.isnan(exposure["exposure_neutral"])  # no neutral pool document: undefined, not 0
    assert exposure["exposure_disparity"] == pytest.approx(0.75)
    assert attention(3).tolist() == pytest.approx([1.0, 1 / math.log2(3), 0.5])


def test_query_report_and_mean_report():
    groups = {"f1": "female", "m1": "male", "n1": "neutral", "f2": "female", "m2": "male", "n2": "neutral"}
    relevant = {"f1", "m1", "n1"}
    report = query_report(["m1", "f2", "n1"], groups, relevant, cutoff=3)
    assert report["recall"] == pytest.approx(2 / 3) and report["precision"] == pytest.approx(2 / 3)
    assert report["female_minus_male"] == 0.0
    assert report["arab"] == pytest.approx(1 / 3)  # male first, female second, as in the rank-bias case
    # ω = [0, 0, 1] → FaiRR = .5; ideal over the 6 documents: the two neutral ones first, then 0
    assert report["nfairr"] == pytest.approx(0.5 / (1 + 1 / math.log2(3)))
    assert report["exposure_female"] == 0.0 and report["exposure_male"] == pytest.approx(1.0)
    other = query_report(["f1"], groups, relevant, cutoff=3)
    mean = mean_report([report, other])
    assert mean["arab"] == pytest.approx((1 / 3 - 1) / 2)
    assert mean["abs_arab"] == pytest.approx((1 / 3 + 1) / 2)
    assert np.isclose(mean["recall"], (2 / 3 + 1 / 3) / 2)


def test_bad_inputs_are_input_errors():
    with pytest.raises(InputError, match="unknown group"):
        group_counts(["female", "woman"])
    with pytest.raises(InputError):
        set_quality([True], 0)
    with pytest.raises(InputError):
        rank_bias([1.0], [0.0], 0)
    with pytest.raises(InputError):
        mean_report([])
