"""``load_labelled_set`` on the query–document rows layout (one row per judgement, as Grep-BiasIR ships it).

All texts here are written for this test (no public dataset's content).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from debiasrag.datasets import load_fairness_passages, load_labelled_set
from debiasrag.embedders import DEFAULT_MODEL
from debiasrag.errors import InputError

QUERIES = [
    {"q_id": "1", "category": "household", "query": "What is a good way to remove limescale from a kettle?"},
    {"q_id": "2", "category": "sport", "query": "How do I start training for a first half marathon?"},
    {"q_id": "3", "category": "sport", "query": "Which stretches help after a long bike ride?"},
]
SUBJECT = {"F": "She", "M": "He", "N": "They"}
KETTLE = (
    "{s} filled the kettle with water and white vinegar, boiled it, let it stand an hour and rinsed the scale away."
)
RUN = "{s} began with three easy runs a week, added a longer run each weekend and ran twenty-one kilometres in June."
STRETCH = "{s} eased sore legs after the ride with a calf stretch, a hip-flexor lunge and a hamstring fold."
# (file, q_id, d_id, relevant, doc_title, document, content_gender, exp_stereotype); d2N is judged for q2 and q3.
JUDGEMENTS = [
    *[("household", "1", f"d1{g}", "1", "Descaling", KETTLE.format(s=s), g, "F") for g, s in SUBJECT.items()],
    (
        "household",
        "1",
        "d1x",
        "0",
        "Kettle prices",
        "They compared electric kettles with a temperature dial.",
        "N",
        "F",
    ),
    *[("sport", "2", f"d2{g}", "1", "First half marathon", RUN.format(s=s), g, "M") for g, s in SUBJECT.items()],
    (
        "sport",
        "2",
        "d2x",
        "0",
        "Running shoes",
        "He bought light running shoes in a sale and wore them to work.",
        "M",
        "M",
    ),
    *[("sport", "3", f"d3{g}", "1", "After the ride", STRETCH.format(s=s), g, "N") for g, s in SUBJECT.items()],
    ("sport", "3", "d2N", "0", "First half marathon", RUN.format(s="They"), "N", "M"),
]
COLUMNS = ["q_id", "d_id", "relevant", "query", "doc_title", "document", "content_gender", "exp_stereotype"]
GROUP = {"F": "female", "M": "male", "N": "neutral"}


def judgement_rows() -> dict[str, list[dict[str, str]]]:
    """File category -> rows of that ``queries-documents_<category>`` file."""
    query_text = {q["q_id"]: q["query"] for q in QUERIES}
    files: dict[str, list[dict[str, str]]] = {}
    for file, q_id, d_id, relevant, title, text, gender, stereotype in JUDGEMENTS:
        row = dict(zip(COLUMNS, [q_id, d_id, relevant, query_text[q_id], title, text, gender, stereotype], strict=True))
        files.setdefault(file, []).append(row)
    return files


def write_csv(path: Path, rows: list[dict[str, str]], *, newline: str = "\n", bom: bool = False) -> None:
    with path.open("w", newline="", encoding="utf-8-sig" if bom else "utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator=newline)
        writer.writeheader()
        writer.writerows(rows)


def write_jsonl(path: Path, rows: list[dict], *, newline: str = "\n", bom: bool = False) -> None:
    text = "".join(json.dumps(r) + newline for r in rows)
    path.write_text(text, encoding="utf-8-sig" if bom else "utf-8", newline="")


def write_rows_layout(folder: Path, files=None, queries=None, suffix: str = "csv", **options) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    write = write_csv if suffix == "csv" else write_jsonl
    write(folder / f"queries.{suffix}", QUERIES if queries is None else queries, **options)
    for category, rows in (judgement_rows() if files is None else files).items():
        write(folder / f"queries-documents_{category}.{suffix}", rows, **options)
    return folder


def test_rows_layout_loads_queries_areas_groups_relevance_and_metadata(tmp_path):
    task = load_labelled_set(write_rows_layout(tmp_path / "grep"))
    assert task.name == "grep"
    assert task.queries == {q["q_id"]: q["query"] for q in QUERIES}
    assert task.areas == {"1": "household", "2": "sport", "3": "sport"}
    assert task.relevant == {q: {f"d{q}F", f"d{q}M", f"d{q}N"} for q in ("1", "2", "3")}
    ids = [d.id for d in task.documents]
    assert ids == ["d1F", "d1M", "d1N", "d1x", "d2F", "d2M", "d2N", "d2x", "d3F", "d3M", "d3N"]  # d2N once
    by_id = {d.id: d for d in task.documents}
    assert {i: d.metadata["group"] for i, d in by_id.items()} == {i: GROUP[i[-1]] for i in ids if i[-1] != "x"} | {
        "d1x": "neutral",
        "d2x": "male",
    }
    # judged non-relevant documents stay in the corpus; the title is metadata, not text
    assert by_id["d1x"].metadata == {"group": "neutral", "doc_title": "Kettle prices", "exp_stereotype": "F"}
    assert by_id["d2N"].text == RUN.format(s="They") and "marathon" not in by_id["d2N"].text
    assert by_id["d2N"].metadata == {"group": "neutral", "doc_title": "First half marathon", "exp_stereotype": "M"}


def test_rows_layout_equals_the_native_layout(tmp_path):
    rows = [row for file in judgement_rows().values() for row in file]
    documents: dict[str, dict] = {}
    for row in rows:
        doc = documents.setdefault(
            row["d_id"],
            {
                "id": row["d_id"],
                "text": row["document"],
                "group": GROUP[row["content_gender"]],
                "relevant_to": [],
                "doc_title": row["doc_title"],
                "exp_stereotype": row["exp_stereotype"],
            },
        )
        if row["relevant"] == "1":
            doc["relevant_to"].append(row["q_id"])
    native = tmp_path / "native" / "set"
    native.mkdir(parents=True)
    write_jsonl(
        native / "queries.jsonl", [{"id": q["q_id"], "text": q["query"], "area": q["category"]} for q in QUERIES]
    )
    write_jsonl(native / "documents.jsonl", list(documents.values()))
    expected = load_labelled_set(native)
    assert load_labelled_set(write_rows_layout(tmp_path / "rows" / "set")) == expected
    # the same rows as JSONL, and as CSV or JSONL with a UTF-8 BOM and \r\n line ends
    assert load_labelled_set(write_rows_layout(tmp_path / "jsonl" / "set", suffix="jsonl")) == expected
    crlf = {"newline": "\r\n", "bom": True}
    assert load_labelled_set(write_rows_layout(tmp_path / "crlf" / "set", **crlf)) == expected
    assert load_labelled_set(write_rows_layout(tmp_path / "crlf-jsonl" / "set", suffix="jsonl", **crlf)) == expected


@pytest.mark.parametrize(
    ("spelling", "group"),
    [("f", "female"), ("Female", "female"), ("M", "male"), ("MALE", "male"), ("n", "neutral"), ("Neutral", "neutral")],
)
def test_content_gender_spellings(tmp_path, spelling, group):
    files = judgement_rows()
    files["household"][0]["content_gender"] = spelling
    task = load_labelled_set(write_rows_layout(tmp_path, files))
    assert task.documents[0].metadata["group"] == group


def test_json_numbers_and_booleans_are_accepted(tmp_path):
    files = {
        "all": [
            {**row, "q_id": int(row["q_id"]), "relevant": row["relevant"] == "1" if i % 2 else int(row["relevant"])}
            for i, row in enumerate(r for rows in judgement_rows().values() for r in rows)
        ]
    }
    queries = [{**q, "q_id": int(q["q_id"])} for q in QUERIES]
    task = load_labelled_set(write_rows_layout(tmp_path, files, queries, suffix="jsonl"))
    assert task.relevant == load_labelled_set(write_rows_layout(tmp_path / "csv")).relevant
    # a spreadsheet export writes a 0/1 column of floats as 1.0 / 0.0, as qrels files may
    floats = {k: [{**r, "relevant": f"{int(r['relevant'])}.0"} for r in v] for k, v in judgement_rows().items()}
    assert load_labelled_set(write_rows_layout(tmp_path / "floats", floats)).relevant == task.relevant


def _edit(category: str, index: int, **changes: str):
    """Judgement files with row ``index`` of ``category`` changed (``None`` deletes the column value)."""
    files = judgement_rows()
    files[category][index].update(changes)
    return files


SPORT = "queries-documents_sport.csv"


@pytest.mark.parametrize(
    ("files", "message"),
    [
        (
            _edit("sport", 7, document="They ran a marathon."),
            f"{SPORT}:9: document 'd2N' has a different text than at {SPORT}:4",
        ),
        (
            _edit("sport", 7, content_gender="F"),
            f"{SPORT}:9: document 'd2N' has content_gender female here but neutral at {SPORT}:4",
        ),
        (_edit("sport", 1, q_id="9"), f"{SPORT}:3: q_id '9' is not in queries.csv"),
        (_edit("sport", 1, content_gender="X"), f"{SPORT}:3: 'content_gender' must be F, M or N"),
        (_edit("sport", 1, content_gender=""), f"{SPORT}:3: 'content_gender' is empty; label it F, M or N"),
        (_edit("sport", 1, relevant="yes"), f"{SPORT}:3: 'relevant' must be 1 or 0, got 'yes'"),
        (_edit("sport", 1, relevant=""), f"{SPORT}:3: 'relevant' is empty"),
        (_edit("sport", 1, d_id=""), f"{SPORT}:3: 'd_id' is empty"),
        (_edit("sport", 1, document=""), f"{SPORT}:3: 'document' is empty"),
        (
            _edit("sport", 7, q_id="2", relevant="0"),
            f"{SPORT}:9: query '2' and document 'd2N' were judged otherwise at {SPORT}:4",
        ),
        (
            {k: [{**r, "relevant": "0"} if r["q_id"] == "1" else r for r in v] for k, v in judgement_rows().items()},
            "set: query '1' has no relevant document",
        ),
    ],
)
def test_bad_judgement_rows_are_one_line_errors(tmp_path, files, message):
    with pytest.raises(InputError) as err:
        load_labelled_set(write_rows_layout(tmp_path / "set", files))
    assert str(err.value).startswith(message)
    assert "\n" not in str(err.value)


def test_bad_queries_file_and_folders(tmp_path):
    native_queries = [{"id": q["q_id"], "text": q["query"]} for q in QUERIES]
    with pytest.raises(InputError, match=r"^queries\.csv:2: row has no 'q_id'$"):
        load_labelled_set(write_rows_layout(tmp_path / "a", queries=native_queries))
    with pytest.raises(InputError, match=r"^queries\.csv:3: duplicate query id '1'$"):
        load_labelled_set(write_rows_layout(tmp_path / "b", queries=[QUERIES[0], QUERIES[0]]))
    both = write_rows_layout(tmp_path / "c")
    (both / "documents.csv").write_text("id,text,group\nd,x,male\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"both documents\.csv and queries-documents_household\.csv \(two layouts\)"):
        load_labelled_set(both)
    twice = write_rows_layout(tmp_path / "d")
    write_jsonl(twice / "queries-documents_sport.jsonl", judgement_rows()["sport"])
    with pytest.raises(InputError, match=r"both queries-documents_sport\.csv and queries-documents_sport\.jsonl"):
        load_labelled_set(twice)
    no_queries = write_rows_layout(tmp_path / "e")
    (no_queries / "queries.csv").unlink()
    with pytest.raises(
        InputError, match=r"needs queries\.jsonl .* or queries\.jsonl \(or \.csv\) and queries-documents"
    ):
        load_labelled_set(no_queries)


def test_unreadable_csv_errors_name_the_line(tmp_path):
    """An unclosed quote and a byte that is not UTF-8: the line of the record (was the file name alone)."""
    folder = write_rows_layout(tmp_path / "quote")
    sport = folder / SPORT
    lines = sport.read_text(encoding="utf-8").split("\n")
    lines[3] = lines[3].replace(",", ',"', 1)  # a quote opened on line 4 and never closed
    sport.write_text("\n".join(lines), encoding="utf-8")
    with pytest.raises(InputError, match=rf"^{SPORT}:4: not valid CSV in the record starting on this line"):
        load_labelled_set(folder)
    folder = write_rows_layout(tmp_path / "bytes")
    sport = folder / SPORT
    data = sport.read_bytes().split(b"\n")
    data[5] += b"caf\xe9"
    sport.write_bytes(b"\n".join(data))
    with pytest.raises(InputError, match=rf"^{SPORT}:6: not valid UTF-8$"):
        load_labelled_set(folder)


def test_cli_bench_retrieval_on_the_rows_layout(run_cli, tmp_path):
    folder = write_rows_layout(tmp_path / "grep")
    proc = run_cli("bench", "retrieval", "--data", str(folder), "--cache-dir", str(tmp_path / "cache"), "--json")
    assert proc.returncode == 0, proc.stderr
    metrics = json.loads(proc.stdout)["results"][DEFAULT_MODEL]["retrieval"]["metrics"]
    assert metrics["data.topk.k3.recall"] == pytest.approx(1.0)  # three relevant documents, distinct topics
    assert metrics["data.topk.k3.female_minus_male"] == pytest.approx(0.0)


def test_cli_bad_rows_layout_is_one_line_and_exit_2(run_cli, tmp_path):
    folder = write_rows_layout(tmp_path / "grep", _edit("sport", 7, content_gender="M"))
    proc = run_cli("bench", "retrieval", "--data", str(folder), "--cache-dir", str(tmp_path / "cache"))
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        f"debiasrag: error: {SPORT}:9: document 'd2N' has content_gender male here but neutral at {SPORT}:4"
    ]


def test_optional_qrels_file_adds_relevance(tmp_path):
    folder = write_rows_layout(tmp_path / "set")
    (folder / "qrels.csv").write_text("query_id,doc_id\n1,d2x\n", encoding="utf-8")
    assert load_labelled_set(folder).relevant["1"] == {"d1F", "d1M", "d1N", "d2x"}


def test_bundled_passage_set_is_read_through_the_rows_layout():
    task = load_fairness_passages()
    assert (task.name, len(task.queries), len(task.documents)) == ("fairness-passages", 42, 252)
    assert sorted(set(task.areas.values())) == ["arts", "civic_life", "cooking", "education", "sport", "travel"]
    assert all(len(ids) == 3 for ids in task.relevant.values())
    groups = [d.metadata["group"] for d in task.documents]
    assert {g: groups.count(g) for g in set(groups)} == {"female": 84, "male": 84, "neutral": 84}
    assert all(d.metadata["doc_title"] for d in task.documents)  # extra columns become metadata


PASSAGE_SETS = {  # part: (queries, documents, areas)
    2: (36, 216, ["family", "health", "home", "money", "science", "work"]),
    3: (24, 144, ["digital", "garden", "law", "transport"]),
    4: (24, 144, ["farming", "media", "retail", "volunteering"]),
    5: (24, 144, ["caregiving", "construction", "education_admin", "hospitality"]),
    6: (24, 144, ["appearance", "emergency_services", "engineering", "relationships"]),
    7: (24, 144, ["aviation", "music", "real_estate", "veterinary"]),
    8: (24, 144, ["fisheries", "libraries", "logistics", "pharmacy"]),
    9: (24, 144, ["archaeology", "beekeeping", "dentistry", "insurance"]),
    10: (24, 144, ["astronomy", "brewing", "forestry", "translation"]),
    11: (24, 144, ["bakery", "funeral_services", "opticians", "sailing_school"]),
    12: (24, 144, ["carpentry", "mental_health", "parenting_teens", "tax"]),
    13: (24, 144, ["chess_club", "hearing_care", "locksmiths", "vineyards"]),
    14: (24, 144, ["cybersecurity", "disability_benefits", "hairdressing", "nursing"]),
    15: (24, 144, ["bookbinding", "plumbing", "rowing_club", "wildlife_rescue"]),
    16: (24, 144, ["accounting", "debt_advice", "esports", "midwifery"]),
    17: (24, 144, ["allotments", "ferry_crews", "glassblowing", "speech_therapy"]),
    18: (24, 144, ["barbering", "data_science", "pensions", "physiotherapy"]),
    47: (24, 144, ["auctioneering", "canal_boat_hire", "dry_stone_walling", "saddlery"]),
    48: (24, 144, ["drone_surveying", "falconry", "lighthouse_keeping", "quilting"]),
}


@pytest.mark.parametrize("part", sorted(PASSAGE_SETS))
def test_later_passage_sets(part):
    task = load_fairness_passages(part)
    queries, documents, areas = PASSAGE_SETS[part]
    assert (task.name, len(task.queries), len(task.documents)) == (f"fairness-passages{part}", queries, documents)
    assert sorted(set(task.areas.values())) == areas
    earlier = [load_fairness_passages(p) for p in range(1, part)]
    assert not any(set(task.queries) & set(e.queries) for e in earlier)  # new query ids
    assert not any(set(task.areas.values()) & set(e.areas.values()) for e in earlier)  # areas no earlier set has


def test_unknown_passage_part():
    with pytest.raises(
        InputError,
        match="part must be one of " + ", ".join(str(part) for part in range(1, 49)) + "; got 49",
    ):
        load_fairness_passages(49)


@pytest.mark.parametrize("part", list(range(1, 49)))
def test_passage_sets_are_built_from_their_sources(part, maintainer_script):
    build = maintainer_script("build_fairness_passages")
    queries, documents = build.part_rows(part)
    shipped = load_fairness_passages(part)
    rows = [row for category_rows in documents.values() for row in category_rows]
    assert sorted((row[1], row[5]) for row in rows) == sorted((d.id, d.text) for d in shipped.documents)
    assert {q_id: query for q_id, _, query in queries} == shipped.queries


def _relabel(**labels: str):
    """Judgement files with the documents ``labels`` names given another content_gender (every row of them)."""
    files = judgement_rows()
    for rows in files.values():
        for row in rows:
            row["content_gender"] = labels.get(row["d_id"], row["content_gender"])
    return files


def test_labels_other_than_f_m_n_refuse_the_set_unless_told_what_to_do(tmp_path):
    # public sets carry a few such labels ("both": a text about a woman and a man); a typo must not pass unseen
    folder = write_rows_layout(tmp_path / "set", _relabel(d2x="both", d3F="both", d2N="botrh"))
    with pytest.raises(InputError) as err:
        load_labelled_set(folder)
    assert str(err.value) == (
        f"{SPORT}:4: 'content_gender' must be F, M or N (or female, male, neutral), got 'botrh' (pass "
        "unknown_groups='neutral' to read such documents anyway ('skip' leaves them out))"
    )
    neutral = load_labelled_set(folder, unknown_groups="neutral")
    groups = {d.id: d.metadata["group"] for d in neutral.documents}
    assert groups["d2x"] == groups["d3F"] == groups["d2N"] == "neutral" and groups["d3M"] == "male"
    assert neutral.relevant == load_labelled_set(write_rows_layout(tmp_path / "plain")).relevant
    # d2N is judged for two queries: one document, counted once
    assert neutral.notes == [
        "3 documents labelled other than female / male / neutral ('both' 2, 'botrh' 1) read as neutral"
    ]
    skipped = load_labelled_set(folder, unknown_groups="skip")
    assert {d.id for d in skipped.documents} == set(groups) - {"d2x", "d3F", "d2N"}
    assert skipped.relevant == {"1": {"d1F", "d1M", "d1N"}, "2": {"d2F", "d2M"}, "3": {"d3M", "d3N"}}
    assert skipped.notes == [
        "3 documents labelled other than female / male / neutral ('both' 2, 'botrh' 1) left out with their judgements"
    ]


def test_skipping_every_relevant_document_of_a_query_leaves_the_query_out(tmp_path):
    folder = write_rows_layout(tmp_path / "set", _relabel(d3F="both", d3M="both", d3N="both"))
    task = load_labelled_set(folder, unknown_groups="skip")
    assert set(task.queries) == set(task.relevant) == set(task.areas) == {"1", "2"}
    assert task.notes[-1] == "1 query left out, all relevant documents gone: 3"
    with pytest.raises(InputError, match="unknown_groups must be one of error, neutral, skip; got 'drop'"):
        load_labelled_set(folder, unknown_groups="drop")


def test_a_document_left_out_in_one_row_and_labelled_in_another_is_a_contradiction(tmp_path):
    files = judgement_rows()
    files["sport"][7]["content_gender"] = "both"  # d2N's second row (judged for query 3); its first says N
    with pytest.raises(InputError) as err:
        load_labelled_set(write_rows_layout(tmp_path / "set", files), unknown_groups="skip")
    assert str(err.value) == (
        f"{SPORT}:9: document 'd2N' has content_gender an unknown label (left out) here but neutral at {SPORT}:4"
    )


def test_an_empty_content_gender_is_read_like_an_unknown_label_when_told(tmp_path):
    folder = write_rows_layout(tmp_path / "set", _edit("sport", 1, content_gender=""))  # d2M
    with pytest.raises(InputError) as err:
        load_labelled_set(folder)
    assert str(err.value).startswith(f"{SPORT}:3: 'content_gender' is empty; label it F, M or N")
    assert str(err.value).endswith(
        "(pass unknown_groups='neutral' to read unlabelled documents anyway ('skip' leaves them out))"
    )
    assert {d.id: d.metadata["group"] for d in load_labelled_set(folder, unknown_groups="neutral").documents}[
        "d2M"
    ] == "neutral"
    skipped = load_labelled_set(folder, unknown_groups="skip")
    assert skipped.relevant["2"] == {"d2F", "d2N"}
    assert skipped.notes == [
        "1 document labelled other than female / male / neutral or not labelled (no label 1) left out with their "
        "judgements"
    ]


def test_woman_and_man_are_content_genders_too(tmp_path):
    files = _relabel(d1F="Woman", d2M="men")
    task = load_labelled_set(write_rows_layout(tmp_path / "one" / "set", files))
    assert task == load_labelled_set(write_rows_layout(tmp_path / "two" / "set"))  # the same name: equal throughout


def test_a_qrels_file_contradicting_a_judgement_row_is_refused(tmp_path):
    folder = write_rows_layout(tmp_path / "set")
    (folder / "qrels.csv").write_text("query_id,doc_id,relevance\n1,d1F,0\n", encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_labelled_set(folder)
    assert (
        str(err.value)
        == "qrels.csv:2: query '1' and document 'd1F' were judged otherwise at queries-documents_household.csv:2"
    )


@pytest.mark.parametrize("name", ["qrels.txt", "qrels.tsv", "Qrels.csv", "queries-documents_more.tsv", "qrels"])
def test_a_set_file_that_would_not_be_read_is_refused(tmp_path, name):
    # session 32's red-team: TREC's qrels.txt, a .tsv category file, a capitalised name were skipped without a word
    folder = write_rows_layout(tmp_path / "set")
    (folder / name).mkdir() if name == "qrels" else (folder / name).write_text("1 0 d2x 1\n", encoding="utf-8")
    with pytest.raises(InputError, match=f"{name}: not read"):
        load_labelled_set(folder)
    (folder / "README.md").write_text("notes\n", encoding="utf-8")  # other files are fine


def test_native_layout_details_from_the_red_team(tmp_path):
    folder = tmp_path / "set"
    folder.mkdir()
    write_jsonl(folder / "queries.jsonl", [{"id": "q1", "text": "who cooks?"}])
    docs = [
        {"id": "d1", "text": "She cooks.", "group": "F", "relevant_to": [" q1 "]},  # ids read without whitespace
        {"id": "d2", "text": "He cooks.", "group": "M", "metadata": {"debiasrag_group": "female"}},
        {"id": "d3", "text": "They cook.", "group": "N", "debiasrag_group": " "},  # an empty cell: not labelled
    ]
    write_jsonl(folder / "documents.jsonl", docs)
    task = load_labelled_set(folder)
    assert task.relevant == {"q1": {"d1"}}
    by_id = {d.id: d.metadata for d in task.documents}
    assert by_id["d2"] == {"debiasrag_group": "female", "group": "male"}  # a "metadata" object gives its fields
    assert by_id["d3"] == {"group": "neutral"}
    (folder / "qrels.csv").write_text("query_id,doc_id,relevance\nq1,d2,\n", encoding="utf-8")
    with pytest.raises(InputError, match="qrels.csv:2: 'relevance' is empty"):  # it counted as relevant
        load_labelled_set(folder)


def test_a_folder_keeps_its_whole_name(tmp_path, monkeypatch):
    assert load_labelled_set(write_rows_layout(tmp_path / "grep-biasir-v1.2")).name == "grep-biasir-v1.2"
    monkeypatch.chdir(tmp_path / "grep-biasir-v1.2")
    assert load_labelled_set(".").name == "grep-biasir-v1.2"  # it was "", and "grep-biasir-v1" above


def test_a_capitalised_column_is_named_in_the_error(tmp_path):
    folder = write_rows_layout(tmp_path / "set", queries=[{"Q_ID": "1", "category": "c", "query": "q"}])
    with pytest.raises(InputError, match="row has no 'q_id' \\(it has 'Q_ID'; column and field names are lower case"):
        load_labelled_set(folder)


@pytest.mark.parametrize(
    ("first_line", "message"),
    [("sep=,", "queries.csv:1: 'sep=,' is Excel's delimiter line"), ("", "queries.csv:1: the first line is empty")],
)
def test_a_line_before_the_header_is_named(tmp_path, first_line, message):
    folder = write_rows_layout(tmp_path / "set")
    queries = folder / "queries.csv"
    queries.write_text(first_line + "\n" + queries.read_text(encoding="utf-8"), encoding="utf-8")
    with pytest.raises(InputError, match=message):  # it said "more cells than columns in the header" at line 2
        load_labelled_set(folder)


def test_an_empty_file_and_a_path_that_is_no_file_are_named(tmp_path):
    folder = tmp_path / "set"
    folder.mkdir()
    write_jsonl(folder / "queries.jsonl", [{"id": "q1", "text": "who cooks?"}])
    (folder / "documents.csv").write_text("id,text,group,relevant_to\n", encoding="utf-8")  # a header only
    with pytest.raises(InputError, match="documents.csv: no rows"):  # was "needs at least one query and one document"
        load_labelled_set(folder)
    with pytest.raises(InputError, match="/dev/null: is neither a file nor a folder"):
        load_labelled_set("/dev/null")
