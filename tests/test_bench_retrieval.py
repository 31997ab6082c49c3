"""``bench retrieval``: fairness metrics per strategy and k on the bundled fairness set and on a user's set."""

from __future__ import annotations

import csv
import json

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
    [("report1", 32, 4), ("report2", 32, 4), ("report3", 32, 4), ("report4", 32, 4), ("report5", 40, 5)],
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


def test_wide_topics_report_shape():
    report = load_wide_topics(report=True)
    widths = sorted(len(ids) for ids in report.relevant.values())
    assert widths == [3] * 8 + [6] * 6 + [9] * 5 + [12] * 3 + [18] * 2 and len(report.documents) == 321
    assert not set(report.queries) & set(load_wide_topics().queries)
    with pytest.raises(InputError, match="widths are 3, 6, 9, 12, 18"):
        load_wide_topics({5}, report=True)


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


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bad.jsonl", '{"kind": "query", "id": "q1", "text": "x"}\n{not json\n', "bad.jsonl:2: not valid JSON"),
        (
            "bad.jsonl",
            '{"kind": "document", "id": "d", "text": "x", "group": "Woman"}\n',
            r"'group' must be female, male or neutral \(or F, M, N\), got 'Woman'",  # as typed
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


def test_cli_reads_labels_other_than_f_m_n_only_when_told(tmp_path, capsys):
    rows = tiny_rows()
    rows[1]["group"] = "both"  # "He patched …" labelled as about a woman and a man, as public sets have a few
    write_jsonl(tmp_path, "queries.jsonl", TINY_QUERIES)
    write_jsonl(tmp_path, "documents.jsonl", rows)
    cache = ["--cache-dir", str(tmp_path / "cache")]
    assert main(["bench", "retrieval", "--data", str(tmp_path), *cache]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "got 'both'" in err and "--unknown-groups neutral|skip" in err
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
