"""Bad input through the real command line (a subprocess per case, real files).

Every bad input ends with exit code 2 and exactly one stderr line ``debiasrag: error: …``: no traceback, no
raw terminal escape, and the files in the working folder byte-for-byte unchanged (nothing written, nothing
lost). Hostile but valid input (markup and escape sequences in texts, ids and paths; ids beyond 64 bits;
lone surrogates) goes through ``index`` and ``query`` and comes out as strict JSON or escaped tables.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli_support import cli

ROOT = Path(__file__).resolve().parents[2]
HUGE_ID = 10**30


def run(*args: str | Path, stdin: bytes | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``debiasrag ARGS`` (its ``main`` in this process, as a subprocess sees it); stdout and stderr kept as bytes."""
    return cli(*args, input=stdin, cwd=cwd, text=False)


def snapshot(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder`` with its bytes (None for folders)."""
    return {str(p.relative_to(folder)): (None if p.is_dir() else p.read_bytes()) for p in sorted(folder.rglob("*"))}


def assert_one_line_error(proc: subprocess.CompletedProcess, *fragments: str) -> str:
    """Exit 2, stderr is exactly one UTF-8 line ``debiasrag: error: …`` with no traceback or raw escape."""
    stderr = proc.stderr.decode("utf-8")  # strict: the message itself is valid UTF-8
    assert proc.returncode == 2, (proc.returncode, stderr[-3000:])
    assert "Traceback" not in stderr, stderr[-3000:]
    lines = stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("debiasrag: error: "), lines
    assert not any(ord(c) < 32 or 0x7F <= ord(c) < 0xA0 for c in lines[0]), lines[0]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def row(**fields) -> bytes:
    return (json.dumps(fields) + "\n").encode()


GOOD = row(id="ok", text="A perfectly fine sentence.")

# (name, corpus bytes, fragment of the one error line). The bad row is always line 2.
BAD_CORPORA = [
    ("non-utf8", GOOD + b'{"id": 2, "text": "caf\xe9"}\n', "line 2: not valid UTF-8"),
    ("deep-nesting", GOOD + b'{"id": 2, "text": "a", "m": ' + b"[" * 200_000 + b"\n", "line 2: JSON nested too deeply"),
    ("nan-metadata", GOOD + b'{"id": 2, "text": "a", "score": NaN}\n', "line 2: NaN is not valid JSON"),
    ("infinity", GOOD + b'{"id": 2, "text": "a", "score": -Infinity}\n', "line 2: -Infinity is not valid JSON"),
    ("overflow-float", GOOD + b'{"id": 2, "text": "a", "score": 1e999}\n', "line 2: 1e999 is not valid JSON"),
    ("5000-digit-id", GOOD + b'{"id": ' + b"7" * 5000 + b', "text": "a"}\n', "line 2: a number has more than"),
    ("float-id", GOOD + row(id=2.0, text="a"), "line 2: 'id' must be a string or an integer"),
    ("bool-id", GOOD + row(id=True, text="a"), "line 2: 'id' must be a string or an integer"),
    ("list-id", GOOD + row(id=[2], text="a"), "line 2: 'id' must be a string or an integer"),
    ("null-id", GOOD + row(id=None, text="a"), "line 2: 'id' must be a string or an integer"),
    ("object-id", GOOD + row(id={"a": 1}, text="a"), "line 2: 'id' must be a string or an integer"),
    ("int-text", GOOD + row(id=2, text=5), "line 2: 'text' must be a string"),
    ("null-text", GOOD + row(id=2, text=None), "line 2: 'text' must be a string"),
    ("list-text", GOOD + row(id=2, text=["a"]), "line 2: 'text' must be a string"),
    ("no-text", GOOD + row(id=2), "line 2: row has no 'text'"),
    ("blank-text", GOOD + row(id=2, text=" \t "), "line 2: 'text' is empty"),
    ("not-object", GOOD + b"[1, 2]\n", "line 2: not a JSON object"),
    ("truncated", GOOD + b'{"id": 2, "text": "a\n', "line 2: not valid JSON"),
    ("duplicate-id", GOOD + row(id="ok", text="again"), "line 2: duplicate id 'ok' (first seen on line 1)"),
    ("markup-in-dup-id", row(id="[/]", text="a") + row(id="[/]", text="b"), "line 2: duplicate id '[/]'"),
    ("escape-in-dup-id", row(id="\x1b[2J", text="a") + row(id="\x1b[2J", text="b"), "duplicate id '\\x1b[2J'"),
    ("crlf-bom-then-bad", b"\xef\xbb\xbf" + GOOD.replace(b"\n", b"\r\n") + b"nope\r\n", "line 2: not valid JSON"),
]
EMPTY_CORPORA = [
    ("empty", b""),
    ("blank-lines", b"\n\n  \n"),
    ("crlf-blank", b"\r\n\r\n"),
    ("bom-only", b"\xef\xbb\xbf"),
]


@pytest.mark.parametrize("data, fragment", [c[1:] for c in BAD_CORPORA], ids=[c[0] for c in BAD_CORPORA])
def test_index_refuses_bad_corpus_and_writes_nothing(tmp_path, data, fragment):
    corpus = write(tmp_path / "corpus.jsonl", data)
    before = snapshot(tmp_path)
    line = assert_one_line_error(run("index", corpus, "--out", tmp_path / "ix"), fragment)
    if "JSON" in fragment or "UTF-8" in fragment or "number" in fragment:
        assert line.endswith("(use --on-error skip to skip bad lines)"), line
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("data", [c[1] for c in EMPTY_CORPORA], ids=[c[0] for c in EMPTY_CORPORA])
def test_index_empty_corpus(tmp_path, data):
    corpus = write(tmp_path / "corpus.jsonl", data)
    before = snapshot(tmp_path)
    assert_one_line_error(run("index", corpus, "--out", tmp_path / "ix"), "the corpus is empty")
    assert snapshot(tmp_path) == before


def test_index_bad_stdin(tmp_path):
    before = snapshot(tmp_path)
    assert_one_line_error(
        run("index", "-", "--out", tmp_path / "ix", stdin=GOOD + b'{"id": 2, "text": NaN}\n'), "line 2: NaN"
    )
    assert_one_line_error(run("index", "-", "--out", tmp_path / "ix", stdin=b""), "the corpus is empty")
    assert snapshot(tmp_path) == before


def test_hostile_paths_in_messages_are_escaped(tmp_path):
    missing = tmp_path / "no[/]pe[bold]\x1b[2J\u202e.jsonl"
    line = assert_one_line_error(run("index", missing, "--out", tmp_path / "ix"), "input file not found", "[/]pe[bold]")
    assert "\\x1b[2J\\u202e" in line
    newline = tmp_path / "two\nlines.jsonl"
    assert_one_line_error(run("index", newline, "--out", tmp_path / "ix"), "two\\nlines.jsonl")
    assert_one_line_error(run("index", tmp_path, "--out", tmp_path / "ix"), "input is not a file")


def test_argument_errors_are_escaped():
    line = assert_one_line_error(run("query", "ix", "q", "--strategy", "\x1b[2J[/]"), "invalid choice")
    assert "\\x1b[2J[/]" in line
    assert_one_line_error(run("query", "ix", "q", "--k", "\x07"), "expected a positive integer")


# -- augment / anonymize / bias-score: output paths and rows, all refused before any model loads --------
@pytest.mark.parametrize("command", ["augment", "anonymize"])
def test_output_equal_to_input_keeps_input(tmp_path, command):
    source = write(tmp_path / "in.jsonl", row(id=1, text="She is a nurse."))
    (tmp_path / "hard.jsonl").hardlink_to(source)
    before = snapshot(tmp_path)
    for target in (source, tmp_path / "." / "in.jsonl", tmp_path / "hard.jsonl"):
        assert_one_line_error(run(command, source, target), "the output file is the input file")
    same_relative = run(command, "in.jsonl", "./in.jsonl", cwd=tmp_path)
    assert_one_line_error(same_relative, "refusing to overwrite the input")
    assert snapshot(tmp_path) == before


def test_augment_output_path_problems(tmp_path):
    source = write(tmp_path / "in.jsonl", row(id=1, text="She is a nurse."))
    before = snapshot(tmp_path)
    assert_one_line_error(run("augment", source, tmp_path / "missing" / "out.jsonl"), "output folder does not exist")
    assert_one_line_error(run("augment", source, tmp_path), "output path is a folder")
    assert_one_line_error(run("augment", source, tmp_path / "in.jsonl" / "x.jsonl"), "output folder does not exist")
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    "data, extra, fragment",
    [
        (GOOD + b'{"text": "a", "n": NaN}\n', [], "line 2: NaN is not valid JSON"),
        (GOOD + b"\xff\n", [], "line 2: not valid UTF-8"),
        (GOOD + b'{"text": ' + b"[" * 100_000 + b"\n", [], "line 2: JSON nested too deeply"),
        (GOOD + row(text=3), [], "line 2: 'text' must be a string"),
        (GOOD + row(id=[1], text="a"), ["--keep-original"], "line 2: 'id' must be a string or an integer"),
        (GOOD + row(id=None, text="a"), ["--keep-original"], "line 2: 'id' must be a string or an integer"),
        (GOOD + row(title="x"), ["--field", "title", "--field", "body"], "line 1: row has no 'title'"),
    ],
    ids=["nan", "utf8", "deep", "text-int", "list-id", "null-id", "missing-field"],
)
def test_augment_bad_rows(tmp_path, data, extra, fragment):
    source = write(tmp_path / "in.jsonl", data)
    write(tmp_path / "out.jsonl", b"old output\n")
    before = snapshot(tmp_path)
    assert_one_line_error(run("augment", source, tmp_path / "out.jsonl", *extra), fragment)
    assert snapshot(tmp_path) == before


def test_bias_score_bad_rows(tmp_path):
    source = write(tmp_path / "in.jsonl", GOOD + b'{"text": "x", "w": Infinity}\n')
    before = snapshot(tmp_path)
    assert_one_line_error(run("bias-score", source), "line 2: Infinity is not valid JSON")
    assert_one_line_error(run("bias-score", "-", stdin=b"\n\n"), "no sentences to score")
    assert snapshot(tmp_path) == before


def test_augment_keep_original_id_collision_keeps_old_output(tmp_path):
    rows = row(id="a", text="She is a nurse.") + row(id="a-swapped", text="The sky is blue.")
    source = write(tmp_path / "in.jsonl", rows)
    write(tmp_path / "out.jsonl", b"old output\n")
    before = snapshot(tmp_path)
    assert_one_line_error(
        run("augment", source, tmp_path / "out.jsonl", "--keep-original"),
        "line 1: the counterpart of id 'a' would get id 'a-swapped', which the row on line 2 already has",
    )
    assert snapshot(tmp_path) == before
    to_stdout = run("augment", source, "-", "--keep-original")  # printed row 'a' before the error
    assert to_stdout.returncode == 2 and to_stdout.stdout == b""


def test_augment_hostile_output_path_and_text(tmp_path):
    """Markup and escapes in the output path and the rows: exit 0, plain stderr, strict JSON Lines written."""
    source = write(
        tmp_path / "in.jsonl",
        row(id=HUGE_ID, text="She said [bold]hi[/] \x1b[31m to her.")
        + b'{"id": "s", "text": "He \\ud800 left.", "score": 1.5}\n',
    )
    target = tmp_path / "o[bold]ut[red]\x1b.jsonl"
    proc = run("augment", source, target, "--keep-original")
    stderr = proc.stderr.decode("utf-8")
    assert proc.returncode == 0, stderr[-3000:]
    assert "Traceback" not in stderr and "\x1b" not in stderr and "o[bold]ut[red]\\x1b.jsonl" in stderr, stderr
    lines = target.read_bytes().decode("utf-8").splitlines()
    rows = [json.loads(line, parse_constant=pytest.fail) for line in lines]
    assert rows[0]["id"] == HUGE_ID and rows[1]["id"] == f"{HUGE_ID}-swapped"
    assert rows[1]["counterfactual_of"] == HUGE_ID and "He said [bold]hi[/]" in rows[1]["text"]
    assert rows[2]["text"] == "He \ud800 left." and "She \ud800 left." in rows[3]["text"]


# -- index and query with hostile but valid data ---------------------------------------------------------
HOSTILE = [
    {"id": "[/]", "text": "She is a nurse [bold]who[/bold] cares. \x1b[31mred\x1b[0m \x07"},
    {"id": HUGE_ID, "text": "He is a nurse \ud800 with a lone surrogate.", "rank": -(10**25)},
    {"id": "\x1b]0;pwned\x07", "text": "This person is a nurse on the night shift.", "note": "\u202eevil"},
    {"id": 7, "text": "The weather is fine today."},
]


@pytest.fixture(scope="module")
def hostile_index(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("hostile")
    corpus = folder / "corpus.jsonl"
    corpus.write_bytes(b"".join(json.dumps(r).encode() + b"\n" for r in HOSTILE))
    out = folder / "ix[bold]"
    proc = run("index", corpus, "--out", out)
    stderr = proc.stderr.decode("utf-8")
    assert proc.returncode == 0, stderr[-3000:]
    assert stderr.splitlines()[-1].endswith("into " + str(out)), stderr  # printed, not parsed as markup
    return out


def test_query_json_is_strict_and_keeps_ids(hostile_index):
    proc = run("query", hostile_index, "Who is a nurse?", "--json", "--strategy", "topk", "--k", "4")
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    hits = json.loads(proc.stdout.decode("utf-8"), parse_constant=pytest.fail)  # strict JSON, valid UTF-8
    by_id = {json.dumps(h["id"]): h for h in hits}
    assert set(by_id) == {json.dumps(r["id"]) for r in HOSTILE}
    huge = by_id[str(HUGE_ID)]
    assert huge["id"] == HUGE_ID and type(huge["id"]) is int and huge["metadata"] == {"rank": -(10**25)}
    assert huge["text"] == HOSTILE[1]["text"]  # the lone surrogate round-trips through the index
    assert by_id[json.dumps("\x1b]0;pwned\x07")]["metadata"] == {"note": "\u202eevil"}


def test_query_table_prints_markup_and_escapes_as_text(hostile_index):
    proc = run("query", hostile_index, "Who is a nurse? [/] \x1b[2J", "--strategy", "topk", "--k", "4")
    stdout, stderr = proc.stdout.decode("utf-8"), proc.stderr.decode("utf-8")
    assert proc.returncode == 0, stderr[-3000:]
    assert "\x1b" not in stdout and "\x07" not in stdout and "\u202e" not in stdout
    assert "[/]" in stdout and "[bold]who[/bold]" in stdout and "\\x1b[31mred" in stdout
    assert str(HUGE_ID) in stdout and "\\ud800" in stdout and "\\x1b]0;pwned\\x07" in stdout
    assert "Who is a nurse? [/] \\x1b[2J" in stdout


def test_query_custom_concept_of_wrong_types(hostile_index, tmp_path):
    concept = {
        "name": "religion",
        "groups": ["christian", "muslim"],
        "variants": {"christian": "This person is Christian.", "muslim": "This person is Muslim."},
        "debiasing": "This person's religion is unknown.",
        "pairs": [["church", 1]],
    }
    path = tmp_path / "concept[bold].json"
    path.write_text(json.dumps(concept))
    before = snapshot(tmp_path)
    assert_one_line_error(
        run("query", hostile_index, "Who is a nurse?", "--concept", path),
        "concept[bold].json",
        "'pairs' must be a list",
    )
    assert snapshot(tmp_path) == before


def test_bias_score_json_with_lone_surrogates_and_markup(tmp_path):
    source = write(
        tmp_path / "in.jsonl",
        b'{"id": "[/]", "text": "She \\ud800 is a nurse."}\n' + row(id=HUGE_ID, text="He is \x1b[31m an engineer."),
    )
    before = snapshot(tmp_path)
    proc = run("bias-score", source, "--json", "--top", "2")
    assert proc.returncode == 0, proc.stderr.decode()[-3000:]
    result = json.loads(proc.stdout.decode("utf-8"), parse_constant=pytest.fail)
    texts = {json.dumps(entry["id"]): entry["text"] for entry in result["absolute"]}
    assert texts == {'"[/]"': "She \ud800 is a nurse.", str(HUGE_ID): "He is \x1b[31m an engineer."}
    assert snapshot(tmp_path) == before


def test_index_out_equal_to_corpus_file_keeps_it(tmp_path):
    corpus = write(tmp_path / "corpus.jsonl", GOOD + row(id=2, text="Another fine sentence."))
    before = snapshot(tmp_path)
    assert_one_line_error(run("index", corpus, "--out", corpus), "refusing")
    assert_one_line_error(run("index", corpus, "--out", tmp_path), "refusing")  # the folder holding the corpus
    assert snapshot(tmp_path) == before


def test_demo_refuses_a_users_folder(tmp_path):
    user = tmp_path / "notes"
    user.mkdir()
    (user / "report.md").write_text("my own report\n")
    write(tmp_path / "file.txt", b"keep\n")
    before = snapshot(tmp_path)
    assert_one_line_error(run("demo", "--out", user), "is not an earlier demo output")
    assert_one_line_error(run("demo", "--out", tmp_path / "file.txt"), "is not a folder")
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize(
    "data, fragment",
    [
        (b'{"q": ' + b"[" * 100_000 + b"\n", "set.jsonl:1: JSON nested too deeply"),
        (b'{"q": ' + b"1" * 5000 + b"}\n", "set.jsonl:1: a number has more than"),
        (b'{"q": NaN}\n', "set.jsonl:1: NaN is not valid JSON"),
    ],
    ids=["deep", "digits", "nan"],
)
def test_bench_labelled_set_bad_json(tmp_path, data, fragment):
    write(tmp_path / "set.jsonl", data)
    before = snapshot(tmp_path)
    assert_one_line_error(run("bench", "retrieval", "--data", tmp_path / "set.jsonl"), fragment)
    assert snapshot(tmp_path) == before


def test_verbose_logs_skipped_lines_and_quiet_does_not(tmp_path):
    corpus = write(tmp_path / "corpus.jsonl", b'{"id": 1, "text": NaN}\n\xff\n')
    quiet = run("index", corpus, "--out", tmp_path / "ix", "--on-error", "skip")
    assert_one_line_error(quiet, "the corpus is empty")
    loud = run("--verbose", "index", corpus, "--out", tmp_path / "ix", "--on-error", "skip")
    lines = loud.stderr.decode("utf-8").splitlines()
    assert loud.returncode == 2 and lines[-1].startswith("debiasrag: error: the corpus is empty"), lines
    assert any("debiasrag.corpus" in line and "skipped line 2: not valid UTF-8" in line for line in lines), lines
    assert not (tmp_path / "ix").exists()


def test_bench_out_onto_a_file_fails_before_running(tmp_path):
    precious = write(tmp_path / "precious.txt", b"keep me")
    proc = run("bench", "sts", "--out", precious)
    assert_one_line_error(proc, "exists and is not a folder")
    assert precious.read_bytes() == b"keep me"
    assert "sts on" not in proc.stderr.decode()  # refused before any benchmark ran


def test_bench_list_is_plain_text():
    proc = run("bench", "list")
    assert proc.returncode == 0
    lines = proc.stdout.decode().splitlines()
    assert {line.split("\t")[0] for line in lines} >= {"mitigate", "retrieval", "sts", "weat"}
    assert "``" not in proc.stdout.decode()


@pytest.mark.parametrize(
    "mapping, fragment",
    [("in.jsonl", "is the input file"), ("out.jsonl", "is the output file"), ("no/map.json", "does not exist")],
)
def test_anonymize_mapping_out_never_clobbers_input_or_output(tmp_path, mapping, fragment):
    write(tmp_path / "in.jsonl", row(id=1, text="Alice met Bob in Paris.") + row(id=2, text="Carol went home."))
    write(tmp_path / "out.jsonl", b"previous output\n")
    before = snapshot(tmp_path)
    proc = run("anonymize", "in.jsonl", "out.jsonl", "--strategy", "replace", "--mapping-out", mapping, cwd=tmp_path)
    assert_one_line_error(proc, fragment)
    assert snapshot(tmp_path) == before
