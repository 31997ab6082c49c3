"""Gender swap, round 2: what a new user's walkthrough (session 46, findings 10, 11, 12, 17) found swapped that names no
one: code, words that are also given names, family names, firms and titles. Real spaCy pipeline, real CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from debiasrag.cli import main
from debiasrag.counterfactual.gender_swap import GenderSwapper


@pytest.fixture(scope="module")
def swapper() -> GenderSwapper:
    return GenderSwapper()


def test_code_is_left_as_it_is_and_the_prose_around_it_swapped(swapper: GenderSwapper) -> None:
    """A SQL literal in a fenced block ("last_name = 'Grant'") and a string in inline code were swapped; the code is
    found as the anonymizer finds it (debiasrag/anonymize/code_lines.py)."""
    fenced = "```sql\nSELECT * FROM staff WHERE last_name = 'Grant';\n```\nShe ran it for Mary."
    assert swapper.swap(fenced) == "```sql\nSELECT * FROM staff WHERE last_name = 'Grant';\n```\nHe ran it for David."
    js = "```js\nconst author = 'Grace Hopper'; // she wrote it\n```\nGrace Hopper wrote the first compiler."
    assert (
        swapper.swap(js)
        == "```js\nconst author = 'Grace Hopper'; // he wrote it\n```\nArmando Hopper wrote the first compiler."
    )
    assert swapper.swap("Set `author = 'Grace Hopper'` and ask her.") == "Set `author = 'Grace Hopper'` and ask him."
    # one prose line with a sign of code is still prose: its names are people's
    line = "SDK v1.4: new client.retry(max_attempts=5); thanks Tamar Cohen for the design doc."
    assert swapper.swap(line) == "SDK v1.4: new client.retry(max_attempts=5); thanks Saleem Cohen for the design doc."


def test_a_name_that_is_a_word_opening_a_clause_or_cell_stays_a_word(swapper: GenderSwapper) -> None:
    """ "Dawn broke" gave "Keith broke", "Grant funding" "Tracey funding", a table's "| Max |" "| Renee |"."""
    for text in (
        "Dawn broke over the harbour as the ferry left.",
        "Bill the client for the extra hours.",
        "Frank feedback is encouraged in retrospectives.",
        "Sue the manufacturer? Most owners settle.",
        "| Band | Min | Max |\n|---|---|---|\n| L1 | 40k | 55k |",
    ):
        assert swapper.swap(text) == text
    assert swapper.swap("Grant funding for women-led startups fell.") == "Grant funding for men-led startups fell."
    # read as a person: a surname, a reporting word, an address, a name joined to it, a speaker's label
    assert swapper.swap("Grant Hill said he would retire.") == "Tracey Hill said she would retire."
    assert swapper.swap("Grant said he would retire.") == "Tracey said she would retire."
    assert swapper.swap("Max, can you review this?") == "Renee, can you review this?"
    assert swapper.swap("Volunteers: Rose, Mark and Bill.") == "Volunteers: Jerry, Amanda and Liz."
    assert swapper.swap("RUBY: anyone got the notes?") == "PHIL: anyone got the notes?"
    assert swapper.swap("Patrick is going to the supermarket.") == "Hannah is going to the supermarket."


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "The query returns every employee whose surname is Grant.",
            "The query returns every employee whose surname is Grant.",
        ),
        ("Ulysses S. Grant was the 18th US president.", "Sabine S. Grant was the 18th US president."),
        ("Director Guillermo del Toro said he would.", "Director Jen del Toro said she would."),
        ("Pt Abdul Rahman bin Yusuf, hypoglycaemia episode.", "Pt Abdul Rahman bin Yusuf, hypoglycaemia episode."),
        ("Chairman Ahmed bin Salman Al-Rashid spoke.", "Chairwoman Ahmed bin Salman Al-Rashid spoke."),
        ("Football: Son Heung-min's late goal won it.", "Football: Son Heung-min's late goal won it."),
        ("Chairwoman Mei-Ling Zhou thanked the committee.", "Chairman Mei-Ling Zhou thanked the committee."),
        ("The report by Jean-Luc Picard-Dupont was cited.", "The report by Jean-Luc Picard-Dupont was cited."),
        ("Mercedes Rojas sold her Mercedes-Benz.", "Ethan Rojas sold his Mercedes-Benz."),
    ],
)
def test_family_names_and_hyphenated_names_are_not_swapped_as_given_names(
    swapper: GenderSwapper, text: str, expected: str
) -> None:
    """ "del Toro" gave "del Lavanya", "bin Yusuf" "bin Mai", "Al-Rashid" "Al-Adele", "Son Heung-min" "Daughter
    Heung-min", "Mei-Ling" "Hernando-Ling", "Ulysses S. Grant" "Sabine S. Tracey": a hyphenated given name swaps whole
    or not at all."""
    assert swapper.swap(text) == expected


def test_a_hyphenated_name_swaps_whole_or_not_at_all(swapper: GenderSwapper) -> None:
    """ "Jean-Luc" gave "Jean-Shruti": one half swapped. Every part of the table's, of one gender: all swap."""
    assert swapper.swap("Jean-Luc said he would come.") == "Jean-Luc said she would come."
    assert swapper.swap("Mary-Kate and her sister left.") == "David-Austin and his brother left."
    # a word the name modifies is no part of it: "Mary-led" swaps the name alone; "Mei-ling" is one name
    assert swapper.swap("The Mary-led team won; she was proud.") == "The David-led team won; he was proud."
    assert swapper.swap("Chen Mei-ling co-directed it.") == "Chen Mei-ling co-directed it."
    assert swapper.swap("His son Heung-min scored.") == "Her daughter Heung-min scored."  # a kin word, lower case


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The Frank & Oak jacket she ordered is too big.", "The Frank & Oak jacket he ordered is too big."),
        ("Reports are handled by Grant & Partners LLP.", "Reports are handled by Grant & Partners LLP."),
        ("Ford Motor Company recalled trucks.", "Ford Motor Company recalled trucks."),
        ("Madam Secretary, the committee is ready.", "Mr. Secretary, the committee is ready."),
        ("Mr. President, the committee is ready.", "Madam President, the committee is ready."),
        ("Mrs. Dalloway, the novel by Virginia Woolf, returns.", "Mrs. Dalloway, the novel by Jared Woolf, returns."),
        ("He adapted a Mrs. Dalloway-inspired screenplay.", "She adapted a Mrs. Dalloway-inspired screenplay."),
    ],
)
def test_firms_offices_and_titles_of_works(swapper: GenderSwapper, text: str, expected: str) -> None:
    """ "Frank & Oak" gave "Cynthia & Oak", "Grant & Partners LLP" "Tracey & Partners LLP", "Madam Secretary" "Sir
    Secretary" (the form is "Mr. Secretary"), "Mrs. Dalloway, the novel" "Mr. Dalloway, the novel"."""
    assert swapper.swap(text) == expected


def test_two_people_joined_by_an_ampersand_are_still_swapped(swapper: GenderSwapper) -> None:
    assert swapper.swap("Mary & John opened a bakery.") == "David & Jessica opened a bakery."
    assert swapper.swap("Frank & Oak sells coats.") == "Frank & Oak sells coats."


def test_the_clinical_letters_swap_as_the_group_words_pair_them(swapper: GenderSwapper) -> None:
    """The sex letters are read from group_words.json's clinical_sex_letters (not a literal of their own)."""
    from debiasrag.counterfactual.gender_swap import _sex_letter_pairs
    from debiasrag.resources import read_json

    letters = read_json("group_words.json")["concepts"]["gender"]["protagonist"]["clinical_sex_letters"]
    assert _sex_letter_pairs() == {letters["female"][0]: letters["male"][0], letters["male"][0]: letters["female"][0]}
    assert swapper.swap("Triage: 19F, panic attack. Nurse Amanda calmed her down.").startswith("Triage: 19M,")


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_the_kept_names_warning_leaves_family_names_out_and_lists_every_name_on_request(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    """The warning named "Berg" of "Dr. Sofia van der Berg" and "Salman" of "bin Salman" as given names, showed five of
    13 and offered no way to see the others."""
    rows = [
        {"id": 1, "text": "The policy was drafted by Dr. Sofia van der Berg and she signed it."},
        {"id": 2, "text": "Chairman Ahmed bin Salman Al-Rashid will present."},
        {"id": 3, "text": "Fatima told her brother Yusuf that Adaeze, Olaf, Wout and Fumio called her."},
    ]
    source, out = _write(tmp_path / "in.jsonl", rows), tmp_path / "out.jsonl"
    assert main(["augment", str(source), str(out)]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "Berg" not in err and "Salman" not in err
    assert "(--list-kept-names lists them all with their lines)" in err
    assert main(["augment", str(source), str(out), "--list-kept-names"]) == 0
    err = capsys.readouterr().err
    assert "kept name Ahmed: 1 row(s), line(s) 2" in err
    assert "kept name Wout: 1 row(s), line(s) 3" in err
    assert "--list-kept-names lists" not in err
