"""Gender swap, round 3: what a new user's walkthrough on a scraped web corpus (session 48, repros 06-08) found: the
name table paired women's names with initials and suffixes ("Eve" <-> "Jr"), holidays were swapped ("Christmas Jr"), a
surname was swapped while the given name before it was kept ("Hemi Walker" -> "Hemi Larisa"), accented names were
not looked up ("Chloé"). Real spaCy pipeline, real data files."""

from __future__ import annotations

import re

import pytest

from debiasrag.counterfactual.gender_swap import GenderSwapper, load_swap_names

# what is no given name however a names table lists it: suffixes, initialisms, slang and words
_NOT_GIVEN_NAMES = frozenset({"Jr", "Sr", "Jnr", "Snr", "Ii", "Iii", "Iv", "Esq", "Phd", "Md", "Bro", "Med", "Any"})
_VOWEL = re.compile(r"[aeiou]|(?<=.)y", re.IGNORECASE)  # "Lynn", "Rhys" have one; "Jd", "Kvng", "Yfn" none


@pytest.fixture(scope="module")
def swapper() -> GenderSwapper:
    return GenderSwapper()


def test_every_name_of_the_table_is_a_plausible_given_name() -> None:
    """Each side of every pair is a word of letters with a vowel, no suffix, initialism or word: the table paired
    Eve <-> Jr, Salma <-> Jb, Monika <-> Rj, Minerva <-> Jp, Jennie <-> Jd, Tamera <-> Dj, Bette <-> Kvng (and Yrn,
    Yfn, Bro, Med, Any), so "Eve said she" became "Jr said he"."""
    pairs = load_swap_names()["pairs"]
    bad = [
        (female, male)
        for female, male in pairs
        for name in (female, male)
        if not (name.isalpha() and name[:1].isupper() and _VOWEL.search(name)) or name in _NOT_GIVEN_NAMES
    ]
    assert bad == []
    females, males = [f for f, _ in pairs], [m for _, m in pairs]
    assert len(set(females)) == len(females) and len(set(males)) == len(males)
    assert not set(females) & set(males)


def test_the_repro_names_get_real_counterparts(swapper: GenderSwapper) -> None:
    """repro 06: "Salma Hayek said she" -> "Jb Hayek said he", "Monika wrote her review" -> "Rj wrote his review"."""
    assert swapper.swap("Salma Hayek said she loved it.") == "Dav Hayek said he loved it."
    assert swapper.swap("Monika wrote her review.") == "Moustapha wrote his review."
    assert swapper.swap("Eve said she would come.") == "Bhavik said he would come."
    assert swapper.swap("Bhavik said he would come.") == "Eve said she would come."


def test_holidays_named_after_no_one_stay(swapper: GenderSwapper) -> None:
    """ "On Christmas Eve we close" -> "On Christmas Jr we close"; "New Year's Eve" -> "New Year's Jr"."""
    for text in (
        "On Christmas Eve we close at 4 p.m.",
        "On New Year's Eve and Christmas Eve the chat closes early.",
        "On New Year\u2019s  Eve the chat closes early.",
        "CLOSED AT 1PM ON CHRISTMAS EVE.",
        "<p>On <b>Christmas Eve</b> we close.</p>",
        "Martin Luther King Jr. Day is a holiday.",
    ):
        assert swapper.swap(text) == text
    assert swapper.swap("On St. Patrick's Day she wore green.") == "On St. Patrick's Day he wore green."
    assert swapper.swap("On Christmas Eve her son came.") == "On Christmas Eve his daughter came."


def test_a_listed_name_after_a_given_name_is_a_surname(swapper: GenderSwapper) -> None:
    """repro 07: "Hemi Walker ... He" -> "Hemi Larisa ... She" (a surname swapped as a first name, the given name
    kept): the surname stays, as after a listed given name ("Grace Kelly")."""
    # the surname stays; the given name the table lacks follows the pronouns (round 4): a table name of a woman
    out = swapper.swap("Hemi Walker leads product design. He grew up in Rotorua.")
    assert out.endswith(" Walker leads product design. She grew up in Rotorua.")
    assert out.split()[0] in {female for female, _ in load_swap_names()["pairs"]}
    assert swapper.swap("Please welcome Hemi Walker, our new lead.") == "Please welcome Hemi Walker, our new lead."
    # "Ori Ben-David": the hyphenated family name stays whole (was "Ori Ben-Mary")
    text = "[4/5/23, 11:11:11] Ori Ben-David: landed in Tel Aviv"
    assert swapper.swap(text) == text
    # a word before a first name that is no given name: the first name swaps as before
    assert swapper.swap("Grant Hill said he would retire.") == "Tracey Hill said she would retire."
    assert swapper.swap("Hola Maria, she said.") == "Hola Jose, he said."
    assert swapper.swap("Congrats Maria on her award!") == "Congrats Jose on his award!"
    assert swapper.swap("Ping Sven about it, he knows.") == "Ping Naila about it, she knows."
    assert swapper.swap("Present: Cllr Marcos Hughes (Chair).") == "Present: Cllr Margaret Hughes (Chair)."
    assert swapper.swap("CEO Mary Barra said she") == "CEO David Barra said he"


def test_two_names_in_two_cells_are_two_people(swapper: GenderSwapper) -> None:
    """Markup between two names that ends a cell or an item is no space: "<li>Maria</li><li>David</li>" kept David as
    Maria's surname; an inline tag between them is ("<b>Grace</b> <i>Kelly</i>")."""
    assert swapper.swap("<li>Maria</li><li>David</li>") == "<li>Jose</li><li>Mary</li>"
    assert swapper.swap("<td>Maria</td> <td>David</td>") == "<td>Jose</td> <td>Mary</td>"
    assert swapper.swap("<b>Grace</b> <i>Kelly</i> sang.") == "<b>Armando</b> <i>Kelly</i> sang."


def test_accented_names_are_looked_up_unaccented(swapper: GenderSwapper) -> None:
    """repro 07: "Chloé Martin ... She" -> "Chloé Norma ... He" (Chloé not in the table, Martin swapped as a first
    name); "Chloe Martin" -> "Rey Martin" was right."""
    assert (
        swapper.swap("Our recruiter Chloé Martin answers at jobs@example.com. She speaks French.")
        == "Our recruiter Rey Martin answers at jobs@example.com. He speaks French."
    )
    assert (
        swapper.swap("<p>Our recruiter <b>Chloé Martin</b> answers e-mail. She speaks French.</p>")
        == "<p>Our recruiter <b>Rey Martin</b> answers e-mail. He speaks French.</p>"
    )
    assert swapper.swap("Zoë said she would come.") == "Federico said he would come."
    assert swapper.swap("José and his sister came.") == "Maria and her brother came."
    assert swapper.is_gendered("Chloé")


def test_a_saints_name_in_a_place_stays(swapper: GenderSwapper) -> None:
    """ "St. Mary's Hospital" -> "St. David's Hospital", "São Paulo" -> "São Elise", "San Francisco" -> "San Cindy"."""
    assert swapper.swap("St. Mary's Hospital hired her.") == "St. Mary's Hospital hired him."
    for text in ("Durations in São Paulo are long.", "A trip to San Francisco in June.", "Parking at St. Patrick's."):
        assert swapper.swap(text) == text


def test_places_colours_products_and_labels_are_no_people(swapper: GenderSwapper) -> None:
    """repro 08: cities in a list or after "in", a colour, a product, a size button, UI commands."""
    for text in (
        "<li>Same day &ndash; in selected cities (Austin, Denver, Houston) if ordered before 11 a.m.</li>",
        "Our engineers work across Dublin and Austin.",
        '<select id="color"><option>Midnight Black</option><option>Rose Gold</option></select>',
        '<p>Select size: <button class="size">8</button><button class="size">Max</button></p>',
        '<label><input type="checkbox"> Mark as read automatically</label>',
        "<div>Tip: you can <em>Grant access</em> to a household member.</div>",
    ):
        assert swapper.swap(text) == text
    assert (
        swapper.swap("He grew up in Rotorua and studied industrial design in Wellington.")
        == "She grew up in Rotorua and studied industrial design in Wellington."
    )
    assert (
        swapper.swap("<h1>Aurora ANC Wireless Headphones</h1><p>My husband stole them.</p>")
        == "<h1>Aurora ANC Wireless Headphones</h1><p>My wife stole them.</p>"
    )
    # people with those names still swap
    assert swapper.swap("Austin said he would come.") == "Kate said she would come."
    assert swapper.swap("Austin, Jackson and Madison said they were tired.") == (
        "Kate, Kaitlyn and Dustin said they were tired."
    )
    assert swapper.swap("He met Austin in Denver.") == "She met Kate in Denver."
    assert swapper.swap("Rose Gold said she would come.") == "Jerry Gold said he would come."
    assert swapper.swap("Senior Nurse Bill Tan said he") == "Senior Nurse Liz Tan said she"
    assert swapper.swap("<p>Mark said he would come.</p>") == "<p>Amanda said she would come.</p>"
    assert swapper.swap("Miss <b>Scarlet</b> left.") == "Mr <b>Pierce</b> left."
    assert swapper.swap("<li><b>Physio</b> Mark Lindgren</li>") == "<li><b>Physio</b> Amanda Lindgren</li>"
