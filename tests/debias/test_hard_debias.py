from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_matches

from debiasrag.errors import InputError
from debiasrag.mitigate import HardDebias, WordEmbeddings


def _specific(settings: dict) -> list[str]:
    return [*{w for p in settings["definitional_pairs"] for w in p}, *settings["gender_specific"]]


def test_matches_wefe(glove_input, reference):
    settings = reference["settings"]
    result = HardDebias().fit(glove_input, definitional_pairs=settings["definitional_pairs"])
    assert_matches(result.transform(glove_input, ignore=_specific(settings)), reference, "HD")


def test_neutralized_words_have_no_bias_component_and_equalized_pairs_are_symmetric(glove_input, reference):
    settings = reference["settings"]
    hd = HardDebias().fit(glove_input, definitional_pairs=settings["definitional_pairs"])
    out = hd.transform(glove_input, ignore=_specific(settings))
    d = hd.bias_direction_
    assert abs(out["nurse"] @ d) < 1e-6 and abs(out["engineer"] @ d) < 1e-6
    she, he = out["she"].astype(np.float64), out["he"].astype(np.float64)
    assert she @ d == pytest.approx(-(he @ d), abs=1e-6)  # equalize: mirror images across the direction
    assert np.linalg.norm(she - (she @ d) * d - (he - (he @ d) * d)) < 1e-6
    assert abs(she @ d) > 0.1  # the pair still differs along the direction


def test_reverse_normalization_restores_lengths_and_input_is_untouched(glove_input, reference):
    before = glove_input.vectors.copy()
    hd = HardDebias(normalization="reverse").fit(
        glove_input, definitional_pairs=reference["settings"]["definitional_pairs"]
    )
    out = hd.transform(glove_input)
    np.testing.assert_allclose(np.linalg.norm(out.vectors, axis=1), np.linalg.norm(before, axis=1), rtol=1e-5)
    np.testing.assert_array_equal(glove_input.vectors, before)
    kept = HardDebias().fit(glove_input, definitional_pairs=reference["settings"]["definitional_pairs"])
    np.testing.assert_allclose(np.linalg.norm(kept.transform(glove_input).vectors, axis=1), 1.0, rtol=1e-5)


def test_copy_false_mutates_in_place():
    model = WordEmbeddings(["a", "b", "c", "d"], np.eye(4, dtype=np.float64) + 0.1)
    hd = HardDebias(n_components=1).fit(model, definitional_pairs=[["a", "b"]])
    out = hd.transform(model, target=["c"], copy=False)
    assert out is model
    assert abs(model["c"] @ hd.bias_direction_) < 1e-12


def test_bad_input():
    model = WordEmbeddings(["a", "b"], np.eye(2))
    with pytest.raises(InputError, match="before fit"):
        HardDebias().transform(model)
    with pytest.raises(InputError, match="fully in the vocabulary"):
        HardDebias().fit(model, definitional_pairs=[["a", "zzz"]])
    with pytest.raises(InputError, match="expected 2"):
        HardDebias().fit(model, definitional_pairs=[["a", "b", "a"]])
    with pytest.raises(InputError, match="normalization"):
        HardDebias(normalization="sometimes").fit(model, definitional_pairs=[["a", "b"]])
    with pytest.raises(InputError, match="WordEmbeddings"):
        HardDebias().fit({"a": np.ones(2)}, definitional_pairs=[["a", "b"]])
    with pytest.raises(InputError, match="twice"):
        WordEmbeddings(["a", "a"], np.eye(2))


def test_hand_computed_direction_neutralize_and_weat_zero():
    # pair (1,1,0)/(-1,1,0): unit members centred on their mean are ±(1/√2, 0, 0) -> direction ±e0
    model = WordEmbeddings(["a", "b", "x", "g"], np.array([[1.0, 1, 0], [-1, 1, 0], [3, 4, 0], [1, 0, 1]]))
    hd = HardDebias(normalization="reverse").fit(model, definitional_pairs=[["a", "b"]], equalize_pairs=[])
    np.testing.assert_allclose(np.abs(hd.bias_direction_), [1.0, 0.0, 0.0], atol=1e-12)
    out = hd.transform(model, target=["x"])
    np.testing.assert_allclose(out["x"], [0.0, 5.0, 0.0], atol=1e-12)  # e0 removed, length 5 restored
    np.testing.assert_allclose(out["g"], model["g"], atol=1e-12)  # not a target: only normalised and restored
    kept = HardDebias().fit(model, definitional_pairs=[["a", "b"]], equalize_pairs=[]).transform(model, target=["x"])
    np.testing.assert_allclose(kept["x"], [0.0, 1.0, 0.0], atol=1e-12)


def test_weat_is_zero_after_neutralizing_along_the_only_bias_axis():
    from debiasrag.metrics import weat

    model = WordEmbeddings(["t1", "t2", "a1", "a2"], np.array([[1.0, 1.0], [-1.0, 1.0], [0.9, 0.5], [-0.2, 1.0]]))
    assert weat(model.vectors[:1], model.vectors[1:2], model.vectors[2:3], model.vectors[3:])["weat"] > 0.1
    out = (
        HardDebias()
        .fit(model, definitional_pairs=[["t1", "t2"]], equalize_pairs=[])
        .transform(model, target=["a1", "a2"])
    )
    v = out.vectors
    assert weat(model.vectors[:1], model.vectors[1:2], v[2:3], v[3:])["weat"] == pytest.approx(0.0, abs=1e-12)
