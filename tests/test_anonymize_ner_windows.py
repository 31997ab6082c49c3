"""The default NER anonymizer runs spaCy's entity recognizer only around undecided candidates (module docstring
of debiasrag.anonymize.ner); it must remove exactly what a pass over every token removes."""

from __future__ import annotations

import functools

import pytest

from debiasrag.anonymize import NerAnonymizer
from debiasrag.anonymize.evaluate import load_gold, name_recall

pytest.importorskip("spacy")


@functools.cache
def pair() -> tuple[NerAnonymizer, NerAnonymizer]:
    return NerAnonymizer(), NerAnonymizer(full_ner=True)


@pytest.mark.parametrize("gold_file", ["ner_gold.jsonl", "ner_gold_heldout.jsonl"])
def test_windows_remove_what_the_full_pass_removes(gold_file: str) -> None:
    windowed, full = pair()
    assert windowed.ner_windows and not full.ner_windows
    rows = load_gold(gold_file)
    texts = [row["text"] for row in rows]
    ours, theirs = windowed.anonymize_batch(texts), full.anonymize_batch(texts)
    assert [r.text for r in ours] == [r.text for r in theirs]
    assert name_recall(rows, [r.entities for r in ours]) == name_recall(rows, [r.entities for r in theirs])


EDGE_CASES = [
    "Christmas Eve was quiet in the village.",  # 'Eve' is a known given name; only NER sees a date
    "She flew to Paris with Jordan last May.",
    "Ford announced a new truck in Detroit.",
    "The Golden Gate Bridge was closed for repairs.",  # a landmark stays
    "He studied at the University of Oslo before moving to Bergen.",
    "Washington signed the bill in Washington.",
    "Lincoln Park is crowded every Sunday.",
    "Summer arrived early; Autumn was late.",
    "Ramadan begins next week for Aisha.",
    "Hunter green is a popular colour for kitchens.",
]


def test_windows_match_the_full_pass_on_ambiguous_phrases() -> None:
    windowed, full = pair()
    assert [r.text for r in windowed.anonymize_batch(EDGE_CASES)] == [r.text for r in full.anonymize_batch(EDGE_CASES)]


def test_the_ner_runs_on_a_minority_of_tokens_and_still_decides_sentence_starts() -> None:
    windowed, _ = pair()
    texts = [row["text"] for row in load_gold()]
    docs = list(windowed.nlp.pipe(texts, disable=["ner"]))
    in_windows = sum(high - low for doc in docs for low, high in windowed._windows(doc))
    assert in_windows < 0.6 * sum(len(doc) for doc in docs)
    # "Mark" opens the sentence and is also an ordinary word: only the NER confirms it (the tagger-only
    # configuration keeps it), so it must be inside a window.
    text = "Mark argued with Deshawn about the rent."
    assert windowed.anonymize(text).text == "argued with about the rent."
    assert NerAnonymizer(use_ner=False).anonymize(text).text.startswith("Mark")
    # "Malik" is a dictionary word too, but one text uses as a name (data/names/dictionary_names.txt): no NER needed.
    malik = "Malik argued with Deshawn about the rent."
    assert (
        windowed.anonymize(malik).text
        == NerAnonymizer(use_ner=False).anonymize(malik).text
        == "argued with about the rent."
    )


def test_a_window_never_cuts_a_name() -> None:
    """'Bordeaux' is undecided; its window reaches 'Sophie Martin', which must be seen whole, with context."""
    windowed, full = pair()
    text = "Sophie Martin and Lucas Bernard run a vineyard near Bordeaux."
    doc = next(iter(windowed.nlp.pipe([text], disable=["ner"])))
    assert windowed._windows(doc) == [(0, len(doc))]
    spans = [(e.start, e.end) for e in windowed.anonymize(text).entities]
    assert spans == [(e.start, e.end) for e in full.anonymize(text).entities] == [(0, 13), (18, 31), (52, 60)]


@pytest.mark.parametrize(
    "options",
    [{"strategy": "replace"}, {"entities": "person"}, {"entities": "all"}, {"use_ner": False}, {"full_ner": True}],
)
def test_every_other_configuration_runs_the_full_pass(options: dict) -> None:
    assert not NerAnonymizer(**options).ner_windows
