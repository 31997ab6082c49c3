"""``debiasrag anonymize`` end to end (real spaCy; the llm path against a fake Messages API)."""

from __future__ import annotations

import io
import json
import os
import sys

import pytest

from debiasrag.cli import main

ROWS = [
    {"id": 1, "text": "Alejandro quickly ran to the store in Madrid.", "source": "a"},
    {"id": 2, "text": "", "source": "b"},
    {"id": "x", "text": "Kwame called Ama. Ama answered Kwame.", "tags": ["t"]},
    {"id": 4, "text": "Nothing to hide here.", "source": "d"},
]


def write_rows(path, rows, extra_lines=()):
    lines = [json.dumps(r, ensure_ascii=False).encode() for r in rows]
    lines[2:2] = list(extra_lines)
    path.write_bytes(b"\n".join(lines) + b"\n")


def read_rows(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_remove_keeps_fields_count_order_and_original_offsets(tmp_path, capsys):
    src, dst = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_rows(src, ROWS)
    assert main(["anonymize", str(src), str(dst)]) == 0
    out = read_rows(dst)
    assert [r["id"] for r in out] == [1, 2, "x", 4]
    assert out[0]["source"] == "a" and out[2]["tags"] == ["t"]
    assert [r["text"] for r in out] == ["quickly ran to the store.", "", "called. answered.", ROWS[3]["text"]]
    for original, row in zip(ROWS, out):
        assert all(original["text"][e["start"] : e["end"]] == e["text"] for e in row["entities"])
    assert [e["label"] for e in out[0]["entities"]] == ["PERSON", "GPE"]
    assert "anonymized 4 rows" in capsys.readouterr().err


def test_replace_with_corpus_ids_and_mapping_file(tmp_path):
    src, dst, mapping = tmp_path / "in.jsonl", tmp_path / "out.jsonl", tmp_path / "map.json"
    write_rows(src, [{"id": 1, "text": "Kwame met Ama."}, {"id": 2, "text": "Ama met Kofi."}])
    code = main(
        [
            "anonymize",
            str(src),
            str(dst),
            "--strategy",
            "replace",
            "--corpus-ids",
            "--mapping-out",
            str(mapping),
            "--entities",
            "person",
        ]
    )
    assert code == 0
    out = read_rows(dst)
    assert [r["text"] for r in out] == ["PERSON_1 met PERSON_2.", "PERSON_2 met PERSON_3."]
    assert out[1]["mapping"] == {"PERSON_2": "Ama", "PERSON_3": "Kofi"}
    assert json.loads(mapping.read_text()) == {"PERSON_1": "Kwame", "PERSON_2": "Ama", "PERSON_3": "Kofi"}


def test_corpus_ids_never_give_a_name_an_id_another_row_holds_as_text(tmp_path, capsys, monkeypatch):
    """Row a's literal PERSON_1 was given to Maria Lopez in row b: reversing row a with the corpus mapping wrote
    her name into a row that never held it (red-team round 6). From a file the rows are read for such ids first;
    from standard input, a later row's literal is reported."""
    src, dst, mapping = tmp_path / "in.jsonl", tmp_path / "out.jsonl", tmp_path / "map.json"
    rows = [
        {"id": "a", "text": "Ticket PERSON_1 was closed by the bot."},
        {"id": "b", "text": "Maria Lopez reopened it."},
    ]
    write_rows(src, [*rows, {"id": "c", "text": "Omar Haddad read PERSON_2 aloud."}])
    argv = ["anonymize", str(src), str(dst), "--strategy", "replace", "--entities", "person"]
    assert main([*argv, "--mapping-out", str(mapping)]) == 0
    out = read_rows(dst)
    assert out[0]["text"] == "Ticket PERSON_1 was closed by the bot."
    assert out[1]["text"] == "PERSON_3 reopened it." and out[2]["text"] == "PERSON_4 read PERSON_2 aloud."
    assert json.loads(mapping.read_text()) == {"PERSON_3": "Maria Lopez", "PERSON_4": "Omar Haddad"}
    capsys.readouterr()
    write_rows(src, [rows[1], {"id": "c", "text": "Omar Haddad read PERSON_1 aloud."}])
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(src.read_bytes()), encoding="utf-8"))
    assert main(["anonymize", "-", str(dst), "--strategy", "replace", "--entities", "person", "--corpus-ids"]) == 0
    assert "some rows hold PERSON_1 as literal text, an id the mapping had already given to a name" in " ".join(
        capsys.readouterr().err.split()
    )


def test_corpus_ids_link_a_surname_alone_to_a_full_name_of_the_same_row_only(tmp_path):
    """'Mr. Smith' of one row became 'Anna Smith' of another (reversed: 'Mr. Anna Smith'; red-team round 6)."""
    src, dst = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_rows(
        src,
        [
            {"id": 1, "text": "Anna Smith chaired the meeting. Later Smith left."},
            {"id": 2, "text": "Mr. Smith repaired the printer."},
            {"id": 3, "text": "Anna Smith thanked him, and Smith smiled."},
        ],
    )
    assert main(["anonymize", str(src), str(dst), "--strategy", "replace", "--corpus-ids", "--entities", "person"]) == 0
    out = read_rows(dst)
    assert out[0]["text"] == "PERSON_1 chaired the meeting. Later PERSON_1 left."
    assert out[1]["text"] == "Mr. PERSON_2 repaired the printer." and out[1]["mapping"] == {"PERSON_2": "Smith"}
    assert out[2]["text"] == "PERSON_1 thanked him, and PERSON_1 smiled."


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (a device whose writes fail)")
def test_a_mapping_that_cannot_be_written_leaves_the_old_output(tmp_path, capsys):
    # the output was replaced first, then the mapping failed: exit 2 with a new output and no mapping for it
    src, dst, mapping = tmp_path / "in.jsonl", tmp_path / "out.jsonl", tmp_path / "map.json"
    write_rows(src, [{"id": 1, "text": "Kwame met Ama."}])
    argv = ["anonymize", str(src), str(dst), "--strategy", "replace", "--entities", "person", "--mapping-out"]
    assert main([*argv, str(mapping)]) == 0
    before = dst.read_bytes(), mapping.read_bytes()
    write_rows(src, [{"id": 1, "text": "Kofi met Zainab."}])
    assert main([*argv, "/dev/full"]) == 2
    assert "cannot write /dev/full" in capsys.readouterr().err
    assert (dst.read_bytes(), mapping.read_bytes()) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "map.json", "out.jsonl"]  # no temp left


def test_stdin_to_stdout(monkeypatch, capsys):
    data = "\n".join(json.dumps(r) for r in ROWS[:1]) + "\n"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data.encode())))
    assert main(["anonymize", "-", "-", "--entities", "person"]) == 0
    out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert out[0]["text"] == "quickly ran to the store in Madrid."


def test_lower_case_names_can_be_turned_off(tmp_path):
    src, on, off = tmp_path / "in.jsonl", tmp_path / "on.jsonl", tmp_path / "off.jsonl"
    src.write_text(json.dumps({"id": 1, "text": "jenkins agent is down again, ask sandeep"}) + "\n", encoding="utf-8")
    assert main(["anonymize", str(src), str(on)]) == 0
    assert main(["anonymize", str(src), str(off), "--no-lower-case-names"]) == 0
    assert json.loads(on.read_text(encoding="utf-8"))["text"] == "agent is down again, ask"
    assert json.loads(off.read_text(encoding="utf-8"))["text"] == "jenkins agent is down again, ask sandeep"


def test_bad_lines_stop_with_line_number_and_leave_old_output(tmp_path, capsys):
    src, dst = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_rows(src, ROWS, extra_lines=[b"\xff\xfe not utf-8", b"{not json"])
    dst.write_text("OLD\n")
    assert main(["anonymize", str(src), str(dst)]) == 2
    err = capsys.readouterr().err
    assert "debiasrag: error: line 3: not valid UTF-8" in err and "Traceback" not in err
    assert dst.read_text() == "OLD\n"
    assert not list(tmp_path.glob(".out.jsonl.*"))


def test_bad_lines_skipped_and_reported(tmp_path, capsys):
    src, dst = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_rows(src, ROWS, extra_lines=[b"\xff\xfe not utf-8", b"{not json", b'{"id": 9}'])
    assert main(["anonymize", str(src), str(dst), "--on-error", "skip"]) == 0
    assert [r["id"] for r in read_rows(dst)] == [1, 2, "x", 4]
    err = " ".join(capsys.readouterr().err.split())  # rich wraps long lines
    assert "skipped 3 bad line(s): line 3: not valid UTF-8; line 4: not valid JSON" in err
    assert "line 5: row has no 'text' field" in err


def test_usage_errors_are_one_line(tmp_path, capsys):
    src = tmp_path / "in.jsonl"
    write_rows(src, ROWS)
    assert main(["anonymize", str(src), str(tmp_path / "o.jsonl"), "--entities", "planets"]) == 2
    assert "unknown entity type 'planets'" in capsys.readouterr().err
    assert main(["anonymize", str(tmp_path / "missing.jsonl"), str(tmp_path / "o.jsonl")]) == 2
    assert "input file not found" in capsys.readouterr().err
    assert main(["anonymize", str(src), str(tmp_path / "o.jsonl"), "--corpus-ids"]) == 2
    assert "--strategy replace" in capsys.readouterr().err


def test_llm_without_key_names_the_variable(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    src = tmp_path / "in.jsonl"
    write_rows(src, ROWS)
    assert main(["anonymize", str(src), str(tmp_path / "o.jsonl"), "--method", "llm"]) == 2
    assert "ANTHROPIC_API_KEY" in capsys.readouterr().err


@pytest.mark.parametrize("failing", [False, True])
def test_llm_method_through_a_fake_api(tmp_path, monkeypatch, capsys, failing):
    try:  # `python -m pytest` puts the checkout on sys.path; plain `pytest` puts tests/ there
        from tests.test_llm_anonymizer import FakeMessagesAPI, error, message
    except ImportError:
        from test_llm_anonymizer import FakeMessagesAPI, error, message

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    src, dst = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_rows(src, ROWS)

    def respond(doc, attempt):
        if failing:
            return error(500, "api_error")
        return message(doc.replace("Alejandro", "").replace("Madrid", "").replace("Kwame", "").replace("Ama", ""))

    with FakeMessagesAPI(respond) as server:
        code = main(
            [
                "anonymize",
                str(src),
                str(dst),
                "--method",
                "llm",
                "--base-url",
                server.url,
                "--cache-dir",
                str(tmp_path / "cache"),
                "--llm-model",
                "claude-test",
            ]
        )
    assert code == 0
    out = read_rows(dst)
    assert [r["text"] for r in out] == ["quickly ran to the store.", "", "called. answered.", ROWS[3]["text"]]
    if failing:
        assert [("anonymize_fallback" in r) for r in out] == [True, False, True, True]
        assert "fell back to NER" in " ".join(capsys.readouterr().err.split())
    else:
        assert all("anonymize_fallback" not in r for r in out)


@pytest.mark.parametrize(
    "flags",
    [["--llm-model", "claude-x"], ["--base-url", "http://127.0.0.1:9"], ["--concurrency", "8"],
     ["--cache-dir", "c"], ["--timeout", "5"]],
)  # fmt: skip
def test_llm_options_with_method_ner_are_refused(tmp_path, capsys, flags):
    # accepted and ignored: a NER run that looked like an LLM run
    src, dst = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    write_rows(src, ROWS)
    assert main(["anonymize", str(src), str(dst), *flags]) == 2
    assert f"{flags[0]} applies to --method llm only" in capsys.readouterr().err
    assert not dst.exists()


def test_a_users_own_entities_field_is_never_overwritten(tmp_path, capsys):
    src, dst = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    rows = [dict(ROWS[0]), {"id": 5, "text": "Alice came.", "entities": ["my", "own", "labels"]}]
    write_rows(src, rows)
    dst.write_text("old\n", encoding="utf-8")
    for on_error in ("stop", "skip"):
        assert main(["anonymize", str(src), str(dst), "--on-error", on_error]) == 2
        err = capsys.readouterr().err.strip()
        assert err.count("\n") == 0 and "line 2" in err and "'entities'" in err
        assert "--entities-field anonymized_entities" in err
        assert dst.read_text(encoding="utf-8") == "old\n"  # the failed run left the old output
    # With another output field both are kept.
    assert main(["anonymize", str(src), str(dst), "--entities-field", "found"]) == 0
    out = read_rows(dst)
    assert out[1]["entities"] == ["my", "own", "labels"] and [e["text"] for e in out[1]["found"]] == ["Alice"]
    assert main(["anonymize", str(src), str(dst), "--entities-field", "text"]) == 2
    assert "collides" in capsys.readouterr().err


@pytest.mark.parametrize("content, skip", [("", False), ("\n\n", False), ('{"id": 1}\n', True)])
def test_an_input_with_no_rows_is_refused_and_the_old_output_kept(tmp_path, capsys, content, skip):
    src, dst = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    src.write_text(content, encoding="utf-8")
    dst.write_text('{"id": "mine"}\n', encoding="utf-8")
    assert main(["anonymize", str(src), str(dst), *(["--on-error", "skip"] if skip else [])]) == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error.startswith(f"debiasrag: error: {src} holds no rows to anonymize")
    assert ("1 bad line(s) skipped" in error) == skip
    assert dst.read_text(encoding="utf-8") == '{"id": "mine"}\n'


def test_nothing_but_the_two_renames_lies_between_mapping_and_output(tmp_path, monkeypatch):
    # the mapping's folder fsync (4-8 ms) sat between the mapping's rename and the output's: a kill there left the
    # new mapping beside the old output (red-team round 5); now the two renames follow each other
    import debiasrag.fileio as fileio

    src, dst, mapping = tmp_path / "in.jsonl", tmp_path / "out.jsonl", tmp_path / "map.json"
    write_rows(src, [{"id": 1, "text": "Kwame met Ama."}])
    steps: list[str] = []
    real_replace, real_fsync = os.replace, fileio.fsync_folder
    monkeypatch.setattr(
        fileio.os, "replace", lambda a, b: (steps.append(f"replace {os.path.basename(b)}"), real_replace(a, b))[1]
    )
    monkeypatch.setattr(fileio, "fsync_folder", lambda folder: (steps.append("fsync"), real_fsync(folder))[1])
    argv = ["anonymize", str(src), str(dst), "--strategy", "replace", "--mapping-out", str(mapping)]
    assert main(argv) == 0
    at = steps.index("replace map.json")
    assert steps[at + 1] == "replace out.jsonl", steps
    assert json.loads(mapping.read_text()) == read_rows(dst)[0]["mapping"]
