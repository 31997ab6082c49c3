from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_matches

from debiasrag.errors import InputError
from debiasrag.mitigate import MulticlassHardDebias, WordEmbeddings


def test_matches_wefe(glove_input, reference):
    settings = reference["settings"]
    pairs = settings["definitional_pairs"]
    mhd = MulticlassHardDebias(n_components=settings["mhd"]["n_components"])
    mhd.fit(glove_input, definitional_sets=pairs, equalize_sets=pairs)
    assert_matches(mhd.transform(glove_input, ignore=settings["gender_specific"]), reference, "MHD")


def test_three_class_sets_neutralize_the_whole_subspace():
    rng = np.random.default_rng(1)
    words = ["jew", "christian", "muslim", "judaism", "christianity", "islam", "table", "chair"]
    model = WordEmbeddings(words, rng.normal(size=(len(words), 6)))
    sets = [["jew", "christian", "muslim"], ["judaism", "christianity", "islam"]]
    mhd = MulticlassHardDebias(n_components=2).fit(model, definitional_sets=sets, equalize_sets=sets)
    out = mhd.transform(model)
    assert mhd.bias_subspace_.shape == (2, 6)
    for word in ("table", "chair"):
        np.testing.assert_allclose(mhd.bias_subspace_ @ out[word], 0, atol=1e-12)
    with pytest.raises(InputError, match="at least two"):
        MulticlassHardDebias().fit(model, definitional_sets=[["jew"]])
