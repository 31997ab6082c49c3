"""Session 37 (a red-team round's leftovers): clinical age-and-sex shorthand is evidence, a contract's capitalised
"Landlord" is no one, and "Isle of Man" / "man-in-the-middle" are generic phrases. Real detector, real data."""

from __future__ import annotations

import pytest

from debiasrag.groups import GroupDetector


@pytest.fixture(scope="module")
def found() -> GroupDetector:
    return GroupDetector("gender")


@pytest.mark.parametrize(
    ("text", "group", "mention"),
    [
        ("A 45M presents with central chest pain radiating to the left arm.", "male", "45M"),
        ("45M, smoker 30 pack-years, c/o chest pain x 2h. ECG: ST elevation. Wife at bedside.", "male", "45M"),
        ("28F with a 6-month history of fatigue and cold intolerance.", "female", "28F"),
        ("Pt (M, 58) presents w/ sudden-onset R-sided weakness.", "male", "(M, 58)"),
        ("A 54-year-old F was admitted with pneumonia.", "female", "54-year-old F"),
        ("Patient is a 45 y/o F, known asthmatic.", "female", "45 y/o F"),
        ("Referred (61, F) after a fall.", "female", "(61, F)"),
    ],
)
def test_clinical_age_and_sex_shorthand_is_evidence(found, text, group, mention):
    """'45M', '28F', '(M, 58)', '54-year-old F' were no evidence (the 45M's 'Wife' became the protagonist)."""
    assert found.group(text) == group
    assert [m.text for m in found.mentions(text)][0] == mention
    assert GroupDetector("gender", protagonist="rules").group(text) == group


@pytest.mark.parametrize(
    "text",
    [
        "The company raised a 45M budget for the new plant.",
        "They raised $45M in the round.",
        "Water boils at 212F. The reading was 98.6F today.",
        "She ran 45m in the final.",
        "The board approved a 45M deal on Friday.",
    ],
)
def test_money_lengths_and_temperatures_are_no_clinical_shorthand(found, text):
    assert not any(m.text[:1].isdigit() or m.text.startswith("(") for m in found.mentions(text))


def test_a_contracts_capitalised_landlord_is_no_one(found):
    """'the Landlord' of a lease read male (a red-team round's legal genre)."""
    lease = (
        "The Tenant shall not assign, sublet or part with possession of the Property without the prior written "
        "consent of the Landlord, such consent not to be unreasonably withheld."
    )
    assert found.mentions(lease) == [] and found.group(lease) == "neutral"
    assert found.group("The Landlord covenants to keep the structure in good repair.") == "neutral"
    assert found.group("When the landlord ignored the leak, he was sued.") == "male"  # a person, lower case
    assert found.group("Landlord Mick Hale said the pub would reopen.") == "male"  # a title before a name


def test_isle_of_man_and_man_in_the_middle_are_no_one(found):
    assert found.mentions("The ferry to the Isle of Man was cancelled.") == []
    assert found.mentions("A man-in-the-middle attack reads your traffic.") == []
    assert found.group("She lives on the Isle of Man.") == "female"
