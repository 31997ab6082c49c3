"""Index folders under faults: foreign folders, symlinks, kill -9, full disks, concurrent readers and writers.

Every case uses real files and real processes; the child process in ``_index_writer.py`` saves real
``FaissIndex`` folders (random vectors, no model) so many processes can run quickly.
"""

from __future__ import annotations

import errno
import json
import os
import resource
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from debiasrag import Document, FaissIndex, IndexLoadError, IndexWriteError, InputError
from debiasrag.storage import LOCK_FILE, data_paths

WRITER = Path(__file__).with_name("_index_writer.py")
DIM = 16


def child(*args: str, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(WRITER), *map(str, args)], capture_output=True, text=True, **kwargs)


def build(label: str, n: int = 5) -> FaissIndex:
    rng = np.random.default_rng(len(label) + n)
    vectors = rng.normal(size=(n, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index = FaissIndex(DIM, model_name="test/random")
    index.add([Document(f"{label}-{i}", f"{label} text {i}", {"label": label}) for i in range(n)], vectors)
    return index


def tree(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def label_of(folder: Path) -> str:
    index = FaissIndex.load(folder)
    labels = {m["label"] for m in index.metadatas}
    assert len(labels) == 1 and index.ids == [f"{next(iter(labels))}-{i}" for i in range(len(index))]
    return labels.pop()


def versions(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("debiasrag-data-"))


# -- never write over what is not ours ------------------------------------------------------------------
def test_save_refuses_a_folder_of_user_files(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "corpus.jsonl").write_text('{"id": 1, "text": "precious"}\n')
    (folder / "notes").mkdir()
    (folder / "notes" / "a.txt").write_text("keep me")
    before = tree(folder)
    with pytest.raises(InputError, match="not empty and is not a debiasrag index"):
        build("a").save(folder)
    assert tree(folder) == before and sorted(p.name for p in folder.iterdir()) == ["corpus.jsonl", "notes"]


def test_save_refuses_a_foreign_manifest_and_a_file(tmp_path):
    folder = tmp_path / "web"
    folder.mkdir()
    (folder / "manifest.json").write_text('{"name": "my web app", "icons": []}')
    with pytest.raises(InputError, match="not a valid debiasrag index"):
        build("a").save(folder)
    assert (folder / "manifest.json").read_text() == '{"name": "my web app", "icons": []}'
    (tmp_path / "file").write_text("data")
    with pytest.raises(InputError, match="exists and is not a folder"):
        build("a").save(tmp_path / "file")
    assert (tmp_path / "file").read_text() == "data"


def test_save_never_follows_a_symlink(tmp_path):
    real = tmp_path / "real"
    build("old").save(real)
    (tmp_path / "user").mkdir()
    (tmp_path / "user" / "thesis.tex").write_text("years of work")
    for name, target in (("link-to-index", real), ("link-to-user", tmp_path / "user")):
        (tmp_path / name).symlink_to(target, target_is_directory=True)
        with pytest.raises(InputError, match="symbolic link"):
            build("new").save(tmp_path / name)
    assert label_of(real) == "old" and (tmp_path / "user" / "thesis.tex").read_text() == "years of work"
    assert label_of(tmp_path / "link-to-index") == "old"  # reading through a link is fine


def test_empty_folder_and_missing_parent(tmp_path):
    (tmp_path / "empty").mkdir()
    build("a").save(tmp_path / "empty")
    assert label_of(tmp_path / "empty") == "a"
    with pytest.raises(InputError, match="parent folder does not exist"):
        build("a").save(tmp_path / "no" / "such" / "ix")
    assert not (tmp_path / "no").exists()


def test_cli_index_out_is_the_corpus_folder(tmp_path, run_cli, one_line_error):
    corpus_dir = tmp_path / "data"
    corpus_dir.mkdir()
    corpus = corpus_dir / "corpus.jsonl"
    corpus.write_text('{"id": 1, "text": "She commanded the fleet."}\n{"id": 2, "text": "A cat slept."}\n')
    before = tree(corpus_dir)
    result = run_cli("index", corpus, "--out", corpus_dir)
    one_line_error(result, "is not a debiasrag index", str(corpus_dir))
    assert tree(corpus_dir) == before
    result = run_cli("index", corpus, "--out", corpus)
    one_line_error(result, "is not a folder")
    assert tree(corpus_dir) == before
    assert run_cli("index", corpus, "--out", tmp_path / "ix").returncode == 0
    assert run_cli("index", corpus, "--out", tmp_path / "ix").returncode == 0  # an index may be replaced
    assert len(versions(tmp_path / "ix")) == 2


# -- versions and leftovers ------------------------------------------------------------------------------
def test_saves_keep_current_and_previous_versions_only(tmp_path):
    folder = tmp_path / "ix"
    for label in ("a", "b", "c", "d"):
        build(label).save(folder)
        assert label_of(folder) == label
    assert len(versions(folder)) == 2
    assert sorted(p.name for p in folder.iterdir() if not p.name.startswith("debiasrag-data-")) == [
        LOCK_FILE,
        "manifest.json",
    ]


@pytest.mark.parametrize("where", ["manifest swap", "folder fsync"])
def test_ctrl_c_right_after_the_manifest_swap_keeps_the_new_index(tmp_path, monkeypatch, where):
    """A KeyboardInterrupt landing after os.replace published the manifest (during the folder fsync, ~4 ms) deleted
    the version it names: neither index loaded (red-team round 5)."""
    import debiasrag.storage as storage

    folder = tmp_path / "ix"
    build("old").save(folder)
    real_replace, real_fsync = os.replace, storage.fsync_folder

    def replace_then_interrupt(src, dst):
        real_replace(src, dst)
        if Path(dst).name == "manifest.json":
            raise KeyboardInterrupt

    def fsync_interrupted(path):
        if Path(path) == folder:
            raise KeyboardInterrupt
        real_fsync(path)

    if where == "manifest swap":
        monkeypatch.setattr(storage.os, "replace", replace_then_interrupt)
    else:
        monkeypatch.setattr(storage, "fsync_folder", fsync_interrupted)
    with pytest.raises(KeyboardInterrupt):
        build("new").save(folder)
    monkeypatch.undo()
    assert label_of(folder) == "new"
    build("later").save(folder)  # and the next save works as ever
    assert label_of(folder) == "later" and len(versions(folder)) == 2


def test_format_1_index_loads_and_is_upgraded(tmp_path):
    """A folder written by debiasrag 0.1 (files at the top, manifest format 1) still loads and can be replaced."""
    folder = tmp_path / "old"
    build("v1").save(folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    for name, path in data_paths(folder).items():
        os.replace(path, folder / name)
    for key in ("producer", "version", "size"):
        del manifest[key]
    manifest["format"] = 1
    (folder / "manifest.json").write_text(json.dumps(manifest))
    for leftover in versions(folder):
        (folder / leftover).rmdir()
    (tmp_path / ".old.ab12cd34.old").mkdir()  # an interrupted 0.1 swap left this beside it
    (tmp_path / ".old.ab12cd34.old" / "manifest.json").write_text("{}")
    assert label_of(folder) == "v1"
    build("v2").save(folder)
    assert label_of(folder) == "v2"
    assert not (folder / "index.faiss").exists() and not (folder / "documents.jsonl").exists()
    assert not (tmp_path / ".old.ab12cd34.old").exists()


def test_a_save_leaves_a_backup_folder_beside_the_index_alone(tmp_path):
    # the user's dated copy has the shape of 0.1's swap folders; only the save upgrading a format-1 index removes those
    folder = tmp_path / "my-index"
    build("v1").save(folder)
    backup = tmp_path / ".my-index.20261129.old"
    backup.mkdir()
    for name in ("manifest.json", "index.faiss", "documents.jsonl"):
        (backup / name).write_text("mine")
    build("v2").save(folder)
    assert label_of(folder) == "v2"
    assert sorted(p.read_text() for p in backup.iterdir()) == ["mine"] * 3


@pytest.mark.parametrize("point", ["fsync:1", "fsync:2", "fsync:3", "fsync:4", "replace:before", "replace:after"])
def test_kill_9_during_save_leaves_a_whole_index(tmp_path, point):
    folder = tmp_path / "ix"
    assert child("save", folder, "old", 50).returncode == 0
    killed = child("save", folder, "new", 80, "--kill-at", point)
    assert killed.returncode == -9, killed.stderr
    expected = "new" if point == "replace:after" else "old"
    assert label_of(folder) == expected
    assert child("save", folder, "next", 30).returncode == 0  # the next save cleans what the kill left
    assert label_of(folder) == "next"
    leftovers = [p.name for p in folder.iterdir() if p.name.startswith(".manifest-")]
    assert leftovers == [] and len(versions(folder)) == 2


def test_kill_9_during_first_save_leaves_a_folder_we_can_reuse(tmp_path):
    folder = tmp_path / "ix"
    assert child("save", folder, "first", 20, "--kill-at", "fsync:2").returncode == -9
    with pytest.raises(IndexLoadError, match="not a debiasrag index"):
        FaissIndex.load(folder)
    build("again").save(folder)  # only our own leftovers are there, so writing is allowed
    assert label_of(folder) == "again" and len(versions(folder)) == 1


# -- full disks ----------------------------------------------------------------------------------------
def test_file_too_big_keeps_previous_index(tmp_path):
    """RLIMIT_FSIZE makes the kernel refuse the write (EFBIG) part-way through the vectors."""
    folder = tmp_path / "ix"
    assert child("save", folder, "small", 10).returncode == 0
    before = tree(folder)

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))

    result = child("save", folder, "big", 2000, preexec_fn=limit)
    assert result.returncode == 1 and "IndexWriteError" in result.stderr and "File too large" in result.stderr
    assert tree(folder) == before and label_of(folder) == "small"


@pytest.mark.parametrize("limit_bytes", [1, 200_000])
def test_cli_index_on_a_full_disk_exits_2_and_keeps_previous(
    tmp_path, run_cli, run_cli_process, one_line_error, limit_bytes
):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"id": i, "text": f"document number {i}"}) + "\n" for i in range(400)))
    small = tmp_path / "small.jsonl"
    small.write_text('{"id": "s", "text": "one small document"}\n')
    assert run_cli("index", small, "--out", tmp_path / "ix").returncode == 0
    before = tree(tmp_path / "ix")

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))

    result = run_cli_process("index", corpus, "--out", tmp_path / "ix", preexec_fn=limit)
    one_line_error(result, "could not write the index", "File too large", "previous index is unchanged")
    assert tree(tmp_path / "ix") == before


class _FailingFile:
    """A real file whose writes fail with ENOSPC once ``budget`` bytes have been written."""

    def __init__(self, handle, budget: list[int]) -> None:
        self._handle, self._budget = handle, budget

    def write(self, data) -> int:
        size = len(memoryview(data).cast("B"))
        if size > self._budget[0]:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self._budget[0] -= size
        return self._handle.write(data)

    def __getattr__(self, name):
        return getattr(self._handle, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self._handle.close()


@pytest.mark.parametrize("budget", [0, 100, 5_000, 40_000])
def test_enospc_part_way_keeps_previous_index(tmp_path, monkeypatch, budget):
    folder = tmp_path / "ix"
    build("old", 20).save(folder)
    before = tree(folder)
    real_open, remaining = open, [budget]

    def open_failing(file, mode="r", *args, **kwargs):
        handle = real_open(file, mode, *args, **kwargs)
        return _FailingFile(handle, remaining) if ("w" in mode or "x" in mode) else handle

    monkeypatch.setattr("builtins.open", open_failing)
    with pytest.raises(IndexWriteError, match="No space left on device.*previous index is unchanged"):
        build("new", 400).save(folder)
    monkeypatch.undo()
    assert tree(folder) == before and label_of(folder) == "old"


def test_write_that_reads_back_differently_is_caught(tmp_path, monkeypatch):
    """A silent short write (the bytes never reach the file) is caught by the read-back check."""
    folder = tmp_path / "ix"
    build("old").save(folder)
    before = tree(folder)
    real_open = open

    class Dropping(_FailingFile):
        def write(self, data) -> int:
            return len(memoryview(data).cast("B"))  # claims success, writes nothing

    def open_dropping(file, mode="r", *args, **kwargs):
        handle = real_open(file, mode, *args, **kwargs)
        return Dropping(handle, [0]) if str(file).endswith("index.faiss") and "x" in mode else handle

    monkeypatch.setattr("builtins.open", open_dropping)
    with pytest.raises(IndexWriteError, match="reads back differently"):
        build("new").save(folder)
    monkeypatch.undo()
    assert tree(folder) == before


# -- concurrency ---------------------------------------------------------------------------------------
def test_readers_never_see_a_partial_index_while_writers_save(tmp_path):
    folder = tmp_path / "ix"
    assert child("save", folder, "a", 300).returncode == 0
    readers = [
        subprocess.Popen([sys.executable, str(WRITER), "read-loop", folder, "6"], stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    writers = [
        subprocess.Popen([sys.executable, str(WRITER), "save-loop", folder, label, n, "25"], stderr=subprocess.PIPE)
        for label, n in (("a", "300"), ("b", "700"))
    ]
    for writer in writers:
        assert writer.wait(timeout=120) == 0, writer.stderr.read()
    outputs = []
    for reader in readers:
        out, _ = reader.communicate(timeout=120)
        assert reader.returncode == 0, out
        outputs.append(out.split())
    assert all(int(out[0]) > 0 for out in outputs)
    assert label_of(folder) in ("a", "b")
    assert len(versions(folder)) == 2
    assert not [p for p in folder.iterdir() if p.name.startswith(".manifest-")]


# -- integrity -----------------------------------------------------------------------------------------
BAD_FIELDS = [
    ("kind", "exotic", "'kind' must be one of"),
    ("kind", 3, "'kind' must be one of"),
    ("dimension", "16", "'dimension' must be an integer from 1 to 65536"),
    ("dimension", True, "'dimension' must be an integer from 1 to 65536"),
    ("dimension", -4, "'dimension' must be an integer from 1 to 65536"),
    ("dimension", 1.5, "'dimension' must be an integer from 1 to 65536"),
    ("count", None, "'count' must be a positive integer"),
    ("model", ["m"], "'model' must be a model name or null"),
    ("model", "", "'model' must be a model name or null"),  # "" loaded the working directory as the model
    ("model", " all-MiniLM-L6-v2", "'model' must be a model name or null"),
    ("options", [], "'options' must be an object"),
    ("options", {"nprobe": "lots"}, "'options.nprobe' must be an integer from 1 to 16777216"),
    ("options", {"evil": 1}, "'options.evil' must be one of"),
    ("preprocessing", "ner", "'preprocessing' must be an object"),
    ("preprocessing", {"anonymize": "llm"}, "'preprocessing.anonymize' must be an object"),
    ("preprocessing", {"anonymize": {"method": "regex"}}, "'preprocessing.anonymize.method'"),
    ("preprocessing", {"anonymize": {"method": "ner", "entities": 5}}, "'preprocessing.anonymize.entities'"),
    ("preprocessing", {"translate": {}}, "'preprocessing.translate'"),
    ("preprocessing", {"neutralize": "yes"}, "'preprocessing.neutralize' must be an object with"),
    ("preprocessing", {"neutralize": {"concept": "age", "names": "ner"}}, "'preprocessing.neutralize.concept'"),
    ("preprocessing", {"neutralize": {"concept": "gender", "names": "llm"}}, "'preprocessing.neutralize.names'"),
    ("sha256", None, "'sha256' must be an object"),
    ("sha256", {}, "'sha256.index.faiss' must be a SHA-256"),
    ("version", "../../etc", "'version' must be a debiasrag-data-"),
    ("version", None, "'version' must be a debiasrag-data-"),
    ("size", {"index.faiss": "big"}, "'size' must be an object"),
    ("format", 99, "unsupported index format 99"),
    ("producer", "someone-else", "'producer' must be"),
]


@pytest.mark.parametrize(("field", "value", "message"), BAD_FIELDS)
def test_edited_manifest_fields_are_clear_errors(tmp_path, field, value, message):
    folder = tmp_path / "ix"
    build("a").save(folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest[field] = value
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(IndexLoadError, match=message.replace("(", r"\(").replace(".", r"\.")):
        FaissIndex.load(folder)


@pytest.mark.parametrize("field", ["sha256", "kind", "dimension", "count", "options", "preprocessing", "model"])
def test_manifest_without_a_field_is_refused(tmp_path, field):
    folder = tmp_path / "ix"
    build("a").save(folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    del manifest[field]
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(IndexLoadError, match=f"'{field}' is missing"):
        FaissIndex.load(folder)


def test_a_manifest_repeating_a_key_is_refused_not_read_one_way(tmp_path):
    folder = tmp_path / "ix"
    build("a").save(folder)
    text = (folder / "manifest.json").read_text()
    (folder / "manifest.json").write_text(text.replace('"nprobe": ', '"nprobe": 4, "nprobe": ', 1))
    with pytest.raises(IndexLoadError, match="repeats the key 'nprobe'"):
        FaissIndex.load(folder)


@pytest.mark.parametrize(
    "content",
    [b"", b"[]", b"null", b'{"format": NaN}', b"\xff\xfe{}", b"[" * 100_000, b'{"format": 2}'],
    ids=["empty", "array", "null", "nan", "not-utf8", "deep", "only-format"],
)
def test_garbage_manifests_are_clear_errors(tmp_path, content, run_cli, one_line_error):
    folder = tmp_path / "ix"
    build("a").save(folder)
    (folder / "manifest.json").write_bytes(content)
    with pytest.raises(IndexLoadError):
        FaissIndex.load(folder)
    one_line_error(run_cli("query", folder, "who commanded the fleet?"), str(folder))


def test_tampered_documents_are_detected_even_with_matching_checksum(tmp_path):
    """A documents file rewritten with a fixed-up checksum still has to parse into valid rows."""
    import hashlib

    folder = tmp_path / "ix"
    build("a", 3).save(folder)
    paths = data_paths(folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    for bad in (b'{"id": [1], "text": "x"}\n' * 3, b'{"id": 1, "text": 5}\n' * 3, b'{"id": 1, "text": "x"}\n' * 3):
        paths["documents.jsonl"].write_bytes(bad)
        manifest["sha256"]["documents.jsonl"] = hashlib.sha256(bad).hexdigest()
        manifest["size"]["documents.jsonl"] = len(bad)
        (folder / "manifest.json").write_text(json.dumps(manifest))
        with pytest.raises(IndexLoadError, match="documents.jsonl"):
            FaissIndex.load(folder)


def test_save_refuses_bad_documents_before_touching_disk(tmp_path):
    folder = tmp_path / "ix"
    build("old").save(folder)
    before = tree(folder)
    vectors = np.ones((2, DIM), dtype=np.float32) / 4
    with pytest.raises(InputError, match="duplicate id 'x'"):
        FaissIndex(DIM).add([Document("x", "a"), Document("x", "b")], vectors)
    with pytest.raises(InputError, match="ids must be strings or integers"):
        FaissIndex(DIM).add([Document(["x"], "a"), Document("y", "b")], vectors)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="metadata of document 'n' is not JSON-serialisable"):  # before embedding
        FaissIndex(DIM).add([Document("n", "a", {"score": float("nan")}), Document("s", "b")], vectors)
    index = FaissIndex(DIM)
    index.add([Document("n", "a"), Document("s", "b")], vectors)
    index.metadatas[0]["score"] = float("nan")  # changed after add(): save() checks again
    with pytest.raises(InputError, match="metadata of document 'n' is not JSON-serialisable"):
        index.save(folder)
    assert tree(folder) == before


def test_lone_surrogates_and_huge_ids_round_trip(tmp_path):
    index = FaissIndex(DIM)
    docs = [Document(10**30, "lone \ud800 surrogate", {"k": "\udfff"}), Document("[bold]x[/]", "\x1b[31mred")]
    index.add(docs, np.ones((2, DIM), dtype=np.float32) / 4)
    index.save(tmp_path / "ix")
    loaded = FaissIndex.load(tmp_path / "ix")
    assert (loaded.ids, loaded.texts, loaded.metadatas) == (index.ids, index.texts, index.metadatas)


def test_library_arguments_are_checked_before_any_work(tmp_path):
    with pytest.raises(InputError, match="dimension must be an integer from 1 to 65536, got '384'"):
        FaissIndex("384")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="nprobe must be an integer from 1 to 16777216"):
        FaissIndex(DIM, kind="ivf", nprobe=0)

    class Refusing:
        name, dimension = "test/refusing", DIM

        def encode(self, texts):
            raise AssertionError("nothing should be embedded")

    for docs, message in (
        ([Document("a", None)], "text must be a string"),  # type: ignore[arg-type]
        ([Document("a", 5)], "text must be a string"),  # type: ignore[arg-type]
        ([Document("a", "x", [("k", "v")])], "metadata must be a dict"),  # type: ignore[arg-type]
        ([Document("a", "x"), Document("a", "y")], "duplicate id 'a'"),
    ):
        with pytest.raises(InputError, match=message):
            FaissIndex.from_documents(docs, Refusing())
    with pytest.raises(InputError, match="batch_size must be a positive integer"):
        FaissIndex.from_documents([Document("a", "x")], Refusing(), batch_size=0)


@pytest.mark.parametrize("claimed", ["hnsw", "ivf"])
def test_manifest_kind_that_does_not_match_the_faiss_file(tmp_path, claimed):
    folder = tmp_path / "ix"
    build("a").save(folder)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["kind"] = claimed
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(IndexLoadError, match=f"manifest says kind '{claimed}' but index.faiss holds a IndexFlatIP"):
        FaissIndex.load(folder)


def test_documents_with_nan_are_not_strict_json(tmp_path):
    import hashlib

    folder = tmp_path / "ix"
    build("a", 1).save(folder)
    bad = b'{"id": "a-0", "text": "a text 0", "metadata": {"label": NaN}}\n'
    data_paths(folder)["documents.jsonl"].write_bytes(bad)
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["sha256"]["documents.jsonl"], manifest["size"]["documents.jsonl"] = (
        hashlib.sha256(bad).hexdigest(),
        len(bad),
    )
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(
        IndexLoadError, match="debiasrag-data-[^/]*/documents.jsonl line 1 is corrupted: not valid JSON"
    ):
        FaissIndex.load(folder)


def test_a_killed_output_write_leaves_a_temp_that_the_next_write_removes(tmp_path):
    """kill -9 in the middle of fileio.atomic_write: the old file stays; the next write cleans the temp up."""
    target = tmp_path / "out.jsonl"
    target.write_text("old\n")
    code = (
        "import sys, time\n"
        "from debiasrag.fileio import atomic_write\n"
        "def chunks():\n"
        "    yield 'half of the new file'\n"
        "    print('writing', flush=True)\n"
        "    time.sleep(600)\n"
        f"atomic_write({str(target)!r}, chunks())\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "writing"
        (leftover,) = [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
        assert leftover.name.startswith(f".out.jsonl.{proc.pid}-")
    finally:
        proc.kill()
        proc.wait(timeout=30)
    assert target.read_text() == "old\n"
    live = tmp_path / f".out.jsonl.{os.getpid()}-0badc0de.tmp"  # a live writer's temp (this process) is kept
    live.write_text("in progress")
    not_ours = tmp_path / ".out.jsonl.tmp.keep"
    not_ours.write_text("a user's file")
    from debiasrag.fileio import atomic_write

    atomic_write(target, "new\n")
    assert target.read_text() == "new\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([target.name, live.name, not_ours.name])
