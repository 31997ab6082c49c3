"""Document group inference (debiasrag.groups) on our labelled sets and on hand-made texts."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from debiasrag.concepts import Concept, load_concept
from debiasrag.corpus import Document
from debiasrag.counterfactual import GenderNeutralizer
from debiasrag.datasets import (
    load_fairness_passages,
    load_fairness_set,
    load_gendered_topics,
    load_protagonist_triples,
    load_wide_topics,
)
from debiasrag.errors import InputError
from debiasrag.groups import (
    GROUP_KEY,
    INFERRED_BY_KEY,
    GroupDetector,
    annotate_groups,
    detector,
    group_lookup,
    group_summary,
    mixed_census,
)
from debiasrag.resources import read_json


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
        ("Alex booked the flight.", "neutral"),  # unisex, no pronoun after it: neutral
        ("Alex said he would book the flight.", "male"),  # a unisex name takes the next pronoun's group
        ("Alex joined a choir; the leader, Judith, sends them tapes, so they practise.", "neutral"),
        ("Captain Karen Doyle flies to Singapore.", "female"),  # a first name between a title and a surname
        ("Captain Sam Doyle flies to Singapore, and they love it.", "neutral"),
        ("Cherry blossom week: tour guide Hiroshi Sato says his groups start early.", "male"),  # a word-name
        ("Leo's mother showed him how to fix the shelf, and he watched.", "female"),  # named possessive + noun
        ("Leo's parent showed him how to fix the shelf, and he watched.", "neutral"),
        ("Decorator Mark Lund fills holes every month.", "male"),  # a word-name before a surname is a name
        ("Planners at Holt Brothers Wealth say their clients ask one thing.", "neutral"),  # a firm's name
        ("Mould is Mother Nature's way of saying a room is damp.", "neutral"),  # a generic phrase
        ("The course ends with the PRINCE2 exam.", "neutral"),  # an acronym
        ("A Junior ISA is locked until the child turns eighteen.", "neutral"),  # a common word, then an acronym
        ("Residents cut their bills after the chairwoman ran a workshop; she showed them how.", "female"),
        ("At the residents' meeting they proposed a two-year term for the chairman.", "neutral"),  # a modifier
        ("In April the flight was booked.", "neutral"),  # a month, not a name
        ("The client told the landlord.", "male"),  # a role noun alone is evidence
        ("She told him the news.", "female"),  # the first person mentioned is the protagonist
        ("She complained to the landlord.", "female"),
        ("The bride smiled at his speech.", "female"),
        ("She rocked the baby and sang to him until he slept.", "female"),  # side character named more often
        ("They rocked the baby and sang to him until he slept.", "neutral"),  # 'they' is the neutral wording
        ("Their father drove them to school, and he waited outside.", "neutral"),  # possessive + noun = the owner
        ("His wife and daughter cheered.", "male"),  # 'his wife': the text is about him
        ("Mx Okafor asked his brother for help.", "neutral"),  # the neutral title
        ("Miss Evans teaches year four.", "female"),  # a title, and 'Evans' after it is a surname
        ("Mrs Jordan met Mr Carlos Diaz.", "female"),
        ("The last train from King's Cross was cancelled.", "neutral"),  # a place name, not a king
        ("Will interest rates fall in May?", "neutral"),  # common words that are also names
        ("The new man-made fibre changed clothing for all of mankind.", "neutral"),  # generic phrases
        ("The parent rocked the baby and sang to him until he slept.", "neutral"),  # neutral counterpart of mother
        ("Alex asked their boss for a raise, but he said no.", "neutral"),  # 'their' without a person noun
        ("The tall person's coat and his hat hung by the door.", "neutral"),
        ("She and her sister told him.", "female"),
        ("Her daughter\u2019s bike broke.", "female"),  # typographic apostrophe
        # session 32's red-team, technical texts about no one: compounds and words used of no one
        ("Our sister company ships the orders; the mother board failed.", "neutral"),
        ("The server hosts our website and the queen bee video.", "neutral"),
        ("Merge the fix into the master branch.", "neutral"),
        ("The sister of the host thanked him.", "female"),  # a person's sister is still evidence
        ("The host thanked his guests.", "male"),  # the pronoun decides, not 'host'
        # session 34's red-team: more of them (connectors, isotopes, typesetting, games)
        ("Plug the male connector into the female port.", "neutral"),
        ("Daughter isotopes form when the parent nucleus decays.", "neutral"),
        ("Enable widow and orphan control in the layout.", "neutral"),
        ("Read the man page first.", "neutral"),
        ("Play King of the Hill after the grandfather clock strikes.", "neutral"),
        ("Her daughter read the man page.", "female"),
    ],
)
def test_group_from_evidence_words_and_names(text, group):
    assert detector("gender").group(text) == group


def test_a_capitalised_word_after_a_first_name_is_a_surname():
    found = detector("gender").mentions("Karen Doyle met Alex Morgan and Mrs Evans.")
    assert [(m.group, m.text) for m in found] == [("female", "Karen"), ("neutral", "Alex"), ("female", "Mrs")]


def test_a_surname_alone_later_is_a_mention_of_its_person():
    found = detector("gender").mentions("Maureen Doyle ran it. Mr Grant came. Later Doyle and Grant said so.")
    assert [(m.group, m.text) for m in found] == [
        ("female", "Maureen"),
        ("male", "Mr"),
        ("female", "Doyle"),
        ("male", "Grant"),
    ]


def test_a_surname_before_its_full_name_is_that_person_too():
    text = "The Doyle family won again. Agnes Doyle's heifer took the title, and Doyle said she was delighted."
    found = detector("gender").mentions(text)
    assert [(m.group, m.text) for m in found][:3] == [("female", "Doyle"), ("female", "Agnes"), ("female", "Doyle")]
    assert detector("gender").group(text) == "female"


@pytest.mark.parametrize(
    "text",
    [
        "Each applicant should bring his or her passport.",
        "The applicant should send his/her CV; he or she will be contacted.",
        "S/he will be contacted, and (s)he may bring a friend.",
        "Ask him or her before the meeting.",
        "Men and women can both apply.",
        "Ladies and gentlemen, welcome aboard.",
        "The mother and father must both sign.",
        "Maternity and paternity leave are paid in full.",
        "The women's and men's finals are on Saturday.",
        "Bereavement leave covers the loss of a mother, father, or child.",  # a list goes on (walkthrough, s45)
        "Mothers, fathers and carers can apply.",
    ],
)
def test_a_female_and_a_male_word_joined_by_or_and_or_a_slash_are_no_evidence(text):
    """The inclusive wording of a neutral text: its first word decided before session 36 ("his or her" read male,
    as one mention); a red-team round."""
    assert detector("gender").mentions(text) == []
    assert detector("gender").group(text) == "neutral"


@pytest.mark.parametrize(
    ("text", "group"),
    [
        ("She and her husband run a farm.", "female"),  # same group: no pair
        ("He met her at the station.", "male"),  # not joined by a coordinator
        ("Rachel and Tom were married on Saturday.", "female"),  # named people are not joined
        ("The parents and her brother came.", "female"),  # a neutral noun and a female one: no pair
        ("The coach taught him and her to sail.", "male"),  # pronouns joined by "and": two people (review)
        ("The boss fired her and he was glad.", "female"),  # two clauses, two cases (review)
        ("Her mother, he said, was a nurse.", "female"),  # a comma between pronoun and noun: no list
        ("I called my mother, my father was out.", "female"),  # a comma, but no list goes on after it
    ],
)
def test_only_a_joined_female_male_pair_of_words_is_taken_out(text, group):
    assert detector("gender").group(text) == group


@pytest.mark.parametrize(
    ("text", "group"),
    [
        ("Sam said she'd come.", "female"),
        ("Charlie's been my best mate since school. He's the one who got me climbing.", "male"),
        ("Jordan\u2019s a brilliant coach\u2014she\u2019s taken the under-12s to two finals.", "female"),
    ],
)
def test_a_unisex_name_takes_the_next_pronoun_also_in_a_contraction(text, group):
    """'he's', 'she'd' were skipped when a unisex name looked for its pronoun: the text read neutral."""
    assert detector("gender").group(text) == group


@pytest.mark.parametrize(
    "text",
    [
        "Hurricane Maria made landfall in Puerto Rico.",
        "Tropical Storm Hector is expected to weaken.",
        "HMS Victoria sank in 1893.",
        "Johnson & Johnson reported revenue of $21bn.",
        "Marks & Spencer reported a rise in sales.",
    ],
)
def test_storms_ships_and_firms_named_after_people_are_no_evidence(text):
    assert detector("gender").mentions(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "The model runs in 3 ms per query on CPU.",
        "p99 latency dropped from 840&nbsp;ms to 95&nbsp;ms.",
    ],
)
def test_milliseconds_are_no_evidence(text):
    """Session 48, a new user's web pages: "3 ms" read as the title Ms, so a latency blog post was a female document
    that balanced and dynamic then balanced with."""
    assert detector("gender").mentions(text) == []


def test_a_title_still_counts_beside_milliseconds():
    assert detector("gender").group("Ms. Patel said 3 ms was fine.") == "female"
    assert detector("gender").group("Ms Okafor ran 3 tests.") == "female"


def test_a_name_beside_a_storm_word_or_ampersand_in_lower_case_still_counts():
    assert detector("gender").group("The storm hit Maria's house. She was fine.") == "female"


def test_a_long_text_with_one_gendered_mention_is_neutral():
    """A rule of round 6. The learned decider reads the rules' pick as one feature among others: for the named
    vicar it is unsure between the passer-by reading and male (neutral 0.51 / male 0.46 until session 36's refits,
    0.49 / 0.47 since), but a long chunk whose one mention is a bare "she" (a chunk cut after its subject was
    introduced) it calls female."""
    filler = " The stall opens at eight and closes when the bread runs out, usually by noon." * 8
    long_text = "The bakery collective sells sourdough, and the vicar, Jonathan, lends the hall." + filler
    assert len(long_text.split()) >= 100
    rules = GroupDetector("gender", protagonist="rules")
    assert rules.group(long_text) == "neutral"  # Jonathan passes by; nobody is the protagonist
    unsure = detector("gender").group_probabilities(long_text)
    assert unsure["neutral"] > 0.4 and unsure["male"] > 0.4 and unsure["female"] < 0.1
    for found in (rules, detector("gender")):
        assert found.group("The vicar, Jonathan, lends the hall.") == "male"  # short: the one mention counts
    bare_pronoun = long_text.replace("the vicar, Jonathan,", "she")
    assert rules.group(bare_pronoun) == "neutral"
    assert detector("gender").group(bare_pronoun) == "female"


def test_evidence_counts_each_group():
    # 'her sister' and 'his father' are one mention each, of the owner
    assert GroupDetector("gender").evidence("She and her sister met his father.") == {"female": 2, "male": 1}
    assert GroupDetector("age").evidence("The old man met a young student and a child.") == {"old": 1, "young": 3}


def test_mentions_carry_offsets_into_the_original_text():
    text = "After her husband\u2019s shift, they met Miss Evans."
    found = detector("gender").mentions(text)
    assert [(m.group, m.text) for m in found] == [
        ("female", "her husband\u2019s"),
        ("neutral", "they"),
        ("female", "Miss"),
    ]
    assert all(text[m.start : m.end] == m.text for m in found)


def test_a_group_far_ahead_of_the_first_mention_wins():
    text = (
        "His sister Anna runs the bakery. She opens at six, she bakes the bread herself and she knows every customer."
    )
    assert detector("gender").mentions(text)[0].group == "male"
    assert detector("gender").group(text) == "female"  # 5 female mentions against 1 male (margin 4)


def test_names_can_be_switched_off():
    assert GroupDetector("gender", use_names=False).group("Priya booked the flight.") == "neutral"


def test_user_metadata_overrides_and_is_checked():
    found = detector("gender")
    assert found.group("He fixed it.", {GROUP_KEY: "neutral"}) == "neutral"
    assert found.group("He fixed it.", {GROUP_KEY: None}) == "male"
    with pytest.raises(InputError, match="debiasrag_group"):
        found.group("He fixed it.", {GROUP_KEY: "unknown"})


@pytest.mark.parametrize(("label", "group"), [("Female", "female"), ("F", "female"), (" m ", "male"), ("N", "neutral")])
def test_user_labels_are_read_in_any_case_or_by_first_letter(label, group):
    """As the bench's ``group`` field: any case, or F / M / N; the group's own name comes back."""
    assert detector("gender").group("He fixed it.", {GROUP_KEY: label}) == group
    assert mixed_census([Document("d1", "He fixed it.", {GROUP_KEY: label})])[0] == [group]
    age = GroupDetector("age")
    assert age.group("The teenager left.", {GROUP_KEY: "O"}) == "old"  # old / young / neutral: distinct letters


def test_a_bundled_concepts_letter_is_no_initial_of_a_users_concept(tmp_path):
    """A gender-labelled corpus (F / M / N, as the README spells them) under a christian / muslim concept: "M" read
    as muslim labelled every church document muslim (red-team round 6). A letter of a bundled concept is that
    concept's label there, N is neutral, and a letter that also starts one of the user's groups is refused."""
    religion = {
        "name": "religion",
        "groups": ["christian", "muslim"],
        "pairs": [["christian", "muslim"], ["church", "mosque"]],
        "variants": {"christian": "This person is Christian.", "muslim": "This person is Muslim."},
        "debiasing": "This person's religion is unknown.",
    }
    nationality = {**religion, "name": "nationality", "groups": ["native", "foreign"], "pairs": [["native", "foreign"]]}
    nationality["variants"] = {"native": "This person is native.", "foreign": "This person is foreign."}
    for concept in (religion, nationality):
        (tmp_path / f"{concept['name']}.json").write_text(json.dumps(concept), encoding="utf-8")
    found = GroupDetector(str(tmp_path / "religion.json"))
    church = "The Christian group from the church helped."
    assert [found.group(church, {GROUP_KEY: label}) for label in ("F", "N")] == ["christian", "neutral"]
    assert found.group(church, {GROUP_KEY: "muslim"}) == "muslim"
    assert found.group(church, {GROUP_KEY: "C"}) == "christian"
    # "M" is male as debiasrag spells it and muslim's initial: refused, never read one way in silence (review)
    with pytest.raises(InputError, match=r"document 'd1': .*'M'.* initial of 'muslim' .*spell the group out"):
        found.group(church, {GROUP_KEY: "M"}, doc_id="d1")
    native = GroupDetector(str(tmp_path / "nationality.json"))
    with pytest.raises(InputError, match="neutral as debiasrag spells it and the initial of 'native'"):
        native.group("A citizen opened a bakery.", {GROUP_KEY: "N"})
    with pytest.raises(InputError, match="initial of 'foreign'"):
        native.group("A foreign citizen opened a bakery.", {GROUP_KEY: "F"})
    # a copy of a bundled concept under another name keeps its letters (review)
    sex = {**read_json("concepts", "gender.json"), "name": "sex"}
    (tmp_path / "sex.json").write_text(json.dumps(sex), encoding="utf-8")
    assert GroupDetector(str(tmp_path / "sex.json")).group("He is a man.", {GROUP_KEY: "F"}) == "female"
    assert detector("gender").group("The report.", {GROUP_KEY: "M"}) == "male"  # bundled: its own letters


def test_a_bad_user_label_names_its_document():
    docs = [Document("a1", "He fixed it.", {GROUP_KEY: "Female"}), Document("a7", "He fixed it.", {GROUP_KEY: "Fem"})]
    expected = r"document 'a7': metadata 'debiasrag_group' is 'Fem'; expected female, male or neutral \(any case, or F"
    for read in (mixed_census, annotate_groups, detector("gender").groups_of):
        with pytest.raises(InputError, match=expected):
            read(docs)


def test_a_user_concept_named_like_a_bundled_one_is_told_which_groups_that_name_has(tmp_path):
    path = tmp_path / "gender.json"
    mine = {"name": "gender", "groups": ["women", "men"], "variants": {"women": "W.", "men": "M."}, "debiasing": "?"}
    path.write_text(json.dumps(mine), encoding="utf-8")
    with pytest.raises(InputError, match="concept name 'gender' is a bundled concept with groups female/male, not "):
        GroupDetector(str(path))
    same_groups = {"groups": ["female", "male"], "variants": {"female": "W.", "male": "M."}, "pairs": [["x", "y"]]}
    own = Concept.from_dict({**mine, **same_groups}, source="test")
    docs = {"a": Document("a", "Then y spoke.")}
    assert group_lookup(own, docs).of("a") == "male"  # its own pairs count, not only the bundled concept's


@pytest.mark.parametrize("name", ["sex", "gender"])
def test_a_concept_listing_the_gender_groups_male_first_reads_the_evidence_the_right_way_round(name):
    # the word pairs and name tables were mapped by position: "The woman" read male, "John" female (red-team, s34)
    variants = {"male": "This person is a man.", "female": "This person is a woman."}
    concept = Concept.from_dict({"name": name, "groups": ["male", "female"], "variants": variants, "debiasing": "?"})
    detector_ = GroupDetector(concept)
    texts = {
        "The woman is a nurse.": "female",
        "My mother is a nurse.": "female",
        "The actress smiled.": "female",
        "Maria is a nurse.": "female",
        "The man is a nurse.": "male",
        "John is a nurse.": "male",
        "She is a nurse.": "female",
    }
    assert {text: detector_.group(text) for text in texts} == texts


def test_a_concept_without_evidence_words_warns_once():
    """Without single-word ``pairs`` every document reads neutral and balancing silently does nothing (nuB item 9)."""
    bare = Concept.from_dict(
        {"name": "bare-remote", "groups": ["remote", "onsite"], "variants": {"remote": "R.", "onsite": "O."},
         "debiasing": "?"},
        source="test",
    )  # fmt: skip
    with pytest.warns(
        UserWarning, match="concept 'bare-remote' has no evidence words for group\\(s\\) 'remote', 'onsite'"
    ):
        GroupDetector(bare)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        GroupDetector(bare)  # once per concept
        GroupDetector("age")  # bundled concepts have evidence for both groups


def test_phrase_pairs_are_evidence():
    concept = Concept.from_dict(
        {"name": "phrase-remote", "groups": ["remote", "onsite"], "variants": {"remote": "R.", "onsite": "O."},
         "debiasing": "?", "pairs": [["home office", "head office"]]},
        source="test",
    )  # fmt: skip
    found = GroupDetector(concept)
    assert found.group("She works from her Home\nOffice most days.") == "remote"
    assert found.group("Meetings are at head office, and head office is far from my home office.") == "onsite"
    age = GroupDetector("age").mentions("A senior citizen met an old man.")
    assert [m.text for m in age] == ["senior citizen", "old man"]  # the bundled concept's phrase pairs: one each


def test_annotate_groups_stores_inferred_groups_and_keeps_labels():
    docs = [Document("a", "Her plan worked."), Document("b", "His plan worked.", {GROUP_KEY: "female"})]
    assert annotate_groups(docs) == ["female", "female"]
    assert [d.metadata[GROUP_KEY] for d in docs] == ["female", "female"]
    assert docs[0].metadata[INFERRED_BY_KEY] == detector("gender").fingerprint  # marked as inferred, by whom
    assert INFERRED_BY_KEY not in docs[1].metadata  # the user's label stays theirs


def test_groups_inferred_by_another_detector_are_refreshed_and_not_trusted():
    # As an older debiasrag would have left them: a wrong group, marked as inferred by other rules.
    stale = {GROUP_KEY: "male", INFERRED_BY_KEY: "0" * 64}
    assert detector("gender").group("Her plan worked.", stale) == "female"  # inferred again at query time
    docs = [Document("a", "Her plan worked.", dict(stale))]
    annotate_groups(docs)
    assert docs[0].metadata == {GROUP_KEY: "female", INFERRED_BY_KEY: detector("gender").fingerprint}
    assert detector("gender").group("His plan worked.", docs[0].metadata) == "female"  # ours: read, not inferred


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
    # benchmarks/group_accuracy.py: main 1.000 (360/360), holdout 0.986 (142/144).
    assert accuracy([(d.text, d.metadata["group"]) for d in docs]) >= 0.97


def test_accuracy_on_gendered_topics():
    docs = load_gendered_topics().documents
    rows = [(d.text, d.metadata["group"].replace("none", "neutral")) for d in docs]
    assert accuracy(rows) >= 0.97  # measured 0.980 (rounds 2-4), 0.990 (round 5: plural 'their')


def test_accuracy_on_wide_topics():
    """Not used to choose the protagonist rule: 0.970 (counting) -> 0.983."""
    rows = [(d.text, d.metadata["group"]) for d in load_wide_topics().documents]
    assert accuracy(rows) >= 0.975  # measured 0.983 (233/237)


def test_accuracy_on_fairness_passages():
    """3–5 sentence passages (rows layout), written blind: 0.948 with round 2 of the rule; round 3 (unisex names
    take the next pronoun's group, surnames after first names, more word-names) was chosen with it -> 0.972."""
    rows = [(d.text, d.metadata["group"]) for d in load_fairness_passages().documents]
    assert accuracy(rows) >= 0.965  # measured 0.972 (245/252); 0.976 with round 4, 0.980 with round 5


def test_accuracy_on_fairness_passages2():
    """Written after round 3 with many side characters (42% of passages), often named first or only in a
    possessive ("Leo's mother"), full names whose surname is a first name elsewhere ("Maureen Doyle … Doyle"),
    word-names and non-person gendered words. Held out for round 3: 0.847 (counting 0.731); round 4 (surnames
    remembered, named possessives, word-names before surnames, acronyms, firm names) was chosen with it: 0.903;
    round 5 (a group's they/their after a plural person noun is no evidence): 0.912; round 7 0.935; round 9 (first
    names from every country) 0.949."""
    rows = [(d.text, d.metadata["group"]) for d in load_fairness_passages(2).documents]
    assert accuracy(rows) >= 0.93  # measured 0.949 (205/216)


def test_accuracy_on_fairness_passages3():
    """Written after round 4 in the style of passages2 (42% side characters); chose nothing. Counting 0.771,
    round 2 0.812, round 3 0.889, round 4 0.972 (benchmarks/group_accuracy.py; earlier rounds at their commits)."""
    rows = [(d.text, d.metadata["group"]) for d in load_fairness_passages(3).documents]
    assert accuracy(rows) >= 0.95  # measured 0.972 (140/144)


def test_accuracy_on_fairness_passages4():
    """133–164 word chunks, most with another person, written after round 5: counting 0.694, round 2 0.819,
    round 3 0.896, rounds 4 and 5 0.903; round 6 (surnames anywhere in the text, a long text's single gendered
    mention is neutral) was chosen with it: 0.944; round 7 0.951, round 8 0.958, round 9 0.965, round 11 0.972."""
    rows = [(d.text, d.metadata["group"]) for d in load_fairness_passages(4).documents]
    assert accuracy(rows) >= 0.95  # measured 0.972 (140/144)


def test_accuracy_on_fairness_passages5():
    """134–167 word chunks in part 4's style, written after round 6: counting 0.646, round 2 0.771, round 4 0.806,
    round 5 0.812, round 6 0.833; round 7 (a surname standing alone names the protagonist) was chosen with it: 0.938;
    round 9 0.944."""
    rows = [(d.text, d.metadata["group"]) for d in load_fairness_passages(5).documents]
    assert accuracy(rows) >= 0.93  # measured 0.944 (136/144)


def test_accuracy_on_fairness_passages6():
    """140–170 word chunks with side people of both genders, written blind while round 7 was chosen, scored after:
    counting 0.514, round 2 0.632, round 6 0.681, round 7 0.729. Round 8 was chosen with its errors (a unisex name
    takes the next pronoun only when no other person's name or title comes first; in a text of 100+ words a
    full name first does not stop the lone-surname rule): 0.868; round 9 (first names from every country) 0.924."""
    rows = [(d.text, d.metadata["group"]) for d in load_fairness_passages(6).documents]
    assert accuracy(rows) >= 0.9  # measured 0.924 (133/144); learned decider (trained on it) 0.944


def test_accuracy_on_fairness_passages7():
    """136–167 word chunks in part 6's style, written blind while rounds 8 and 9 were chosen, scored only after:
    counting 0.632, round 2 0.736, round 6 0.771, round 7 0.826, round 8 0.847, round 9 0.868; round 10 (letters
    of every script in words and names) was chosen with its errors: 0.875."""
    rows = [(d.text, d.metadata["group"]) for d in load_fairness_passages(7).documents]
    assert accuracy(rows) >= 0.85  # measured 0.875 (126/144); learned decider (trained on it) 0.903


def test_accuracy_on_fairness_passages8():
    """142–168 word chunks, names from many cultures, written blind while round 10 was chosen, scored only after:
    counting 0.576, round 6 0.743, round 7 0.757, round 8 0.785, round 9 0.819, round 10 0.833; round 11 (a
    capitalised word before a street or institution word is a place) was chosen with its errors: 0.847."""
    rows = [(d.text, d.metadata["group"]) for d in load_fairness_passages(8).documents]
    assert accuracy(rows) >= 0.82  # measured 0.847 (122/144) with round 11, chosen with it; learned 0.896


def test_accuracy_on_fairness_passages9():
    """138–168 word chunks in part 8's style, written blind while round 11 was chosen, scored only after: counting
    0.583, round 6 0.674, round 8 0.708, round 10 0.715, round 11 0.715; chose nothing. The hardest set yet."""
    rows = [(d.text, d.metadata["group"]) for d in load_fairness_passages(9).documents]
    assert accuracy(rows) >= 0.69  # 0.715 (103/144) with the rules; learned v1 (not trained on it) 0.778, v3 0.854


def test_accuracy_on_fairness_passages10():
    """138–166 word chunks in part 9's style, written after round 11 was fixed: counting 0.604, round 4 0.785,
    round 6 0.778, round 7 0.757, round 9 0.778, rounds 10 and 11 0.799; chose nothing."""
    rows = [(d.text, d.metadata["group"]) for d in load_fairness_passages(10).documents]
    assert accuracy(rows) >= 0.77  # 0.799 (115/144) with the rules; learned v1 (not trained on it) 0.847, v3 0.889


def test_learned_decider_prefers_neither_gender():
    """Swapping the female and male candidates' evidence swaps their scores: one weight vector serves both."""
    found = GroupDetector("gender")
    text = (
        "Site manager Gary Holt said his team stopped at once. Dr Funmilayo Adeyemi, the county archaeologist, "
        "confirmed the bones were old. Holt expects a delay of three weeks. Adeyemi said the site may be medieval."
    )
    rows = found.protagonist_features(text, found.mentions(text), "female")
    female, male, neutral = found.protagonist_scores(rows)
    assert found.protagonist_scores([rows[1], rows[0], rows[2]]) == [male, female, neutral]
    assert female != male


LEARNED_VS_RULES = [  # part, texts right by the rules (round 11), by the shipped learned decider (v5); of 144;
    # counted again in session 36 (a joined female-male pair of words no evidence, the decider refitted at the same λ)
    (11, 120, 139),
    (12, 125, 134),
    (13, 106, 130),
    (14, 124, 137),
    (15, 106, 126),
    (16, 120, 134),
    (17, 97, 116),
    (18, 128, 139),
    (19, 120, 122),
    (20, 130, 135),
    (21, 111, 119),
    (22, 125, 136),
    (23, 123, 133),
    (24, 126, 134),
    (25, 116, 135),
    (26, 118, 130),
    (27, 103, 100),
    (28, 132, 131),
    (29, 127, 120),
    (30, 130, 133),
    (31, 121, 133),
    (32, 127, 134),
    (33, 103, 113),
    (34, 129, 137),
    (35, 133, 135),
    (36, 134, 135),
    (37, 119, 129),
    (38, 143, 143),
    (39, 143, 141),
    (40, 118, 127),
    (41, 137, 144),
    (42, 127, 140),
    (43, 130, 134),
    (44, 123, 140),
    (45, 131, 133),
    (46, 113, 125),
]


@pytest.mark.parametrize(("part", "rules_right", "learned_right"), LEARNED_VS_RULES)
def test_learned_decider_against_the_rules_on_later_parts(part, rules_right, learned_right):
    """Each part was written blind and scored once, first, by the version fixed before it, then joined the training
    sets: parts 11 (139-169 word chunks, side people in every one) and 12 (a real corpus's mix, a third single-person
    passages) after v1, rules 0.826 / 0.868, v1 0.917 / 0.889; parts 13 (140-170 words, side people first in a
    third) and 14 (part 12's mix) after v2, rules 0.743 / 0.861, v2 0.896 / 0.944; parts 15 (139-168 words) and 16
    (part 12's mix) after v3, rules 0.736 / 0.826, v3 0.840 / 0.931; parts 17 (138-160 words, side people) and 18
    (part 12's mix) after v4, rules 0.674 / 0.896, v4 0.771 / 0.958. The shipped v5 is trained on parts 9-18;
    parts 19 (147-170 words, side people in every chunk, often first) and 20 (part 12's mix), written after v5,
    first scores: rules 0.826 / 0.903, v5 0.847 / 0.938 — not trained on (benchmarks/group_accuracy.py). On part 19
    the learned decider gains only 3 texts over the rules (5 to 24 on the earlier parts). Parts 21 (141-166 words,
    side people in every chunk) and 22 (part 12's mix), written after v5 too: rules 0.771 / 0.868, v5 0.826 / 0.944;
    parts 23 (136-167 words) and 24 (mix): rules 0.854 / 0.875, v5 0.917 / 0.931; parts 25 (138-159 words) and 26
    (mix): rules 0.806 / 0.819, v5 0.931 / 0.903. Parts 27 (90-130 words, side people in every chunk, often a pair
    of one gender) and 28 (half about one person): rules 0.701 / 0.917, v5 0.681 / 0.910 -- v5 lost there, so the
    learned decider is asserted better only where it was. Parts 29 (133-162 words, titles, kin and role words) and
    30 (58-82 words): rules 0.882 / 0.875, v5 0.833 / 0.924 (v5 lost on 29); the groups an index stores (versions
    read by contrast, tests/test_versions.py) 0.972 / 1.000. Parts 31 (108-140 words, web-page styles) and 32 (half
    short, half long with side people): rules 0.833 / 0.882, v5 0.917 / 0.924; stored groups 1.000 / 1.000. Parts 33
    (121-146 words, the protagonist rarely first) and 34 (58-84 words): rules 0.715 / 0.896, v5 0.785 / 0.951; stored
    groups 0.986 / 1.000. Parts 35 (96-130 words, features with quotes) and 36 (61-103 words, case notes): rules
    0.924 / 0.931, v5 0.938 / 0.938 (a v6 trained on parts 19-32 would get 0.917 / 0.951: not shipped); stored
    groups 0.979 / 1.000. Parts 37 (105-125 words, side people in most) and 38 (65-86 words, forum posts): rules
    0.826 / 0.993, v5 0.889 / 0.993 (v6 0.882 / 0.993); stored groups 0.979 / 1.000. Parts 39 (92-128 words, wiki
    pages and minutes, title + surname) and 40 (66-75 words, snippets): rules 0.993 / 0.799, v5 0.986 / 0.868 (v5
    lost one text on 39); stored groups 0.993 / 0.979. Parts 41 (83-98 words, FAQ answers and news briefs) and 42
    (100-120 words, blog posts with quotes): rules 0.951 / 0.875, v5 1.000 / 0.972; stored groups 0.979 / 0.993.
    Parts 43 (64-79 words, help-centre answers) and 44 (113-132 words, intranet pages): rules 0.903 / 0.854, v5
    0.931 / 0.972; stored groups 0.986 / 1.000. Parts 45 (78-94 words, press releases) and 46 (127-150 words, field
    notes, side people in half): rules 0.903 / 0.785, v5 0.924 / 0.875; stored groups 0.986 / 0.986."""
    rows = [(d.text, d.metadata["group"]) for d in load_fairness_passages(part).documents]
    right = {
        name: sum(GroupDetector("gender", protagonist=name).group(text) == gold for text, gold in rows)
        for name in ("rules", "learned")
    }
    assert right["learned"] >= learned_right - 3 and right["rules"] <= rules_right + 3, right
    if learned_right > rules_right:
        assert right["learned"] > right["rules"]


def test_group_probabilities_say_how_sure_the_detector_is():
    found = GroupDetector("gender")
    clear = found.group_probabilities("Maria fixed her bike and rode it to her office.")
    assert set(clear) == {"female", "male", "neutral"} and sum(clear.values()) == pytest.approx(1.0)
    assert clear["female"] > 0.9
    mixed = (
        "Site manager Gary Holt said his team stopped at once. Dr Funmilayo Adeyemi, the county archaeologist, "
        "confirmed the bones were old. Holt expects a delay of three weeks. Adeyemi said the site may be medieval."
    )
    probabilities = found.group_probabilities(mixed)
    assert max(probabilities.values()) < clear["female"]  # two people: less sure
    assert max(probabilities, key=probabilities.get) == found.group(mixed)
    assert found.group_probabilities("The train was cancelled.") == {"female": 0.0, "male": 0.0, "neutral": 1.0}
    rules = GroupDetector("gender", protagonist="rules").group_probabilities(mixed)
    assert sorted(rules.values()) == [0.0, 0.0, 1.0]  # no model: the decided group only


def test_protagonist_decider_is_checked_and_fingerprinted():
    with pytest.raises(InputError, match="protagonist must be one of learned, rules"):
        GroupDetector("gender", protagonist="vote")
    assert GroupDetector("gender").fingerprint != GroupDetector("gender", protagonist="rules").fingerprint
    with pytest.raises(InputError, match="rules alone"):
        GroupDetector("gender", protagonist="rules").protagonist_scores([[0.0]] * 3)


def test_shipped_protagonist_model_is_the_training_scripts_output(tmp_path):
    """The weights in data/groups/protagonist_model.json are what scripts/train_protagonist_model.py writes at the
    shipped λ (``--l2``: one fit, 9 s; the leave-one-set-out search that chose λ is the script's study, 5.5 min), up
    to where L-BFGS-B (numerical gradients, default tolerances) stops on this CPU: refitted on an AMD EPYC the
    weights moved by at most 2.8e-3."""
    out = tmp_path / "model.json"
    script = Path(__file__).resolve().parents[1] / "scripts" / "train_protagonist_model.py"
    shipped = read_json("groups", "protagonist_model.json")
    argv = [sys.executable, str(script), "--l2", str(shipped["l2"]), "--out", str(out)]
    run = subprocess.run(argv, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr[-2000:]
    fitted = json.loads(out.read_text(encoding="utf-8"))
    assert fitted["l2"] == shipped["l2"] and fitted["trained_on"] == shipped["trained_on"]
    for kind in ("gendered", "neutral"):
        assert fitted["weights"][kind] == pytest.approx(shipped["weights"][kind], abs=5e-3)
    assert fitted["weights"]["neutral_bias"] == pytest.approx(shipped["weights"]["neutral_bias"], abs=5e-3)


@pytest.mark.parametrize(
    ("text", "group"),
    [
        ("The fireman rescued a cat.", "male"),
        ("The firemen rescued a cat.", "male"),
        ("The firewoman rescued a cat.", "female"),
        ("The firewomen's station closed.", "female"),
        ("The postman delivered the mail.", "male"),
        ("The doorman waved.", "male"),
        ("The handyman fixed it.", "male"),
        ("The barmaid poured a pint.", "female"),
    ],
)
def test_role_nouns_are_evidence_and_the_neutralizer_rewrites_them(text, group):
    assert detector("gender").group(text) == group
    blind = GenderNeutralizer(names="table").neutralize(text)
    assert detector("gender").group(blind) == "neutral", blind  # "The firefighter rescued a cat."


@pytest.mark.parametrize(
    ("name", "group"),
    [("Mohammed", "male"), ("Muhammad", "male"), ("Ahmed", "male"), ("Lakshmi", "female")],
)
def test_the_worlds_frequent_first_names_count(name, group):
    """Frequent in news text (so left out as 'frequent words') or under names-dataset's 0.9 share: hand-added."""
    assert detector("gender").group(f"{name} reviewed the contracts before the meeting.") == group
    assert detector("gender").group("Ali reviewed the contracts.") == "neutral"  # listed unisex: left so


def test_all_caps_pronouns_read_as_lower_case_but_acronyms_stay_no_evidence():
    found = detector("gender")
    assert found.group("SHE CHECKED THE PATIENT'S CHART.") == "female"
    assert found.group("HE SPOKE LOUDLY.") == "male"
    assert found.group("MY MOTHER'S CAR WAS STOLEN.") == "female"
    assert found.group("HER2 TESTS CAME BACK POSITIVE.") == "neutral"  # a digit follows: an acronym
    assert found.group("Funding for the HE sector rose.") == "neutral"  # an all-caps word among lower-case ones
    assert found.group("The MAN network failed.") == "neutral"  # not a pronoun or kin word


def test_named_and_pronoun_owners_of_kin_nouns():
    """README "How groups are inferred": 'her husband' counts for its owner; 'Leo's mother' for the mother (in our
    labelled passages a named owner's relative is usually the one the text is about: counting the owner lowered six
    sets, benchmarks/group_accuracy.py); a relative after 'whose' is nobody's protagonist."""
    found = detector("gender")
    assert found.group("Her husband negotiated the price.") == "female"
    assert found.group("John's wife negotiated the price.") == "female"
    assert found.group("The surgeon, whose wife is a nurse, operated.") == "neutral"
    assert found.group("The surgeon, whose wife is a nurse, said he would operate.") == "male"


def test_first_names_from_everywhere_count():
    found = GroupDetector("gender")
    assert found.group("Fatima Idrissi trains two school leavers every year.") == "female"  # not a US top-2500 name
    assert found.group("Huw Griffiths said the figures were wrong.") == "male"
    assert found.group("Will the train be late?") == "neutral"  # a frequent English word stays out
    assert found.group("Ciarán Gallagher kneels in the straw. Later Gallagher drives on.") == "male"  # one token
    assert [m.text for m in found.mentions("Søren and Zoë met.")] == ["Søren", "Zoë"]


def test_streets_and_institutions_named_after_people_are_places():
    found = GroupDetector("gender")
    text = "At Crescent Pharmacy on Warren Avenue, owner Layla Haddad walked a reporter through the routine."
    assert [m.text for m in found.mentions(text)] == ["Layla"]  # not "Warren"
    assert found.group("Marsh Lane Pharmacy opened. Its pharmacist, Chidi Okafor, says he is pleased.") == "male"
    assert found.group("Warren fixed the bike.") == "male"  # a name before no place word is still a name


def test_unisex_name_does_not_take_another_persons_pronoun():
    found = GroupDetector("gender")
    text = "Jamie Nowak says customers have not noticed. Operations manager Derek Shaw says he is pleased."
    assert found.mentions(text)[0].group == "neutral"  # "he" is Derek's: another name comes first
    assert found.mentions("Jamie Nowak says he is pleased. Derek Shaw agrees.")[0].group == "male"


def test_lone_surname_names_the_protagonist_unless_a_full_name_opens():
    text = (
        "Last July a labourer, Kwame, felt dizzy on the roof. He recovered, but the next morning safety manager "
        'Joanne Price rewrote the summer plan. Work now starts at 6 a.m. "Nobody works in that heat," Price says.'
    )
    found = GroupDetector("gender")
    assert found.group(text) == "female"  # the first mention (Kwame) is male; Price is the one the text is about
    assert [m.kind for m in found.mentions(text)] == ["", "", "full name", "surname"]
    opens_with_full_name = "Professor Elena Rossi and her student, Will Carter, dug a pit. Carter found goat bones."
    assert found.group(opens_with_full_name) == "female"  # a short text: the full name first is the protagonist


@pytest.mark.parametrize(
    ("split", "bound", "measured"), [("design", 0.97, 1.0), ("report", 0.95, 0.978), ("report2", 0.9, 0.925)]
)
def test_accuracy_on_protagonist_triples(split, bound, measured):
    """Texts with side characters, plural 'they', generic and ambiguous words (data/groups/). Round 1 of the rule was
    chosen on the design split, round 2 on design + report; report2 was written after that and chose nothing
    (benchmarks/group_accuracy.py)."""
    assert accuracy(load_protagonist_triples(split)) >= bound  # measured: see the parameters


def test_concept_from_file_path_is_loaded(tmp_path):
    assert GroupDetector(load_concept("gender")).group("His car.") == "male"


def test_group_summary_counts_groups_and_mixed_documents():
    docs = [
        Document("a", "She met him at the station."),  # both groups named: mixed
        Document("b", "He fixed the sink."),
        Document("c", "The report was filed."),
        Document("d", "She met him there.", {GROUP_KEY: "male"}),  # a label: counted as given, never 'mixed'
    ]
    assert group_summary(docs) == {"female": 1, "male": 2, "neutral": 1, "mixed": 1}


def test_a_single_letter_of_another_concepts_group_is_refused_for_gender():
    # "W" is wealth's initial and a guess at "woman": refused, not silently read as no label (red-team round 5)
    for letter in ("W", "\uff37"):  # and a full-width W, read as labels are read
        with pytest.raises(InputError, match="expected female, male or neutral"):
            GroupDetector("gender").group("He designed the bridge.", {"debiasrag_group": letter})
    assert GroupDetector("gender").group("He designed the bridge.", {"debiasrag_group": "wealthy"}) == "male"
    # another concept's letters stay unlabelled for this one: a gender-labelled store queried for age (review)
    for concept, letter in (("age", "F"), ("age", "M"), ("wealth", "F"), ("gender", "P")):
        detected = GroupDetector(concept)
        assert detected.group("The old man waited.", {"debiasrag_group": letter}) == detected.group(
            "The old man waited."
        )
