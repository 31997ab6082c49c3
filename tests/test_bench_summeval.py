"""summeval benchmark: max-similarity scores and correlations by hand, the MTEB-format loader, the no-data result."""

from __future__ import annotations

import gzip
import json
import math

import numpy as np
import pytest
from scipy.stats import pearsonr, spearmanr

from debiasrag.bench import summeval as se
from debiasrag.bench.base import BenchContext
from debiasrag.errors import InputError

DOCS = [
    {
        "id": "dm-1",
        "text": "Arsenal beat Chelsea 2-1 at the Emirates on Sunday.",
        "machine_summaries": [
            "Arsenal won 2-1 against Chelsea on Sunday.",
            "Chelsea lost a football match.",
            "The weather in London was sunny and warm.",
        ],
        "human_summaries": ["Arsenal defeated Chelsea 2-1 on Sunday.", "Arsenal beat Chelsea at home."],
        "relevance": [4.67, 3.0, 1.33],
    },
    {
        "id": "cnn-2",
        "text": "Maria Lopez was elected mayor of Springfield after a close race.",
        "machine_summaries": [
            "Maria Lopez won the mayoral election in Springfield.",
            "An election took place.",
            "Springfield has a large public library.",
        ],
        "human_summaries": ["Lopez became mayor of Springfield.", "Maria Lopez narrowly won the mayor's race."],
        "relevance": [5.0, 2.33, 1.0],
    },
]


def _write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_max_similarity_by_hand():
    machine = np.array([[1.0, 0.0], [0.0, 3.0], [-1.0, 0.0]])
    human = np.array([[2.0, 0.0], [1.0, 1.0]])
    # row 1: max(1, 1/sqrt2) = 1; row 2: max(0, 1/sqrt2); row 3: max(-1, -1/sqrt2) = -1/sqrt2
    assert se.max_similarity_scores(machine, human) == pytest.approx([1.0, 1 / math.sqrt(2), -1 / math.sqrt(2)])


def test_correlations_by_hand():
    # pooled: predicted 1,2,3,4 vs relevance 1,3,2,4 -> rank differences 0,1,1,0; Spearman = 1 - 6*2/(4*15) = 0.8;
    # the values are their own ranks, so Pearson is 0.8 too. Each document alone is perfectly ordered: mean 1.0.
    scores = se.correlate([np.array([1.0, 2.0]), np.array([3.0, 4.0])], [[1.0, 3.0], [2.0, 4.0]])
    assert scores.spearman == pytest.approx(0.8)
    assert scores.pearson == pytest.approx(0.8)
    assert scores.spearman_per_document == pytest.approx(1.0)
    assert scores.summaries == 4
    with pytest.raises(InputError, match="varying"):
        se.correlate([np.array([1.0, 1.0])], [[1.0, 2.0]])


def test_loader_reads_jsonl_gz_and_json(tmp_path):
    docs = se.load_summeval(_write_jsonl(tmp_path / "summeval.jsonl", DOCS))
    assert [d.id for d in docs] == ["dm-1", "cnn-2"]
    assert docs[0].relevance == (4.67, 3.0, 1.33) and len(docs[1].human_summaries) == 2
    gz = tmp_path / "summeval.jsonl.gz"
    with gzip.open(gz, "wt", encoding="utf-8") as handle:
        handle.write("".join(json.dumps(r) + "\n" for r in DOCS))
    assert se.load_summeval(gz) == docs
    js = tmp_path / "summeval.json"
    js.write_text(json.dumps(DOCS), encoding="utf-8")
    assert se.load_summeval(js) == docs


def test_loader_errors_name_the_line(tmp_path):
    bad = dict(DOCS[1], relevance=[5.0, 2.33])
    path = _write_jsonl(tmp_path / "bad.jsonl", [DOCS[0], bad])
    with pytest.raises(InputError, match=r"bad.jsonl:2: 2 relevance scores for 3 machine summaries"):
        se.load_summeval(path)
    with pytest.raises(InputError, match="'human_summaries' must be a non-empty list"):
        se.load_summeval(_write_jsonl(tmp_path / "b2.jsonl", [dict(DOCS[0], human_summaries=[])]))
    with pytest.raises(InputError, match="SummEval file not found"):
        se.load_summeval(tmp_path / "missing.jsonl")


def test_run_without_data_returns_a_message(monkeypatch, tmp_path):
    monkeypatch.delenv(se.ENV_SUMMEVAL, raising=False)
    result = se.run(BenchContext())
    assert result.metrics == {"status": "skipped: no SummEval data"}
    assert se.ENV_SUMMEVAL in result.notes[0] and "mteb/summeval" in result.notes[0]
    assert result.skipped and se.ENV_SUMMEVAL in result.skipped  # the report's status is 'skipped', not 'ok'
    monkeypatch.setenv(se.ENV_SUMMEVAL, str(tmp_path / "nope.jsonl"))  # set, but mistyped: an error, not a skip
    with pytest.raises(InputError, match=rf"^{se.ENV_SUMMEVAL}=.*nope.jsonl is not a file; point it at"):
        se.run(BenchContext())


def test_cli_reports_summeval_without_data_as_skipped(monkeypatch, tmp_path):
    """`debiasrag bench summeval` without data: results.json and the report's summary say skipped, not ok."""
    from debiasrag.cli import main

    monkeypatch.delenv(se.ENV_SUMMEVAL, raising=False)
    out = tmp_path / "report"
    assert main(["bench", "summeval", "--out", str(out), "--cache-dir", str(tmp_path / "cache")]) == 0
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    (by_name,) = results["results"].values()
    assert by_name["summeval"]["status"] == "skipped"
    assert se.ENV_SUMMEVAL in by_name["summeval"]["skipped"]
    assert "Summary: 0 ok, 1 skipped, 0 failed" in (out / "report.md").read_text(encoding="utf-8")


def test_run_on_fixture_matches_independent_computation(monkeypatch, tmp_path, embedder):
    monkeypatch.setenv(se.ENV_SUMMEVAL, str(_write_jsonl(tmp_path / "summeval.jsonl", DOCS)))
    result = se.run(BenchContext(embedder=embedder))
    predicted, relevance = [], []
    for doc in DOCS:
        m = embedder.encode(doc["machine_summaries"]).astype(np.float64)
        h = embedder.encode(doc["human_summaries"]).astype(np.float64)
        predicted += list((m @ h.T).max(axis=1))
        relevance += doc["relevance"]
    assert result.metrics["original.pearson"] == pytest.approx(pearsonr(predicted, relevance).statistic, abs=1e-5)
    assert result.metrics["original.spearman"] == pytest.approx(spearmanr(predicted, relevance).statistic, abs=1e-5)
    assert result.metrics["documents"] == 2
    assert result.metrics["anonymized.method"] == "ner"
    # the anonymized column is the same computation on the NER-anonymized summaries
    from debiasrag.anonymize import get_anonymizer

    anonymizer = get_anonymizer("ner", strategy="remove")
    anon_predicted = []
    for doc in DOCS:
        texts = [a.text for a in anonymizer.anonymize_batch(doc["machine_summaries"] + doc["human_summaries"])]
        assert not any("Lopez" in t for t in texts)
        v = embedder.encode(texts).astype(np.float64)
        n = len(doc["machine_summaries"])
        anon_predicted += list((v[:n] @ v[n:].T).max(axis=1))
    assert anon_predicted != pytest.approx(predicted)  # anonymization changed the scores
    assert result.metrics["anonymized.pearson"] == pytest.approx(
        pearsonr(anon_predicted, relevance).statistic, abs=1e-5
    )
    assert result.seed_figures == {
        "original.spearman": 0.251,
        "original.pearson": 0.282,
        "anonymized.spearman": 0.33,
        "anonymized.pearson": 0.354,
    }
