"""Versions of one text (debiasrag.versions) and groups read by contrast between them (issue 10)."""

from __future__ import annotations

import json

import pytest

from debiasrag import Document, FaissIndex, InputError
from debiasrag.datasets import load_fairness_passages
from debiasrag.groups import GROUP_KEY, INFERRED_BY_KEY, annotate_groups, detector, group_census, group_summary
from debiasrag.storage import data_paths
from debiasrag.versions import (
    content_apart,
    families,
    find_versions,
    is_version,
    own_words,
    token_overlap,
    word_candidates,
)

# A side person comes first in every wording, so the detector alone reads the female wording as his.
SIDE = "At the depot, Mr Hale handed over the keys and he checked the brakes twice."
DEPOT = [
    f"{SIDE} Dana Reyes signed the form and drove her van out at dawn.",
    f"{SIDE} Omar Reyes signed the form and drove his van out at dawn.",
    f"{SIDE} Robin Reyes signed the form and drove their van out at dawn.",
]
UNRELATED = "The harbour froze early that winter, and the ferries stopped until March."


def test_token_overlap_is_the_shared_share_of_the_longer_text():
    assert token_overlap("a b c d", "a b c d") == 1.0
    assert token_overlap("a b c d", "a b") == 0.5
    assert token_overlap("a a b", "a b b") == pytest.approx(2 / 3)  # multisets
    assert token_overlap("Rose sat", "rose sat") == 0.5  # case kept: the name is not the flower
    assert token_overlap("", "") == 0.0


def test_find_versions_is_symmetric_and_ignores_itself_and_padding():
    texts = [*DEPOT, UNRELATED]
    # candidates as a FAISS search gives them: the document itself first, -1 where the list runs out
    found = find_versions(texts, [[0, 1], [1, -1], [2, 0, 9], [3, 0, 1]])
    assert found == [[1, 2], [0], [0], []]
    assert find_versions(DEPOT[:2], [[1], [0]], min_overlap=0.99) == [[], []]  # only the names differ: 0.96


def test_word_candidates_find_versions_without_vectors():
    texts = [UNRELATED, *DEPOT, "In March the ferries ran again from the depot to the harbour."]
    # a version's own words (Dana, Omar, Robin) are in no other text and do not keep versions apart
    assert find_versions(texts, word_candidates(texts)) == [[], [2, 3], [1, 3], [1, 2], []]
    assert word_candidates(["one text"]) == [[]]


def test_memoized_version_finding_agrees_with_the_corpus_pass():
    texts = [doc.text for doc in load_fairness_passages(38).documents]
    assert find_versions(texts, memo=True) == find_versions(texts)
    for start in range(0, len(texts), 50):  # query-sized pools, the second time from the memo
        pool = texts[start : start + 50][::-1]
        assert families(pool, memo=True) == families(pool) == families(pool, memo=True)
    assert sum(len(found) for found in find_versions(texts, memo=True)) == 2 * len(texts)  # F / M / N: two each


def test_annotate_groups_reads_versions_in_the_batch_by_contrast():
    docs = [Document(str(i), text) for i, text in enumerate([*DEPOT, UNRELATED])]
    assert annotate_groups(docs) == ["female", "male", "neutral", "neutral"]
    assert docs[0].metadata[GROUP_KEY] == "female" and INFERRED_BY_KEY in docs[0].metadata
    fresh = [Document(str(i), text) for i, text in enumerate(DEPOT)]
    assert annotate_groups(fresh, versions=False) == ["male", "male", "neutral"]
    labelled = [Document("x", DEPOT[0], {GROUP_KEY: "male"}), *fresh[1:]]
    assert annotate_groups(labelled)[0] == "male" and INFERRED_BY_KEY not in labelled[0].metadata


def test_group_summary_reads_versions_and_counts_only_unsettled_mixed_documents():
    mixed = "Mr Hale met Dana at the gate, and she thanked him for the keys."  # no version: stays mixed
    docs = [Document(str(i), text) for i, text in enumerate([*DEPOT, mixed])]
    groups, counts = group_census(docs)
    assert groups[:3] == ["female", "male", "neutral"] and counts["mixed"] == 1
    assert group_summary(docs) == counts
    groups, counts = group_census(docs, versions=False)
    assert groups[:3] == ["male", "male", "neutral"] and counts["mixed"] == 2


def test_own_words_keeps_the_texts_order_and_counts():
    assert own_words("she said she would", ["they said they would"]) == "she she"
    assert own_words(DEPOT[0], DEPOT[1:]) == "Dana her"


def test_contrast_reads_the_group_from_the_words_the_versions_differ_in():
    found = detector("gender")
    alone = [found.group(text) for text in DEPOT]
    assert alone == ["male", "male", "neutral"]  # the detector alone takes Mr Hale for the female wording's subject
    versions = [[1, 2], [0, 2], [0, 1]]
    assert found.contrast_groups(DEPOT, alone, versions) == ["female", "male", "neutral"]


def test_a_neutral_wording_with_a_name_listed_for_one_gender_reads_neutral_by_contrast():
    found = detector("gender")
    texts = [
        "Goldsmith Esperanza Vidal runs the workshop. Ms Vidal says she resizes rings on Fridays.",
        "Goldsmith Joaquín Vidal runs the workshop. Mr Vidal says he resizes rings on Fridays.",
        "Goldsmith Sol Vidal runs the workshop. Mx Vidal says they resize rings on Fridays.",
    ]
    assert found.group("Sol") == "female"  # the name table lists Sol for women only
    versions = [[1, 2], [0, 2], [0, 1]]
    # the neutral wording's own words are "Sol Mx they resize": its pronoun and title, not the name, decide
    assert found.contrast_groups(texts, ["female", "male", "female"], versions) == ["female", "male", "neutral"]
    swapped = [texts[0], texts[2].replace("Mx", "Ms").replace("they resize", "she resizes")]
    # a gendered pronoun or title among the own words still decides: a woman named Sol stays female
    assert found.contrast_groups(swapped, ["female", "female"], [[1], [0]]) == ["female", "female"]


def test_versions_that_differ_in_edits_only_keep_their_groups():
    found = detector("gender")
    texts = ["Maria Lopez repaired the old boiler on Monday.", "Maria Lopez repaired the old boiler on Tuesday."]
    # each one's own words ("Monday", "Tuesday") are no evidence: both stay female rather than become neutral
    assert found.contrast_groups(texts, ["female", "female"], [[1], [0]]) == ["female", "female"]


def test_labelled_documents_keep_their_label_and_lengths_must_agree():
    found = detector("gender")
    versions = [[1, 2], [0, 2], [0, 1]]
    assert found.contrast_groups(DEPOT, ["male"] * 3, versions, [True, False, False])[0] == "male"
    with pytest.raises(InputError, match="3 texts, 2 groups and 3 version lists"):
        found.contrast_groups(DEPOT, ["male"] * 2, versions)


def test_store_groups_finds_versions_among_the_index_neighbours(embedder):
    docs = [Document(i, text) for i, text in enumerate([*DEPOT, UNRELATED])]
    index = FaissIndex.from_documents(docs, embedder)
    assert index.versions() == [[1, 2], [0, 2], [0, 1], []]
    assert index.store_groups("gender", versions=False).groups == ["male", "male", "neutral", "neutral"]
    assert index.store_groups("gender").groups == ["female", "male", "neutral", "neutral"]
    labelled = [Document("x", DEPOT[0], {GROUP_KEY: "male"}), *docs[1:]]
    assert FaissIndex.from_documents(labelled, embedder).store_groups().groups[0] == "male"  # a user label stays


def test_versions_raise_the_stored_groups_accuracy_on_a_set_with_side_people(embedder):
    # fairness_passages27: side people in every chunk, the detector alone 0.68 (0.701 since session 32's words used
    # of no one; benchmarks/RESULTS.md, "Groups by contrast between versions", "Session 32: words used of no one")
    task = load_fairness_passages(27)
    index = FaissIndex.from_documents(task.documents, embedder)
    gold = [doc.metadata["group"] for doc in task.documents]

    def accuracy(groups: list[str]) -> float:
        return sum(g == x for g, x in zip(gold, groups)) / len(gold)

    alone = accuracy(index.store_groups(versions=False).groups)
    assert alone < 0.71
    assert accuracy(index.store_groups().groups) > alone + 0.2


def test_cli_index_stores_and_reports_groups_read_by_contrast(tmp_path, run_cli):
    rows = [{"id": str(i), "text": text} for i, text in enumerate([*DEPOT, UNRELATED])]
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    proc = run_cli("index", corpus, "--out", tmp_path / "ix")
    assert proc.returncode == 0, proc.stderr
    assert "1 female, 1 male, 2 neutral" in proc.stderr
    assert "name both women and men" not in proc.stderr  # the female wording names Mr Hale too: settled by contrast
    rows = data_paths(tmp_path / "ix")["documents.jsonl"].read_text().splitlines()
    assert [json.loads(row)["groups"]["gender"] for row in rows] == ["female", "male", "neutral", "neutral"]


def test_retriever_reads_versions_of_groups_it_infers_itself(embedder):
    # no store_groups(): the retriever infers a candidate's group on first use and reads it against its versions
    from debiasrag import DebiasedRetriever

    docs = [Document(str(i), text) for i, text in enumerate([*DEPOT, UNRELATED])]
    index = FaissIndex.from_documents(docs, embedder)
    retriever = DebiasedRetriever(index, embedder, strategy="balanced", k=3)
    assert [retriever.group_of(p) for p in range(4)] == ["female", "male", "neutral", "neutral"]
    assert index.versions(positions=[0, 3]) == [[1, 2], []]
    # a fresh retriever reads them from the query's candidates (no group_of call first, no extra store call)
    fresh = DebiasedRetriever(index, embedder, strategy="balanced", k=3)
    hits = fresh.retrieve("Who drove the van out of the depot at dawn?").hits
    assert {hit.id: hit.group for hit in hits} == {"0": "female", "1": "male", "2": "neutral"}
    labelled = [Document("x", DEPOT[0], {GROUP_KEY: "male"}), *docs[1:]]
    kept = DebiasedRetriever(FaissIndex.from_documents(labelled, embedder), embedder)
    assert kept.group_of(0) == "male"  # a label is never read against versions


def test_group_lookup_gives_strategies_the_documents_texts():
    # what Dynamic(versions=True) reads to find versions among a wrapped store's candidates
    from debiasrag.concepts import load_concept
    from debiasrag.groups import group_lookup

    seen = {"a": Document("a", DEPOT[0]), "b": Document("b", DEPOT[1], {GROUP_KEY: "male"})}
    lookup = group_lookup(load_concept("gender"), seen)
    assert lookup.text_of is not None and [lookup.text_of(key) for key in seen] == DEPOT[:2]
    assert [lookup.of(key) for key in seen] == ["female", "male"]  # "a" read against its version "b"


def test_groups_annotated_batch_by_batch_are_read_against_versions_at_query_time(embedder):
    # ingestion in batches of one: annotate_groups sees no versions, and the side person decides the female wording
    from debiasrag import DebiasedRetriever
    from debiasrag.concepts import load_concept
    from debiasrag.groups import group_lookup

    docs = [Document(str(i), text) for i, text in enumerate(DEPOT)]
    assert [annotate_groups([doc])[0] for doc in docs] == ["male", "male", "neutral"]
    lookup = group_lookup(load_concept("gender"), {doc.id: doc for doc in docs})  # a query's candidates
    assert [lookup.of(doc.id) for doc in docs] == ["female", "male", "neutral"]
    retriever = DebiasedRetriever(FaissIndex.from_documents(docs, embedder), embedder, strategy="balanced", k=3)
    hits = retriever.retrieve("Who drove the van out of the depot at dawn?").hits
    assert {hit.id: hit.group for hit in hits} == {"0": "female", "1": "male", "2": "neutral"}
    alone = group_lookup(load_concept("gender"), {"0": docs[0]})  # without its versions the annotation stands
    assert alone.of("0") == "male"


def test_cli_query_with_versions_returns_every_wording_of_the_answer_text(tmp_path, capsys):
    from debiasrag.cli import main

    task = load_fairness_passages(5)
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(
        "".join(json.dumps({"id": d.id, "text": d.text}) + "\n" for d in task.documents), encoding="utf-8"
    )
    assert main(["index", str(corpus), "--out", str(tmp_path / "ix")]) == 0
    query = task.queries["T-hos-06"]  # a kitchen's health inspection: its non-relevant text is close

    def ids(*extra: str) -> list[str]:
        capsys.readouterr()
        assert main(["query", str(tmp_path / "ix"), query, "--json", *extra]) == 0
        return [hit["id"] for hit in json.loads(capsys.readouterr().out)]

    assert set(ids("--versions")) == task.relevant["T-hos-06"]  # the answer in all three wordings, nothing else
    assert set(ids()) > task.relevant["T-hos-06"]  # the default window also keeps the close text's wordings
    assert main(["query", str(tmp_path / "ix"), query, "--strategy", "topk", "--versions"]) == 2
    assert "--versions applies to --strategy dynamic" in capsys.readouterr().err


def test_neighbouring_chunks_of_a_sliding_window_are_no_versions():
    """Chunks of four sentences at a stride of one share three quarters of their tokens: read as versions of one
    text, `balanced` swapped the second-best answer chunk for its neighbour (0.661 -> 0.318) and `dynamic` returned
    all of a document's chunks (red-team round 6)."""
    from debiasrag.versions import families, is_version, overlapping_windows

    story = [
        "Dr. Anna Kowalski began her shift at the county hospital at seven in the morning.",
        "She reviewed the overnight admissions with the charge nurse before rounds.",
        "Tom Becker, the new radiographer, had flagged an unusual shadow on a chest scan.",
        "He explained that the shadow sat just behind the patient's left lung.",
        "Anna ordered a contrast CT to rule out an aortic aneurysm.",
        "The CT confirmed a small aneurysm, and she scheduled surgery for the afternoon.",
    ]
    chunks = [" ".join(story[i : i + 4]) for i in range(3)]
    assert overlapping_windows(chunks[0], chunks[1]) and overlapping_windows(chunks[2], chunks[1])
    assert not is_version(chunks[0], chunks[1]) and families(chunks) == [0, 1, 2]
    # versions of one text still are, whatever their first words
    female = "Anna ordered a contrast CT to rule out an aortic aneurysm, and she scheduled surgery for the afternoon."
    neutral = (
        "The doctor ordered a contrast CT to rule out an aortic aneurysm, and they scheduled surgery for the afternoon."
    )
    assert is_version(female, neutral) and not overlapping_windows(female, neutral)


# One template, different jobs: they share most of their words but are about different things (a red team's staff
# directory, session 38, in our own words). Two profiles of one job may differ by the person only.
PROFILE = (
    "Staff profile: {name} works as a {job} in the {place} at Westbrook Clinic. {She} joined Westbrook Clinic in 2019 "
    "and is part of the weekend rota. For questions, contact {her} team through the staff directory."
)
STAFF = {
    "nurse-f": dict(name="Lena Ortiz", job="pediatric nurse", place="children's ward", She="She", her="her"),
    "nurse-m": dict(name="Karim Haddad", job="pediatric nurse", place="children's ward", She="He", her="his"),
    "cook-m": dict(name="Paul Brandt", job="cafeteria cook", place="staff kitchen", She="He", her="his"),
    "desk-f": dict(name="Ines Duarte", job="help desk agent", place="front office", She="She", her="her"),
    "driver-m": dict(name="Tomas Berg", job="forklift driver", place="loading dock", She="He", her="his"),
}


def test_template_siblings_about_different_things_are_no_versions():
    texts = {key: PROFILE.format(**slots) for key, slots in STAFF.items()}
    assert token_overlap(texts["nurse-f"], texts["cook-m"]) >= 0.6  # they share enough words to pass the overlap
    assert content_apart(texts["nurse-f"], texts["cook-m"]) == (
        ["pediatric", "nurse", "children's", "ward"],
        ["cafeteria", "cook", "staff", "kitchen"],
    )
    assert not is_version(texts["nurse-f"], texts["cook-m"])
    assert not is_version(texts["desk-f"], texts["driver-m"])
    # one job, another person: the same text in another wording as far as the words go
    assert content_apart(texts["nurse-f"], texts["nurse-m"]) == ([], [])
    assert is_version(texts["nurse-f"], texts["nurse-m"])
    found = find_versions(list(texts.values()))
    assert found == [[1], [0], [], [], []]


def test_a_neutral_wording_may_name_a_role_and_change_the_verbs():
    female = "Maria says she checks the smoke alarm each month and replaces its battery every spring."
    neutral = "The fire safety officer says they check the smoke alarm each month and replace its battery every spring."
    # "check"/"checks", "replace"/"replaces": the grammar a change of subject forces; the role is one side's words
    assert content_apart(female, neutral) == ([], ["fire", "safety", "officer"])
    assert is_version(female, neutral)
    actress = "The actress rehearsed her lines on the train and learned the second act by Friday."
    actor = "The actor rehearsed their lines on the train and learned the second act by Friday."
    assert content_apart(actress, actor) == ([], [])  # "actor": the neutral counterpart of "actress"


def test_a_users_concept_words_may_tell_its_versions_apart():
    from debiasrag.concepts import Concept
    from debiasrag.groups import GroupDetector

    church = "Every Sunday the church choir sang, and after the church service the church hall served soup to all."
    mosque = "Every Friday the mosque choir sang, and after the mosque service the mosque hall served soup to all."
    assert not is_version(church, mosque)  # three content words on each side
    concept = Concept.from_dict(
        {
            "name": "faith",
            "groups": ["christian", "muslim"],
            "pairs": [["church", "mosque"], ["sunday", "friday"]],
            "variants": {"christian": "This person is a Christian.", "muslim": "This person is a Muslim."},
            "debiasing": "This person's faith is unknown.",
        },
        source="test",
    )
    words = GroupDetector(concept).concept_words
    assert {"church", "mosque"} <= words
    assert is_version(church, mosque, concept_words=words)


def test_dynamic_and_balanced_keep_template_siblings_of_other_jobs_out(embedder):
    # At small caps dynamic takes balanced's version swaps, which come at any score: a sibling taken for a version
    # brought an off-topic profile in (a forklift driver for the help desk, session 38's red team).
    from debiasrag import DebiasedRetriever

    docs = [Document(key, PROFILE.format(**slots)) for key, slots in STAFF.items()]
    retriever = DebiasedRetriever(FaissIndex.from_documents(docs, embedder), embedder)
    for strategy in ("dynamic", "balanced"):
        for k in (1, 2):
            ids = retriever.retrieve("pediatric nurse on the children's ward", k=k, strategy=strategy).ids
            assert set(ids) <= {"nurse-f", "nurse-m"}, (strategy, k, ids)


def test_our_own_gender_swaps_and_neutral_wordings_are_versions_of_their_source():
    # a corpus augmented by debiasrag augment / index --neutralize must keep its versions found by their words
    from debiasrag.counterfactual.gender_swap import GenderSwapper
    from debiasrag.counterfactual.neutralize import GenderNeutralizer

    texts = [
        "The waitress told her manager that she would cover the late shift for her brother on Saturday.",
        "Every spring Mrs Okafor repots the orchids on the kitchen windowsill into fresh bark, and her husband says she"
        " waters them only when the roots turn silver.",
        "He asked his daughter's headmistress whether the school would let him volunteer at the library.",
    ]
    for made in (GenderSwapper().swap_batch(texts), GenderNeutralizer().neutralize_batch(texts)):
        for source, version in zip(texts, made):
            assert source != version and is_version(source, version), (source, version, content_apart(source, version))


def test_texts_stating_other_facts_are_no_versions():
    # a red team's near-duplicates (session 39): a negation, a dose, a verdict
    assert not is_version(
        "The drug is safe in pregnancy for most adults.", "The drug is not safe in pregnancy for most adults."
    )
    assert not is_version(
        "Give the child 5 ml of the syrup twice a day with food.",
        "Give the child 15 ml of the syrup twice a day with food.",
    )
    assert not is_version(
        "Status: APPROVED. The building permit for the garden office was reviewed on site.",
        "Status: DENIED. The building permit for the garden office was reviewed on site.",
    )  # no word of a group differs: not two wordings of one text
    # one side alone may hold a number ("the owner of number 12" for a name), and "wasn't" / "weren't" are one
    assert is_version(
        "Maria says she wasn't told the boiler needed a service before the winter started.",
        "The owner of number 12 says they weren't told the boiler needed a service before the winter started.",
    )


def test_curly_apostrophes_and_compounds_of_gendered_words_are_the_concept_s_words():
    assert is_version(
        "The girls’ coach booked the pitch, and the mothers’ committee paid for the kit on Friday.",
        "The boys’ coach booked the pitch, and the fathers’ committee paid for the kit on Friday.",
    )
    assert content_apart(
        "The chairwoman-elect thanked her ex-husband for his support at the dinner.",
        "The chairman-elect thanked his ex-wife for her support at the dinner.",
    ) == ([], [])


CLINIC = (
    "Dr {name} is a {job} at Riverside Clinic. {She} {sees} patients on weekdays and {her} clinic takes new referrals."
)


def test_a_template_sibling_one_word_apart_is_a_family_member_but_never_swapped_in():
    from debiasrag.versions import SWAP_APART

    derm = CLINIC.format(name="Amara Obi", job="dermatologist", She="She", sees="sees", her="her")
    radio = CLINIC.format(name="Sam Reyes", job="radiologist", She="They", sees="see", her="their")
    assert content_apart(derm, radio) == (["dermatologist"], ["radiologist"])
    assert is_version(derm, radio)  # one word apart on each side: a family for the cut over texts
    assert not is_version(derm, radio, max_apart=SWAP_APART)  # but no swap at any score


def test_balanced_and_dynamic_keep_the_answer_over_a_sibling_one_word_apart(embedder):
    # with the family rule for swaps too, k = 1 swapped the dermatologist for the radiologist's neutral page
    from debiasrag import DebiasedRetriever

    jobs = [
        ("derm", "Amara Obi", "dermatologist", "She", "sees", "her"),
        ("radio", "Sam Reyes", "radiologist", "They", "see", "their"),
        ("cardio", "Ken Sato", "cardiologist", "He", "sees", "his"),
        ("neuro", "Lena Berg", "neurologist", "She", "sees", "her"),
    ]
    docs = [Document(key, CLINIC.format(name=n, job=j, She=s, sees=x, her=h)) for key, n, j, s, x, h in jobs]
    retriever = DebiasedRetriever(FaissIndex.from_documents(docs, embedder), embedder)
    for strategy in ("balanced", "dynamic"):
        for k in (1, 2):
            assert "derm" in retriever.retrieve("When can I see the dermatologist?", k=k, strategy=strategy).ids


def test_words_held_by_very_many_texts_give_no_candidates():
    # boilerplate repeated in thousands of chunks made the candidate search quadratic (a red team, session 39)
    from debiasrag.versions import COMMON_WORD

    boilerplate = ["This email and any attachments are confidential and intended solely for the addressee."]
    texts = boilerplate * (COMMON_WORD + 1) + DEPOT
    found = word_candidates(texts)
    assert all(row == [] for row in found[: COMMON_WORD + 1])
    assert sorted(found[-3]) == [len(texts) - 2, len(texts) - 1]  # the versions still find each other


def test_many_fillings_of_one_template_make_no_family():
    from debiasrag.versions import MAX_VERSIONS

    jobs = ["dermatologist", "radiologist", "cardiologist", "neurologist", "urologist", "oncologist"]
    people = ["Amara Obi", "Tom Reyes", "Lena Berg", "Ken Sato", "Ines Duarte", "Omar Haddad"]
    pages = [
        CLINIC.format(
            name=name,
            job=job,
            **(dict(She="She", sees="sees", her="her") if i % 2 == 0 else dict(She="He", sees="sees", her="his")),
        )
        for i, (name, job) in enumerate(zip(people, jobs))
    ]
    assert all(len(found) > MAX_VERSIONS for found in find_versions(pages, [list(range(6))] * 6))
    assert families(pages) == list(range(6))  # six pages, six texts
    assert families([*DEPOT, UNRELATED]) == [0, 0, 0, 3]  # three wordings of one text stay one


def test_short_and_role_dense_wordings_are_versions():
    # every word for a person reads as one in the overlap: "Ask her." / "Ask him." share only half their tokens
    from debiasrag.counterfactual.neutralize import GenderNeutralizer

    assert token_overlap("Ask her.", "Ask him.") == 0.5 and is_version("Ask her.", "Ask him.")
    roles = "The policewoman, the stewardess and the headmistress met the spokeswoman at the station."
    neutral = GenderNeutralizer().neutralize(roles)
    assert token_overlap(roles, neutral) < 0.6 and is_version(roles, neutral), neutral
    assert not is_version("She left early.", "He stayed late.")


def test_bad_concept_words_and_max_apart_are_input_errors():
    texts = DEPOT[:2]
    with pytest.raises(InputError, match="concept word"):
        find_versions(texts, concept_words="she")  # one string: letter by letter
    with pytest.raises(InputError, match="concept word 1 is int"):
        is_version(*texts, concept_words=["she", 7])
    with pytest.raises(InputError, match="max_apart must be an integer"):
        find_versions(texts, max_apart=-1)
    with pytest.raises(InputError, match="max_apart must be an integer"):
        is_version(*texts, max_apart="1")
    # a list or set of words is read as the concept's words, like the detector's frozenset
    assert find_versions(texts, concept_words={"her", "his"}) == find_versions(
        texts, concept_words=frozenset({"her", "his"})
    )


def test_texts_in_other_scripts_are_no_versions():
    # English only (session 39's red team): a Chinese label pair differing in a dose and a negation, Hindi "safe" /
    # "unsafe" (whose vowel signs \w does not match) and a Russian re-gendered pair are different texts.
    pairs = [
        ("成人每次服用1片，每日三次。本品不适用于孕妇。", "儿童每次服用2片，每日三次。本品适用于孕妇。"),
        ("यह दवा सुरक्षित है", "यह दवा असुरक्षित है"),
        ("Она врач в больнице.", "Он врач в больнице."),
    ]
    for a, b in pairs:
        assert not is_version(a, b)
    assert find_versions([a for pair in pairs for a in pair]) == [[] for _ in range(6)]
    assert is_version("She is a doctor at the hospital.", "He is a doctor at the hospital.")  # the English control


def test_an_editors_rewrite_of_the_verbs_is_a_version():
    # Session 39's red team: a neutral rewrite changes verb forms on both sides ("he leaves" / "before leaving").
    he = "Every doctor should update his notes before he leaves the ward and sign them when he finishes his shift."
    they = "Every doctor should update their notes before leaving the ward and sign them when finishing their shift."
    assert content_apart(he, they) == ([], [])
    assert is_version(he, they)
    passive = (
        "The applicant signs the form and he sends it to the registrar, who stamps it for him.",
        "The form is signed by the applicant and sent to the registrar, who stamps it.",
    )
    assert is_version(*passive)
    # a stem shared is no licence for other words: two jobs stay apart
    assert content_apart(
        "She repairs the engines and paints the hulls.", "He repaired the engines and sanded the decks."
    ) == (["paints", "hulls"], ["sanded", "decks"])


@pytest.mark.parametrize(
    ("texts", "expected"),
    [
        (  # an unlisted name beside a listed one of the same gender, one template (red team, session 43)
            [
                "Wei is a chef in Hanoi. He leads a team of twelve and has 28 years of experience.",
                "Michael is a chef in Pune. He leads a team of twelve and has 28 years of experience.",
            ],
            ["male", "male"],
        ),
        (
            [
                "Sam is a nurse in Leeds. She works night shifts and has 5 years of experience.",
                "Mary is a nurse in Oslo. She works night shifts and has 5 years of experience.",
            ],
            ["female", "female"],
        ),
        (  # the shared words name other people ("her grandmother"): the name decides, so the unlisted one is neutral
            [
                "Yuna Sato visits schools with a puppet. One girl made her grandmother learn the postcode, she said.",
                "Sora Sato visits schools with a puppet. One girl made her grandmother learn the postcode, she said.",
            ],
            ["female", "neutral"],
        ),
    ],
)
def test_two_people_of_one_group_in_one_template_keep_their_group(texts: list[str], expected: list[str]) -> None:
    docs = [Document(str(i), text) for i, text in enumerate(texts)]
    assert find_versions(texts) == [[1], [0]]  # taken for versions: they differ in a name and a place
    assert annotate_groups(docs) == expected
