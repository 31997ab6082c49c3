"""Shape of the protagonist triples (``debiasrag/data/groups/protagonist_triples.jsonl``) and their loader."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pytest

from debiasrag.datasets import load_protagonist_triples
from debiasrag.errors import InputError
from debiasrag.resources import read_jsonl

FIELDS = {"id", "base", "area", "text", "group", "split", "tricky"}
GROUPS = {"f": "female", "m": "male", "n": "neutral"}
TAGS = {
    "side-character",
    "side-character-majority",
    "name",
    "role-word",
    "possessive",
    "title",
    "plural-they",
    "generic-phrase",
    "ambiguous-capital",
    "no-person",
}


@pytest.fixture(scope="module")
def rows() -> list[dict[str, Any]]:
    return read_jsonl("groups", "protagonist_triples.jsonl")


@pytest.fixture(scope="module")
def bases(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        out[row["base"]].append(row)
    return out


def test_counts(rows: list[dict[str, Any]], bases: dict[str, list[dict[str, Any]]]) -> None:
    assert len(rows) == 300
    assert len({row["id"] for row in rows}) == 300
    assert len(bases) == 100


def test_fields_are_well_typed(rows: list[dict[str, Any]]) -> None:
    for row in rows:
        assert set(row) == FIELDS, row["id"]
        for key in FIELDS - {"tricky"}:
            assert isinstance(row[key], str) and row[key].strip() == row[key] and row[key], (row["id"], key)
        assert row["group"] in GROUPS.values()
        assert row["split"] in ("design", "report", "report2")
        assert isinstance(row["tricky"], list) and set(row["tricky"]) <= TAGS, row["id"]
        assert len(set(row["tricky"])) == len(row["tricky"])


def test_each_base_is_one_triple(bases: dict[str, list[dict[str, Any]]]) -> None:
    for base, triple in bases.items():
        assert sorted(row["id"] for row in triple) == [f"{base}-f", f"{base}-m", f"{base}-n"]
        shared = {(row["area"], row["split"], tuple(row["tricky"])) for row in triple}
        assert len(shared) == 1, base
        by_suffix = {row["id"][-1]: row for row in triple}
        if "no-person" in triple[0]["tricky"]:
            assert {row["group"] for row in triple} == {"neutral"}, base
        else:
            assert {s: row["group"] for s, row in by_suffix.items()} == GROUPS, base
            assert len({row["text"] for row in triple}) == 3, base


def test_split_sizes(bases: dict[str, list[dict[str, Any]]]) -> None:
    per_split = defaultdict(set)
    for base, triple in bases.items():
        per_split[triple[0]["split"]].add(base)
    assert {split: len(names) for split, names in per_split.items()} == {"design": 30, "report": 30, "report2": 40}


def test_report2_comes_after_the_first_sixty(rows: list[dict[str, Any]]) -> None:
    splits = [row["split"] for row in rows]
    assert splits[180:] == ["report2"] * 120
    assert "report2" not in splits[:180]
    assert [row["base"] for row in rows[180::3]] == [f"P{n}" for n in range(61, 101)]


def test_loader_and_split_filter(rows: list[dict[str, Any]]) -> None:
    everything = load_protagonist_triples()
    assert everything == [(row["text"], row["group"]) for row in rows]
    design = load_protagonist_triples("design")
    report = load_protagonist_triples("report")
    report2 = load_protagonist_triples("report2")
    assert len(design) == len(report) == 90
    assert len(report2) == 120
    assert design == [(row["text"], row["group"]) for row in rows if row["split"] == "design"]
    assert report == [(row["text"], row["group"]) for row in rows if row["split"] == "report"]
    assert report2 == [(row["text"], row["group"]) for row in rows if row["split"] == "report2"]
    assert len(design) + len(report) + len(report2) == len(everything)
    assert all(isinstance(text, str) and group in GROUPS.values() for text, group in everything)


def test_loader_rejects_unknown_split() -> None:
    with pytest.raises(InputError, match="split"):
        load_protagonist_triples("holdout")
