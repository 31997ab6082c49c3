"""Document group inference (debiasrag.groups) on our labelled sets and on hand-made texts."""

from __future__ import annotations

import pytest

from debiasrag.concepts import Concept, load_concept
from debiasrag.corpus import Document
from debiasrag.datasets import load_fairness_set, load_gendered_topics, load_wide_topics
from debiasrag.errors import InputError
from debiasrag.groups import GROUP_KEY, GroupDetector, annotate_groups, detector


@pytest.mark.parametrize(
    "text, group",
    [
        ("She asked for a raise.", "female"),
        ("He asked for a raise.", "male"),
        ("They asked for a raise.", "neutral"),
        ("The report was filed on Monday.", "neutral"),
        ("My mother-in-law's garden is huge.", "female"),  # hyphenated kin word + possessive
        ("The groom's speech was short.", "male"),  # possessive of a role word
        ("Priya booked the flight.", "female"),  # a gendered first name
        ("Carlos booked the flight.", "male"),
        ("Alex booked the flight.", "neutral"),  # unisex: no evidence
        ("In April the flight was booked.", "neutral"),  # a month, not a name
        ("The client told the landlord.", "male"),  # a role noun alone is evidence
        ("She told him the news.", "neutral"),  # one pronoun each way: a tie that remains is neutral
        ("She complained to the landlord.", "female"),  # 1-1 tie, broken by the pronoun
        ("The bride smiled at his speech.", "male"),  # likewise: the side character is the noun
        ("His wife and daughter cheered.", "female"),  # more evidence still wins over the tie-break words
        ("The mother met the father.", "neutral"),  # a tie with no pronoun stays neutral
        ("She and her sister told him.", "female"),  # more female evidence
        ("Her daughter\u2019s bike broke.", "female"),  # typographic apostrophe
    ],
)
def test_group_from_evidence_words_and_names(text, group):
    assert detector("gender").group(text) == group


def test_evidence_counts_each_group():
    assert GroupDetector("gender").evidence("She and her sister met his father.") == {"female": 3, "male": 2}


def test_names_can_be_switched_off():
    assert GroupDetector("gender", use_names=False).group("Priya booked the flight.") == "neutral"


def test_user_metadata_overrides_and_is_checked():
    found = detector("gender")
    assert found.group("He fixed it.", {GROUP_KEY: "neutral"}) == "neutral"
    assert found.group("He fixed it.", {GROUP_KEY: None}) == "male"
    with pytest.raises(InputError, match="debiasrag_group"):
        found.group("He fixed it.", {GROUP_KEY: "unknown"})


def test_annotate_groups_stores_inferred_groups_and_keeps_labels():
    docs = [Document("a", "Her plan worked."), Document("b", "His plan worked.", {GROUP_KEY: "female"})]
    annotate_groups(docs)
    assert [d.metadata[GROUP_KEY] for d in docs] == ["female", "female"]


def test_other_concepts_use_their_own_pairs():
    age = GroupDetector("age")
    assert age.groups == ("old", "young")
    assert age.group("The elderly man walked slowly.") == "old"
    assert age.group("Teenagers filled the youth club.") == "young"
    custom = Concept.from_dict(
        {
            "name": "toy-gender",
            "groups": ["female", "male"],
            "variants": {"female": "A woman.", "male": "A man."},
            "debiasing": "Unknown.",
        },
        source="test",
    )
    assert GroupDetector(custom).group("She left.") == "female"  # same groups as gender: its evidence is reused


def accuracy(rows) -> float:
    found = detector("gender")
    return sum(found.group(text) == gold for text, gold in rows) / len(rows)


@pytest.mark.parametrize("split", ["main", "holdout"])
def test_accuracy_on_the_fairness_sets(split):
    docs = load_fairness_set(split).documents
    # benchmarks/group_accuracy.py: main 0.997 (359/360), holdout 0.986 (142/144).
    assert accuracy([(d.text, d.metadata["group"]) for d in docs]) >= 0.97


def test_accuracy_on_gendered_topics():
    docs = load_gendered_topics().documents
    rows = [(d.text, d.metadata["group"].replace("none", "neutral")) for d in docs]
    assert accuracy(rows) >= 0.97  # measured 0.995 (199/200)


def test_accuracy_on_wide_topics():
    """Not used to design the tie-break (chosen on fairness_main, gendered_topics and the toy): 0.970 -> 0.979."""
    rows = [(d.text, d.metadata["group"]) for d in load_wide_topics().documents]
    assert accuracy(rows) >= 0.975  # measured 0.979 (232/237)


def test_tie_break_evidence_counts_pronouns_only():
    found = detector("gender")
    assert found.tie_break_evidence("She complained to the landlord about his dog.") == {"female": 1, "male": 1}
    assert GroupDetector("age").tie_break_evidence("She is old.") == {"old": 0, "young": 0}


def test_concept_from_file_path_is_loaded(tmp_path):
    assert GroupDetector(load_concept("gender")).group("His car.") == "male"
