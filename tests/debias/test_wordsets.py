"""Seed 003's word sets (Table 2), overlap rules (Table 3) and overlap sizes (Table 1)."""

from __future__ import annotations

import pytest

from debiasrag.errors import InputError
from debiasrag.mitigate.wordsets import (
    bolukbasi_gender_specific,
    check_overlap,
    flatten,
    overlap_table,
    seed003_wordsets,
)


def test_table2_split_is_24_pairs_half_definition_half_target_without_repeats():
    data = seed003_wordsets()
    table2 = data["table2_pairs"]
    assert len(table2) == 24 and len(flatten(table2)) == 48
    definition, target = data["bias_definition_pairs"], data["target_pairs"]
    assert len(definition) == len(target) == 12
    assert sorted(map(tuple, definition + target)) == sorted(map(tuple, table2))
    assert not set(flatten(definition)) & set(flatten(target))


def test_appendix_pairs_make_table2():
    data = seed003_wordsets()
    sources = {tuple(p) for key in ("garg_pairs", "dictionary_pairs") for p in data[key]}
    sources |= {(a.lower(), b.lower()) for a, b in data["bolukbasi_definitional_pairs"]}
    assert {tuple(p) for p in data["table2_pairs"]} <= sources


def test_table1_cells_computable_from_the_published_lists():
    """Baseline sets of §5.1: targets = Garg et al.'s 20 pairs, bias definition = Bolukbasi's 10 pairs ∪ Garg's,
    gender-specific = Bolukbasi's published list; the objective is counted as |GloVe vocabulary| - |list|."""
    data, table1 = seed003_wordsets(), seed003_wordsets()["table1"]
    target = flatten(data["garg_pairs"])
    definition = flatten(data["bolukbasi_definitional_pairs"] + data["garg_pairs"])
    specific = set(bolukbasi_gender_specific()) | set(definition)
    table = overlap_table({"bias_definition": definition, "gender_specific": specific}, {"target": target})
    assert table["sizes"]["target"] == table1["sizes"]["target"] == 40
    assert table["sizes"]["bias_definition"] == table1["sizes"]["bias_definition"] == 44
    assert table["bias_definition"]["target"] == table1["overlaps"]["bias_definition"]["target"] == 40
    assert table["gender_specific"]["target"] == table1["overlaps"]["gender_specific"]["target"] == 40
    assert 400_000 - len(bolukbasi_gender_specific()) == table1["sizes"]["objective"]
    # Not reproduced: the paper's gender-specific set has 1,449 words, Bolukbasi's list (with the definition words,
    # which it mostly holds) has this many; the attribute column needs WEFE's gender-query attribute union (6,894).
    assert table["sizes"]["gender_specific"] == 1443 != table1["sizes"]["gender_specific"]


def test_proposed_sets_obey_table3_and_leaks_are_refused_or_warned():
    data = seed003_wordsets()
    definition, target = flatten(data["bias_definition_pairs"]), flatten(data["target_pairs"])
    specific = set(target) | set(definition) | {"beard", "maid"}
    attributes = ["nurse", "engineer", "poetry"]
    ok = check_overlap(target=target, attributes=attributes, bias_definition=definition, gender_specific=specific)
    assert ok.ok
    with pytest.raises(InputError, match="attributes inside gender_specific: maid"):
        check_overlap(
            target=target, attributes=[*attributes, "maid"], bias_definition=definition, gender_specific=specific
        )
    with pytest.raises(InputError, match="target inside bias_definition: she"):
        check_overlap(
            target=[*target, "she"], attributes=attributes, bias_definition=definition, gender_specific=specific
        )
    with pytest.warns(UserWarning, match="target outside gender_specific: queen"):
        report = check_overlap(
            target=target,
            attributes=attributes,
            bias_definition=definition,
            gender_specific=specific - {"queen"},
            on_leak="warn",
        )
    assert report.leaks == {"target outside gender_specific": ["queen"], "target inside objective": ["queen"]}
    with pytest.raises(InputError, match="on_leak"):
        check_overlap(
            target=target, attributes=attributes, bias_definition=definition, gender_specific=specific, on_leak="maybe"
        )
