"""FaissIndex persistence and load checks; corpus reading; concept files."""

from __future__ import annotations

import datetime
import hashlib
import json
from pathlib import Path

import numpy as np
import pytest

from debiasrag import Document, FaissIndex, IndexLoadError, InputError, load_concept, read_documents
from debiasrag.concepts import Concept
from debiasrag.corpus import JsonlReport, write_jsonl_atomic
from debiasrag.embedders import DEFAULT_MODEL
from debiasrag.storage import data_paths


@pytest.mark.parametrize("kind", ["flat", "ivf", "hnsw"])
def test_save_load_round_trip(tmp_path, embedder, toy_task_docs, kind):
    index = FaissIndex.from_documents(toy_task_docs, embedder, kind=kind)
    index.save(tmp_path / "ix")
    loaded = FaissIndex.load(tmp_path / "ix", embedder=embedder)
    assert (loaded.ids, loaded.texts, loaded.metadatas) == (index.ids, index.texts, index.metadatas)
    assert (loaded.kind, loaded.model_name, loaded.dimension) == (kind, embedder.name, 384)
    query = embedder.encode(["a general of the navy"])
    s1, p1 = index.search(query, 5)
    s2, p2 = loaded.search(query, 5)
    np.testing.assert_array_equal(p1, p2)
    np.testing.assert_allclose(s1, s2, rtol=1e-6)
    np.testing.assert_allclose(loaded.vectors_at([0, 3]), index.vectors_at([0, 3]), rtol=1e-6)


def test_flat_search_is_exact_cosine(embedder, toy_index):
    query = embedder.encode(["a cat in the sun"])
    scores, positions = toy_index.search(query, 20)
    brute = toy_index.vectors_at(np.arange(20)) @ query[0]
    np.testing.assert_allclose(scores[0], np.sort(brute)[::-1], atol=1e-5)


def _snapshot(folder):
    return {p.relative_to(folder): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_failed_save_leaves_previous_index_intact(tmp_path, embedder, toy_index, toy_task_docs):
    toy_index.save(tmp_path / "ix")
    before = _snapshot(tmp_path / "ix")
    bad = FaissIndex(embedder.dimension, model_name=embedder.name)
    bad.add([Document("x", "text")], embedder.encode(["text"]))
    bad.metadatas[0]["when"] = object()  # changed after add(), which refuses it: save() checks again
    with pytest.raises(InputError, match="not JSON-serialisable"):
        bad.save(tmp_path / "ix")
    assert _snapshot(tmp_path / "ix") == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ix"]  # no temp folders left behind


def test_save_replaces_existing_index(tmp_path, embedder, toy_index):
    toy_index.save(tmp_path / "ix")
    small = FaissIndex(embedder.dimension, model_name=embedder.name)
    small.add([Document("only", "only doc")], embedder.encode(["only doc"]))
    small.save(tmp_path / "ix")
    assert FaissIndex.load(tmp_path / "ix").ids == ["only"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ix"]


def test_load_errors(tmp_path, embedder, toy_index):
    with pytest.raises(IndexLoadError, match="index folder not found"):
        FaissIndex.load(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(IndexLoadError, match="not a debiasrag index"):
        FaissIndex.load(tmp_path / "empty")
    toy_index.save(tmp_path / "ix")
    docs = data_paths(tmp_path / "ix")["documents.jsonl"]
    docs.write_text(docs.read_text()[:-40])
    with pytest.raises(IndexLoadError, match="documents.jsonl is corrupted"):
        FaissIndex.load(tmp_path / "ix")
    toy_index.save(tmp_path / "ix2")
    data_paths(tmp_path / "ix2")["index.faiss"].write_bytes(b"garbage")
    with pytest.raises(IndexLoadError, match="index.faiss is corrupted"):
        FaissIndex.load(tmp_path / "ix2")
    manifest = json.loads((tmp_path / "ix2" / "manifest.json").read_text())
    manifest["sha256"]["index.faiss"] = hashlib.sha256(b"garbage").hexdigest()
    manifest["size"]["index.faiss"] = 7
    (tmp_path / "ix2" / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(IndexLoadError, match=r"debiasrag-data-[^/]*/index.faiss cannot be read: FAISS finds it trunc"):
        FaissIndex.load(tmp_path / "ix2")
    toy_index.save(tmp_path / "ix3")
    (tmp_path / "ix3" / "manifest.json").write_text("{not json")
    with pytest.raises(IndexLoadError, match="manifest.json is corrupted"):
        FaissIndex.load(tmp_path / "ix3")
    toy_index.save(tmp_path / "ix4")
    data_paths(tmp_path / "ix4")["index.faiss"].unlink()
    with pytest.raises(IndexLoadError, match="index.faiss is missing"):
        FaissIndex.load(tmp_path / "ix4")


@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        ({"when": datetime.date(2020, 1, 1)}, "is not JSON-serialisable: Object of type date"),
        ({"score": np.float32(0.5)}, "is not JSON-serialisable: Object of type float32"),
        ({"x": float("nan")}, "is not JSON-serialisable: Out of range float"),
        ({"nested": {3: "three"}}, "has the key 3 \\(int\\): JSON keeps only string keys"),
    ],
)
def test_metadata_the_index_cannot_keep_is_refused_before_embedding(embedder, metadata, message):
    class Counting:  # a user's embedder: counts what it is asked to embed
        name, dimension, calls = embedder.name, embedder.dimension, 0

        def encode(self, texts):
            Counting.calls += 1
            return embedder.encode(texts)

    docs = [Document("a", "She paints."), Document("b", "He paints.", metadata)]
    with pytest.raises(InputError, match=f"metadata of document 'b' {message}"):
        FaissIndex.from_documents(docs, Counting())
    assert Counting.calls == 0


def test_added_vectors_are_normalised_so_scores_stay_cosine(embedder):
    index = FaissIndex.from_documents([Document("m", "He repairs car engines at the garage.")], embedder)
    index.add([Document("banana", "Bananas are yellow fruit.")], embedder.encode(["Bananas are yellow fruit."]) * 30)
    scores, positions = index.search(embedder.encode(["Who fixes car engines?"]), 2)
    assert index.ids[positions[0][0]] == "m"  # a long vector does not outrank by its length
    assert np.all(np.abs(scores) <= 1.0 + 1e-6)
    mine = np.array([[3.0] + [0.0] * 383, [0.0, 2.0] + [0.0] * 382], dtype=np.float32)
    kept = mine.copy()
    with pytest.raises(InputError, match="2 documents but 1 vectors|duplicate"):
        index.add([Document("m", "again"), Document("z", "z")], mine)  # refused: the caller's array unchanged
    index.add([Document("p", "p"), Document("q", "q")], mine)
    np.testing.assert_array_equal(mine, kept)  # normalised on a copy
    np.testing.assert_allclose(np.linalg.norm(index.vectors_at([2, 3]), axis=1), 1.0, rtol=1e-6)
    tiny = np.full((1, 384), 1e-30, dtype=np.float32)  # not zero: a direction all the same
    index.add([Document("tiny", "t")], tiny)
    with pytest.raises(InputError, match="vector 1 is all zeros"):
        index.add([Document("x", "x"), Document("y", "y")], np.vstack([embedder.encode(["x"]), np.zeros((1, 384))]))


def test_load_detects_model_and_dimension_mismatch(tmp_path, embedder, toy_index):
    toy_index.save(tmp_path / "ix")

    class Other:
        name, dimension = "some/other-model", 384

        def encode(self, texts):
            raise AssertionError("not called")

    class Smaller(Other):
        dimension = 128

    with pytest.raises(
        IndexLoadError, match="built with model sentence-transformers/all-MiniLM-L6-v2, not some/other-model"
    ):
        FaissIndex.load(tmp_path / "ix", embedder=Other())
    with pytest.raises(IndexLoadError, match="dimension 384.*has dimension 128"):
        FaissIndex.load(tmp_path / "ix", embedder=Smaller())
    # a model name, as the retriever and the wrappers take it ("embedder must be an Embedder, got str" before)
    assert len(FaissIndex.load(tmp_path / "ix", embedder=DEFAULT_MODEL)) == len(toy_index)


def test_read_documents_reports_bad_lines(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_bytes(
        b'{"id": 1, "text": "first", "lang": "en"}\n\n{"id": 2, "text": "caf\xe9"}\n{nope\n'
        b'{"id": 3}\n{"id": 4, "text": "  "}\n[1]\n'
        b'{"id": 5, "text": "fine"}\n'
    )
    with pytest.raises(InputError, match=r"^line 3: not valid UTF-8"):
        read_documents(path)
    report = JsonlReport()
    docs = read_documents(path, on_error="skip", report=report)
    assert [(d.id, d.text, d.metadata) for d in docs] == [(1, "first", {"lang": "en"}), (5, "fine", {})]
    assert report.skipped == [
        (3, "not valid UTF-8"),
        (4, "not valid JSON (Expecting property name enclosed in double quotes)"),
        (5, "row has no 'text'"),
        (6, "'text' is empty"),
        (7, "not a JSON object"),
    ]
    assert report.summary().startswith("skipped 5 bad line(s): line 3: not valid UTF-8")


def test_duplicate_ids_and_empty_corpus(tmp_path):
    path = tmp_path / "dup.jsonl"
    path.write_text('{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}\n')
    with pytest.raises(InputError, match="line 2: duplicate id 'a' \\(first seen on line 1\\)"):
        read_documents(path, on_error="skip")
    (tmp_path / "empty.jsonl").write_text("\n\n")
    with pytest.raises(InputError, match="the corpus is empty"):
        read_documents(tmp_path / "empty.jsonl")


def test_write_jsonl_atomic_keeps_old_file_on_failure(tmp_path):
    target = tmp_path / "out.jsonl"
    target.write_text("old\n")

    def rows():
        yield {"ok": 1}
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        write_jsonl_atomic(rows(), target)
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.jsonl"]
    assert write_jsonl_atomic([{"a": "é"}], target) == 1
    assert json.loads(target.read_text(encoding="utf-8")) == {"a": "é"}


def test_bundled_concepts_hold_the_seed_tables():
    gender, age, wealth = (load_concept(n) for n in ("gender", "age", "wealth"))
    assert (len(gender.pairs), len(age.pairs), len(wealth.pairs)) == (20, 22, 44)  # seed 000 Table 5
    assert gender.pairs[0] == ("she", "he") and ("Jane Doe", "John Doe") in gender.pairs
    assert gender.attributes["nurse"] == 0.23 and gender.attributes["plumber"] == 0.91  # Table 6
    assert len(gender.attributes) == 48 and len(wealth.attributes) == 34 and len(age.attributes) == 29
    assert gender.templates["debiasing"].endswith("This person's gender is unknown.")  # Table 2
    assert len(gender.weat["A1"]) == 18 and len(gender.weat["A2"]) == 30  # Appendix A.3


def test_custom_concept_from_file(tmp_path):
    path = tmp_path / "religion.json"
    path.write_text(
        json.dumps(
            {
                "name": "religion",
                "groups": ["christian", "muslim"],
                "variants": {"christian": "This person is Christian.", "muslim": "This person is Muslim."},
                "debiasing": "This person's religion is unknown.",
            }
        )
    )
    concept = load_concept(str(path))
    assert isinstance(concept, Concept)
    assert concept.variant_queries("a teacher")[1] == ("muslim", "a teacher. This person is Muslim.")
    path.write_text(json.dumps({"name": "x", "groups": ["a"], "variants": {}, "debiasing": "y"}))
    with pytest.raises(InputError, match="'groups' must be a list of two"):
        load_concept(str(path))
    path.write_text("{")
    with pytest.raises(InputError, match="not valid JSON"):
        load_concept(str(path))
    with pytest.raises(InputError, match="concept file not found"):
        load_concept(str(tmp_path / "nope.json"))


@pytest.fixture(scope="module")
def toy_task_docs(toy):
    return [Document(c["id"], c["text"], {"group": c["group"]}) for c in toy["chunks"]]


def test_index_rejects_bad_additions(embedder):
    index = FaissIndex(embedder.dimension, model_name=embedder.name)
    with pytest.raises(InputError, match="vectors must have shape"):
        index.add([Document(1, "a")], np.zeros((1, 10), dtype=np.float32))
    index.add([Document(1, "a")], embedder.encode(["a"]))
    with pytest.raises(InputError, match="duplicate id 1"):
        index.add([Document(1, "b")], embedder.encode(["b"]))
    with pytest.raises(InputError, match="refusing to save an empty index"):
        FaissIndex(4).save(Path("/tmp/never-written"))


@pytest.mark.parametrize("kind", ["ivf", "hnsw"])
def test_approximate_kinds_return_k_results_for_a_large_k(kind):
    # with their default breadth they returned 312 (hnsw) and 629 (ivf) of k = 1,000 (red-team, session 34)
    rng = np.random.default_rng(0)
    distinct = rng.normal(size=(1100, 16)).astype(np.float32)
    vectors = np.vstack([distinct, np.repeat(distinct[:4], 100, axis=0)])  # and near-duplicate islands
    vectors += rng.normal(scale=1e-4, size=vectors.shape).astype(np.float32)
    index = FaissIndex(16, kind=kind)
    index.add([Document(i, f"text {i}") for i in range(len(vectors))], vectors)
    for k in (10, 500, 1000):
        scores, positions = index.search(vectors[:3], k)
        assert positions.shape == (3, k) and (positions >= 0).all()
        assert all(len(set(row)) == k for row in positions.tolist())
        assert (np.diff(scores, axis=1) <= 1e-6).all()  # best first


@pytest.mark.parametrize("kind", ["flat", "ivf", "hnsw"])
def test_adding_nothing_changes_nothing_and_the_index_takes_documents_after(embedder, kind):
    # an IVF index trained on the empty batch: FAISS's RuntimeError, then every later add failed (red-team, s34)
    index = FaissIndex(embedder.dimension, model_name=embedder.name, kind=kind)
    index.add([], np.zeros((0, embedder.dimension), dtype=np.float32))
    assert len(index) == 0
    index.add([Document(1, "a"), Document(2, "b")], embedder.encode(["a", "b"]))
    assert len(index) == 2 and index.search(embedder.encode(["a"]), 1)[1][0][0] == 0


@pytest.mark.parametrize("text", ["", "   ", "\n"])
def test_a_blank_text_is_refused_as_debiasrag_index_refuses_it(embedder, text):
    """The library indexed and saved it (a meaningless vector) where the command line refused it."""
    with pytest.raises(InputError, match="document 'b': text is blank"):
        FaissIndex.from_documents([Document("a", "A text."), Document("b", text)], embedder)


def test_loading_a_file_or_a_manifest_whose_dimension_was_edited_says_so(tmp_path, embedder):
    from debiasrag.storage import read_manifest

    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text('{"id": 1, "text": "x"}\n', encoding="utf-8")
    with pytest.raises(IndexLoadError, match="corpus.jsonl is a file, not an index folder"):
        read_manifest(corpus)
    FaissIndex.from_documents([Document(1, "A text.")], embedder).save(tmp_path / "ix")
    manifest = json.loads((tmp_path / "ix" / "manifest.json").read_text(encoding="utf-8"))
    manifest["dimension"] = 512
    (tmp_path / "ix" / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(IndexLoadError, match="manifest.json says dimension 512, but its model .* gives 384"):
        FaissIndex.load(tmp_path / "ix", embedder=embedder)


def test_from_documents_embeds_rewritten_texts_and_stores_the_originals(tmp_path, embedder):
    docs = [Document("a", "Maria said her mother would call."), Document("b", "The ferry left at noon.")]
    rewritten = ["said their parent would call.", "The ferry left at noon."]
    index = FaissIndex.from_documents(docs, embedder, embed_texts=rewritten, preprocessing={"note": {"x": 1}})
    assert index.texts == [d.text for d in docs] and index.preprocessing == {"note": {"x": 1}}
    np.testing.assert_allclose(index.vectors_at([0])[0], embedder.encode(rewritten[:1])[0], atol=1e-5)
    with pytest.raises(InputError, match="1 texts to embed for 2 documents"):
        FaissIndex.from_documents(docs, embedder, embed_texts=rewritten[:1])


def test_a_bad_group_label_is_refused_when_the_retriever_is_built(embedder):
    # not on every later query that meets the document (an index saved with it served no balanced query)
    from debiasrag import DebiasedRetriever

    docs = [Document("a7", "The clerk checked the chart.", {"debiasrag_group": "robot"}), Document("b", "He ran.")]
    index = FaissIndex.from_documents(docs, embedder)
    with pytest.raises(InputError, match="document 'a7': metadata 'debiasrag_group' is 'robot'"):
        DebiasedRetriever(index, embedder, strategy="topk")
    index.metadatas[0]["debiasrag_group"] = "Woman"  # a good label (as bench --data's 'group' takes it) is read once
    retriever = DebiasedRetriever(index, embedder, strategy="balanced", k=2)
    assert retriever.group_of(0) == "female" and retriever._groups == {0: "female"}


def test_editing_a_hits_or_the_callers_metadata_leaves_the_stored_document_alone(tmp_path, embedder):
    """Nested metadata was shared: a hit redacted for one user came back redacted for the next and was saved so, and
    a NaN put in afterwards made save() fail (red-team round 6, data loss)."""
    from debiasrag import DebiasedRetriever

    meta = {"source": {"url": "https://example.org/a", "tags": ["hr"]}}
    docs = [Document("a", "She led the hiring committee.", meta), Document("b", "He repaired the roof.")]
    index = FaissIndex.from_documents(docs, embedder)
    meta["source"]["tags"].append(float("nan"))  # the caller's own dict, after indexing
    retriever = DebiasedRetriever(index, embedder, strategy="topk")
    hit = retriever.retrieve("hiring committee", k=1)[0]
    hit.metadata["source"]["url"] = "REDACTED"
    index.document(0).metadata["source"]["tags"].clear()
    assert retriever.retrieve("hiring committee", k=1)[0].metadata == {
        "source": {"url": "https://example.org/a", "tags": ["hr"]}
    }
    index.save(tmp_path / "ix")
    assert FaissIndex.load(tmp_path / "ix", embedder=embedder).document(0).metadata["source"]["tags"] == ["hr"]


def test_a_document_of_invisible_characters_only_is_refused_as_a_query_is(embedder):
    """U+200B, U+FEFF and NUL documents were indexed (and scored 0.121 against any query) while the same text as a
    query was refused as empty (red-team round 6)."""
    for text in ("\u200b", "\ufeff", "\x00", " \u200b\n"):
        with pytest.raises(InputError, match="text is blank"):
            FaissIndex.from_documents([Document("x", text), Document("y", "He repaired the roof.")], embedder)


def test_scores_stay_cosines_for_an_embedder_that_does_not_normalise(embedder):
    """Documents were normalised by add() but queries not: a 'cosine' of 5.47 (red-team round 6)."""
    from debiasrag import DebiasedRetriever

    class Scaled:
        def __init__(self, inner):
            self.inner, self.name, self.dimension = inner, inner.name, inner.dimension

        def encode(self, texts):
            return self.inner.encode(texts) * 7.0

    scaled = Scaled(embedder)
    docs = [Document("a", "She led the hiring committee."), Document("b", "He repaired the roof.")]
    index = FaissIndex.from_documents(docs, scaled)
    scores = [hit.score for hit in DebiasedRetriever(index, scaled, strategy="topk").retrieve("hiring", k=2)]
    plain = [
        hit.score
        for hit in DebiasedRetriever(FaissIndex.from_documents(docs, embedder), embedder, strategy="topk").retrieve(
            "hiring", k=2
        )
    ]
    assert scores == pytest.approx(plain, abs=1e-5) and max(scores) <= 1.0


_OTHER_WRITER = """
import os, sys, time
from pathlib import Path
from debiasrag.storage import MANIFEST, writer_lock
staged, target = Path(sys.argv[1]), Path(sys.argv[2])
with writer_lock(target, timeout=60):
    (target.parent / "ready").touch()
    while not (target.parent / "go").exists():
        time.sleep(0.01)
    for entry in staged.iterdir():  # the index another process finished saving while we waited
        if entry.name.startswith("debiasrag-data-"):
            os.rename(entry, target / entry.name)
    os.rename(staged / MANIFEST, target / MANIFEST)
"""


def test_a_save_reports_the_index_another_process_saved_while_it_waited(tmp_path, embedder, toy_index):
    # `debiasrag index` read the folder before saving: a concurrent run finishing in between was replaced
    # without a word, both runs saying "indexed"; the manifest a save replaces is read under its lock
    import subprocess
    import sys
    import threading

    staged, target = tmp_path / "staged", tmp_path / "ix"
    toy_index.save(staged)
    target.mkdir()
    other = subprocess.Popen([sys.executable, "-c", _OTHER_WRITER, str(staged), str(target)])
    try:
        for _ in range(3000):
            if (tmp_path / "ready").exists() or other.poll() is not None:
                break
            threading.Event().wait(0.01)
        assert (tmp_path / "ready").exists(), "the other writer did not take the lock"
        small = FaissIndex.from_documents([Document("a", "One small document.")], embedder)
        replaced: list[dict] = []
        saving = threading.Thread(target=lambda: small.save(target, lock_timeout=60, on_replaced=replaced.append))
        saving.start()
        (tmp_path / "go").touch()
        saving.join(60)
        assert other.wait(60) == 0
    finally:
        other.kill()
    assert [m["count"] for m in replaced] == [len(toy_index)]
    assert FaissIndex.load(target, embedder=embedder).ids == ["a"]
    replaced.clear()
    small.save(tmp_path / "new", on_replaced=replaced.append)
    assert replaced == []  # nothing was replaced
