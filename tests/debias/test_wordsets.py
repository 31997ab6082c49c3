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
    gender-specific = Bolukbasi's published list ∪ Table 2's 48 words (1,441 + 8 = 1,449: the only reading of the
    lists we found that gives the paper's size), objective = the 400,000-word GloVe vocabulary minus the 1,441
    words of the list as published (398,559; the paper subtracts the list, not its 432 words GloVe has).

    Reproduced exactly: all five sizes but the attributes' and the whole Target column (40 / 40 / 0). Not
    reproduced: the Attributes column (6,894 words; 6,500 / 0 / 5) needs WEFE's full gender-query attribute union,
    which is not published as a list; Bing Liu's lexicon (WEFE's copy) ∪ our bundled gender attribute sets gives
    6,901 words and a 5-word overlap with gender-specific, but with 'miss' where the paper names 'maid'."""
    data, table1 = seed003_wordsets(), seed003_wordsets()["table1"]
    target = flatten(data["garg_pairs"])
    definition = flatten(data["bolukbasi_definitional_pairs"] + data["garg_pairs"])
    specific = set(bolukbasi_gender_specific()) | set(flatten(data["table2_pairs"]))
    vocabulary_size = 400_000  # GloVe 6B
    objective_size = vocabulary_size - len(bolukbasi_gender_specific())
    table = overlap_table({"bias_definition": definition, "gender_specific": specific}, {"target": target})
    for name in ("target", "bias_definition", "gender_specific"):
        assert table["sizes"][name] == table1["sizes"][name], name
    assert objective_size == table1["sizes"]["objective"] == 398_559
    assert table["bias_definition"]["target"] == table1["overlaps"]["bias_definition"]["target"] == 40
    assert table["gender_specific"]["target"] == table1["overlaps"]["gender_specific"]["target"] == 40
    objective_target = [w for w in target if w not in specific]  # objective = vocabulary minus gender-specific
    assert len(objective_target) == table1["overlaps"]["objective"]["target"] == 0
    assert len(specific) == 1449 and len(set(bolukbasi_gender_specific()) | set(definition)) == 1443


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
