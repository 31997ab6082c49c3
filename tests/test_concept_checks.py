"""Concept files whose word lists overlap or repeat (session 46, user3 finding 3): each problem warns with a
``DebiasragWarning`` naming the words; a pair of one word and an empty WEAT set are errors; the bundled concepts load
without a warning. No model is loaded here."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import pytest

from debiasrag.concepts import Concept, available_concepts, load_concept, word_list_problems
from debiasrag.errors import DebiasragWarning, InputError

TEMPLATE = "A person who is {attribute}."


def urban(**changes) -> dict:
    """A clean concept of one's own; ``changes`` replace fields."""
    data = {
        "name": "urban",
        "groups": ["urban", "rural"],
        "variants": {"urban": "This person lives in a city.", "rural": "This person lives in the countryside."},
        "debiasing": "Where this person lives is unknown.",
        "pairs": [["city", "village"], ["downtown", "countryside"], ["skyscraper", "barn"]],
        "attributes": {"busy": 0.8, "calm": 0.2, "trendy": 0.9},
        "templates": {s: TEMPLATE for s in ("neutral", "debiasing", "positive", "negative")},
        "weat": {
            "T1": ["city", "downtown", "skyscraper"],
            "T2": ["village", "countryside", "barn"],
            "A1": ["busy", "trendy"],
            "A2": ["calm", "quiet"],
        },
    }
    data.update(changes)
    return data


def write(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / "urban.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def messages_of_load(path: Path) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_concept(path)
    assert all(w.category is DebiasragWarning for w in caught), [w.category for w in caught]
    return [str(w.message) for w in caught]


def test_a_clean_concept_of_ones_own_loads_without_a_warning(tmp_path):
    path = write(tmp_path, urban())
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        concept = load_concept(path)
    assert concept.pairs[0] == ("city", "village")
    assert word_list_problems(concept) == []


@pytest.mark.parametrize(
    ("changes", "fragments"),
    [
        (  # the same two words, once each way: a word of both groups
            {"pairs": [["skyscraper", "barn"], ["Barn", "skyscraper"], ["city", "village"]]},
            [
                "'pairs' list barn, skyscraper for both groups (urban and rural): the group detector reads such a "
                "word as evidence of neither group"
            ],
        ),
        (
            {"pairs": [["city", "village"], ["downtown", "countryside"], ["city", "village"]]},
            ["'pairs' repeats [city, village] (2×)"],
        ),
        (
            {"weat": {**urban()["weat"], "T1": ["city", "downtown", "City", "city"]}},
            ["'weat' set 'T1' repeats city (3×)"],
        ),
        (
            {"weat": {**urban()["weat"], "A2": ["calm", "busy"]}},
            ["'weat' sets A1 and A2 share busy"],
        ),
        (  # seed 003: words that learn the direction must not be scored on it
            {"attributes": {"busy": 0.8, "calm": 0.2, "village": 0.1, "city": 0.9}},
            ["'attributes' holds pair words city, village: words that learn the concept direction must not be scored"],
        ),
        (
            {"weat": {**urban()["weat"], "A1": ["busy", "downtown"]}},
            ["'weat' A1 / A2 hold pair words downtown", "'weat' A1 / A2 hold WEAT target (T1 / T2) words downtown"],
        ),
    ],
    ids=[
        "word-in-both-groups",
        "repeated-pair",
        "repeated-weat-word",
        "weat-sets-share",
        "attribute-is-pair-word",
        "weat-attribute-is-target",
    ],
)
def test_each_problem_warns_naming_the_file_and_the_words(tmp_path, changes, fragments):
    path = write(tmp_path, urban(**changes))
    messages = messages_of_load(path)
    assert messages, "no warning"
    assert all(m.startswith(f"{path}: ") for m in messages), messages
    for fragment in fragments:
        assert any(fragment in m for m in messages), (fragment, messages)
    assert len(messages) == len(fragments)  # one warning per problem (each fragment is in one), no other


def test_from_dict_warns_too():
    with pytest.warns(DebiasragWarning, match=r"my concept: 'pairs' repeats \[city, village\] \(2×\)"):
        Concept.from_dict(urban(pairs=[["city", "village"], ["city", "village"]]), source="my concept")


@pytest.mark.parametrize(
    ("changes", "fragment"),
    [
        (
            {"pairs": [["city", "village"], ["city", "city"]]},
            "'pairs' item 2 ['city', 'city'] holds the same word twice",
        ),
        ({"pairs": [["Barn", " barn"]]}, "'pairs' item 1 ['Barn', ' barn'] holds the same word twice"),
        ({"weat": {**urban()["weat"], "A2": []}}, "'weat' set 'A2' is empty"),
    ],
)
def test_a_pair_of_one_word_and_an_empty_weat_set_are_errors(tmp_path, changes, fragment):
    path = write(tmp_path, urban(**changes))
    with pytest.raises(InputError) as caught:
        load_concept(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and fragment in message and "\n" not in message, message


@pytest.mark.parametrize("name", ["gender", "age", "wealth"])
def test_bundled_concepts_load_without_a_warning(name):
    assert name in available_concepts()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        load_concept(name)


def test_the_bundled_lists_repeat_only_the_words_seed_000_repeats():
    """Seed 000 Appendix A.3 prints age T2 with youthful and grandchild twice and wealth T2 with eight repeated words
    (the right-hand words of its Table 5 pairs); they are kept as printed, and nothing else in the bundled lists
    overlaps or leaks (the seed-003 check included)."""
    problems = {name: word_list_problems(load_concept(name)) for name in ("gender", "age", "wealth")}
    assert problems["gender"] == []
    assert problems["age"] == [
        "'weat' set 'T2' repeats youthful (2×), grandchild (2×): a repeated word counts once for each time it is listed"
    ]
    assert problems["wealth"] == [
        "'weat' set 'T2' repeats affluent (2×), prosperous (2×), opulent (3×), luxurious (2×), flush (2×), "
        "abundant (2×), ample (4×), plush (2×): a repeated word counts once for each time it is listed"
    ]


def test_the_same_words_as_a_file_of_ones_own_warn(tmp_path):
    """Only the bundled concept, loaded by name, is quiet about the seed's repeats: a copy of it is a user's file."""
    from debiasrag.resources import data_file

    copy = tmp_path / "wealth.json"
    copy.write_text(data_file("concepts", "wealth.json").read_text(encoding="utf-8"), encoding="utf-8")
    messages = messages_of_load(copy)
    assert len(messages) == 1 and "'weat' set 'T2' repeats affluent (2×)" in messages[0], messages


def test_the_command_line_prints_each_problem_as_a_warning_line(tmp_path, run_cli, one_line_error):
    """Before any model loads: the warnings of the first file, then two concepts of one name refused."""
    leaky = write(tmp_path, urban(attributes={"busy": 0.8, "calm": 0.2, "city": 0.9}))
    other = tmp_path / "other.json"
    other.write_text(json.dumps(urban(debiasing="Nobody knows where this person lives.")), encoding="utf-8")
    result = run_cli("bench", "weat", "--concept", leaky, "--concept", other, "--json")
    one_line_error(result, f"--concept {leaky} and --concept {other} are two concepts named 'urban'")
    warning_lines = [line for line in result.stderr.splitlines() if line.startswith("warning: ")]
    assert warning_lines == [
        f"warning: {leaky}: 'attributes' holds pair words city: words that learn the concept "
        "direction must not be scored on it (seed 003 Table 3)"
    ]
    assert result.stdout == ""
