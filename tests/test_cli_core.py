"""The CLI contract of `debiasrag index`, `query` and `demo` (other tools call it)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from debiasrag.cli import main
from debiasrag.storage import data_paths
from tests.cli_support import cli

CORPUS = [
    {"id": "f1", "text": "She commanded the largest naval fleet in the history of the nation.", "group": "female"},
    {"id": "m1", "text": "He commanded the largest naval fleet in the history of the nation.", "group": "male"},
    {
        "id": "n1",
        "text": "This person commanded the largest naval fleet in the history of the nation.",
        "group": "neutral",
    },
    {"id": "r1", "text": "A cat stretched lazily on the windowsill, basking in the warmth of the afternoon sun."},
    {"id": "r2", "text": "The train rattled along the tracks, carrying passengers through the misty countryside."},
]


def run_cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return cli(*args, input=stdin, text=False)


def write_corpus(path: Path, rows=CORPUS) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("cli") / "ix"
    stdin = "".join(json.dumps(r) + "\n" for r in CORPUS).encode()
    proc = run_cli("index", "-", "--out", str(out), stdin=stdin)
    assert proc.returncode == 0, proc.stderr.decode()
    assert "indexed 5 documents" in proc.stderr.decode()
    assert (
        "groups (gender, stored in the index; a debiasrag_group field overrides): 1 female, 1 male, 3 neutral\n"
        in proc.stderr.decode()
    )
    assert proc.stderr.decode().splitlines()[-1].startswith("indexed 5 documents")  # still the last line
    return out


def test_index_names_documents_that_mention_both_groups(tmp_path):
    rows = [*CORPUS, {"id": "x1", "text": "She thanked her father, who had taught him and her to sail."}]
    proc = run_cli("index", str(write_corpus(tmp_path / "c.jsonl", rows)), "--out", str(tmp_path / "ix"))
    assert proc.returncode == 0, proc.stderr.decode()
    assert "2 female, 1 male, 3 neutral; 1 (17%) name both women and men" in proc.stderr.decode()
    assert "label them with debiasrag_group for balanced / dynamic (ids 'x1')" in " ".join(proc.stderr.decode().split())


def test_query_json_contract(index_dir):
    proc = run_cli("query", str(index_dir), "Who commanded the fleet?", "--json", "--strategy", "balanced", "--k", "3")
    assert proc.returncode == 0, proc.stderr.decode()
    hits = json.loads(proc.stdout)
    assert isinstance(hits, list) and len(hits) == 3
    for hit in hits:
        assert {"id", "text", "score", "variant", "rank", "metadata"} <= hit.keys()
    assert {h["id"] for h in hits} == {"f1", "m1", "n1"}
    assert [h["variant"] for h in hits] == ["neutral"] * 3  # balanced searches the plain query once
    assert sorted(h["group"] for h in hits) == ["female", "male", "neutral"]  # and balances the documents' groups
    assert hits[0]["metadata"] == {"group": hits[0]["group"]}  # the inferred group agrees with the label


@pytest.mark.parametrize("strategy", ["topk", "context", "paper", "balanced", "dynamic"])
def test_query_every_strategy_in_process(index_dir, capsys, strategy):
    assert main(["query", str(index_dir), "Who commanded the fleet?", "--strategy", strategy, "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert hits and hits[0]["id"] in {"f1", "m1", "n1"}
    if strategy == "dynamic":
        assert sorted(h["id"] for h in hits) == ["f1", "m1", "n1"]


def test_query_table_output(index_dir, capsys):
    assert main(["query", str(index_dir), "Who commanded the fleet?", "--k", "2", "--strategy", "topk"]) == 0
    out = capsys.readouterr().out
    assert "topk: 2 result(s)" in out and "commanded the largest naval fleet" in out
    assert "group" not in out and "balanced groups" not in out  # topk balances nothing


def test_query_table_shows_the_start_of_a_long_text(index_dir, capsys):
    """A web page is one hit: the table printed it whole (a new user's walkthrough, session 48). --json gives all."""
    argv = ["query", str(index_dir), "Who commanded the fleet?", "--k", "1", "--strategy", "topk"]
    assert main([*argv, "--text-chars", "12"]) == 0
    out = capsys.readouterr().out
    assert "characters]" in out and "naval fleet" not in out
    assert main([*argv, "--text-chars", "0"]) == 0
    assert "characters]" not in capsys.readouterr().out
    assert main([*argv, "--text-chars", "12", "--json"]) == 0
    assert "naval fleet" in capsys.readouterr().out


@pytest.mark.parametrize("strategy", ["balanced", "dynamic"])
def test_query_table_shows_the_groups_it_balanced(index_dir, capsys, strategy):
    """The table names each returned document's group and the groups balanced, as --json does."""
    assert main(["query", str(index_dir), "Who commanded the fleet?", "--k", "3", "--strategy", strategy]) == 0
    out = capsys.readouterr().out
    assert "balanced groups: female 1, male 1" in out and "not equal" not in out
    rows = {line.split("│")[5].strip(): line.split("│")[4].strip() for line in out.splitlines() if line.count("│") == 7}
    assert rows == {"f1": "female", "m1": "male", "n1": "neutral"}


def test_query_says_when_a_concept_has_no_evidence_words(index_dir, capsys, tmp_path):
    # the library warns; the CLI hides warnings, so `balanced` balanced nothing without a word on the command line
    concept = tmp_path / "bare.json"
    concept.write_text(json.dumps({"name": "bare", "groups": ["a", "b"], "variants": {"a": "A.", "b": "B."},
                                   "debiasing": "Unknown."}))  # fmt: skip
    argv = ["query", str(index_dir), "Who commanded the fleet?", "--concept", str(concept), "--k", "3"]
    assert main([*argv, "--strategy", "balanced"]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "warning: concept 'bare' has no evidence words for group(s) 'a', 'b'" in err
    assert main([*argv, "--strategy", "topk"]) == 0  # balances nothing anyway: nothing to say
    assert "evidence" not in capsys.readouterr().err


def test_query_caption_says_when_the_bound_left_the_groups_unequal():
    from debiasrag.commands.query import _balance_caption
    from debiasrag.retriever import Hit, RetrievalResult

    hits = [Hit(i, "t", 1.0, i + 1, "plain", group=g) for i, g in enumerate(["male", "neutral", "male", "female"])]
    result = RetrievalResult("q", "dynamic", hits, {}, balanced_groups=("female", "male"))
    unequal = "(not equal: no candidate within the swap bound closes the gap)"
    assert _balance_caption(result) == f"balanced groups: female 1, male 2 {unequal}"
    assert result.group_counts == {"female": 1, "male": 2} and result.groups_equal is False  # the library says so too
    even = RetrievalResult("q", "dynamic", hits[1:], {}, balanced_groups=("female", "male"))
    assert even.groups_equal is True and RetrievalResult("q", "topk", hits, {}).groups_equal is None


def expect_error(capsys, argv: list[str], message: str) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert message in err, err


def test_query_errors(index_dir, tmp_path, capsys):
    expect_error(capsys, ["query", str(index_dir), "   "], "debiasrag: error: query is empty")
    # an empty word is told as a query of spaces is (it read "argument 3 is empty; give a value (a path, a name)
    # or leave it out": a new user's red team, session 45); an empty index path keeps the general line
    expect_error(capsys, ["query", str(index_dir), ""], "debiasrag: error: query is empty")
    expect_error(capsys, ["query", "", "q"], "argument 2 is empty; give a value (a path, a name) or leave it out")
    expect_error(capsys, ["query", str(tmp_path / "none"), "q"], "index folder not found")
    expect_error(capsys, ["query", str(index_dir), "q", "--concept", "race"], "unknown concept 'race'")
    expect_error(capsys, ["query", str(index_dir), "q", "--model", str(tmp_path)], "cannot load embedding model")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "manifest.json").write_text("{")
    expect_error(capsys, ["query", str(tmp_path / "broken"), "q"], "manifest.json is corrupted")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["query", "ix", "q", "--k", "0"], "argument --k: expected a positive integer, got 0"),
        (["query", "ix", "q", "--strategy", "fair"], "argument --strategy: invalid choice: 'fair'"),
    ],
)
def test_argument_errors_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "command, default",
    [("query", "the model the index was built with"), ("index", "packaged all-MiniLM-L6-v2")],
)
def test_model_help_names_one_default(command, default, monkeypatch, capsys):
    # query's --model defaults to the index's model, not the packaged one: its help must not name both
    monkeypatch.setenv("COLUMNS", "1000")  # one help line per option, so the text is not wrapped
    with pytest.raises(SystemExit) as exc:
        main([command, "--help"])
    assert exc.value.code == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.strip().startswith("--model"))
    assert line.count("default") == 1 and line.rstrip().endswith(f"(default: {default})"), line


def test_index_errors_leave_no_partial_index(tmp_path, capsys):
    out = tmp_path / "ix"
    write_corpus(tmp_path / "dup.jsonl", CORPUS + [{"id": "f1", "text": "again"}])
    expect_error(capsys, ["index", str(tmp_path / "dup.jsonl"), "--out", str(out)], "line 6: duplicate id 'f1'")
    (tmp_path / "bad.jsonl").write_bytes(b'{"id": 1, "text": "ok"}\n\xff\xfe\n')
    expect_error(capsys, ["index", str(tmp_path / "bad.jsonl"), "--out", str(out)], "line 2: not valid UTF-8")
    (tmp_path / "notjson.jsonl").write_text('{"id": 1, "text": "ok"}\nhello\n')
    expect_error(capsys, ["index", str(tmp_path / "notjson.jsonl"), "--out", str(out)], "line 2: not valid JSON")
    (tmp_path / "notext.jsonl").write_text('{"id": 1}\n')
    expect_error(capsys, ["index", str(tmp_path / "notext.jsonl"), "--out", str(out)], "line 1: row has no 'text'")
    (tmp_path / "empty.jsonl").write_text("")
    expect_error(capsys, ["index", str(tmp_path / "empty.jsonl"), "--out", str(out)], "the corpus is empty")
    expect_error(capsys, ["index", str(tmp_path / "missing.jsonl"), "--out", str(out)], "input file not found")
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_index_skip_mode_reports_skipped_lines(tmp_path, capsys):
    (tmp_path / "mixed.jsonl").write_text('{"id": 1, "text": "ok"}\nhello\n{"id": 2, "text": "fine"}\n')
    out = tmp_path / "ix"
    assert main(["index", str(tmp_path / "mixed.jsonl"), "--out", str(out), "--on-error", "skip"]) == 0
    err = capsys.readouterr().err
    assert "skipped 1 bad line(s): line 2: not valid JSON" in err
    assert json.loads((out / "manifest.json").read_text())["count"] == 2


def test_a_bad_corpus_line_is_one_error_line_without_traceback(tmp_path):
    (tmp_path / "bad.jsonl").write_text('{"id": 1, "text": "She ran."}\nhello\n')
    proc = run_cli("index", str(tmp_path / "bad.jsonl"), "--out", str(tmp_path / "ix"))
    assert proc.returncode == 2
    assert proc.stderr.decode().strip().splitlines() == [
        "debiasrag: error: line 2: not valid JSON (Expecting value) (use --on-error skip to skip bad lines)"
    ]
    # A first line that is no JSON at all: a CSV or plain text was given; skipping every line would not help.
    (tmp_path / "docs.csv").write_text("id,text\n1,She ran.\n")
    proc = run_cli("index", str(tmp_path / "docs.csv"), "--out", str(tmp_path / "ix"))
    assert proc.returncode == 2
    assert proc.stderr.decode().strip().splitlines() == [
        f"debiasrag: error: line 1: not valid JSON (Expecting value): {tmp_path / 'docs.csv'} is not JSON Lines "
        '(one {"id": ..., "text": ...} object per line)'
    ]
    (tmp_path / "docs.csv").write_text("\n\nid,text\n1,She ran.\n")  # blank lines first: still the first row
    proc = run_cli("index", str(tmp_path / "docs.csv"), "--out", str(tmp_path / "ix"))
    assert "line 3: not valid JSON (Expecting value):" in proc.stderr.decode()
    (tmp_path / "array.json").write_text('[{"id": 1, "text": "She ran."}]\n')  # one JSON array
    proc = run_cli("index", str(tmp_path / "array.json"), "--out", str(tmp_path / "ix"))
    assert proc.returncode == 2
    assert proc.stderr.decode().strip().splitlines() == [
        f"debiasrag: error: line 1: a JSON array, not an object: {tmp_path / 'array.json'} is not JSON Lines "
        '(one {"id": ..., "text": ...} object per line, no enclosing [ ])'
    ]


def test_demo_prints_comparison_and_writes_report(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path / "demo")]) == 0
    out = capsys.readouterr().out
    for strategy in ("topk", "context", "paper", "balanced", "dynamic"):
        assert strategy in out
    report = (tmp_path / "demo" / "report.md").read_text()
    # toy task, MiniLM: dynamic counts texts (its chunks come in F / M wordings): all 15 (README, "Benchmarks")
    assert "| dynamic | 15 | 15/15 | 1.00 | 1.00 | 0 | 5 | 5 | 5 |" in report
    assert "| topk | 10 | 10/15 | 0.67 |" in report
    assert (tmp_path / "demo" / "index" / "manifest.json").is_file()


def test_index_with_ner_anonymization_and_matching_queries(tmp_path, capsys):
    rows = [
        {"id": 1, "text": "Alejandro quickly ran to the store to buy a cold drink. He was eager to have a cold drink."},
        {"id": 2, "text": "Quickly, Hiroki dashed to the local market to procure some cold drinks."},
        {"id": 3, "text": "Alejandro stopped buying cold drinks. He only drinks drinks made at home."},
    ]
    out = tmp_path / "ix"
    assert main(["index", str(write_corpus(tmp_path / "c.jsonl", rows)), "--out", str(out), "--anonymize", "ner"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["preprocessing"] == {"anonymize": {"method": "ner", "strategy": "remove", "entities": None}}
    stored = [json.loads(line) for line in data_paths(out)["documents.jsonl"].read_text().splitlines()]
    assert stored[0]["text"] == rows[0]["text"]  # the original is what users get back
    assert "Alejandro" not in stored[0]["metadata"]["anonymized_text"]
    assert "Hiroki" not in stored[1]["metadata"]["anonymized_text"]
    capsys.readouterr()
    query = ["query", str(out), "Alejandro ran to the shop for a cold drink", "--strategy", "topk", "--json"]
    assert main(query) == 0
    auto = json.loads(capsys.readouterr().out)
    assert main([*query, "--anonymize", "none"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert [h["id"] for h in auto] == [1, 2, 3]
    # Anonymized like the corpus, the query matches the anonymized chunk far better (measured 0.83 vs 0.66).
    assert auto[0]["score"] > plain[0]["score"] + 0.1


def test_indexing_into_an_existing_index_says_it_replaced_it(tmp_path, capsys):
    out = tmp_path / "ix"
    assert main(["index", str(write_corpus(tmp_path / "c.jsonl")), "--out", str(out)]) == 0
    assert "replaced" not in capsys.readouterr().err
    two = write_corpus(tmp_path / "two.jsonl", CORPUS[:2])
    assert main(["index", str(two), "--out", str(out)]) == 0
    lines = capsys.readouterr().err.strip().splitlines()
    assert f"replaced the index of {len(CORPUS)} documents in {out} (its files" in lines[-2]  # nothing else changed
    assert lines[-1].startswith("indexed 2 documents")  # still the last line, which tools read
    assert main(["index", str(two), "--out", str(out), "--neutralize", "table"]) == 0
    assert "replaced the index of 2 documents in" in (err := capsys.readouterr().err)
    assert "changed: neutralize off -> names=table" in err  # queries will be rewritten from now on: say so


def test_query_reports_model_and_dimension_mismatch(index_dir, tmp_path, capsys):
    import shutil

    for field, value, message in (
        (
            "model",
            "other/model",
            "was built with model other/model, not sentence-transformers/all-MiniLM-L6-v2 (use --model other/model",
        ),
        (
            "dimension",
            768,
            "manifest.json says dimension 768, but its model sentence-transformers/all-MiniLM-L6-v2 gives 384",
        ),
    ):
        copy = tmp_path / f"ix-{field}"
        shutil.copytree(index_dir, copy)
        manifest = json.loads((copy / "manifest.json").read_text())
        manifest[field] = value
        (copy / "manifest.json").write_text(json.dumps(manifest))
        model = [] if field == "dimension" else ["--model", "sentence-transformers/all-MiniLM-L6-v2"]
        expect_error(capsys, ["query", str(copy), "Who commanded the fleet?", *model], message)
    # In Python the same hint names load()'s own parameter.
    from debiasrag.embedders import SentenceTransformerEmbedder
    from debiasrag.errors import IndexLoadError
    from debiasrag.index import FaissIndex

    with pytest.raises(IndexLoadError, match=r"\(pass embedder='other/model' to embed queries"):
        FaissIndex.load(tmp_path / "ix-model", embedder=SentenceTransformerEmbedder())


def test_index_refuses_a_bad_group_label_before_writing(tmp_path):
    rows = [{"id": "a", "text": "She ran.", "debiasrag_group": "robot"}]
    out = tmp_path / "ix"
    proc = run_cli("index", str(write_corpus(tmp_path / "c.jsonl", rows)), "--out", str(out))
    assert proc.returncode == 2
    assert proc.stderr.decode().strip().splitlines() == [
        "debiasrag: error: line 1: document 'a': metadata 'debiasrag_group' is 'robot'; expected female, male or "
        "neutral (any case, or F, M, N, or woman / women / man / men) (use --on-error skip to skip bad lines)"
    ]
    assert not out.exists()


def test_a_metadata_object_in_a_corpus_row_is_the_documents_metadata(tmp_path):
    # {"id", "text", "metadata": {...}} (a Document's shape, an index's own documents.jsonl) nested its fields one
    # level down, where a debiasrag_group label was ignored without a word
    rows = [
        {"id": "a", "text": "The pilot flew the plane.", "metadata": {"debiasrag_group": "female", "page": 3}},
        {"id": "b", "text": "The pilot flew the jet.", "metadata": {"debiasrag_group": "male"}, "source": "x"},
        {"id": "c", "text": "The pilot landed."},
    ]
    out = tmp_path / "ix"
    proc = run_cli("index", str(write_corpus(tmp_path / "c.jsonl", rows)), "--out", str(out))
    assert proc.returncode == 0, proc.stderr.decode()
    assert "1 female, 1 male, 1 neutral" in proc.stderr.decode()
    stored = [json.loads(line) for line in data_paths(out)["documents.jsonl"].read_text().splitlines()]
    assert [row["metadata"] for row in stored] == [
        {"debiasrag_group": "female", "page": 3},
        {"debiasrag_group": "male", "source": "x"},
        {},
    ]
    # re-indexing that file keeps the labels (its stored groups come back as a plain field)
    again = run_cli("index", str(data_paths(out)["documents.jsonl"]), "--out", str(tmp_path / "ix2"))
    assert again.returncode == 0 and "1 female, 1 male, 1 neutral" in again.stderr.decode()
    rows[1]["metadata"]["source"] = "y"  # the same field inside and beside: which one?
    proc = run_cli("index", str(write_corpus(tmp_path / "c.jsonl", rows)), "--out", str(tmp_path / "ix3"))
    assert proc.returncode == 2
    assert proc.stderr.decode().strip() == (
        "debiasrag: error: line 2: field 'source' is both in 'metadata' and beside it; keep one"
    )


def test_the_command_ignores_ctrl_c_once_its_work_is_done(monkeypatch, capsys):
    """A Ctrl-C landing while the interpreter unloads the models, after the output was written and the summary
    printed, made a finished run exit 130 (red-team round 3)."""
    import signal

    from debiasrag.cli import console_main

    monkeypatch.setattr(sys, "argv", ["debiasrag", "bench", "list"])
    before = signal.getsignal(signal.SIGINT)
    try:
        assert console_main() == 0 and signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)
    assert "retrieval" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args",
    [("bench", "list"), ("query", "no-such-index", "Who commanded the fleet?"), ("query", "--k", "0"), ("--help",)],
)
def test_the_in_process_runner_sees_what_a_fresh_interpreter_sees(args, tmp_path):
    """The suite runs the CLI's ``main`` in the test's process (tests/cli_support.py); its exit code, stdout and
    stderr must be those of ``python -m debiasrag.cli`` (a usage error, an input error, a listing, --help)."""
    from tests.cli_support import cli_process

    inside, fresh = cli(*args, cwd=tmp_path), cli_process(*args, cwd=tmp_path)
    assert (inside.returncode, inside.stdout, inside.stderr) == (fresh.returncode, fresh.stdout, fresh.stderr)
    assert inside.stdout or inside.stderr
