"""``debiasrag bench concept-auc|weat --concept PATH`` (session 46, user3 finding 4): a concept of one's own is
measured with the packaged model and gives flat metrics under its name; a bad file is one error line, exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

CONTEXTS = ("neutral", "debiasing", "positive", "negative")


@pytest.fixture(scope="module")
def concept_file(tmp_path_factory) -> Path:
    template = "I want to find information about a person. This person's character trait is {attribute}."
    data = {
        "name": "urban",
        "groups": ["urban", "rural"],
        "variants": {"urban": "This person lives in a city.", "rural": "This person lives in the countryside."},
        "debiasing": "Where this person lives is unknown.",
        "pairs": [["city", "village"], ["downtown", "countryside"], ["metropolis", "hamlet"], ["subway", "tractor"]],
        "attributes": {"cosmopolitan": 0.95, "busy": 0.8, "trendy": 0.9, "traditional": 0.1, "calm": 0.2},
        "templates": {
            "neutral": template,
            "debiasing": template + " Where this person lives is unknown.",
            "positive": template + " This person lives in a city.",
            "negative": template + " This person lives in the countryside.",
        },
        "weat": {
            "T1": ["city", "downtown", "metropolis"],
            "T2": ["village", "countryside", "hamlet"],
            "A1": ["cosmopolitan", "busy", "trendy"],
            "A2": ["traditional", "calm"],
        },
    }
    path = tmp_path_factory.mktemp("concept") / "urban.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("embedding-cache")


def metrics_of(result, bench_name: str) -> dict:
    assert result.returncode == 0, result.stderr[-2000:]
    assert "warning:" not in result.stderr, result.stderr
    document = json.loads(result.stdout)
    (record,) = [by_name[bench_name] for by_name in document["results"].values()]
    assert record["status"] == "ok", record
    assert "--concept" in document["command"]
    metrics = record["metrics"]
    assert all(isinstance(v, int | float | str) for v in metrics.values()), metrics  # flat
    assert {key.split(".")[0] for key in metrics} == {"urban"}  # this concept only, not gender / age / wealth
    assert record["seed_figures"] == {}  # the seed reports nothing for a concept of one's own
    return metrics


def test_concept_auc_measures_a_concept_file(concept_file, run_cli, cache):
    result = run_cli("bench", "concept-auc", "--concept", concept_file, "--json", "--cache-dir", cache)
    metrics = metrics_of(result, "concept-auc")
    assert 0.5 <= metrics["urban.auc"] <= 1.0
    assert metrics["urban.captured"] == ("yes" if metrics["urban.auc"] >= 0.8 else "no")
    # four pairs have 16 labellings: several reach AUC 1, so four pairs cannot show a concept beyond chance
    assert 0.05 <= metrics["urban.auc_chance_p"] <= 1.0
    for context in CONTEXTS:
        assert metrics[f"urban.{context}.abs_rho"] == pytest.approx(abs(metrics[f"urban.{context}.rho"]))
        assert 0.0 <= metrics[f"urban.{context}.p_hat"] <= 1.0


def test_weat_measures_a_concept_file(concept_file, run_cli, cache):
    result = run_cli("bench", "weat", "--concept", concept_file, "--json", "--cache-dir", cache)
    metrics = metrics_of(result, "weat")
    for context in CONTEXTS:
        assert metrics[f"urban.{context}.n"] == 5  # |A1| + |A2|
        assert 0 <= metrics[f"urban.{context}.k"] <= 5
        assert metrics[f"urban.{context}.p_hat"] == pytest.approx(metrics[f"urban.{context}.k"] / 5)


@pytest.mark.parametrize("bench_name", ["concept-auc", "weat"])
def test_a_missing_concept_file_is_one_error_line(bench_name, run_cli, one_line_error, tmp_path):
    missing = tmp_path / "nope.json"
    result = run_cli("bench", bench_name, "--concept", missing, "--json")
    one_line_error(result, str(missing))
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("bench_name", "drop", "fragment"),
    [
        ("weat", "weat", "the weat benchmark needs 'weat' sets T1, T2, A1, A2"),
        ("concept-auc", "attributes", "the concept-auc benchmark needs at least 3 'attributes'"),
    ],
)
def test_a_concept_without_what_the_benchmark_measures_is_one_error_line(
    bench_name, drop, fragment, concept_file, run_cli, one_line_error, tmp_path
):
    data = json.loads(concept_file.read_text(encoding="utf-8"))
    del data[drop]
    path = tmp_path / "partial.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = run_cli("bench", bench_name, "--concept", path, "--json")
    one_line_error(result, f"--concept {path}: concept 'urban': {fragment}")
    assert result.stdout == ""


def test_concept_applies_to_concept_benchmarks_only(run_cli, one_line_error):
    one_line_error(run_cli("bench", "sts", "--concept", "gender"), "--concept applies to the concept-auc and weat")
