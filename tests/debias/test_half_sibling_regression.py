from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_matches

from debiasrag.errors import InputError
from debiasrag.mitigate import HalfSiblingRegression, WordEmbeddings


def test_matches_wefe(glove_input, reference):
    settings = reference["settings"]
    words = [w for p in settings["definitional_pairs"] for w in p]
    hsr = HalfSiblingRegression(alpha=settings["hsr"]["alpha"]).fit(glove_input, definitional_words=words)
    assert_matches(hsr.transform(glove_input, ignore=settings["gender_specific"]), reference, "HSR")


def test_removes_the_ridge_prediction():
    rng = np.random.default_rng(0)
    vectors = rng.normal(size=(6, 4))
    model = WordEmbeddings(list("abcdef"), vectors)
    hsr = HalfSiblingRegression(alpha=2.0).fit(model, definitional_words=["a", "b"])
    out = hsr.transform(model)
    bias = vectors[:2].T
    weights = np.linalg.solve(bias.T @ bias + 2.0 * np.eye(2), bias.T @ vectors[2])
    np.testing.assert_allclose(out["c"], vectors[2] - bias @ weights, atol=1e-12)
    np.testing.assert_array_equal(out["a"], vectors[0])  # definitional words stay as they are
    with pytest.raises(InputError, match="alpha"):
        HalfSiblingRegression(alpha=-1).fit(model, definitional_words=["a"])
    with pytest.raises(InputError, match="none is in"):
        HalfSiblingRegression().fit(model, definitional_words=["zz"])
