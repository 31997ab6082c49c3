"""Session 40 (a red-team round: godson, grandnephew, boatman, ballerina …): the gender word lists hold rarer kin,
compound and role words. Pairs (data/gender_words.json) are read by the group detector, swapped by the gender
swapper and neutralized (data/neutral_words.json, scripts/build_neutral_words.py); one-sided words
(data/group_words.json) are evidence only; generic phrases keep a degree, a ship's voyage and the verb "groom" from
counting as a man or a woman. Real detector, real spaCy, real data."""

from __future__ import annotations

import pytest

from debiasrag.counterfactual import GenderNeutralizer, GenderSwapper
from debiasrag.groups import GroupDetector


@pytest.fixture(scope="module")
def found() -> GroupDetector:
    return GroupDetector("gender")


@pytest.fixture(scope="module")
def swapper() -> GenderSwapper:
    return GenderSwapper()


@pytest.fixture(scope="module")
def table() -> GenderNeutralizer:
    return GenderNeutralizer(names="table")


@pytest.mark.parametrize(
    ("word", "group"),
    [
        ("grandniece", "female"),
        ("grandnephew", "male"),
        ("great-niece", "female"),
        ("great-nephew", "male"),
        ("great-granddaughter", "female"),
        ("great-grandson", "male"),
        ("great-great-grandfather", "male"),
        ("ex-wife", "female"),
        ("ex-boyfriend", "male"),
        ("step-mother", "female"),
        ("half-brothers", "male"),
        ("Frenchwoman", "female"),
        ("groundsman", "male"),
        ("abbot", "male"),
        ("alumna", "female"),
        ("ballerina", "female"),  # one-sided: group_words.json
        ("comedienne", "female"),
        ("usherette", "female"),
        ("countess", "female"),
        ("maid", "female"),
        ("friar", "male"),
    ],
)
def test_rarer_kin_compound_and_role_words_are_evidence(found, word, group):
    """Each was no evidence: the word is the text's only mention of anyone."""
    text = f"The {word} opened the shop on the corner every morning at seven."
    assert found.group(text) == group
    assert [m.text for m in found.mentions(text)] == [word]


def test_possessives_and_plurals_of_the_new_words(found):
    assert found.evidence("The grandnephew's bicycle leant on the wall.") == {"female": 0, "male": 1}
    assert found.evidence("Both grandnieces came to the christening.") == {"female": 1, "male": 0}
    assert found.group("The great-granddaughters' photographs hung in the hall.") == "female"


def test_a_kin_word_after_a_possessive_is_one_mention_of_its_owner(found):
    """'his grandnephew' is one mention of 'his' (as 'his nephew' was): the new word joins the possessor's noun."""
    mentions = found.mentions("Every Sunday he drove his grandnephew to the lake.")
    assert [m.group for m in mentions] == ["male", "male"]
    assert any("grandnephew" in m.text for m in mentions)
    assert found.mentions("They took their godchild to the lake.")[-1].text.lower().endswith("godchild")


def test_godchild_is_a_neutral_mention(found):
    mentions = found.mentions("The godchild opened the shop on the corner every morning at seven.")
    assert [(m.group, m.text) for m in mentions] == [("neutral", "godchild")]


@pytest.mark.parametrize(
    ("word", "counterpart", "neutral", "evidence"),
    [
        ("great-aunt", "great-uncle", "relative", False),
        ("goddaughter", "godson", "godchild", True),
        ("great-grandmother", "great-grandfather", "great-grandparent", True),
        ("bridesmaid", "groomsman", "wedding attendant", True),
        ("boatwoman", "boatman", "boat operator", True),
    ],
)
def test_new_pair_words_are_swapped_neutralized_and_read_as_evidence_unless_listed(
    found, swapper, table, word, counterpart, neutral, evidence
):
    """not_evidence (data/group_words.json): great-aunt / great-uncle named a side character's relative the
    protagonist (benchmarks/group_accuracy.py). The other four families occur in the learned decider's training texts:
    made evidence, the decider was refitted (scripts/train_protagonist_model.py, session 40). Before session 40 the
    swapper already swapped great-aunt (the tagger splits it), not the others."""
    for gendered, group in (
        (word, "female"),
        (counterpart, "male"),
        (word + "'s", "female"),
        (counterpart + "'s", "male"),
    ):
        expected = {"female": 0, "male": 0}
        expected[group] += evidence
        assert found.evidence(f"The pianist learned the song from a {gendered}.") == expected
    assert swapper.swap(f"She learned it from her {word}.") == f"He learned it from his {counterpart}."
    assert table.neutralize(f"He learned it from his {counterpart}.") == f"They learned it from their {neutral}."


@pytest.mark.parametrize(
    "text",
    [
        "She has a bachelor's degree in nursing.",
        "A bachelor of science takes three years.",
        "Volunteers learn to groom the horses before riding.",
        "The ship's maiden voyage left Southampton in April.",
    ],
)
def test_generic_uses_of_bachelor_maiden_and_groom_are_no_evidence(found, text):
    evidence = found.evidence(text)
    assert evidence["male"] == 0 and (evidence["female"] == 0 or text.startswith("She"))


def test_godson_and_goddaughter_swap_both_ways(swapper):
    female = "She took her goddaughter and her grandniece to the fair."
    male = swapper.swap(female)
    assert male == "He took his godson and his grandnephew to the fair."
    assert swapper.swap(male) == female


@pytest.mark.parametrize(
    ("female", "male"),
    [
        ("The boatwoman rowed us across.", "The boatman rowed us across."),
        ("Her fiancée called twice.", "His fiancé called twice."),
        ("The Englishwoman's stepsister waved.", "The Englishman's stepbrother waved."),
        ("The bridesmaids laughed.", "The groomsmen laughed."),
        ("The abbess spoke first.", "The abbot spoke first."),
    ],
)
def test_new_pairs_swap(swapper, female, male):
    assert swapper.swap(female) == male
    assert swapper.swap(male) == female


def test_the_swapper_keeps_a_degree_and_a_verb(swapper):
    assert swapper.swap("He holds a bachelor's degree.") == "She holds a bachelor's degree."
    assert swapper.swap("He learned to groom horses.") == "She learned to groom horses."
    assert swapper.swap("The maiden voyage was calm.") == "The maiden voyage was calm."


def test_godson_becomes_godchild(table):
    assert table.neutralize("He visited his godson.") == "They visited their godchild."
    assert table.neutralize("She visited her goddaughters.") == "They visited their godchildren."


@pytest.mark.parametrize(
    ("gendered", "neutral"),
    [
        ("Her great-grandmother's farm was sold.", "Their great-grandparent's farm was sold."),
        ("His ex-wife called.", "Their ex-spouse called."),
        ("Her mothers-in-law met.", "Their parents-in-law met."),
        ("His sister-in-law's car", "Their sibling-in-law's car"),
        ("Her stepsister and half-brother came.", "Their stepsibling and half-sibling came."),
        ("The boatman waited.", "The boat operator waited."),
        ("The Frenchman waved.", "The French person waved."),
        ("Her fiancé waved.", "Their partner waved."),
    ],
)
def test_new_pairs_are_neutralized(table, gendered, neutral):
    assert table.neutralize(gendered) == neutral
