"""Session 37: fixes of the session-36 red-team round's misses (text in capitals, line labels, clinical and meeting
shorthand, eponyms, lower-case coreference), on the real spaCy pipeline and operators."""

from __future__ import annotations

import pytest

from debiasrag.anonymize import NerAnonymizer


@pytest.fixture(scope="module")
def ner() -> NerAnonymizer:
    return NerAnonymizer()


@pytest.fixture(scope="module")
def persons() -> NerAnonymizer:
    return NerAnonymizer(entities="person")


@pytest.fixture(scope="module")
def replace() -> NerAnonymizer:
    return NerAnonymizer(strategy="replace")


def reverse(text: str, mapping: dict[str, str]) -> str:
    for placeholder in sorted(mapping, key=len, reverse=True):
        text = text.replace(placeholder, mapping[placeholder])
    return text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # In capitals every word looked like a proper noun: ordinary words went with the names.
        ("URGENT: CALL MARIA GONZALEZ BEFORE 5PM RE: SHIPMENT", "URGENT: CALL BEFORE 5PM RE: SHIPMENT"),
        ("PLEASE SUBMIT THE REPORT BY FRIDAY", "PLEASE SUBMIT THE REPORT BY FRIDAY"),
        ("I TOLD KEVIN A HUNDRED TIMES NOT TO TOUCH MY CAR", "I TOLD A HUNDRED TIMES NOT TO TOUCH MY CAR"),
        ("OBITUARY: ELEANOR MAE FITZGERALD, 1931–2024, BELOVED TEACHER", "OBITUARY: 1931–2024, BELOVED TEACHER"),
        ("TEAM ROSTER: SMITH, NAKAMURA, OYELOWO, FERREIRA", "TEAM ROSTER:"),
        ("HAPPY BIRTHDAY TOM!!! LOVE, MUM", "HAPPY BIRTHDAY!!! LOVE, MUM"),
        (
            "Section 3. RESPONSIBILITIES OF THE TREASURER (CURRENTLY LIAM O'CONNOR)",
            "Section 3. RESPONSIBILITIES OF THE TREASURER (CURRENTLY)",
        ),
    ],
)
def test_text_in_capitals_loses_its_names_and_keeps_its_words(ner, text, expected):
    assert ner.anonymize(text).text == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # session 38: a city of cities.txt is written capitalised for spaCy, unless it is a common word
        ("FLOOD WARNING FOR HALIFAX AND MUMBAI TONIGHT", "FLOOD WARNING FOR AND TONIGHT"),
        ("TAKE A BATH BEFORE BED, MOBILE PHONES OFF", "TAKE A BATH BEFORE BED, MOBILE PHONES OFF"),
    ],
)
def test_cities_in_capitals(ner, text, expected):
    assert ner.anonymize(text).text == expected


def test_names_in_capitals_are_people_with_offsets_into_the_original(persons):
    text = "URGENT: CALL MARIA GONZALEZ BEFORE 5PM RE: SHIPMENT"
    result = persons.anonymize(text)
    assert [(e.text, e.label, e.start, e.end) for e in result.entities] == [("MARIA GONZALEZ", "PERSON", 13, 27)]
    assert persons.anonymize("ROHAN AND PRIYA GOT MARRIED").text == "AND GOT MARRIED"
    # A case change that alters a character's length ("İ" lower-cases to two characters) keeps every offset.
    text = "MEETING IN İSTANBUL WITH KEVIN OKAFOR TODAY"
    entities = persons.anonymize(text).entities
    assert entities and all(text[e.start : e.end] == e.text for e in entities)
    assert "KEVIN OKAFOR" in [e.text for e in entities]


def test_names_in_capitals_get_person_placeholders_that_reverse(replace):
    text = "ROHAN AND PRIYA GOT MARRIED"
    result = replace.anonymize(text)
    assert result.text == "PERSON_1 AND PERSON_2 GOT MARRIED"
    assert reverse(result.text, result.mapping) == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Apologies: Tom Nguyen.", "Apologies:."),
        ("Owner: K. Mensah. Due: EOW.", "Owner:. Due: EOW."),
        ("Dx: Parkinson's disease.", "Dx: Parkinson's disease."),
        ("Hx of DM, CKD, on metformin.", "Hx of DM, CKD, on metformin."),
        (
            "Pt. Garcia, 54M, presents with chest pain radiating to L arm. Hx HTN.",
            "Pt., 54M, presents with chest pain radiating to L arm. Hx HTN.",
        ),
        ("72F, Hashimoto's thyroiditis, on levothyroxine.", "72F, Hashimoto's thyroiditis, on levothyroxine."),
        (
            "The Kaplan–Meier estimator and the Cox model were used.",
            "The Kaplan–Meier estimator and the Cox model were used.",
        ),
        (
            "Newton's second law and Maxwell's equations are covered.",
            "Newton's second law and Maxwell's equations are covered.",
        ),
        # An eponym is no person even where the document names the person.
        (
            "Isaac Newton was born in 1643. Newton's law of gravitation followed.",
            "was born in 1643. Newton's law of gravitation followed.",
        ),
    ],
)
def test_labels_shorthand_and_eponyms_stay(ner, text, expected):
    assert ner.anonymize(text).text == expected


def test_speaker_labels_that_are_names_and_a_persons_law_firm_still_go(ner):
    assert ner.anonymize("Maria: I'll send the slides.").text == ": I'll send the slides."
    assert ner.anonymize("Smith's law firm hired Dr. Cox.").text == "law firm hired the doctor."


def test_a_dictionary_word_before_a_colon_that_names_a_person_elsewhere_is_that_person(ner):
    # "Delacroix" is a WordNet lemma (the painter): as a line label it was kept in the case name (blind gold set 6)
    text = "State v. Delacroix: the defendant, Rémy Delacroix, appealed his conviction."
    assert "Delacroix" not in ner.anonymize(text).text
    assert ner.anonymize("Discussion: the budget was agreed.").text == "Discussion: the budget was agreed."


def test_a_lower_case_name_confirmed_once_goes_at_its_other_mentions(ner, replace):
    assert ner.anonymize("bill said hi. is bill here?").text == "said hi. is here?"
    assert replace.anonymize("bill said hi. is bill here?").text == "PERSON_1 said hi. is PERSON_1 here?"
    # not where a determiner or a subject makes it a word again
    assert ner.anonymize("bill said the bill is due. we bill clients monthly.").text == (
        "said the bill is due. we bill clients monthly."
    )
