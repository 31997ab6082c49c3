"""What `bench retrieval` says about a user's set whose shape changes what its numbers mean (red team, session 41):
a query with no relevant document of one group, equal texts under different labels, documents the model cuts."""

from __future__ import annotations

import json
import math

import pytest
from test_bench_retrieval import TINY_QUERIES, tiny_rows, write_jsonl

from debiasrag.bench import retrieval as bench
from debiasrag.bench.cache import CachedEmbedder
from debiasrag.cli import main
from debiasrag.datasets import load_labelled_set
from debiasrag.embedders import DEFAULT_MODEL
from debiasrag.markdown import fmt
from debiasrag.metrics.fairness import group_exposure, mean_report, query_report


def test_a_group_with_no_pool_document_has_no_exposure_not_zero():
    # a at rank 1 → 1; no male document in the pool: male exposure and the disparity are undefined, not 0 and 1
    exposure = group_exposure(["a", "x"], {"a": "female", "n": "neutral"})
    assert exposure["exposure_female"] == pytest.approx(1.0) and exposure["exposure_neutral"] == 0.0
    assert math.isnan(exposure["exposure_male"]) and math.isnan(exposure["exposure_disparity"])
    assert math.isnan(exposure["abs_exposure_disparity"])


def test_mean_report_averages_each_metric_over_the_queries_where_it_is_defined():
    groups = {"f1": "female", "m1": "male", "f2": "female"}
    both = query_report(["m1", "f1"], groups, {"f1", "m1"}, cutoff=2)  # F at rank 2 (1/log2 3), M at rank 1
    female_only = query_report(["f2"], groups, {"f2"}, cutoff=2)
    mean = mean_report([both, female_only])
    assert mean["exposure_disparity"] == pytest.approx(both["exposure_disparity"])  # the one query with both
    assert mean["exposure_female"] == pytest.approx((1 / math.log2(3) + 1.0) / 2)
    assert mean["exposure_male"] == pytest.approx(1.0)
    assert mean["recall"] == pytest.approx(1.0)
    assert math.isnan(mean_report([female_only])["exposure_disparity"])  # defined nowhere: stays undefined
    assert fmt(float("nan")) == "n/a"


def test_a_set_whose_queries_each_have_one_relevant_group_reports_no_disparity(tmp_path, capsys):
    # only the female wording is marked relevant: the old 0 for the male side showed exp. F−M 0.57 for every strategy
    rows = [{**row, "relevant_to": row["relevant_to"] if row["group"] == "female" else []} for row in tiny_rows()]
    write_jsonl(tmp_path, "queries.jsonl", TINY_QUERIES)
    write_jsonl(tmp_path, "documents.jsonl", rows)
    args = ["bench", "retrieval", "--data", str(tmp_path), "--cache-dir", str(tmp_path / "cache"), "--json"]
    assert main(args) == 0
    result = json.loads(capsys.readouterr().out)["results"][DEFAULT_MODEL]["retrieval"]
    metrics = result["metrics"]
    assert metrics["data.topk.k3.exposure_disparity"] is None and metrics["data.oracle.best.exposure_disparity"] is None
    assert metrics["data.topk.k3.exposure_male"] is None and metrics["data.topk.k3.exposure_female"] > 0
    note = "2 of 2 queries have no relevant female or no relevant male document"
    assert any(note in line and "the 0 with both (n/a if none)" in line for line in result["notes"])


def test_shape_notes_name_one_sided_queries_and_equal_texts_of_other_groups(tmp_path):
    rows = tiny_rows()
    write_jsonl(tmp_path, "queries.jsonl", TINY_QUERIES)
    write_jsonl(tmp_path, "documents.jsonl", rows)
    clean = bench.shape_notes(load_labelled_set(tmp_path))
    assert not any("no relevant female" in n or "share their exact text" in n for n in clean)
    rows[0]["relevant_to"] = []  # q1's female wording no longer relevant
    rows[6]["text"] = rows[7]["text"] + "  "  # q2's relevant female text = its male one (spacing aside)
    write_jsonl(tmp_path, "documents.jsonl", rows)
    notes = bench.shape_notes(load_labelled_set(tmp_path))
    assert any("1 of 2 queries have no relevant female or no relevant male document" in n for n in notes)
    assert any("2 documents share their exact text with a document of another group" in n for n in notes)


def test_documents_the_model_cuts_are_noted_on_every_run_also_from_the_cache(embedder, tmp_path):
    rows = tiny_rows()
    rows[0]["text"] = "Filler about nothing in particular. " * 80 + rows[0]["text"]  # ~480 tokens before the fact
    write_jsonl(tmp_path, "queries.jsonl", TINY_QUERIES)
    write_jsonl(tmp_path, "documents.jsonl", rows)
    task = load_labelled_set(tmp_path)
    cached = CachedEmbedder(DEFAULT_MODEL, lambda: embedder, tmp_path / "cache")
    cached.encode_documents([d.text for d in task.documents])  # everything cached: no embedding on the next call
    notes = bench.cut_note(task, CachedEmbedder(DEFAULT_MODEL, lambda: embedder, tmp_path / "cache"))
    assert len(notes) == 1 and "1 of 12 documents are longer than" in notes[0] and "(256 tokens)" in notes[0]
    assert bench.cut_note(load_labelled_set(tmp_path), embedder) == notes
    write_jsonl(tmp_path, "documents.jsonl", tiny_rows())
    assert bench.cut_note(load_labelled_set(tmp_path), embedder) == []
