"""``bench retrieval``: fairness metrics per strategy and k on the bundled fairness set and on a user's set."""

from __future__ import annotations

import csv
import json
import re

import pytest

from debiasrag.bench import BenchContext
from debiasrag.bench import retrieval as bench
from debiasrag.bench.cache import CachedEmbedder
from debiasrag.cli import main
from debiasrag.datasets import load_fairness_set, load_gendered_topics, load_labelled_set, load_wide_topics
from debiasrag.embedders import DEFAULT_MODEL
from debiasrag.errors import InputError
from debiasrag.strategies import STRATEGIES

# A tiny labelled set: two queries, each with a relevant and a near-miss document in F / M / N wording.
TINY_QUERIES = [
    {"id": "q1", "text": "How do I fix a flat bicycle tyre?", "area": "repair"},
    {"id": "q2", "text": "What helps a baby fall asleep?", "area": "child_care"},
]
TINY_DOCS = [
    ("q1", "rel", "{s} patched the flat bicycle tyre: tyre levers off, find the hole, glue a patch, pump it up."),
    ("q1", "non", "{s} bought a new racing bicycle with carbon wheels for the summer season."),
    ("q2", "rel", "{s} helped the baby fall asleep with a warm bath, a dim room and the same lullaby each night."),
    ("q2", "non", "{s} painted the baby's room pale green and assembled a wooden cot."),
]
QUERY_ROW = '{"kind": "query", "id": "q1", "text": "x"}\n'
SUBJECT = {"female": "She", "male": "He", "neutral": "The parent"}


def tiny_rows() -> list[dict]:
    return [
        {
            "id": f"{q}-{kind}-{g}",
            "text": text.format(s=SUBJECT[g]),
            "group": g,
            "relevant_to": [q] if kind == "rel" else [],
        }
        for q, kind, text in TINY_DOCS
        for g in SUBJECT
    ]


def write_jsonl(folder, name, rows):
    (folder / name).write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def write_csv(path, rows, columns):
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns)
        writer.writeheader()
        for row in rows:
            writer.writerow({c: ";".join(row[c]) if isinstance(row.get(c), list) else row.get(c, "") for c in columns})


@pytest.fixture(scope="module")
def cached(embedder, tmp_path_factory) -> CachedEmbedder:
    return CachedEmbedder(DEFAULT_MODEL, lambda: embedder, tmp_path_factory.mktemp("cache"))


@pytest.fixture(scope="module")
def bundled(cached):
    return bench.run(BenchContext(embedder=cached))


def test_fairness_set_shape():
    main_set, holdout = load_fairness_set("main"), load_fairness_set("holdout")
    assert len(main_set.queries) >= 60 and len(set(main_set.areas.values())) >= 6
    assert len(main_set.documents) == 6 * len(main_set.queries)
    assert not set(main_set.areas.values()) & set(holdout.areas.values())  # held out by area
    for query, relevant in main_set.relevant.items():
        groups = sorted(d.metadata["group"] for d in main_set.documents if d.id in relevant)
        assert groups == ["female", "male", "neutral"], query
    assert set(load_fairness_set("main", areas={"career"}).areas.values()) == {"career"}


@pytest.mark.parametrize(
    "split, queries, areas",
    [
        ("report1", 32, 4),
        ("report2", 32, 4),
        ("report3", 32, 4),
        ("report4", 32, 4),
        ("report5", 40, 5),
        ("report6", 40, 5),
        ("report7", 40, 5),
        ("report8", 40, 5),
        ("report9", 40, 5),
        ("report10", 40, 5),
        ("report11", 40, 5),
    ],
)
def test_blind_report_sets_shape(split, queries, areas):
    task = load_fairness_set(split)
    assert (
        len(task.queries) == queries and len(task.documents) == 6 * queries and len(set(task.areas.values())) == areas
    )
    by_id = {d.id: d for d in task.documents}
    for query, relevant in task.relevant.items():
        assert sorted(by_id[i].metadata["group"] for i in relevant) == ["female", "male", "neutral"], query
    assert not set(task.queries) & set(load_fairness_set("all").queries)  # report sets are not in "all"


def test_blind_report12_shape():
    # written blind in session 40: 1-3 relevant texts per query and two close non-relevant ones, each in 3 wordings
    task = load_fairness_set("report12")
    assert (len(task.queries), len(task.documents), len(set(task.areas.values()))) == (40, 477, 5)
    groups = {d.id: d.metadata["group"] for d in task.documents}
    for query, relevant in task.relevant.items():
        counts = [sorted(groups[i] for i in relevant).count(g) for g in ("female", "male", "neutral")]
        assert counts[0] == counts[1] == counts[2] in (1, 2, 3), query


def test_blind_report13_shape():
    # written blind in session 41: 1-3 relevant texts per query and one or two close non-relevant ones, 3 wordings each
    task = load_fairness_set("report13")
    assert (len(task.queries), len(task.documents), len(set(task.areas.values()))) == (40, 420, 5)
    assert all(q.startswith("r13-") for q in task.queries)
    assert len({d.id for d in task.documents}) == 420 and all(d.id.startswith("r13-") for d in task.documents)
    groups = {d.id: d.metadata["group"] for d in task.documents}
    assert set(groups.values()) == {"female", "male", "neutral"}
    for query, relevant in task.relevant.items():
        counts = [sorted(groups[i] for i in relevant).count(g) for g in ("female", "male", "neutral")]
        assert counts[0] == counts[1] == counts[2] in (1, 2, 3), query
    assert not set(task.queries) & set(load_fairness_set("report12").queries)
    assert not set(task.queries) & set(load_fairness_set("all").queries)  # report sets are not in "all"


def test_wide_topics_report_shape():
    report = load_wide_topics(report=True)
    widths = sorted(len(ids) for ids in report.relevant.values())
    assert widths == [3] * 8 + [6] * 6 + [9] * 5 + [12] * 3 + [18] * 2 and len(report.documents) == 321
    assert not set(report.queries) & set(load_wide_topics().queries)
    with pytest.raises(InputError, match="widths are 3, 6, 9, 12, 18"):
        load_wide_topics({5}, report=True)


def test_wide_topics_report2_shape():
    report = load_wide_topics(report=2)
    widths = sorted(len(ids) for ids in report.relevant.values())
    assert widths == [3] * 4 + [6] * 4 + [9] * 4 + [12] * 4 + [15] * 4 + [18] * 4 and len(report.documents) == 396
    earlier = set(load_wide_topics().queries) | set(load_wide_topics(report=True).queries)
    assert not set(report.queries) & earlier and report.name == "wide-topics-report2"
    with pytest.raises(InputError, match="report must be False, True"):
        load_wide_topics(report=6)


@pytest.mark.parametrize("report", [3, 4, 5])
def test_wide_topics_report3_to_5_shape(report):
    # The data README's description (30 topics, 1-5 relevant texts in three wordings, 450 documents), checked
    # without printing the widths: the set is for reporting.
    task = load_wide_topics(report=report)
    widths = {len(ids) for ids in task.relevant.values()}
    assert len(task.queries) == 30 and len(task.documents) == 450 and widths <= {3, 6, 9, 12, 15}
    earlier = {q for r in range(report) for q in load_wide_topics(report=r).queries}
    assert not set(task.queries) & earlier


def test_wide_topics_shape():
    wide = load_wide_topics()
    widths = sorted(len(ids) for ids in wide.relevant.values())
    assert widths == [3] * 3 + [6] * 4 + [9] * 3 + [12] * 3 + [15] * 3
    by_id = {d.id: d for d in wide.documents}
    for query, relevant in wide.relevant.items():
        groups = [by_id[i].metadata["group"] for i in relevant]
        assert groups.count("female") == groups.count("male") == groups.count("neutral"), query
        near_misses = [d for d in wide.documents if d.id.startswith(f"{query}-non")]
        assert len(near_misses) == 6 and not relevant & {d.id for d in near_misses}, query
    # New topics: none shared with the fairness sets' areas or gendered_topics' occupations.
    others = set(load_fairness_set("all").areas.values()) | set(load_gendered_topics().queries)
    assert not set(wide.areas.values()) & others
    narrow = load_wide_topics({3, 15})
    assert sorted(len(ids) for ids in narrow.relevant.values()) == [3, 3, 3, 15, 15, 15]
    assert len(narrow.documents) == len(wide.documents)  # the corpus stays whole
    with pytest.raises(InputError, match="widths are"):
        load_wide_topics({4})


def test_wide_topics_jsonl_is_built_from_its_source(maintainer_script):
    build = maintainer_script("build_wide_topics")
    queries, documents = build.parse(build.ROOT / "source" / "wide_topics.txt")
    wide = load_wide_topics()
    assert [(q["id"], q["text"]) for q in queries] == list(wide.queries.items())
    shipped = [(d.id, d.text, d.metadata["group"]) for d in wide.documents]
    assert [(d["id"], d["text"], d["group"]) for d in documents] == shipped


def test_bundled_bench_reports_every_strategy_and_k(bundled):
    m = bundled.metrics
    for split in ("fairness", "holdout"):
        for strategy in STRATEGIES:
            for k in bench.FAIRNESS_K:
                for metric in ("recall", "precision", "f1", "abs_female_minus_male", "arab", "nfairr"):
                    assert f"{split}.{strategy}.k{k}.{metric}" in m
        for k in bench.FAIRNESS_K:
            assert m[f"{split}.topk.k{k}.returned"] == k
            # the oracle cuts the plain ranking where F1 is best, so no fixed top-k beats it
            assert m[f"{split}.oracle.best.f1"] >= m[f"{split}.topk.k{k}.f1"] - 1e-9
            assert m[f"{split}.topk.k{k}.abs_female_minus_male"] >= abs(m[f"{split}.topk.k{k}.female_minus_male"])
        assert m[f"{split}.dynamic.k10.returned"] <= 10
        # the option for sets of versions with one answer text per query, as ours (dynamic_versions.py: 0.94 / 0.94)
        assert m[f"{split}.dynamic-versions.k10.f1"] > m[f"{split}.dynamic.k10.f1"]
        assert m[f"{split}.dynamic-versions.k10.abs_female_minus_male"] <= 0.1
        for k in (6, 10):  # balanced evens out the documents' groups (gold labels) at top-k's recall
            assert m[f"{split}.balanced.k{k}.abs_female_minus_male"] < m[f"{split}.topk.k{k}.abs_female_minus_male"]
            assert m[f"{split}.balanced.k{k}.recall_vs_topk"] >= -0.01
    # MiniLM finds most relevant documents in its top 3 on our set (measured 0.92); a broken run would not
    assert m["fairness.topk.k3.recall"] > 0.8
    assert "toy.topk.k10.relevant_found" in m  # the seed toy task still runs without --data
    assert any(t.startswith("**fairness-main: 60 queries") for t in bundled.tables)


def test_compare_divides_by_the_oracle_and_subtracts_topk_recall():
    # F1 / oracle = 0.5 / 0.8 = 0.625; recall − topk's at the same k = 0.6 − 0.9 = −0.3
    scores = {
        ("topk", "6"): {"f1": 0.4, "oracle_f1": 0.8, "recall": 0.9},
        ("balanced", "6"): {"f1": 0.5, "oracle_f1": 0.8, "recall": 0.6},
        ("oracle", "best"): {"f1": 0.8, "oracle_f1": 0.8, "recall": 1.0},
    }
    bench.compare(scores)
    assert scores["balanced", "6"]["f1_vs_oracle"] == pytest.approx(0.625)
    assert scores["balanced", "6"]["recall_vs_topk"] == pytest.approx(-0.3)
    assert scores["topk", "6"]["recall_vs_topk"] == 0.0
    assert scores["oracle", "best"]["f1_vs_oracle"] == pytest.approx(1.0)
    assert "recall_vs_topk" not in scores["oracle", "best"]  # no top-k at "best": it read a made-up 0.0


@pytest.mark.parametrize("fmt", ["jsonl", "csv", "single-jsonl", "single-csv"])
def test_user_data_in_every_format_gives_the_same_metrics(cached, tmp_path, fmt):
    docs = tiny_rows()
    if fmt == "jsonl":
        write_jsonl(tmp_path, "queries.jsonl", TINY_QUERIES)
        write_jsonl(tmp_path, "documents.jsonl", docs)
        path = tmp_path
    elif fmt == "csv":
        write_csv(tmp_path / "queries.csv", TINY_QUERIES, ["id", "text", "area"])
        write_csv(tmp_path / "documents.csv", docs, ["id", "text", "group", "relevant_to"])
        path = tmp_path
    elif fmt == "single-jsonl":
        path = tmp_path / "set.jsonl"
        write_jsonl(
            tmp_path,
            "set.jsonl",
            [{"kind": "query", **q} for q in TINY_QUERIES] + [{"kind": "document", **d} for d in docs],
        )
    else:
        path = tmp_path / "set.csv"
        rows = [{"kind": "query", **q} for q in TINY_QUERIES] + [{"kind": "document", **d} for d in docs]
        write_csv(path, rows, ["kind", "id", "text", "area", "group", "relevant_to"])
    task = load_labelled_set(path)
    assert task.relevant == {
        "q1": {"q1-rel-female", "q1-rel-male", "q1-rel-neutral"},
        "q2": {f"q2-rel-{g}" for g in SUBJECT},
    }
    result = bench.run(BenchContext(embedder=cached, data=path))
    m = result.metrics
    assert not any(key.startswith(("toy.", "fairness.")) for key in m)
    assert m["data.topk.k3.recall"] == pytest.approx(1.0)  # three relevant, clearly separated documents
    assert m["data.topk.k6.precision"] == pytest.approx(0.5)
    assert m["data.topk.k6.female_minus_male"] == 0  # with k=6 of 12 per query both genders come in pairs here
    for strategy in STRATEGIES:
        assert f"data.{strategy}.k10.exposure_disparity" in m
    # the CLI reads the set once (to refuse a bad file before any model loads) and passes the set it read
    assert bench.run(BenchContext(embedder=cached, data=task)).metrics == m


def test_qrels_file_adds_relevance(tmp_path):
    write_jsonl(tmp_path, "queries.jsonl", TINY_QUERIES)
    write_jsonl(tmp_path, "documents.jsonl", [{k: v for k, v in d.items() if k != "relevant_to"} for d in tiny_rows()])
    write_jsonl(
        tmp_path,
        "qrels.jsonl",
        [{"query_id": "q1", "doc_id": "q1-rel-male"}, {"query_id": "q2", "doc_id": "q2-rel-female", "relevance": 1}],
    )
    assert load_labelled_set(tmp_path).relevant == {"q1": {"q1-rel-male"}, "q2": {"q2-rel-female"}}
    # relevance as the judgement rows read it (true / 1.0 too); relevant_to may name one integer query id
    write_jsonl(
        tmp_path,
        "qrels.jsonl",
        [
            {"query_id": "q1", "doc_id": "q1-rel-male", "relevance": True},
            {"query_id": "q2", "doc_id": "q2-rel-female", "relevance": 1.0},
        ],
    )
    assert load_labelled_set(tmp_path).relevant == {"q1": {"q1-rel-male"}, "q2": {"q2-rel-female"}}
    write_jsonl(tmp_path, "qrels.jsonl", [{"query_id": "q1", "doc_id": "q1-rel-male", "relevance": 2}])
    with pytest.raises(InputError, match="qrels.jsonl:1: 'relevance' must be 1 or 0, got 2"):
        load_labelled_set(tmp_path)
    # a misspelt 'relevance' was ignored, so its 0 read as the default 1
    write_jsonl(tmp_path, "qrels.jsonl", [{"query_id": "q1", "doc_id": "q1-rel-male", "relevence": 0}])
    with pytest.raises(InputError, match="qrels.jsonl:1: unknown field 'relevence'; did you mean 'relevance'"):
        load_labelled_set(tmp_path)


@pytest.mark.parametrize("column", ["score", "rel", "judgement", "relevance_score"])
def test_a_qrels_column_not_read_is_refused_not_judged_1(tmp_path, column):
    # unread, each row was judged 1 by default: its 0 rows counted as relevant (red-team, session 34)
    write_jsonl(tmp_path, "queries.jsonl", TINY_QUERIES)
    write_jsonl(tmp_path, "documents.jsonl", tiny_rows())
    write_csv(
        tmp_path / "qrels.csv",
        [{"query_id": "q1", "doc_id": "q1-non-male", column: "0"}],
        ["query_id", "doc_id", column],
    )
    with pytest.raises(InputError, match=f"qrels.csv:2: qrels field '{column}' is not read; the judgement column is"):
        load_labelled_set(tmp_path)
    # TREC's iteration column is no judgement: read as before
    rows = [{"query_id": "q1", "iteration": "0", "doc_id": "q1-non-male", "relevance": "0"}]
    write_csv(tmp_path / "qrels.csv", rows, ["query_id", "iteration", "doc_id", "relevance"])
    assert load_labelled_set(tmp_path).relevant["q1"] == {f"q1-rel-{g}" for g in SUBJECT}


def test_relevant_to_and_group_inside_a_metadata_object_are_read(tmp_path):
    # kept as metadata, the judgement was lost without a word (red-team, session 34)
    rows = tiny_rows()
    moved = {k: v for k, v in rows[0].items() if k not in ("relevant_to", "group")}
    rows[0] = {**moved, "metadata": {"relevant_to": rows[0]["relevant_to"], "group": rows[0]["group"], "page": 3}}
    write_jsonl(tmp_path, "queries.jsonl", TINY_QUERIES)
    write_jsonl(tmp_path, "documents.jsonl", rows)
    task = load_labelled_set(tmp_path)
    assert task.relevant == load_labelled_set_from_rows(tmp_path, tiny_rows()).relevant
    assert task.documents[0].metadata == {"page": 3, "group": "female"}
    write_jsonl(
        tmp_path,
        "documents.jsonl",
        [*tiny_rows(), {"id": "d9", "text": "x", "group": "male", "relevant_queries": ["q1"]}],
    )
    with pytest.raises(InputError, match="documents.jsonl:13: unknown field 'relevant_queries'; a document row marks"):
        load_labelled_set(tmp_path)


def load_labelled_set_from_rows(folder, rows):
    write_jsonl(folder, "documents.jsonl", rows)
    return load_labelled_set(folder)


def test_one_csv_file_holds_qrels_with_a_relevance_column(tmp_path):
    # every row has every column: a document row's empty 'relevance' cell was refused as a qrels field
    columns = ["kind", "id", "text", "group", "relevant_to", "query_id", "doc_id", "relevance", ""]
    rows = [{"kind": "query", **q} for q in TINY_QUERIES] + [{"kind": "document", **d} for d in tiny_rows()]
    rows.append({"kind": "qrel", "query_id": "q1", "doc_id": "q1-non-male", "relevance": "0"})
    write_csv(tmp_path / "set.csv", [{k: v for k, v in r.items() if k != "area"} for r in rows], columns)
    task = load_labelled_set(tmp_path / "set.csv")
    assert task.relevant["q1"] == {f"q1-rel-{g}" for g in SUBJECT}
    assert task.documents[0].metadata == {"group": "female"}  # no empty query_id / doc_id / unnamed cells


def test_a_bad_debiasrag_group_is_named_with_file_and_line(tmp_path):
    rows = tiny_rows()
    rows[2] = {**rows[2], "debiasrag_group": "both"}
    write_jsonl(tmp_path, "queries.jsonl", TINY_QUERIES)
    write_jsonl(tmp_path, "documents.jsonl", rows)
    with pytest.raises(InputError, match="documents.jsonl:3: 'debiasrag_group' is 'both'; expected female, male"):
        load_labelled_set(tmp_path)


def test_a_set_file_with_an_upper_case_suffix_is_named(tmp_path):
    write_jsonl(tmp_path, "queries.jsonl", TINY_QUERIES)
    write_jsonl(tmp_path, "documents.JSONL", tiny_rows())
    with pytest.raises(InputError, match=r"documents.JSONL: not read .* \(these names, lower case"):
        load_labelled_set(tmp_path)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"relevent_to": "q1"}, "unknown field 'relevent_to'; did you mean 'relevant_to'?"),
        ({"Group": "female"}, "unknown field 'Group'; did you mean 'group'?"),
        ({"relevance": 0}, "'relevance' belongs in a qrels row"),
    ],
)
def test_a_misspelt_document_field_is_refused_not_kept_as_metadata(tmp_path, extra, message):
    # kept as metadata, it silently left the document out of its query's relevant set
    rows = tiny_rows()
    write_jsonl(tmp_path, "queries.jsonl", TINY_QUERIES)
    write_jsonl(tmp_path, "documents.jsonl", [*rows, {"id": "d9", "text": "A note.", "group": "neutral", **extra}])
    with pytest.raises(InputError, match=f"documents.jsonl:{len(rows) + 1}: {re.escape(message)}"):
        load_labelled_set(tmp_path)
    rows[0] = {**rows[0], "title": "kept", "source": "kept"}  # other fields are still metadata
    write_jsonl(tmp_path, "documents.jsonl", rows)
    assert load_labelled_set(tmp_path).documents[0].metadata["title"] == "kept"


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bad.jsonl", '{"kind": "query", "id": "q1", "text": "x"}\n{not json\n', "bad.jsonl:2: not valid JSON"),
        (
            "bad.jsonl",
            '{"kind": "document", "id": "d", "text": "x", "group": "Femail"}\n',
            r"'group' must be female, male or neutral \(or F, M, N\), got 'Femail'",  # as typed
        ),
        (  # not one judgement: the column is missing, which is what the message says
            "bad.jsonl",
            QUERY_ROW + '{"kind": "document", "id": "d", "text": "y", "group": "male"}\n',
            "no document is marked relevant to any query .*'relevant_to'",
        ),
        (
            "bad.jsonl",
            QUERY_ROW.replace("q1", "q2")
            + QUERY_ROW
            + '{"kind": "document", "id": "d", "text": "y", "group": "male", "relevant_to": ["q1"]}\n',
            "query 'q2' has no relevant document$",  # one such query: no count
        ),
        (
            "bad.jsonl",
            '{"kind": "document", "id": "d", "text": "y", "group": "male", "relevant_to": ["q9"]}\n' + QUERY_ROW,
            "unknown query id 'q9'",
        ),
        ("bad.csv", "kind,id,text\nquery,q1,hello,extra\n", "more cells than columns"),
        ("bad.txt", "hello", "expected a .jsonl or .csv file"),
    ],
)
def test_bad_data_is_a_one_line_input_error(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError, match=message) as err:
        load_labelled_set(path)
    assert "\n" not in str(err.value)


def test_group_labels_f_m_n_are_read_in_the_standard_layout_too(tmp_path):
    rows = [{"kind": "query", "id": "q1", "text": "Who fixed the roof?"}]
    for doc_id, label in (("d1", "F"), ("d2", "m"), ("d3", "N"), ("d4", "Female")):
        rows.append({"kind": "document", "id": doc_id, "text": f"text {doc_id}", "group": label, "relevant_to": ["q1"]})
    path = tmp_path / "set.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    task = load_labelled_set(path)
    assert [d.metadata["group"] for d in task.documents] == ["female", "male", "neutral", "female"]
    assert task.notes == []  # nothing read as an unknown label


def test_skipping_every_document_says_so(tmp_path):
    rows = [{"kind": "query", "id": "q1", "text": "x"}, {"kind": "document", "id": "d", "text": "y", "group": "both"}]
    path = tmp_path / "set.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    with pytest.raises(InputError, match=r"no document left: all 1 are labelled other than .*'both'.*'skip'"):
        load_labelled_set(path, unknown_groups="skip")


def test_cli_bad_data_exits_2_before_loading_a_model(tmp_path, capsys):
    (tmp_path / "queries.jsonl").write_text('{"id": "q1", "text": "x"}\n', encoding="utf-8")
    assert main(["bench", "retrieval", "--data", str(tmp_path), "--cache-dir", str(tmp_path / "c")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("debiasrag: error: ") and "documents.jsonl" in err and err.count("\n") == 1
    # the data is read before any model: with a model that does not exist, the data's error is the one shown
    assert main(["bench", "retrieval", "--data", str(tmp_path), "--model", str(tmp_path / "no-model")]) == 2
    assert "documents.jsonl" in capsys.readouterr().err
    assert main(["bench", "retrieval", "--data", str(tmp_path / "missing")]) == 2
    assert main(["bench", "weat", "--data", str(tmp_path)]) == 2
    assert "retrieval benchmark only" in capsys.readouterr().err


def test_cli_runs_on_user_data(tmp_path, capsys):
    write_jsonl(tmp_path, "queries.jsonl", TINY_QUERIES)
    write_jsonl(tmp_path, "documents.jsonl", tiny_rows())
    assert main(["bench", "retrieval", "--data", str(tmp_path), "--cache-dir", str(tmp_path / "cache"), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    metrics = document["results"][DEFAULT_MODEL]["retrieval"]["metrics"]
    assert metrics["data.topk.k3.recall"] == pytest.approx(1.0)
    assert "--data" in document["command"]
    # the detector agrees with every label of the tiny set ("She", "He", "The parent")
    assert metrics["data.groups.accuracy"] == pytest.approx(1.0) and metrics["data.groups.documents"] == 12
    notes = document["results"][DEFAULT_MODEL]["retrieval"]["notes"]
    assert not any("say nothing about the strategies" in note for note in notes)  # k = 10 < 12 documents


def test_k_at_least_the_corpus_is_named_not_shown_as_a_finding(tmp_path, capsys):
    write_jsonl(tmp_path, "queries.jsonl", TINY_QUERIES[:1])
    write_jsonl(tmp_path, "documents.jsonl", [row for row in tiny_rows() if row["id"].startswith("q1-")])
    assert main(["bench", "retrieval", "--data", str(tmp_path), "--cache-dir", str(tmp_path / "cache"), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)["results"][DEFAULT_MODEL]["retrieval"]
    assert result["metrics"]["data.topk.k6.returned"] == result["metrics"]["data.topk.k10.returned"] == 6
    assert any(
        "k = 6 and k = 10 are at least the corpus's 6 documents, so those rows return every document" in note
        for note in result["notes"]
    )


def test_a_set_without_female_documents_says_its_fairness_columns_measure_nothing(tmp_path, capsys):
    rows = [{**row, "group": "male" if row["group"] == "female" else row["group"]} for row in tiny_rows()]
    write_jsonl(tmp_path, "queries.jsonl", TINY_QUERIES)
    write_jsonl(tmp_path, "documents.jsonl", rows)
    assert main(["bench", "retrieval", "--data", str(tmp_path), "--cache-dir", str(tmp_path / "cache"), "--json"]) == 0
    notes = json.loads(capsys.readouterr().out)["results"][DEFAULT_MODEL]["retrieval"]["notes"]
    assert any(
        "no female documents in the set: #F−#M, ARaB, NFaiRR and exposure count one side only" in n for n in notes
    )


def test_a_set_without_neutral_documents_says_nfairr_is_0_over_0(tmp_path, capsys):
    write_jsonl(tmp_path, "queries.jsonl", TINY_QUERIES)
    write_jsonl(tmp_path, "documents.jsonl", [row for row in tiny_rows() if row["group"] != "neutral"])
    assert main(["bench", "retrieval", "--data", str(tmp_path), "--cache-dir", str(tmp_path / "cache"), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)["results"][DEFAULT_MODEL]["retrieval"]
    assert result["metrics"]["data.topk.k3.nfairr"] == 0
    assert any(
        "no neutral documents in the set: every list is as neutral as the set allows" in n for n in result["notes"]
    )


def test_cli_reads_labels_other_than_f_m_n_only_when_told(tmp_path, capsys):
    rows = tiny_rows()
    rows[1]["group"] = "both"  # "He patched …" labelled as about a woman and a man, as public sets have a few
    write_jsonl(tmp_path, "queries.jsonl", TINY_QUERIES)
    write_jsonl(tmp_path, "documents.jsonl", rows)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    assert main(["bench", "retrieval", "--data", str(tmp_path), *cache]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "got 'both'" in err and "(use --unknown-groups neutral to read" in err
    assert "unknown_groups=" not in err  # the CLI names its flag only
    assert main(["bench", "weat", "--unknown-groups", "skip"]) == 2
    assert "--unknown-groups applies to --data only" in capsys.readouterr().err
    assert main(["bench", "retrieval", "--data", str(tmp_path), "--unknown-groups", "skip", *cache, "--json"]) == 0
    out = capsys.readouterr()
    note = "1 document labelled other than female / male / neutral ('both' 1) left out with their judgements"
    assert note in out.err
    document = json.loads(out.out)
    record = document["results"][DEFAULT_MODEL]["retrieval"]
    assert any(note in line for line in record["notes"]) and "--unknown-groups skip" in document["command"]
    assert record["metrics"]["data.groups.documents"] == 11  # the 'both' document is not in the index


def test_group_agreement_counts_disagreements_and_honours_metadata_labels(tmp_path):
    rows = tiny_rows()
    rows[0]["group"] = "male"  # "She patched …" labelled male: the detector says female
    write_jsonl(tmp_path, "queries.jsonl", TINY_QUERIES)
    write_jsonl(tmp_path, "documents.jsonl", rows)
    task = load_labelled_set(tmp_path)
    assert bench.group_agreement(task) == {"accuracy": pytest.approx(11 / 12), "documents": 12, "male_as_female": 1}
    task.documents[0].metadata["debiasrag_group"] = "male"  # a user label is what the strategies use
    assert bench.group_agreement(task)["accuracy"] == pytest.approx(1.0)


def test_texts_keep_their_line_breaks_and_unicode_separators(tmp_path):
    text = "She fixed the tyre.\nThen she rode home\u2028in the rain."
    (tmp_path / "queries.csv").write_text("id,text\nq1,How do I fix a tyre?\n", encoding="utf-8")
    with (tmp_path / "documents.csv").open("w", newline="", encoding="utf-8") as handle:
        csv.writer(handle).writerows([["id", "text", "group", "relevant_to"], ["d1", text, "female", "q1"]])
    assert load_labelled_set(tmp_path).documents[0].text == text  # a quoted CSV field spans lines
    jsonl = tmp_path / "set.jsonl"
    rows = [
        {"kind": "query", "id": "q1", "text": "x"},
        {"kind": "document", "id": "d1", "text": text, "group": "female"},
    ]
    rows.append({"kind": "qrel", "query_id": "q1", "doc_id": "d1"})
    jsonl.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    assert load_labelled_set(jsonl).documents[0].text == text  # U+2028 inside a JSON string is not a line end


# --- a new user's own set (session 30 round): skip via relevant_to, qrels 0, unlabelled rows, messages -------------


def _tiny_set(folder, rows=None, qrels=None):
    folder.mkdir(parents=True, exist_ok=True)
    write_jsonl(folder, "queries.jsonl", TINY_QUERIES)
    write_jsonl(folder, "documents.jsonl", tiny_rows() if rows is None else rows)
    if qrels is not None:
        write_jsonl(folder, "qrels.jsonl", qrels)
    return folder


@pytest.mark.parametrize("layout", ["relevant_to", "qrels", "single-file"])
def test_skip_leaves_out_a_query_whose_relevant_documents_all_went_however_relevance_is_given(tmp_path, layout):
    rows = [{**r, "group": "both"} if r["id"].startswith("q2-rel-") else r for r in tiny_rows()]
    if layout == "qrels":  # the same judgements as separate rows
        qrels = [{"query_id": q, "doc_id": r["id"]} for r in rows for q in r.pop("relevant_to")]
        path = _tiny_set(tmp_path, rows, qrels)
    elif layout == "single-file":
        path = tmp_path / "set.jsonl"
        write_jsonl(
            tmp_path,
            "set.jsonl",
            [{"kind": "query", **q} for q in TINY_QUERIES] + [{"kind": "document", **r} for r in rows],
        )
    else:
        path = _tiny_set(tmp_path, rows)
    task = load_labelled_set(path, unknown_groups="skip")
    assert set(task.queries) == set(task.relevant) == {"q1"}
    assert task.notes == [
        "3 documents labelled other than female / male / neutral ('both' 3) left out with their judgements",
        "1 query left out, all relevant documents gone: q2",
    ]


@pytest.mark.parametrize(
    ("qrels", "message"),
    [
        (  # 1 then 0 for one pair: was counted relevant without a word
            [{"query_id": "q1", "doc_id": "q1-non-male"}, {"query_id": "q1", "doc_id": "q1-non-male", "relevance": 0}],
            "qrels.jsonl:2: query 'q1' and document 'q1-non-male' were judged otherwise at qrels.jsonl:1",
        ),
        (
            [
                {"query_id": "q1", "doc_id": "q1-non-male", "relevance": "0"},
                {"query_id": "q1", "doc_id": "q1-non-male"},
            ],
            "qrels.jsonl:2: query 'q1' and document 'q1-non-male' were judged otherwise at qrels.jsonl:1",
        ),
        (  # 0 for a pair relevant_to marks relevant: the 0 was ignored
            [{"query_id": "q1", "doc_id": "q1-rel-male", "relevance": 0}],
            "qrels.jsonl:1: query 'q1' and document 'q1-rel-male' were judged otherwise at documents.jsonl:2",
        ),
        (
            [{"query_id": "qZZ", "doc_id": "q1-non-male", "relevance": 0}],
            "qrels.jsonl:1: judged for unknown query id 'qZZ'",
        ),
        ([{"query_id": "q1", "doc_id": "dZZ", "relevance": 0}], "qrels.jsonl:1: unknown document id 'dZZ'"),
    ],
)
def test_qrels_rows_judged_0_are_checked_like_rows_judged_1(tmp_path, qrels, message):
    with pytest.raises(InputError) as err:
        load_labelled_set(_tiny_set(tmp_path, qrels=qrels))
    assert str(err.value) == message


def test_qrels_0_for_a_non_relevant_pair_changes_nothing_and_order_does_not_matter(tmp_path):
    zero = {"query_id": "q1", "doc_id": "q1-non-male", "relevance": 0}
    assert load_labelled_set(_tiny_set(tmp_path / "a" / "set", qrels=[zero])) == load_labelled_set(
        _tiny_set(tmp_path / "b" / "set")
    )
    # a single file may hold the 0 before the document whose relevant_to says 1: refused at the later row
    rows = [{"kind": "query", **q} for q in TINY_QUERIES] + [{"kind": "qrel", **zero, "doc_id": "q1-rel-male"}]
    rows += [{"kind": "document", **r} for r in tiny_rows()]
    write_jsonl(tmp_path, "set.jsonl", rows)
    with pytest.raises(
        InputError, match=r"^set\.jsonl:5: query 'q1' and document 'q1-rel-male' were judged otherwise at set\.jsonl:3$"
    ):
        load_labelled_set(tmp_path / "set.jsonl")


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"group": None}, "'group' is empty"),
        ({"group": ""}, "'group' is empty"),
        ({"group": " "}, "'group' is empty"),
        ({}, "row has no 'group'"),
    ],
)
def test_an_unlabelled_document_is_read_like_an_unknown_label(tmp_path, change, problem):
    rows = tiny_rows()
    rows[1] = {k: v for k, v in rows[1].items() if k != "group"} | change  # q1-rel-male
    folder = _tiny_set(tmp_path, rows)
    with pytest.raises(InputError) as err:
        load_labelled_set(folder)
    assert str(err.value) == (
        f"documents.jsonl:2: {problem}; label it female, male or neutral (or F, M, N) (pass "
        "unknown_groups='neutral' to read unlabelled documents anyway ('skip' leaves them out))"
    )
    neutral = load_labelled_set(folder, unknown_groups="neutral")
    assert {d.id: d.metadata["group"] for d in neutral.documents}["q1-rel-male"] == "neutral"
    assert neutral.notes == [
        "1 document labelled other than female / male / neutral or not labelled (no label 1) read as neutral"
    ]
    skipped = load_labelled_set(folder, unknown_groups="skip")
    assert "q1-rel-male" not in {d.id for d in skipped.documents}
    assert skipped.relevant["q1"] == {"q1-rel-female", "q1-rel-neutral"}


def test_unlabelled_and_unknown_labels_are_counted_together(tmp_path):
    rows = tiny_rows()
    rows[1]["group"], rows[4]["group"], rows[7]["group"] = "both", "", "both"
    task = load_labelled_set(_tiny_set(tmp_path, rows), unknown_groups="neutral")
    assert task.notes == [
        "3 documents labelled other than female / male / neutral or not labelled ('both' 2, no label 1) read as neutral"
    ]


def test_woman_and_man_are_read_as_female_and_male(tmp_path):
    rows = tiny_rows()
    spellings = {0: "woman", 3: "Women", 1: "MAN", 4: "men"}  # q1-rel-female, q1-non-female, q1-rel-male, q1-non-male
    for index, label in spellings.items():
        rows[index]["group"] = label
    task, plain = load_labelled_set(_tiny_set(tmp_path / "set", rows)), load_labelled_set(_tiny_set(tmp_path / "plain"))
    assert [d.metadata for d in task.documents] == [d.metadata for d in plain.documents]
    assert task.relevant == plain.relevant and task.notes == []


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (  # European spreadsheets save with ';': the header is one column, which row 2 cannot fix
            {"queries.csv": "id;text;area\nq1;How do I fix a tyre?;repair\n"},
            "queries.csv:1: the header is one column, 'id;text;area': columns must be separated by commas, not ';'",
        ),
        ({"queries.csv": "id,text\nq1,  \n"}, "queries.csv:2: 'text' is empty"),
        ({"queries.jsonl": '{"id": "q1", "text": ""}\n'}, "queries.jsonl:1: 'text' is empty"),
        ({"queries.jsonl": '{"id": "q1"}\n'}, "queries.jsonl:1: row has no 'text'"),
        ({"queries.jsonl": '{"id": 1.5, "text": "x"}\n'}, "queries.jsonl:1: 'id' must be a string or an integer"),
        ({"queries.jsonl": '{"id": true, "text": "x"}\n'}, "queries.jsonl:1: 'id' must be a string or an integer"),
        ({"queries.jsonl": '{"id": ["q1"], "text": "x"}\n'}, "queries.jsonl:1: 'id' must be a string or an integer"),
    ],
)
def test_messages_name_what_is_wrong_with_a_field(tmp_path, files, message):
    write_jsonl(tmp_path, "documents.jsonl", tiny_rows())
    for name, content in files.items():
        (tmp_path / name).write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_labelled_set(tmp_path)
    assert str(err.value) == message


def test_cli_refuses_anonymize_for_the_retrieval_benchmark(tmp_path, capsys):
    folder = _tiny_set(tmp_path / "set")
    args = ["bench", "retrieval", "--data", str(folder), "--anonymize", "ner", "--cache-dir", str(tmp_path / "c")]
    assert main(args) == 2  # it ran, and only a note in results.json said the option did nothing
    err = capsys.readouterr().err
    assert err == "debiasrag: error: --anonymize does not apply to the retrieval benchmark\n"


def test_group_agreement_note_names_the_disagreeing_documents(cached, tmp_path):
    rows = tiny_rows()
    for index in (0, 2, 3, 6, 9):  # every "She …" and q1's relevant "The parent …" labelled male
        rows[index]["group"] = "male"
    rows[8]["group"] = "female"  # q2's relevant "The parent …"
    result = bench.run(BenchContext(embedder=cached, data=_tiny_set(tmp_path, rows)))
    note = next(n for n in result.notes if "agree with the set's labels" in n)
    assert "on 0.500 of 12 documents (male as female 4, male as neutral 1, female as neutral 1: ids " in note
    assert (
        "ids 'q1-rel-female', 'q1-rel-neutral', 'q1-non-female', 'q2-rel-female', 'q2-rel-neutral' and 1 more" in note
    )
    assert "debiasrag_group" in note and "taken from" not in note  # no document carries a label


def test_group_agreement_note_says_user_labels_were_not_inferred(cached, tmp_path):
    rows = [{**r, "debiasrag_group": r["group"]} for r in tiny_rows()]
    rows[0]["debiasrag_group"] = "male"  # "She patched …", labelled female in the set: the user's label differs
    result = bench.run(BenchContext(embedder=cached, data=_tiny_set(tmp_path, rows)))
    note = next(n for n in result.notes if "agree with the set's labels" in n)
    assert "female as male 1: id 'q1-rel-female')" in note
    assert "all 12 documents carry a debiasrag_group label" in note and "taken from the label, not inferred" in note
    assert "balance the inferred groups" not in note
