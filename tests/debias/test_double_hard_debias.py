from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_matches

from debiasrag.errors import InputError
from debiasrag.mitigate import DoubleHardDebias, WordEmbeddings


def _fit(glove_input, settings, random_state=0):
    dhd = DoubleHardDebias(
        n_words=settings["dhd"]["n_words"], n_components=settings["dhd"]["n_components"], random_state=random_state
    )
    return dhd.fit(
        glove_input,
        definitional_pairs=settings["definitional_pairs"],
        bias_representation=settings["dhd"]["bias_representation"],
    )


def _specific(settings: dict) -> list[str]:
    return [*{w for p in settings["definitional_pairs"] for w in p}, *settings["gender_specific"]]


def test_matches_wefe(glove_input, reference):
    settings = reference["settings"]
    dhd = _fit(glove_input, settings)
    words, _, _ = dhd.select(glove_input, ignore=_specific(settings))
    assert words == [str(w) for w in reference["DHD_words"]]
    assert_matches(dhd.transform(glove_input, ignore=_specific(settings)), reference, "DHD")


def test_only_selected_words_change_and_seed_is_explicit(glove_input, reference):
    settings = reference["settings"]
    dhd = _fit(glove_input, settings)
    words, component, scores = dhd.select(glove_input, ignore=_specific(settings))
    out = dhd.transform(glove_input, ignore=_specific(settings))
    changed = {glove_input.words[i] for i in np.flatnonzero(np.any(out.vectors != glove_input.vectors, axis=1))}
    assert changed == set(words)
    assert len(scores) == settings["dhd"]["n_components"] and scores[component] == min(scores)
    again = _fit(glove_input, settings).transform(glove_input, ignore=_specific(settings))
    np.testing.assert_array_equal(out.vectors, again.vectors)  # same random_state, same result


def test_bad_input(glove_input):
    with pytest.raises(InputError, match="'qqqzz' is not in the vocabulary"):
        DoubleHardDebias().fit(glove_input, definitional_pairs=[["she", "he"]], bias_representation=["he", "qqqzz"])
    dhd = DoubleHardDebias(n_words=5000).fit(glove_input, definitional_pairs=[["she", "he"]])
    with pytest.raises(InputError, match="n_words"):
        dhd.transform(glove_input)


def test_component_follows_the_data_not_the_seed():
    # one k-means run (sklearn >= 1.4's default) chose components 0, 1, 2, 1, 2, 1 for seeds 0-5 here (red-team)
    from debiasrag.mitigate.apply import default_sets

    glove = WordEmbeddings.from_glove(limit=3000)
    pairs = [p for p in default_sets().definitional if all(w in glove for w in p)]
    chosen = {
        DoubleHardDebias(n_words=50, random_state=seed).fit(glove, definitional_pairs=pairs).select(glove)[1]
        for seed in range(6)
    }
    assert len(chosen) == 1
