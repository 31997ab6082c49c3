"""The mixed corpora (``data/retrieval/mixed_corpora/``): small hand-written corpora of mostly neutral documents with
hand-fixed relevance and hand-labelled groups, five design sets and two report sets (``load_mixed_corpora``)."""

from __future__ import annotations

import hashlib
import json

import pytest

from debiasrag import DebiasedRetriever, FaissIndex
from debiasrag.datasets import MIXED_CORPORA, MIXED_CORPORA_REPORT, load_labelled_set, load_mixed_corpora
from debiasrag.errors import InputError
from debiasrag.resources import as_file, data_path

# set -> (queries, documents, female, male, neutral), as the README's table says
SHAPES = {
    "tech_support": (14, 60, 5, 6, 49),
    "job_news": (14, 40, 17, 18, 5),
    "cvs": (14, 50, 19, 20, 11),
    "university_faq": (28, 40, 6, 6, 28),
    "near_duplicates": (12, 36, 14, 14, 8),
    "library_help": (15, 48, 8, 9, 31),
    "clinic_info": (15, 48, 9, 9, 30),
}
# the report source as registered in data/retrieval/README.md before its first run
REPORT_SHA256 = "f7ec31573f390b58d0f9f76f67116939f4d9d4285cf0cd5034a908bfdc38c528"


def all_sets() -> dict:
    return {**load_mixed_corpora(), **load_mixed_corpora(report=True)}


def test_every_set_loads_with_its_shape() -> None:
    tasks = all_sets()
    assert set(tasks) == set(SHAPES) == {*MIXED_CORPORA, *MIXED_CORPORA_REPORT}
    for name, task in tasks.items():
        groups = [d.metadata["group"] for d in task.documents]
        shape = (len(task.queries), len(task.documents), *(groups.count(g) for g in ("female", "male", "neutral")))
        assert shape == SHAPES[name], name
        with as_file("retrieval", "mixed_corpora", name) as folder:  # the folder is a set of the documented format
            assert load_labelled_set(folder).relevant == task.relevant


def test_ids_unique_and_every_query_has_a_relevant_document() -> None:
    for name, task in all_sets().items():
        ids = [str(d.id) for d in task.documents]
        assert len(ids) == len(set(ids)), name
        assert task.queries and set(task.relevant) == set(task.queries), name
        for qid, relevant in task.relevant.items():
            assert relevant and set(relevant) <= set(ids), (name, qid)
        assert not task.notes, name  # nothing relabelled or left out


def test_groups_as_labelled_by_hand() -> None:
    tasks = all_sets()
    group = {name: {str(d.id): d.metadata["group"] for d in task.documents} for name, task in tasks.items()}
    spot = {
        ("university_faq", "d07"): "female",  # Mrs. Gloria Mendes, the finance officer
        ("university_faq", "d02"): "male",  # Mr. Daniel Ruiz
        ("university_faq", "d06"): "neutral",
        ("cvs", "c06"): "neutral",  # a first-person CV
        ("cvs", "c17"): "female",
        ("tech_support", "a04"): "male",  # technician Daniel
        ("near_duplicates", "e09"): "female",
        ("near_duplicates", "e10"): "female",  # a repost of e09, word for word
        ("library_help", "lh03"): "female",
        ("library_help", "lh27"): "male",
        ("clinic_info", "ci18"): "neutral",  # names "pregnant women": a group, no particular person
        ("clinic_info", "ci30"): "male",
    }
    assert {key: group[key[0]][key[1]] for key in spot} == spot


def test_university_faq_holds_both_phrasings_over_one_corpus() -> None:
    task = load_mixed_corpora(["university_faq"])["university_faq"]
    direct = [q for q in task.queries if q.startswith("faq-direct-")]
    student = [q for q in task.queries if q.startswith("faq-student-")]
    assert len(direct) == len(student) == 14
    assert {task.areas[q] for q in direct} == {"direct"} and {task.areas[q] for q in student} == {"student"}
    assert all(len(task.relevant[q]) == 1 for q in task.queries)  # one answer each
    assert task.relevant["faq-direct-03"] == task.relevant["faq-student-01"] == {"d07"}  # the same answer, rephrased


def test_jsonl_is_what_the_script_builds_from_the_source(maintainer_script) -> None:
    build = maintainer_script("build_mixed_corpora")
    for source in build.SOURCES:
        for entry in json.loads(data_path("retrieval", "source", source).read_text(encoding="utf-8"))["sets"]:
            queries, documents = build.rows(entry, source)
            folder = data_path("retrieval", "mixed_corpora", entry["name"])
            for rows, stem in ((queries, "queries"), (documents, "documents")):
                lines = (folder / f"{stem}.jsonl").read_text(encoding="utf-8").splitlines()
                assert [json.loads(line) for line in lines] == rows, (entry["name"], stem)


def test_report_source_is_as_registered() -> None:
    raw = data_path("retrieval", "source", "mixed_corpora_report.json").read_bytes()
    assert hashlib.sha256(raw).hexdigest() == REPORT_SHA256
    assert REPORT_SHA256 in data_path("retrieval", "README.md").read_text(encoding="utf-8")


def test_loader_refuses_unknown_names() -> None:
    with pytest.raises(InputError, match="wrap it in a list"):
        load_mixed_corpora("cvs")
    with pytest.raises(InputError, match="report=True"):
        load_mixed_corpora(["library_help"])
    with pytest.raises(InputError, match="known: library_help, clinic_info"):
        load_mixed_corpora(["cvs"], report=True)
    assert list(load_mixed_corpora(["cvs", "tech_support"])) == ["cvs", "tech_support"]


# design-set queries whose answer the packaged model ranks first by a wide margin (> 0.15 over the best
# non-relevant document when written): answers naming a man, a woman, and none
TOP_ONE = {
    "faq-direct-01": "d02",  # parking permit: Mr. Daniel Ruiz
    "faq-direct-05": "d12",  # exam adjustments: Dr. Rachel Owens
    "faq-direct-08": "d21",  # ethics approval: Professor Alan Shaw
    "faq-direct-11": "d34",  # placement agreement: Mrs. Linda Osei
    "faq-direct-14": "d22",  # borrowing a laptop
    "faq-student-04": "d09",  # a stolen card: Mr. Kofi Asante
    "faq-student-14": "d03",  # printing costs
}


def test_topk_finds_the_answer_first(embedder) -> None:
    task = load_mixed_corpora(["university_faq"])["university_faq"]
    retriever = DebiasedRetriever(FaissIndex.from_documents(task.documents, embedder), embedder, concept="gender")
    found = {}
    for qid, answer in TOP_ONE.items():
        assert task.relevant[qid] == {answer}, qid
        found[qid] = str(retriever.retrieve(task.queries[qid], k=1, strategy="topk").ids[0])
    assert found == TOP_ONE
