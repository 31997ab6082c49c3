"""Red-team round 5, core and CLI: a new user following the README (placeholders already in a text, an index's own
documents.jsonl re-indexed, empty labels, place names first in a sentence)."""

from __future__ import annotations

import json
from pathlib import Path

from debiasrag.anonymize import NerAnonymizer
from debiasrag.cli import main
from debiasrag.groups import GroupDetector


def test_a_placeholder_already_in_the_text_stays_itself():
    # NER tagged "PERSON_1" as a place: it became LOC_1, and reversing mapped it back to "PERSON_1" only by luck
    result = NerAnonymizer(strategy="replace").anonymize("The note says PERSON_1 met Maria in Leeds.")
    assert result.text == "The note says PERSON_1 met PERSON_2 in LOC_1."
    assert NerAnonymizer().anonymize("PERSON_1 met Maria.").text == "PERSON_1 met."


def test_place_names_first_in_a_sentence_are_no_evidence():
    detector = GroupDetector("gender")
    assert detector.group("King's Cross was busy.") == detector.group("Kings Cross was busy.") == "neutral"
    assert detector.group("Sisters Anna and Maria sang.") == "female"  # a first name after it: still a person
    assert detector.group("Mother's recipe won the prize.") == "female"


def test_an_index_documents_file_re_indexes_and_an_empty_label_labels_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    rows = [
        {"id": 1, "text": "She fixed the payment service.", "source": "blog", "debiasrag_group": ""},
        {"id": 2, "text": "He wrote the docs.", "source": "wiki"},
    ]
    Path("c.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    assert main(["index", "c.jsonl", "--out", "ix"]) == 0  # an empty debiasrag_group was refused here
    for _ in range(2):  # the second rebuild failed: 'groups' both in 'metadata' and beside it
        (stored,) = sorted(Path("ix").glob("debiasrag-data-*/documents.jsonl"))[-1:]
        assert main(["index", str(stored), "--out", "ix"]) == 0
    capsys.readouterr()
    assert main(["query", "ix", "payment", "--k", "1", "--strategy", "topk", "--json"]) == 0
    (hit,) = json.loads(capsys.readouterr().out)
    assert hit["metadata"] == {"source": "blog", "debiasrag_group": ""}  # no 'groups' carried into it


def test_a_sentence_lists_each_top_word_once():
    from debiasrag.counterfactual.bias_score import GloveBiasScorer

    (scored,) = GloveBiasScorer().fit().score(["The committee met the nurse and a doctor at a cafe."])
    words = [word.casefold() for word, _ in scored.top_words(5)]
    assert len(words) == len(set(words)) == 5  # "a" twice and "The" / "the" were listed twice


def test_an_empty_argument_is_refused_not_read_as_the_current_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["index", "c.jsonl", "--out", ""]) == 2
    assert "--out is given an empty value" in capsys.readouterr().err
    assert main(["demo", "--out="]) == 2
    assert "--out is given an empty value" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []


def test_options_whose_default_is_empty_may_be_given_empty(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("in.jsonl").write_text('{"id": 1, "text": "Maria met Ama."}\n', encoding="utf-8")
    assert main(["anonymize", "in.jsonl", "out.jsonl", "--allow=", "--deny", ""]) == 0  # a script's empty $NAMES
    assert json.loads(Path("out.jsonl").read_text(encoding="utf-8"))["text"] == "met."


def test_an_index_row_of_a_custom_concept_re_indexes_without_its_groups():
    from debiasrag.corpus import row_metadata

    row = {"id": 1, "text": "t", "metadata": {"source": "x"}, "groups": {"gender": "female", "sex": "female"}}
    assert row_metadata(row) == {"source": "x"}
    mine = {"id": 1, "text": "t", "metadata": {"source": "x"}, "groups": {"department": "sales"}, "more": 1}
    assert row_metadata(mine)["groups"] == {"department": "sales"}  # a user's own field beside others: kept
