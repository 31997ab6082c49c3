"""Red-team round 2, library side: cases written from issue 9 that the first suite did not try.

Every problem is one of our errors (never a raw ``TypeError`` / ``ValueError`` / ``RecursionError`` /
``UnicodeDecodeError``); nothing a user owns is deleted or rewritten; an index never makes us download a model.
"""

from __future__ import annotations

import errno
import json
import os
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from debiasrag import DebiasedRetriever, Document, FaissIndex, IndexLoadError, IndexWriteError, InputError
from debiasrag.storage import LOCK_FILE, data_paths

DIM = 8


class Embedder:
    """A tiny deterministic embedder: no model, so these cases stay fast."""

    name, dimension = "test/tiny", DIM

    def encode(self, texts):
        rng = np.random.default_rng(len(texts))
        vectors = rng.normal(size=(len(texts), DIM)).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def build(label: str = "a", n: int = 3) -> FaissIndex:
    docs = [Document(f"{label}-{i}", f"{label} text {i}", {"label": label}) for i in range(n)]
    return FaissIndex.from_documents(docs, Embedder())


def tree(folder: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(folder)): (None if p.is_dir() else p.read_bytes()) for p in sorted(folder.rglob("*"))}


def label_of(folder: Path) -> str:
    (label,) = {m["label"] for m in FaissIndex.load(folder).metadatas}
    return label


# -- index building: our errors for every wrong argument ---------------------------------------------------
def test_from_documents_takes_any_iterable():
    index = FaissIndex.from_documents((Document(i, f"text {i}") for i in range(3)), Embedder())
    assert index.ids == [0, 1, 2]


@pytest.mark.parametrize(
    "documents, embedder, options, fragment",
    [
        (None, Embedder(), {}, "the corpus is empty"),
        ("abc", Embedder(), {}, "expected Document objects, got str"),
        ({"id": 1, "text": "a"}, Embedder(), {}, "expected Document objects, got dict"),
        (5, Embedder(), {}, "documents must be an iterable of Document"),
        ([Document(1, "a")], None, {}, "embedder must be an Embedder"),
        ([Document(1, "a")], "sentence-transformers/all-MiniLM-L6-v2", {}, "embedder must be an Embedder"),
        ([Document(1, "a")], Embedder(), {"flavour": "ivf"}, "unknown index option(s) flavour"),
        ([Document(1, "a")], Embedder(), {"kind": "lsh"}, "unknown index kind 'lsh'"),
        ([Document(1, "a"), Document(1, "b")], Embedder(), {}, "duplicate id 1"),
        ([Document(True, "a")], Embedder(), {}, "ids must be strings or integers"),
    ],
    ids=["none", "str", "dict", "int", "no-embedder", "embedder-name", "unknown-option", "kind", "dup", "bool-id"],
)
def test_from_documents_bad_arguments(documents, embedder, options, fragment):
    with pytest.raises(InputError) as info:
        FaissIndex.from_documents(documents, embedder, **options)
    assert fragment in str(info.value)


@pytest.mark.parametrize("name", ["", " m", 5])
def test_a_model_name_the_loader_would_refuse_is_refused_at_build(name):
    with pytest.raises(InputError, match="model_name must be a model name"):
        FaissIndex(DIM, model_name=name)


@pytest.mark.parametrize(
    "vectors, fragment",
    [
        ("abc", "vectors must be an array of numbers"),
        ([["x"] * DIM], "vectors must be an array of numbers"),
        (np.full((1, DIM), np.nan), "NaN or infinity"),
        (np.full((1, DIM), np.inf), "NaN or infinity"),
    ],
    ids=["str", "strings", "nan", "inf"],
)
def test_add_refuses_vectors_faiss_cannot_search(vectors, fragment):
    index = FaissIndex(DIM)
    with pytest.raises(InputError, match=fragment):
        index.add([Document(1, "a")], vectors)
    assert len(index) == 0


def test_an_integer_id_too_long_to_write_is_refused_before_any_work():
    import sys

    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        huge = int("9" * 5000)
    finally:
        sys.set_int_max_str_digits(limit)
    with pytest.raises(InputError, match="an integer too long to write"):
        FaissIndex.from_documents([Document(huge, "a")], Embedder())


def test_shard_writer_never_overwrites_a_users_anonymized_text(tmp_path):
    from debiasrag.anonymize import AnonymizedText
    from debiasrag.scale import ShardWriter

    class Blank:
        method, strategy, entity_types = "test", "remove", None

        def anonymize_batch(self, texts):
            return [AnonymizedText("", [], {}, "test", None) for _ in texts]

    writer = ShardWriter(tmp_path / "shards", Embedder(), anonymize=Blank())
    with pytest.raises(InputError, match="'anonymized_text' column"):
        writer({"id": [1], "text": ["Alice ran."], "anonymized_text": ["mine"]})
    assert not (tmp_path / "shards").exists() or list((tmp_path / "shards").iterdir()) == []


@pytest.mark.parametrize("seed", [-1, 2**32, 10**30, 1.5, "0", True], ids=["neg", "2^32", "huge", "flt", "str", "bool"])
def test_seeds_scikit_learn_would_refuse_are_our_error(seed):
    from debiasrag.counterfactual import BiasScorer
    from debiasrag.mitigate import WordEmbeddings
    from debiasrag.mitigate.apply import debias

    with pytest.raises(InputError, match="seed must be an integer from 0 to 4294967295"):
        BiasScorer(Embedder(), seed=seed)  # refused before spaCy or a model loads
    words = WordEmbeddings(["he", "she", "nurse"], np.eye(3, dtype=np.float32))
    with pytest.raises(InputError, match="seed must be an integer"):
        debias(words, "dhd", seed=seed)


@pytest.mark.parametrize("path", [None, 5, ["ix"], "ix\x00evil"], ids=["none", "int", "list", "nul"])
def test_index_paths_that_are_not_paths(tmp_path, path):
    with pytest.raises(InputError, match="an index folder must be a path"):
        FaissIndex.load(path)
    with pytest.raises(InputError, match="an index folder must be a path"):
        build().save(path)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("source", [None, 5, 1.5], ids=["none", "int", "float"])
def test_read_documents_of_something_else(source):
    from debiasrag import read_documents

    with pytest.raises(InputError, match="expected a JSONL path"):
        read_documents(source)


def test_retriever_needs_an_index():
    with pytest.raises(InputError, match="index must be a FaissIndex, got NoneType"):
        DebiasedRetriever(None, Embedder())  # type: ignore[arg-type]


# -- saving next to the user's own files ---------------------------------------------------------------
def test_save_keeps_user_files_inside_an_index_folder(tmp_path):
    """Files that merely share a name with ours (``documents.jsonl``: a corpus kept beside its index) survive."""
    folder = tmp_path / "ix"
    build("old").save(folder)
    (folder / "documents.jsonl").write_text('{"id": 1, "text": "my corpus"}\n')
    (folder / "index.faiss").write_bytes(b"my own faiss file")
    (folder / "notes.md").write_text("keep")
    (folder / "debiasrag-data-notes").mkdir()  # not our naming pattern
    (folder / "debiasrag-data-notes" / "a.txt").write_text("keep too")
    user = tmp_path / "user"
    user.mkdir()
    (user / "thesis.tex").write_text("years of work")
    (folder / "debiasrag-data-20200101T000000-0badc0de").symlink_to(user, target_is_directory=True)
    before = {name: tree(folder)[name] for name in ("documents.jsonl", "index.faiss", "notes.md")}
    for label in ("b", "c", "d"):
        build(label).save(folder)
    assert label_of(folder) == "d"
    assert {name: tree(folder)[name] for name in before} == before
    assert (folder / "debiasrag-data-notes" / "a.txt").read_text() == "keep too"
    assert (user / "thesis.tex").read_text() == "years of work"  # a link named like a version is not followed


def test_lock_file_replaced_by_a_symlink_is_refused(tmp_path):
    folder = tmp_path / "ix"
    build("old").save(folder)
    victim = tmp_path / "victim.txt"
    victim.write_text("untouched")
    (folder / LOCK_FILE).unlink()
    (folder / LOCK_FILE).symlink_to(victim)
    with pytest.raises(IndexWriteError, match="cannot lock .* previous index is unchanged"):
        build("new").save(folder)
    assert victim.read_text() == "untouched" and label_of(folder) == "old"


def test_disk_full_while_writing_the_manifest(tmp_path, monkeypatch):
    """The data files are written; the manifest's own write fails with ENOSPC: the old index stays, no debris."""
    folder = tmp_path / "ix"
    build("old").save(folder)
    before = tree(folder)
    real_open = open

    def open_full(file, mode="r", *args, **kwargs):
        if Path(str(file)).name.startswith(".manifest-") and "x" in mode:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr("builtins.open", open_full)
    with pytest.raises(IndexWriteError, match="No space left on device.*previous index is unchanged"):
        build("new").save(folder)
    monkeypatch.undo()
    assert tree(folder) == before and label_of(folder) == "old"


# -- what a manifest may make us do --------------------------------------------------------------------
def test_manifest_with_unknown_entity_types_is_refused_at_load(tmp_path):
    folder = tmp_path / "ix"
    build().save(folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    for entities in (["person", "alien"], "person,alien"):
        manifest["preprocessing"] = {"anonymize": {"method": "ner", "strategy": "remove", "entities": entities}}
        (folder / "manifest.json").write_text(json.dumps(manifest))
        with pytest.raises(IndexLoadError, match="'preprocessing.anonymize.entities' must be known entity types"):
            FaissIndex.load(folder)


def test_runaway_manifest_and_data_files_are_refused_before_being_read_whole(tmp_path):
    folder = tmp_path / "ix"
    build().save(folder)
    good = (folder / "manifest.json").read_bytes()
    (folder / "manifest.json").write_bytes(good[:-1] + b" " * (2 << 20) + b"}")  # valid JSON, 2 MB
    with pytest.raises(IndexLoadError, match="larger than"):
        FaissIndex.load(folder)
    (folder / "manifest.json").write_bytes(good)
    documents = data_paths(folder)["documents.jsonl"]
    with open(documents, "ab") as handle:
        handle.write(b"\n" * 1000)
    with pytest.raises(IndexLoadError, match="size differs from the manifest"):
        FaissIndex.load(folder)


def test_a_loaded_index_never_downloads_its_model(tmp_path, monkeypatch):
    """The model an index names is loaded from this machine only; naming it yourself allows the download."""
    index = build()
    index.model_name = "someone-else/not-on-this-machine"
    index.save(tmp_path / "ix")
    loaded = FaissIndex.load(tmp_path / "ix")
    connections: list[object] = []

    def refuse(self, address, *args):
        connections.append(address)
        raise OSError(errno.ENETUNREACH, "network disabled by the test")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    with pytest.raises(InputError) as info:
        DebiasedRetriever(loaded)
    assert "'someone-else/not-on-this-machine' is not on this machine" in str(info.value)
    assert info.value.option == "model" and "to download it" in str(info.value)
    assert connections == []


# -- other library loaders: user files are strict JSON, UTF-8, and of the documented shape -------------------
BAD_FILES = {
    "latin1": (b'{"pairs": ["caf\xe9"]}', "not valid UTF-8"),
    "deep": (b"[" * 100_000, "nested too deeply"),
    "nan": (b'{"pairs": [NaN], "pronouns": {}}', "NaN is not valid JSON"),
    "list": (b"[1, 2]", ""),
    "wrong-types": (b'{"pairs": [[1, 2]], "pronouns": 5, "triplets": 5, "person_names": 5, "country_names": 5}', ""),
}


def _loaders():
    from debiasrag.bench._corpora import load_universes
    from debiasrag.bench.summeval import load_summeval
    from debiasrag.counterfactual import load_gender_words, load_swap_names
    from debiasrag.names import load_sts_triplets

    return {
        "gender-words": load_gender_words,
        "swap-names": load_swap_names,
        "sts-triplets": load_sts_triplets,
        "universes": load_universes,
        "summeval": load_summeval,
    }


@pytest.mark.parametrize("loader", ["gender-words", "swap-names", "sts-triplets", "universes", "summeval"])
@pytest.mark.parametrize("kind", list(BAD_FILES))
def test_library_loaders_refuse_bad_files_with_our_error(tmp_path, loader, kind):
    data, fragment = BAD_FILES[kind]
    path = tmp_path / f"{kind}.json"
    path.write_bytes(data)
    with pytest.raises(InputError) as info:
        _loaders()[loader](path)
    assert fragment in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize(
    "words",
    [
        {"pairs": [["she", "he", "they"]], "pronouns": {"female_to_male": {}, "male_to_female": {}}},
        {"pairs": [["she", "he"]], "pronouns": {"female_to_male": {"her": 5}, "male_to_female": {}}},
        {"pairs": [["she", "he"]], "pronouns": {"female_to_male": {}}},
    ],
    ids=["three-words", "pronoun-int", "one-direction"],
)
def test_gender_words_file_of_the_wrong_shape(tmp_path, words):
    from debiasrag.counterfactual import load_gender_words

    path = tmp_path / "words.json"
    path.write_text(json.dumps(words))
    with pytest.raises(InputError, match="'pairs' must be"):
        load_gender_words(path)


# -- shards: a sidecar or row edited by hand ---------------------------------------------------------------
def test_shards_round_trip_lone_surrogates_and_refuse_edits(tmp_path):
    from debiasrag.shards import read_shard, write_shard

    docs = [Document("\ud800", "lone \udfff", {"k": "\udbff"}), Document(10**30, "big id")]
    vectors = Embedder().encode(["a", "b"])
    sidecar = write_shard(tmp_path, docs, vectors, model_name="test/tiny", name="s")
    shard = read_shard(sidecar)
    assert [(d.id, d.text, d.metadata) for d in shard.documents] == [(d.id, d.text, d.metadata) for d in docs]
    good_meta, good_rows = sidecar.read_bytes(), (tmp_path / "part-s.jsonl").read_bytes()
    meta = json.loads(good_meta)
    edits = [
        ("json", json.dumps({**meta, "count": "2"}).encode(), "'count' and 'dimension' must be integers"),
        ("json", json.dumps({k: v for k, v in meta.items() if k != "count"}).encode(), "must be integers"),
        ("json", json.dumps({**meta, "model": ["m"]}).encode(), "'model' must be a model name"),
        ("json", json.dumps({**meta, "model": ""}).encode(), "'model' must be a model name"),
        ("json", b"[" * 100_000, "nested too deeply"),
        ("json", b'{"format": NaN}', "NaN is not valid JSON"),
        ("jsonl", b'{"id": [1], "text": "a"}\n{"id": 2, "text": "b"}\n', "line 1 is corrupted: 'id' is not a string"),
        (
            "jsonl",
            b'{"id": 1, "text": "a", "metadata": [1]}\n{"id": 2, "text": "b"}\n',
            "line 1 is corrupted: 'metadata' is not",
        ),
        ("jsonl", b'{"id": 1}\n{"id": 2, "text": "b"}\n', "line 1 is corrupted: its 'text' field is missing"),
        ("jsonl", b'{"id": 1, "text": "\xff"}\n{"id": 2, "text": "b"}\n', "not valid UTF-8"),
    ]
    for suffix, data, fragment in edits:
        (tmp_path / f"part-s.{suffix}").write_bytes(data)
        with pytest.raises(InputError, match=fragment):
            read_shard(sidecar)
        sidecar.write_bytes(good_meta)
        (tmp_path / "part-s.jsonl").write_bytes(good_rows)
    with pytest.raises(InputError, match="expected Documents"):
        write_shard(tmp_path, [{"id": 1, "text": "a"}], vectors[:1], model_name=None)  # type: ignore[list-item]
    with pytest.raises(InputError, match="vectors must be an array of numbers"):
        write_shard(tmp_path, docs, "vectors", model_name=None)


# -- JSON printed to a terminal ----------------------------------------------------------------------------
def test_json_on_stdout_escapes_terminal_controls(capsys):
    from debiasrag.commands._common import print_json
    from debiasrag.fileio import terminal_safe_json

    value = {"text": "csi \x9b31m del \x7f rlo \u202e lre \u202a ok é 東京", "esc": "\x1b[2J"}
    print_json(value)
    out = capsys.readouterr().out
    assert json.loads(out) == value  # the same JSON value
    assert not any(0x7F <= ord(c) <= 0x9F or c in "\u202a\u202e\x1b" for c in out), out
    assert "é 東京" in out  # ordinary text stays readable
    assert terminal_safe_json('"\u2066x\u2069"') == '"\\u2066x\\u2069"'


def test_jsonl_to_stdout_escapes_terminal_controls(capsys):
    from debiasrag.corpus import write_jsonl_atomic

    row = {"id": "\x9b2J", "text": "bidi \u202e and \x85 next-line"}
    assert write_jsonl_atomic([row], "-") == 1
    out = capsys.readouterr().out
    assert json.loads(out) == row and not any(0x7F <= ord(c) <= 0x9F or c == "\u202e" for c in out), out


# -- demo output folders: our own interrupted writes do not make the folder foreign ------------------------
def test_demo_folder_with_its_own_leftover_temp_files_is_reusable(tmp_path):
    from debiasrag.commands.demo import check_demo_folder

    folder = tmp_path / "demo-out"
    folder.mkdir()
    build().save(folder / "index")
    (folder / "report.md").write_text("# debiasrag demo\n")
    (folder / ".report.md.1a2b3c4d.tmp").write_text("half a report")  # a kill -9 during the last run
    (folder / ".sample_corpus.jsonl.0badc0de.tmp").write_text("half a corpus")
    (folder / ".report.md.4242-0badc0de.tmp").write_text("half a report, named with its writer's pid")
    check_demo_folder(folder)
    (folder / ".report.md.tmp.mine").write_text("not ours")
    with pytest.raises(InputError, match="not an earlier demo output"):
        check_demo_folder(folder)


# -- an LLM server that trickles its answer ------------------------------------------------------------------
class _QuietHandler(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


class _Trickle(_QuietHandler):
    """Answers 200 with a valid body, one byte every 0.2 s: each read is quick, the whole answer takes ~60 s."""

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        self.rfile.read(int(self.headers["content-length"]))
        text = "and met on a rainy Tuesday in."
        body = json.dumps(
            {"id": "m", "type": "message", "role": "assistant", "model": "claude-test", "stop_reason": "end_turn",
             "content": [{"type": "text", "text": text}], "stop_sequence": None,
             "usage": {"input_tokens": 1, "output_tokens": 1}}
        ).encode()  # fmt: skip
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        try:
            for byte in body:
                self.wfile.write(bytes([byte]))
                self.wfile.flush()
                time.sleep(0.2)
        except OSError:
            pass  # the client gave up, as it should


def anonymize_through(handler: type[_QuietHandler], tmp_path, monkeypatch):
    """Anonymize one text with an LLM served by ``handler`` on 127.0.0.1 (timeout 1 s, one retry): (result, s)."""
    from debiasrag.anonymize import LlmAnonymizer

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-real-key")
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        anonymizer = LlmAnonymizer(
            "claude-test", base_url=f"http://127.0.0.1:{server.server_address[1]}", timeout=1.0, max_retries=1,
            cache_dir=tmp_path / "cache",
        )  # fmt: skip
        anonymizer._fallback_anonymizer().detect("warm up")  # spaCy loads outside the timed part
        started = time.perf_counter()
        result = anonymizer.anonymize("Kashvi and Oluwafemi met on a rainy Tuesday in Northampton.")
        return result, time.perf_counter() - started
    finally:
        server.shutdown()


def test_a_trickling_llm_answer_times_out_as_a_whole(tmp_path, monkeypatch):
    result, elapsed = anonymize_through(_Trickle, tmp_path, monkeypatch)
    assert result.method == "ner" and "Timeout" in result.fallback, result.fallback
    assert "Kashvi" not in result.text
    assert elapsed < 10  # two attempts of ~1 s and the SDK's backoff, not the minute the answer takes


class _TrickleHeaders(_QuietHandler):
    """Answers with a status line, then one more header line every 0.05 s for minutes: no read ever waits long."""

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        self.rfile.read(int(self.headers["content-length"]))
        try:
            self.wfile.write(b"HTTP/1.1 200 OK\r\n")
            for number in range(4000):
                self.wfile.write(b"x-pad-%d: a\r\n" % number)
                self.wfile.flush()
                time.sleep(0.05)
        except OSError:
            pass  # the client gave up, as it should


def test_trickling_llm_headers_time_out_as_a_whole(tmp_path, monkeypatch):
    result, elapsed = anonymize_through(_TrickleHeaders, tmp_path, monkeypatch)
    assert result.method == "ner" and "timed out" in result.fallback, result.fallback
    assert "Kashvi" not in result.text
    assert elapsed < 20  # two attempts of ~1 s and the SDK's backoff, not the 200 s the headers take


def test_a_corrupt_llm_cache_entry_is_asked_again(tmp_path, monkeypatch):
    try:
        from tests.test_llm_anonymizer import FakeMessagesAPI, message
    except ImportError:  # pragma: no cover - depends on how pytest was started
        from test_llm_anonymizer import FakeMessagesAPI, message
    from debiasrag.anonymize import LlmAnonymizer

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-real-key")
    doc = "The weather was mild and nothing happened."
    with FakeMessagesAPI(lambda text, attempt: message(text)) as server:
        anonymizer = LlmAnonymizer("claude-test", base_url=server.url, cache_dir=tmp_path / "cache", max_retries=0)
        path = anonymizer._cache_path(doc)
        path.parent.mkdir(parents=True)
        for junk in (b"[" * 100_000, b'{"answer": 5}', b"\xff", b"{"):
            path.write_bytes(junk)
            result = anonymizer.anonymize(doc)
            assert result.method == "llm" and result.text == doc  # nothing to remove; the entry was asked again
        assert server.calls[doc] == 4


@pytest.mark.parametrize(
    "url, fragment",
    [
        ("not-a-url", "not an http(s) URL with a host"),
        ("http://exa mple.com", "spaces or control characters"),
        ("ftp://127.0.0.1:9", "not an http(s) URL with a host"),
        ("http://[::1", "Invalid IPv6 URL"),
        ("http://127.0.0.1:99999", "Port out of range"),
        ("http://127.0.0.1:9/\x1b[2J", "spaces or control characters"),
    ],
)
def test_an_unusable_llm_base_url_is_one_error_not_a_fallback_for_every_text(monkeypatch, url, fragment):
    from debiasrag.anonymize import LlmAnonymizer

    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-real-key")
    with pytest.raises(InputError, match="base URL") as info:
        LlmAnonymizer(base_url=url, cache_dir=None)
    assert fragment in str(info.value) and info.value.option == "base_url"
    monkeypatch.setenv("ANTHROPIC_BASE_URL", url)
    with pytest.raises(InputError, match="ANTHROPIC_BASE_URL") as info:
        LlmAnonymizer(cache_dir=None)
    assert fragment in str(info.value)


def test_a_demo_interrupted_before_its_index_was_saved_can_run_again(tmp_path):
    # only the sample corpus was written: the re-run refused its own folder (red-team round 5)
    from debiasrag.commands.demo import check_demo_folder
    from debiasrag.corpus import write_jsonl_atomic
    from debiasrag.datasets import load_gendered_topics

    folder = tmp_path / "demo-out"
    folder.mkdir()
    write_jsonl_atomic((d.to_row() for d in load_gendered_topics().documents), folder / "sample_corpus.jsonl")
    (folder / "index").mkdir()  # the save had only begun
    check_demo_folder(folder)
    (folder / "sample_corpus.jsonl").write_text('{"id": "mine", "text": "a user file"}\n', encoding="utf-8")
    with pytest.raises(InputError, match="not an earlier demo output"):
        check_demo_folder(folder)
