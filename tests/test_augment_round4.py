"""Gender swap, round 4 (session 48, a new user's web pages): months after a word of time are no names ("in May" ->
"in Genaro"), "May said she" swaps, accented names the swap table lacks are listed by ``--list-kept-names``
("Jürgen", "Åsa" were skipped by an ASCII pattern), and a person named in full with a given name the table lacks
("Amara Okafor ... She") gets a table name of the other gender when the text's pronouns identify the person, or is
listed as kept (repro 12: 4 of 6 such names went unreported). Real spaCy pipeline, real data files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from debiasrag.cli import main
from debiasrag.counterfactual.gender_swap import GenderSwapper, load_swap_names


@pytest.fixture(scope="module")
def swapper() -> GenderSwapper:
    return GenderSwapper()


def test_a_month_after_a_word_of_time_or_beside_a_number_is_the_month(swapper: GenderSwapper) -> None:
    for text, expected in (
        ("We opened in May. She came.", "We opened in May. He came."),
        ("Since May she has led it.", "Since May he has led it."),
        ("Until May, she was there.", "Until May, he was there."),
        ("By May 2021 she knew.", "By May 2021 he knew."),
        ("On May 3 she left.", "On May 3 he left."),
        ("The 3 May meeting, she said, ran late.", "The 3 May meeting, he said, ran late."),
        ("Her birthday is 3 April, she said.", "His birthday is 3 April, he said."),
    ):
        assert swapper.swap(text) == expected
    # a person called May still swaps with her pronouns, a modal "May" stays
    may = load_swap_names()["pairs"]
    other = dict(may)["May"]
    assert swapper.swap("May said she would come.") == f"{other} said he would come."
    assert swapper.swap("My friend May won her race.") == f"My friend {other} won his race."
    assert swapper.swap("She met May in May.") == f"He met {other} in May."
    assert swapper.swap("May I come? She asked.") == "May I come? He asked."


def test_a_person_named_in_full_gets_a_name_of_the_pronouns_other_gender(swapper: GenderSwapper) -> None:
    """repro 12: "Amara Okafor joined. She ran logistics" -> "Amara Okafor joined. He ran logistics": a counterpart
    naming the same woman as a man. The pronouns say who the person is; the name follows them."""
    females = {f for f, _ in load_swap_names()["pairs"]}
    males = {m for _, m in load_swap_names()["pairs"]}
    out = swapper.counterfactuals(
        [
            "<p>Amara Okafor joined in 2015. She ran logistics in Lagos.</p>",
            "<p>Oluwaseun Adeyemi led the rewrite: he split it into three services.</p>",
            "Amara Okafor joined. Amara said she liked it. Amara's team grew.",
            "Jürgen Klopp said he was proud.",
        ]
    )
    first = out[0].text.split()[0].removeprefix("<p>")
    assert first in males and out[0].text == f"<p>{first} Okafor joined in 2015. He ran logistics in Lagos.</p>"
    second = out[1].text.split()[0].removeprefix("<p>")
    assert second in females and out[1].text.endswith("Adeyemi led the rewrite: she split it into three services.</p>")
    assert out[2].text == f"{first} Okafor joined. {first} said he liked it. {first}'s team grew."  # one person
    assert out[3].text.split()[0] in females and out[3].text.endswith(" Klopp said she was proud.")
    assert all(c.kept_names == [] for c in out)


def test_a_person_the_pronouns_do_not_identify_keeps_the_name_and_is_reported(swapper: GenderSwapper) -> None:
    out = swapper.counterfactuals(
        [
            "Amara Okafor met John. She said hi.",  # who is "she"?
            "Aiko Tanaka and Wanjiru Kamau met. She left.",  # two people
            "Amara Okafor joined. She and he left.",  # pronouns of both genders
            "Please welcome Amara Okafor, our new lead.",  # no pronoun: nothing to follow
            "Club Atletico Madrid won; she scored.",  # no person
        ]
    )
    assert out[0].text == "Amara Okafor met Jessica. He said hi." and out[0].kept_names == ["Amara"]
    assert out[1].text == "Aiko Tanaka and Wanjiru Kamau met. He left." and out[1].kept_names == ["Aiko", "Wanjiru"]
    assert out[2].text.startswith("Amara Okafor joined.") and out[2].kept_names == ["Amara"]
    assert out[3].text == "Please welcome Amara Okafor, our new lead." and out[3].kept_names == []
    assert out[4].text == "Club Atletico Madrid won; he scored." and out[4].kept_names == []


def test_list_kept_names_lists_accented_and_full_named_people(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """``--list-kept-names`` matched ``[A-Z][a-z]+``: "Jürgen" and "Åsa" were never listed; repro 12's Amara, Aiko,
    Wanjiru were kept silently while their pronouns flipped."""
    rows = [
        {"id": "a", "text": "Amara Okafor met John. She said hi."},
        {"id": "b", "text": "Jürgen said he was proud."},
        {"id": "c", "text": "Åsa told us she would come."},
        {"id": "d", "text": "Aiko Tanaka and Wanjiru Kamau met. She left."},
    ]
    source = tmp_path / "in.jsonl"
    source.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    assert main(["augment", str(source), str(tmp_path / "out.jsonl"), "--list-kept-names"]) == 0
    err = capsys.readouterr().err
    assert "5 given name(s) the swap table does not hold were kept" in " ".join(err.split())
    for name, line in (("Amara", 1), ("Jürgen", 2), ("Åsa", 3), ("Aiko", 4), ("Wanjiru", 4)):
        assert f"kept name {name}: 1 row(s), line(s) {line}" in err


def test_a_name_written_with_character_references_swaps_whole(swapper: GenderSwapper) -> None:
    """Session 48: "Jos&eacute; said he" swapped only the pronoun, "Chlo&eacute; Martin" swapped the surname; a page
    is read as shown, and every byte the swap does not replace stays as written ("&amp;", "&nbsp;", "Caf&eacute;")."""
    page = "<p>Jos&eacute; said he &amp; his son&nbsp;left the Caf&eacute;.</p>"
    result = swapper.counterfactuals([page])[0]
    assert (
        result.text.startswith("<p>")
        and "Jos" not in result.text
        and "said she &amp; her daughter&nbsp;left" in result.text
    )
    assert result.text.endswith("the Caf&eacute;.</p>")
    first = result.replacements[0]
    assert (first.start, first.end, first.original) == (3, 14, "Jos&eacute;")  # offsets into the page as written
    assert "Martin" in swapper.swap("<p>Chlo&eacute; Martin joined. She leads the team.</p>")
