"""Red-team round 6, the command line as a researcher runs it on their own data and models: a moved model folder, a
bad group label under --on-error skip, an option that takes the next word, an id with a newline, percentile 0."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from debiasrag.cli import main
from debiasrag.embedders import packaged_default_model_path


def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _err(capsys) -> str:
    return " ".join(capsys.readouterr().err.split())


def test_an_index_whose_model_folder_moved_says_so(tmp_path, capsys, monkeypatch):
    """'use --model /tmp/…/mA/m to download it' for a folder; the model at its new path was refused as another."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(packaged_default_model_path(), "mA/m")
    _write(Path("c.jsonl"), [{"id": "a", "text": "She repaired the roof."}])
    assert main(["index", "c.jsonl", "--out", "ix", "--model", "mA/m"]) == 0
    Path("mA").rename("moved")
    capsys.readouterr()
    assert main(["query", "ix", "roof"]) == 2
    err = _err(capsys)
    assert f"embedding model folder {tmp_path / 'mA' / 'm'} (the index's model) is not there any more" in err
    assert "download" not in err
    assert main(["query", "ix", "roof", "--model", "moved/m"]) == 2
    assert "which is not there any more: put the model back at that path" in _err(capsys)


def test_a_bad_group_label_is_a_bad_line_that_on_error_skip_skips(tmp_path, capsys):
    """It stopped the run after reading, whatever --on-error said, and named no line."""
    rows = [{"id": "a", "text": "She repaired the roof."}, {"id": "e", "text": "Nobody.", "debiasrag_group": "bogus"}]
    corpus = _write(tmp_path / "c.jsonl", rows)
    assert main(["index", str(corpus), "--out", str(tmp_path / "ix")]) == 2
    assert "line 2: document 'e': metadata 'debiasrag_group' is 'bogus'" in _err(capsys)
    assert main(["index", str(corpus), "--out", str(tmp_path / "ix"), "--on-error", "skip"]) == 0
    err = _err(capsys)
    assert (
        "skipped 1 bad line(s): line 2: document 'e': metadata 'debiasrag_group' is 'bogus'" in err
        and "indexed 1 documents" in err
    )


def test_an_option_that_took_the_next_word_as_its_value_says_where_to_put_it(tmp_path, capsys):
    corpus = _write(tmp_path / "c.jsonl", [{"id": "a", "text": "She repaired the roof."}])
    with pytest.raises(SystemExit) as stop:  # argparse's own exit
        main(["index", "--neutralize", str(corpus), "--out", str(tmp_path / "ix")])
    assert stop.value.code == 2
    assert f"(to use --neutralize without a value, put it after '{corpus}', or give it one)" in _err(capsys)


def test_an_id_with_a_newline_is_one_table_line(tmp_path, capsys):
    rows = [{"id": "a\nb", "text": "She fixed the roof."}, {"id": "c", "text": "They cleaned the gutters."}]
    assert main(["index", str(_write(tmp_path / "c.jsonl", rows)), "--out", str(tmp_path / "ix")]) == 0
    capsys.readouterr()
    assert main(["query", str(tmp_path / "ix"), "roof repair", "--strategy", "topk", "--k", "1"]) == 0
    out = capsys.readouterr().out
    assert "a\\nb" in out and not any(line.strip("│ ") == "b" for line in out.splitlines())


def test_percentile_zero_says_it_keeps_every_row(tmp_path, capsys):
    rows = [{"id": i, "text": t} for i, t in enumerate(["She is a nurse.", "He is a pilot.", "The sky is blue."])]
    corpus = _write(tmp_path / "c.jsonl", rows)
    assert main(["augment", str(corpus), str(tmp_path / "o.jsonl"), "--bias-percentile", "0"]) == 0
    err = _err(capsys)
    assert "3 selected (--bias-percentile 0 keeps every row)" in err and "above the 0th" not in err


def test_a_row_of_invisible_characters_only_is_a_bad_line(tmp_path, capsys):
    """It passed the reader ("\u200b".strip() is not empty) and the index then stopped the run, whatever --on-error
    said, naming no line (review of round 6)."""
    rows = [
        {"id": 1, "text": "Nurse Sarah works nights."},
        {"id": 2, "text": "\u200b\ufeff"},
        {"id": 3, "text": "He fixes cars."},
    ]
    corpus = _write(tmp_path / "c.jsonl", rows)
    assert main(["index", str(corpus), "--out", str(tmp_path / "ix"), "--on-error", "skip"]) == 0
    assert "skipped 1 bad line(s): line 2: 'text' is empty" in _err(capsys)


def test_bench_name_help_says_what_that_benchmark_measures(capsys):
    """`debiasrag bench retrieval --help` printed the generic bench help alone."""
    with pytest.raises(SystemExit) as stop:
        main(["bench", "retrieval", "--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert "benchmark retrieval:" in out and "ARaB@k" in out and ":func:" not in out and "--unknown-groups" in out
    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    assert "benchmark " not in capsys.readouterr().out.split("options:")[-1]
