"""Bad input through the library: every problem is one of our errors, with a one-line message; nothing is lost.

Covers the corpus reader (non-UTF-8, deep nesting, NaN/Infinity, huge and wrongly typed ids, lone
surrogates, BOM, CRLF, blank lines, huge lines), the strict JSON writer, the atomic file writer (failures
part-way, a full disk via ``RLIMIT_FSIZE``, permissions, the input as output), terminal-safe text, error
hints, and custom concept files with a wrong type in every field.
"""

from __future__ import annotations

import io
import json
import math
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from debiasrag import InputError, load_concept, read_documents
from debiasrag.corpus import JsonlReport, iter_rows, write_jsonl_atomic
from debiasrag.errors import DebiasragError, IndexLoadError, OutputError
from debiasrag.fileio import (
    atomic_write,
    atomic_write_json,
    dumps_strict,
    encodable,
    loads_strict,
    printable,
    read_text,
    refuse_same_file,
)

OUR_ERRORS = (InputError, IndexLoadError, OutputError)


def corpus(tmp_path: Path, data: bytes, name: str = "c.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def read_error(path_or_handle, **kwargs) -> InputError:
    """The InputError reading raises; its message is one line and names no CLI flag."""
    with pytest.raises(InputError) as info:
        read_documents(path_or_handle, **kwargs)
    message = str(info.value)
    assert "\n" not in message and "--" not in message, message
    return info.value


# -- corpus rows --------------------------------------------------------------------------------------
def test_non_utf8_file_is_an_input_error_with_line_number(tmp_path):
    path = corpus(tmp_path, b'{"id": 1, "text": "ok"}\n{"id": 2, "text": "caf\xe9"}\n')
    error = read_error(path)
    assert str(error).startswith("line 2: not valid UTF-8") and not isinstance(error, UnicodeDecodeError)
    report = JsonlReport()
    assert [d.id for d in read_documents(path, on_error="skip", report=report)] == [1]
    assert report.skipped == [(2, "not valid UTF-8")]


def test_non_utf8_through_a_text_handle(tmp_path):
    path = corpus(tmp_path, b'{"id": 1, "text": "ok"}\n\xff\xfe\n')
    with open(path, encoding="utf-8") as handle:
        error = read_error(handle)
    assert "not valid UTF-8" in str(error)


def test_binary_and_text_handles_are_read(tmp_path):
    data = b'{"id": 1, "text": "one"}\n{"id": 2, "text": "two"}\n'
    assert [d.text for d in read_documents(io.BytesIO(data))] == ["one", "two"]
    assert [d.text for d in read_documents(io.StringIO(data.decode()))] == ["one", "two"]


@pytest.mark.parametrize(
    "line, fragment",
    [
        (b'{"id": 1, "text": "a", "m": ' + b"[" * 100_000 + b"\n", "nested too deeply"),
        (b'{"id": 1, "text": "a", "m": ' + b'{"k": ' * 50_000 + b"\n", "nested too deeply"),
        (b'{"id": 1, "text": "a", "m": NaN}\n', "NaN is not valid JSON"),
        (b'{"id": 1, "text": "a", "m": Infinity}\n', "Infinity is not valid JSON"),
        (b'{"id": 1, "text": "a", "m": -Infinity}\n', "-Infinity is not valid JSON"),
        (b'{"id": 1, "text": "a", "m": 1e400}\n', "1e400 is not valid JSON"),
        (b'{"id": ' + b"9" * 5000 + b', "text": "a"}\n', "more than"),
        (b'{"id": 1, "text": "a"\n', "not valid JSON"),
        (b"[1, 2]\n", "not a JSON object"),
        (b'"just a string"\n', "not a JSON object"),
        (b"\x00\x01\x02\n", "not valid JSON"),
    ],
    ids=[
        "deep-list",
        "deep-object",
        "nan",
        "inf",
        "-inf",
        "overflow",
        "5000-digits",
        "truncated",
        "list",
        "str",
        "nul",
    ],
)
def test_unreadable_lines_stop_with_line_number_or_are_skipped(tmp_path, line, fragment):
    path = corpus(tmp_path, b'{"id": "ok", "text": "fine"}\n' + line)
    error = read_error(path)
    assert str(error).startswith("line 2: ") and fragment in str(error), str(error)
    assert error.option == "on_error" and "on_error='skip'" in str(error)  # the hint names the parameter
    report = JsonlReport()
    assert [d.id for d in read_documents(path, on_error="skip", report=report)] == ["ok"]
    assert [n for n, _ in report.skipped] == [2]


@pytest.mark.parametrize(
    "doc_id",
    [1.0, 1.5, True, False, None, [1], {"a": 1}],
    ids=["float1", "float", "true", "false", "null", "list", "obj"],
)
def test_ids_of_wrong_type(tmp_path, doc_id):
    path = corpus(tmp_path, (json.dumps({"id": doc_id, "text": "a"}) + "\n").encode())
    assert str(read_error(path)) == "line 1: 'id' must be a string or an integer"


@pytest.mark.parametrize("text", [1, 2.5, None, ["a"], {"t": "a"}, True])
def test_text_not_a_string(tmp_path, text):
    path = corpus(tmp_path, (json.dumps({"id": 1, "text": text}) + "\n").encode())
    assert str(read_error(path)) == "line 1: 'text' must be a string"


def test_huge_integer_ids_are_kept_exactly(tmp_path):
    ids = [10**30, -(10**40), 2**63, 2**64 + 1]
    path = corpus(tmp_path, "".join(json.dumps({"id": i, "text": f"t{n}"}) + "\n" for n, i in enumerate(ids)).encode())
    docs = read_documents(path)
    assert [d.id for d in docs] == ids and all(type(d.id) is int for d in docs)
    out = tmp_path / "out.jsonl"
    write_jsonl_atomic((d.to_row() for d in docs), out)
    assert [d.id for d in read_documents(out)] == ids  # round trip, no float conversion


def test_int_and_string_ids_are_different_documents(tmp_path):
    path = corpus(tmp_path, b'{"id": 1, "text": "a"}\n{"id": "1", "text": "b"}\n')
    assert [d.id for d in read_documents(path)] == [1, "1"]


def test_lone_surrogates_are_read_and_written_back_exactly(tmp_path):
    path = corpus(tmp_path, b'{"id": "\\ud800", "text": "lone \\udfff here", "m": {"k": "\\udbff"}}\n')
    (doc,) = read_documents(path)
    assert (doc.id, doc.text, doc.metadata) == ("\ud800", "lone \udfff here", {"m": {"k": "\udbff"}})
    out = tmp_path / "out.jsonl"
    write_jsonl_atomic([doc.to_row()], out)
    out.read_bytes().decode("utf-8")  # valid UTF-8 on disk
    (again,) = read_documents(out)
    assert (again.id, again.text, again.metadata) == (doc.id, doc.text, doc.metadata)
    assert encodable(doc.text) == "lone \ufffd here"  # what a tokenizer is given


def test_bom_crlf_and_blank_lines(tmp_path):
    path = corpus(tmp_path, b'\xef\xbb\xbf{"id": 1, "text": "a"}\r\n\r\n   \r\n{"id": 2, "text": "b"}\r\n\n')
    assert [(d.id, d.text) for d in read_documents(path)] == [(1, "a"), (2, "b")]


@pytest.mark.parametrize("data", [b"", b"\n\n", b"\r\n  \r\n", b"\xef\xbb\xbf"], ids=["empty", "blank", "crlf", "bom"])
def test_empty_corpus(tmp_path, data):
    assert "the corpus is empty" in str(read_error(corpus(tmp_path, data)))


def test_one_megabyte_line_is_fine(tmp_path):
    text = "word " * 210_000
    path = corpus(tmp_path, (json.dumps({"id": 1, "text": text}) + "\n").encode())
    (doc,) = read_documents(path)
    assert doc.text == text


def test_missing_file_folder_and_bad_on_error(tmp_path):
    assert "input file not found" in str(read_error(tmp_path / "nope.jsonl"))
    assert "input is not a file" in str(read_error(tmp_path))
    with pytest.raises(InputError, match="on_error must be"):
        read_documents(corpus(tmp_path, b'{"id": 1, "text": "a"}\n'), on_error="ignore")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="on_error must be"):
        read_documents([{"id": 1, "text": "a"}], on_error="ignore")  # type: ignore[arg-type]


def test_iterables_of_rows_are_checked_like_files():
    with pytest.raises(InputError, match="^line 2: not a JSON object$"):
        read_documents([{"id": 1, "text": "a"}, ["id", 2]])
    with pytest.raises(InputError, match="^line 1: 'id' must be a string or an integer$"):
        read_documents([{"id": float("nan"), "text": "a"}])
    with pytest.raises(InputError, match="^line 2: duplicate id 'a'"):
        read_documents([{"id": "a", "text": "x"}, {"id": "a", "text": "y"}])


def test_row_reader_required_fields(tmp_path):
    from debiasrag.corpus import Field

    path = corpus(tmp_path, b'{"q": "a", "n": 1}\n{"q": 2}\n{"n": true}\n{"q": " "}\n')
    rules = [Field("q", nonempty=True), Field("n", (int,), required=False)]
    report = JsonlReport()
    assert [row for _, row in iter_rows(path, rules, on_error="skip", report=report)] == [{"q": "a", "n": 1}]
    assert report.skipped == [(2, "'q' must be a string"), (3, "row has no 'q'"), (4, "'q' is empty")]
    with pytest.raises(InputError, match="^line 2: 'q' must be a string$"):
        list(iter_rows(path, rules))


# -- strict JSON --------------------------------------------------------------------------------------
def _strict(text: str):
    def refuse(name):
        raise AssertionError(f"non-strict JSON constant {name}")

    return json.loads(text, parse_constant=refuse)


def test_dumps_strict_writes_only_strict_json():
    data = {"nan": math.nan, "inf": [math.inf, -math.inf], "ok": 1.5, "big": 10**30, "s": "\ud800", "é": "ü"}
    text = dumps_strict(data)
    assert _strict(text) == {"nan": None, "inf": [None, None], "ok": 1.5, "big": 10**30, "s": "\ud800", "é": "ü"}
    text.encode("utf-8")  # lone surrogate written as an escape
    assert "ü" in dumps_strict({"a": "ü"})  # no needless escaping
    assert dumps_strict({"a": "ü"}, ascii_only=True) == '{"a": "\\u00fc"}'


@pytest.mark.parametrize("value", [{1, 2}, object(), b"bytes"], ids=["set", "object", "bytes"])
def test_dumps_strict_refuses_what_json_cannot_hold(value):
    with pytest.raises(InputError, match="cannot write as JSON"):
        dumps_strict({"v": value})


def test_dumps_strict_deep_nesting_is_an_input_error():
    deep: list = []
    for _ in range(100_000):
        deep = [deep]
    with pytest.raises(InputError, match="nested too deeply"):
        dumps_strict(deep)


@pytest.mark.parametrize(
    "text, fragment",
    [("NaN", "NaN"), ("[Infinity]", "Infinity"), ("1e999", "1e999"), ("{", "not valid JSON"), (b"\xff", "UTF-8")],
)
def test_loads_strict_refusals(text, fragment):
    with pytest.raises(InputError, match=fragment):
        loads_strict(text)


def test_a_json_file_of_many_lines_says_where_it_is_broken():
    """A hand-written concept file lost its position: "not valid JSON (Expecting value)" left the user hunting for
    a trailing comma (a new user's walkthrough, session 46). A one-line text (a JSON Lines row) keeps the short
    message: its reader names the line."""
    with pytest.raises(InputError, match=r"^not valid JSON at line 3, column 11 \(Expecting value\)$"):
        loads_strict('{\n  "pairs": [\n    ["a", ],\n  ]\n}')
    with pytest.raises(InputError, match=r"^not valid JSON \(Expecting value\)$"):
        loads_strict('{"pairs": [["a", ]]}\n')


def test_loads_strict_accepts_bom_and_big_ints():
    assert loads_strict("\ufeff[1]") == [1]
    assert loads_strict(str(10**100)) == 10**100


# -- terminal-safe text -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "raw, shown",
    [
        ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
        ("bell\x07", "bell\\x07"),
        ("a\nb\rc\td", "a\\nb\\rc\\td"),
        ("\u202eevil", "\\u202eevil"),
        ("\ud800", "\\ud800"),
        ("\x9b31m", "\\x9b31m"),
        ("[bold]x[/]", "[bold]x[/]"),  # markup is not a terminal hazard; the CLI prints it as plain text
        ("Zoë 東京", "Zoë 東京"),
    ],
)
def test_printable(raw, shown):
    assert printable(raw) == shown


def test_printable_multi_line_keeps_newlines_only():
    assert printable("a\nb\x1b", one_line=False) == "a\nb\\x1b"


# -- errors and hints ---------------------------------------------------------------------------------
def test_hints_name_library_parameters():
    error = InputError("line 3: not valid JSON", hint="to skip bad lines", option="on_error", value="skip")
    assert str(error) == "line 3: not valid JSON (pass on_error='skip' to skip bad lines)"
    assert error.hint_text("--on-error skip") == "use --on-error skip to skip bad lines"
    assert str(InputError("plain")) == "plain"
    assert str(InputError("x", hint="create it first")) == "x (create it first)"
    assert isinstance(error, ValueError) and isinstance(error, DebiasragError)
    assert issubclass(OutputError, DebiasragError)


def test_cli_turns_hints_into_flags():
    from debiasrag.cli import build_parser, error_line

    commands = build_parser().commands  # type: ignore[attr-defined]
    error = InputError("line 3: bad", hint="to skip bad lines", option="on_error", value="skip")
    assert (
        error_line(error, commands["index"]) == "debiasrag: error: line 3: bad (use --on-error skip to skip bad lines)"
    )
    assert error_line(error, commands["query"]) == "debiasrag: error: line 3: bad"  # query has no such flag
    model = IndexLoadError("built with model a/b", hint="to use it", option="model", value="a b")
    assert (
        error_line(model, commands["query"]) == "debiasrag: error: built with model a/b (use --model 'a b' to use it)"
    )
    assert error_line(InputError("x\n\x1b[2J")) == "debiasrag: error: x\\n\\x1b[2J"


# -- atomic writes ------------------------------------------------------------------------------------
def test_atomic_write_keeps_old_file_when_rows_fail(tmp_path):
    target = tmp_path / "out.jsonl"
    target.write_text("old\n")

    def rows():
        yield {"ok": 1}
        raise InputError("line 2: boom")

    with pytest.raises(InputError, match="boom"):
        write_jsonl_atomic(rows(), target)
    assert target.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]


def test_atomic_write_unserialisable_row_keeps_old_file(tmp_path):
    target = tmp_path / "out.jsonl"
    target.write_text("old\n")
    with pytest.raises(InputError, match="cannot write as JSON"):
        write_jsonl_atomic([{"a": 1}, {"b": {1, 2}}], target)
    assert target.read_text() == "old\n" and sorted(p.name for p in tmp_path.iterdir()) == ["out.jsonl"]


def test_atomic_write_paths(tmp_path):
    with pytest.raises(InputError, match="output folder does not exist"):
        atomic_write(tmp_path / "missing" / "out.txt", "x")
    with pytest.raises(InputError, match="output path is a folder"):
        atomic_write(tmp_path, "x")
    assert not (tmp_path / "missing").exists()


def test_atomic_write_permissions(tmp_path):
    existing = tmp_path / "kept.txt"
    existing.write_text("old")
    existing.chmod(0o640)
    atomic_write_json(existing, {"a": 1})
    assert stat.S_IMODE(existing.stat().st_mode) == 0o640 and _strict(existing.read_text()) == {"a": 1}
    umask = os.umask(0o022)
    os.umask(umask)
    fresh = atomic_write(tmp_path / "new.txt", b"bytes")
    assert stat.S_IMODE(fresh.stat().st_mode) == 0o666 & ~umask  # not mkstemp's 0600


def test_atomic_write_through_a_symlink_keeps_the_link(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    atomic_write(link, "new")
    assert link.is_symlink() and real.read_text() == "new"


def test_atomic_write_file_too_big_keeps_old_file(tmp_path):
    """A real EFBIG from RLIMIT_FSIZE part-way through: OutputError, old file intact, no temp file left."""
    target = tmp_path / "out.txt"
    target.write_text("old contents\n")
    script = textwrap.dedent(
        f"""
        import resource, signal, sys
        from debiasrag.fileio import atomic_write
        from debiasrag.errors import OutputError
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))
        try:
            atomic_write({str(target)!r}, ("x" * 10_000 for _ in range(100)))
        except OutputError as exc:
            print(exc)
            sys.exit(3)
        """
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 3, proc.stderr
    assert "cannot write" in proc.stdout and "unchanged" in proc.stdout
    assert target.read_text() == "old contents\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.txt"]


def test_refuse_same_file(tmp_path):
    source = corpus(tmp_path, b'{"id": 1, "text": "a"}\n')
    with pytest.raises(InputError, match="the output file is the input file"):
        refuse_same_file(source, source)
    (tmp_path / "hard.jsonl").hardlink_to(source)
    with pytest.raises(InputError, match="the output file is the input file"):
        refuse_same_file(source, tmp_path / "hard.jsonl")
    with pytest.raises(InputError):
        refuse_same_file(source, tmp_path / "." / "c.jsonl")
    refuse_same_file(source, tmp_path / "other.jsonl")  # a new path is fine
    refuse_same_file("-", "-")


def test_read_text(tmp_path):
    (tmp_path / "bad.txt").write_bytes(b"fine\nline two \xff\n")
    with pytest.raises(InputError, match="line 2: not valid UTF-8"):
        read_text(tmp_path / "bad.txt")
    with pytest.raises(InputError, match="not a file"):
        read_text(tmp_path)
    (tmp_path / "bom.txt").write_bytes(b"\xef\xbb\xbfhello")
    assert read_text(tmp_path / "bom.txt") == "hello"


# -- concept files ------------------------------------------------------------------------------------
GOOD_CONCEPT = {
    "name": "religion",
    "groups": ["christian", "muslim"],
    "variants": {"christian": "This person is Christian.", "muslim": "This person is Muslim."},
    "debiasing": "This person's religion is unknown.",
}


def concept_file(tmp_path: Path, **changes) -> Path:
    data = {**GOOD_CONCEPT, **changes}
    for key in [k for k, v in changes.items() if v is _DROP]:
        del data[key]
    path = tmp_path / "concept.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


_DROP = object()


def test_full_custom_concept_loads(tmp_path):
    path = concept_file(
        tmp_path,
        description="d",
        pairs=[["church", "mosque"]],
        templates={"neutral": "A person who is {attribute}."},
        attributes={"pious": 0.5, "kind": -1},
        attribute_kind="trait",
        weat={"T1": ["church"], "T2": ["mosque"]},
        format=1,
    )
    concept = load_concept(path)
    assert concept.pairs == (("church", "mosque"),) and concept.attributes == {"pious": 0.5, "kind": -1.0}


@pytest.mark.parametrize(
    "changes, fragment",
    [
        ({"name": 5}, "'name' must be a non-empty string"),
        ({"name": ""}, "'name' must be a non-empty string"),
        ({"format": 2}, "'format' must be 1"),
        ({"format": True}, "'format' must be 1"),
        ({"groups": "a,b"}, "'groups' must be a list of two"),
        ({"groups": ["a", 2]}, "'groups' must be a list of two"),
        ({"groups": ["a", "a"]}, "the two groups must differ"),
        ({"groups": ["christian ", " christian"]}, "must not begin or end with blanks"),
        ({"groups": ["\uff43hristian", "christian"]}, "the two groups must differ"),
        ({"label_aliases": {"muslim": "christian"}}, "'muslim' names the group 'muslim' itself"),
        ({"label_aliases": {"m": "christian"}}, "'m' names the group 'muslim' itself"),
        ({"label_aliases": {" Muslim ": "christian"}}, "names the group 'muslim' itself"),
        ({"label_aliases": {"Moslem ": "muslim", "moslem": "christian"}}, "spells 'moslem' twice"),
        ({"variants": ["x"]}, "'variants' needs a non-empty sentence"),
        ({"variants": {"christian": "x", "muslim": 3}}, "'variants' needs a non-empty sentence"),
        ({"variants": {**GOOD_CONCEPT["variants"], "jewish": "x"}}, "unknown group"),
        ({"debiasing": ["x"]}, "'debiasing' must be a non-empty sentence"),
        ({"description": 5}, "'description' must be a string"),
        ({"description": None}, "'description' must be a string"),
        ({"attribute_kind": ["x"]}, "'attribute_kind' must be a string"),
        ({"pairs": "church,mosque"}, "'pairs' must be a list"),
        ({"pairs": [["church"]]}, "'pairs' must be a list"),
        ({"pairs": [["church", 1]]}, "'pairs' must be a list"),
        ({"pairs": {"a": "b"}}, "'pairs' must be a list"),
        ({"templates": ["x"]}, "'templates' must map"),
        ({"templates": {"neutral": 1}}, "'templates' must map"),
        ({"templates": {"neutral": "has {other}"}}, "only the placeholder {attribute}"),
        ({"templates": {"neutral": "unbalanced {"}}, "only the placeholder {attribute}"),
        ({"templates": {"neutral": "{0}"}}, "only the placeholder {attribute}"),
        ({"attributes": ["pious"]}, "'attributes' must map"),
        ({"attributes": {"pious": "high"}}, "'attributes' must map"),
        ({"attributes": {"pious": True}}, "'attributes' must map"),
        ({"attributes": {"pious": None}}, "'attributes' must map"),
        ({"weat": ["T1"]}, "'weat' must map"),
        ({"weat": {"T1": "church"}}, "'weat' must map"),
        ({"weat": {"T1": ["church", 2]}}, "'weat' must map"),
        ({"colour": "blue"}, "unknown field(s) 'colour'"),
        ({"debiasing": _DROP}, "missing field(s) debiasing"),
    ],
)
def test_concept_fields_of_the_wrong_type(tmp_path, changes, fragment):
    path = concept_file(tmp_path, **changes)
    with pytest.raises(InputError) as info:
        load_concept(path)
    assert fragment in str(info.value) and str(path) in str(info.value), str(info.value)


@pytest.mark.parametrize(
    "data, fragment",
    [
        (b'{"name": "x", \xff}', "not valid UTF-8"),
        (b"[" * 100_000, "nested too deeply"),
        (b'{"name": NaN}', "NaN is not valid JSON"),
        (b"[1, 2]", "must hold a JSON object"),
        (b"", "not valid JSON"),
    ],
)
def test_unreadable_concept_files(tmp_path, data, fragment):
    path = tmp_path / "bad.json"
    path.write_bytes(data)
    with pytest.raises(InputError, match=fragment):
        load_concept(path)


def test_concept_attribute_nan_is_refused_at_read(tmp_path):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({**GOOD_CONCEPT, "attributes": {"pious": math.nan}}))  # json.dumps writes NaN
    with pytest.raises(InputError, match="NaN is not valid JSON"):
        load_concept(path)


def test_concept_path_that_is_a_folder(tmp_path):
    (tmp_path / "folder.json").mkdir()
    with pytest.raises(InputError, match="concept file is not a file"):
        load_concept(tmp_path / "folder.json")


def test_concept_file_with_bom(tmp_path):
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(GOOD_CONCEPT).encode())
    assert load_concept(path).name == "religion"


def test_every_error_is_ours():
    for error in OUR_ERRORS:
        assert issubclass(error, DebiasragError)


def test_skipped_lines_are_logged(tmp_path, caplog):
    path = corpus(tmp_path, b'{"id": 1, "text": "a"}\n{"id": 2, "text": NaN}\n')
    with caplog.at_level("INFO", logger="debiasrag.corpus"):
        read_documents(path, on_error="skip")
    assert any("skipped line 2" in r.getMessage() and r.name == "debiasrag.corpus" for r in caplog.records)


def test_anonymizer_input_types_and_lone_surrogates():
    from debiasrag.anonymize import get_anonymizer

    with pytest.raises(InputError, match="entities must be a comma-separated string or a list"):
        get_anonymizer("ner", entities=5)  # type: ignore[arg-type]
    result = get_anonymizer("ner").anonymize("Alice \ud800 met Bob at the market.")
    assert "Alice" not in result.text and "Bob" not in result.text and "\ud800" in result.text
    assert [e.text for e in result.entities][:1] == ["Alice"]
