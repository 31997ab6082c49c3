"""``load_labelled_set`` (``bench retrieval --data``): errors that say how to fix a set written a little otherwise
(red-team of session 41, findings 4-7: a 'gender' column, judgements on query rows, invisible texts, one file of a
folder set, comma-separated ids, graded qrels, CR-only line ends). Each stays one line, an InputError."""

from __future__ import annotations

import csv
import json

import pytest

from debiasrag.datasets import load_labelled_set
from debiasrag.errors import InputError

QUERIES = [{"id": "q1", "text": "How do I fix a flat bicycle tyre?"}, {"id": "q2", "text": "What helps a baby sleep?"}]
SUBJECT = {"female": "She", "male": "He", "neutral": "The parent"}


def documents() -> list[dict]:
    return [
        {"id": f"{q}-{g}", "text": f"{s} {what}", "group": g, "relevant_to": [q]}
        for q, what in (("q1", "patched the flat tyre."), ("q2", "sang the baby to sleep."))
        for g, s in SUBJECT.items()
    ]


def write_jsonl(path, rows, end="\n"):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + end for r in rows), encoding="utf-8", newline="")
    return path


def folder_set(tmp_path, docs=None, queries=None, qrels=None):
    write_jsonl(tmp_path / "queries.jsonl", QUERIES if queries is None else queries)
    write_jsonl(tmp_path / "documents.jsonl", documents() if docs is None else docs)
    if qrels is not None:
        write_jsonl(tmp_path / "qrels.jsonl", qrels)
    return tmp_path


def error(path, **kwargs) -> str:
    with pytest.raises(InputError) as err:
        load_labelled_set(path, **kwargs)
    message = str(err.value)
    assert "\n" not in message, message
    return message


def relabel(column: str) -> list[dict]:
    """Every document's label under ``column`` instead of 'group'."""
    return [{**{k: v for k, v in d.items() if k != "group"}, column: d["group"]} for d in documents()]


# -- Finding 4: a label column of another name -------------------------------------------------------------------
@pytest.mark.parametrize("column", ["gender", "Gender", "sex", "SEX", "label"])
@pytest.mark.parametrize("unknown_groups", ["error", "neutral", "skip"])
def test_a_label_column_of_another_name_is_named_and_no_unknown_groups_hint(tmp_path, column, unknown_groups):
    message = error(folder_set(tmp_path, relabel(column)), unknown_groups=unknown_groups)
    assert message == f"documents.jsonl:1: row has no 'group' (it has {column!r}; the label column is 'group')"
    assert "unknown_groups" not in message


def test_content_gender_in_the_documents_layout_says_the_column_there_is_group(tmp_path):
    docs = [{**d, "content_gender": d["content_gender"][0].upper()} for d in relabel("content_gender")]  # F / M / N
    message = error(folder_set(tmp_path, docs))
    assert message.startswith("documents.jsonl:1: row has no 'group' (it has 'content_gender'")
    assert "in the documents layout the label column is 'group'" in message
    assert "unknown_groups" not in message


def test_groups_is_named_as_a_typo_of_group(tmp_path):
    assert "unknown field 'groups'; did you mean 'group'?" in error(folder_set(tmp_path, relabel("groups")))


def test_without_a_label_like_column_the_unknown_groups_hint_stays(tmp_path):
    docs = documents()
    docs[0] = {k: v for k, v in docs[0].items() if k != "group"} | {"topic": "bikes", "gender": ""}  # empty: no label
    message = error(folder_set(tmp_path, docs))
    assert message.startswith("documents.jsonl:1: row has no 'group'; label it female, male or neutral")
    assert "unknown_groups='neutral'" in message


def test_an_empty_group_beside_a_gender_column_is_an_unlabelled_document(tmp_path):
    # the row has the 'group' column (a CSV with both): that document is unlabelled, --unknown-groups applies
    docs = documents()
    docs[1] = {**docs[1], "group": "", "gender": "male"}
    assert "'group' is empty; label it" in error(folder_set(tmp_path, docs))
    task = load_labelled_set(tmp_path, unknown_groups="neutral")
    assert {d.id: d.metadata["group"] for d in task.documents}["q1-male"] == "neutral"


def test_a_gender_field_beside_group_is_metadata(tmp_path):
    docs = [{**d, "gender": "x"} for d in documents()]
    task = load_labelled_set(folder_set(tmp_path, docs))
    assert task.documents[0].metadata == {"gender": "x", "group": "female"}


# -- Finding 5: judgements on query rows ------------------------------------------------------------------------
@pytest.mark.parametrize("key", ["relevant_docs", "relevant_ids", "Relevance", "relevant_to"])
def test_a_relevance_field_on_a_query_row_is_refused(tmp_path, key):
    queries = [{**QUERIES[0], key: ["q1-female"]}, QUERIES[1]]
    message = error(folder_set(tmp_path, queries=queries))
    assert message == (
        f"queries.jsonl:1: unknown field {key!r}; a query row carries no judgements: mark relevance with the "
        "documents' 'relevant_to' or a qrels file"
    )


def test_other_query_fields_and_empty_cells_of_one_csv_are_still_fine(tmp_path):
    queries = [{**QUERIES[0], "note": "x", "relevant_docs": []}, {**QUERIES[1], "relevance": None}]
    assert set(load_labelled_set(folder_set(tmp_path, queries=queries)).queries) == {"q1", "q2"}
    # one CSV with every column: a query row's 'relevant_to' and 'relevance' cells are empty
    columns = ["kind", "id", "text", "group", "relevant_to", "query_id", "doc_id", "relevance"]
    rows = [{"kind": "query", **q} for q in QUERIES] + [{"kind": "document", **d} for d in documents()]
    with (tmp_path / "set.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        for row in rows:
            writer.writerow({c: ";".join(v) if isinstance(v := row.get(c, ""), list) else v for c in columns})
    assert load_labelled_set(tmp_path / "set.csv").relevant["q1"] == {"q1-female", "q1-male", "q1-neutral"}


# -- Finding 6: texts of invisible characters ---------------------------------------------------------------------
@pytest.mark.parametrize("text", ["\u200b", "\u2060", "\ufeff", " \u200b\u2060 ", "\u00a0\u200b"])
def test_an_invisible_document_text_is_refused_with_file_and_line(tmp_path, text):
    docs = documents()
    docs[3] = {**docs[3], "text": text}
    assert error(folder_set(tmp_path, docs)).startswith("documents.jsonl:4: 'text' is blank")


@pytest.mark.parametrize("text", ["\u00a0", " \t "])  # str.strip removes these: empty, as before
def test_a_whitespace_text_is_still_empty(tmp_path, text):
    docs = documents()
    docs[3] = {**docs[3], "text": text}
    assert error(folder_set(tmp_path, docs)) == "documents.jsonl:4: 'text' is empty"


def test_an_invisible_query_text_is_refused_with_file_and_line(tmp_path):
    queries = [QUERIES[0], {**QUERIES[1], "text": "\u200b"}]
    assert error(folder_set(tmp_path, queries=queries)).startswith("queries.jsonl:2: 'text' is blank")


def test_an_invisible_text_in_the_rows_layout_is_refused(tmp_path):
    write_jsonl(tmp_path / "queries.jsonl", [{"q_id": "q1", "query": "How do I fix a tyre?"}])
    rows = [
        {"q_id": "q1", "d_id": "d1", "relevant": 1, "document": "She patched it.", "content_gender": "F"},
        {"q_id": "q1", "d_id": "d2", "relevant": 0, "document": "\ufeff", "content_gender": "M"},
    ]
    write_jsonl(tmp_path / "queries-documents_x.jsonl", rows)
    assert error(tmp_path).startswith("queries-documents_x.jsonl:2: 'document' is blank")


def test_text_with_a_zero_width_space_inside_is_kept(tmp_path):
    docs = documents()
    docs[3] = {**docs[3], "text": "He\u200bsang."}
    assert load_labelled_set(folder_set(tmp_path, docs)).documents[3].text == "He\u200bsang."


# -- Finding 7b: one file of a folder set ---------------------------------------------------------------------
@pytest.mark.parametrize("name", ["queries.jsonl", "documents.jsonl"])
def test_one_file_of_a_folder_set_suggests_the_folder(tmp_path, name):
    folder = folder_set(tmp_path / "myset")
    message = error(folder / name)
    assert message.startswith(f"{name}:1: row has no 'kind'; ")
    assert f"pass the folder, {str(folder)!r}" in message


def test_a_single_file_of_another_name_without_kind_has_no_folder_hint(tmp_path):
    path = write_jsonl(tmp_path / "set.jsonl", QUERIES)
    assert error(path) == "set.jsonl:1: row has no 'kind'"


# -- Finding 7c: relevant_to written with commas or as a pandas list ------------------------------------------
@pytest.mark.parametrize(
    ("value", "hint"),
    [
        ("q1, q2", "; separate ids with ';' (write 'q1;q2')"),
        ("['q1']", "; separate ids with ';' (write 'q1')"),
        ('["q1", "q2"]', "; separate ids with ';' (write 'q1;q2')"),
        ("q9", ""),  # an unknown id alone: no hint
    ],
)
def test_relevant_to_with_commas_or_brackets_hints_at_semicolons(tmp_path, value, hint):
    docs = documents()
    docs[0] = {**docs[0], "relevant_to": value}
    assert error(folder_set(tmp_path, docs)) == f"documents.jsonl:1: relevant to unknown query id {value!r}{hint}"


def test_a_qrels_query_id_with_a_comma_has_no_semicolon_hint(tmp_path):
    message = error(folder_set(tmp_path, qrels=[{"query_id": "q1, q2", "doc_id": "q1-female"}]))
    assert message == "qrels.jsonl:1: relevant to unknown query id 'q1, q2'"


# -- Finding 7d: graded judgements ----------------------------------------------------------------------------
GRADED = "; graded judgements: write 1 for relevant (grade > 0) and 0 otherwise"


@pytest.mark.parametrize("grade", [2, -1, "2", "3.0", 0.5])
def test_a_graded_qrel_says_how_to_map_it(tmp_path, grade):
    message = error(folder_set(tmp_path, qrels=[{"query_id": "q1", "doc_id": "q1-female", "relevance": grade}]))
    assert message == f"qrels.jsonl:1: 'relevance' must be 1 or 0, got {grade!r}{GRADED}"


def test_a_graded_judgement_row_says_how_to_map_it_and_a_word_does_not(tmp_path):
    write_jsonl(tmp_path / "queries.jsonl", [{"q_id": "q1", "query": "How do I fix a tyre?"}])
    row = {"q_id": "q1", "d_id": "d1", "relevant": 2, "document": "She patched it.", "content_gender": "F"}
    write_jsonl(tmp_path / "queries-documents_x.jsonl", [row])
    assert error(tmp_path) == f"queries-documents_x.jsonl:1: 'relevant' must be 1 or 0, got 2{GRADED}"
    write_jsonl(tmp_path / "queries-documents_x.jsonl", [{**row, "relevant": "yes"}])
    assert error(tmp_path) == "queries-documents_x.jsonl:1: 'relevant' must be 1 or 0, got 'yes'"


# -- Finding 7f: CR-only line ends ----------------------------------------------------------------------------
def test_cr_only_jsonl_says_why_the_lines_run_together(tmp_path):
    folder_set(tmp_path)
    write_jsonl(tmp_path / "documents.jsonl", documents(), end="\r")
    message = error(tmp_path)
    assert message.startswith("documents.jsonl:1: not valid JSON (Extra data)")
    assert "lines end in '\\r' only" in message


def test_crlf_and_a_bad_line_without_cr_have_no_line_end_hint(tmp_path):
    folder_set(tmp_path)
    write_jsonl(tmp_path / "documents.jsonl", documents(), end="\r\n")
    assert len(load_labelled_set(tmp_path).documents) == 6
    (tmp_path / "documents.jsonl").write_text(json.dumps(documents()[0]) * 2 + "\n", encoding="utf-8")
    assert error(tmp_path) == "documents.jsonl:1: not valid JSON (Extra data)"


# -- the command line: one line, exit 2, before any model loads ------------------------------------------------
def test_cli_label_column_and_invisible_text_are_one_line_errors(tmp_path, run_cli, one_line_error):
    result = run_cli("bench", "retrieval", "--data", folder_set(tmp_path / "a", relabel("gender")))
    one_line_error(result, "documents.jsonl:1: row has no 'group' (it has 'gender'; the label column is 'group')")
    assert "--unknown-groups" not in result.stderr
    docs = documents()
    docs[3] = {**docs[3], "text": "\u200b"}
    one_line_error(
        run_cli("bench", "retrieval", "--data", folder_set(tmp_path / "b", docs), "--cache-dir", tmp_path / "cache"),
        "documents.jsonl:4: 'text' is blank",
    )
