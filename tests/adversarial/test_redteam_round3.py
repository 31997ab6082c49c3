"""Red-team round 3 (session 25): output targets that are not plain files, indexes the loader would refuse, and
arguments FAISS crashes on.

Every case failed before its fix: an output over a device node or FIFO replaced it with a regular file; a name of
230–255 bytes could not be written (the temp name passed 255); ``--mapping-out -`` wrote the name mapping to a file
called ``-``; ``index --shards`` and ``FaissIndex.save`` published manifests the loader then refused (the good index
replaced); ``hnsw_m=1`` crashed the interpreter.
"""

from __future__ import annotations

import json
import os
import stat
import threading
from pathlib import Path

import numpy as np
import pytest

from debiasrag import Document, FaissIndex
from debiasrag.cli import main
from debiasrag.errors import IndexLoadError, InputError
from debiasrag.fileio import atomic_write_text
from debiasrag.shards import write_shard

VECTORS = "he 1 0 0\nshe 0 1 0\nnurse 0.5 0.5 0.1\nman 1 0.1 0\nwoman 0.1 1 0\n"


def _special(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / kind
    if kind == "fifo":
        os.mkfifo(path)
    else:
        try:
            os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # a /dev/null of our own
        except PermissionError:
            pytest.skip("creating a device node needs root")
    return path


def _read_fifo(path: Path, out: list[bytes]) -> threading.Thread:
    thread = threading.Thread(target=lambda: out.append(path.read_bytes()), daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("kind", ["chardev", "fifo"])
def test_an_output_over_a_device_or_fifo_writes_into_it_and_keeps_it(tmp_path, kind):
    path = _special(tmp_path, kind)
    got: list[bytes] = []
    reader = _read_fifo(path, got) if kind == "fifo" else None
    atomic_write_text(path, "data\n")
    if reader is not None:
        reader.join(10)
        assert got == [b"data\n"]
    mode = path.stat().st_mode
    assert stat.S_ISFIFO(mode) if kind == "fifo" else stat.S_ISCHR(mode)  # not replaced by a regular file
    assert sorted(p.name for p in tmp_path.iterdir()) == [kind]  # no temp file left


def test_mitigate_to_a_device_node_keeps_the_device(tmp_path, capsys):
    (tmp_path / "v.txt").write_text(VECTORS)
    device = _special(tmp_path, "chardev")
    assert main(["mitigate", str(tmp_path / "v.txt"), str(device), "--algorithm", "hd"]) == 0, capsys.readouterr().err
    assert stat.S_ISCHR(device.stat().st_mode)


def test_an_output_name_of_250_bytes_is_written_and_replaced(tmp_path):
    path = tmp_path / ("z" * 250)
    atomic_write_text(path, "one")
    atomic_write_text(path, "two")
    assert path.read_text() == "two"
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


def test_mapping_out_dash_is_standard_output_not_a_file_named_dash(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("in.jsonl").write_text(json.dumps({"id": 1, "text": "She met Mary Smith in Paris."}) + "\n")
    args = ["anonymize", "in.jsonl", "out.jsonl", "--strategy", "replace", "--mapping-out", "-"]
    assert main(args) == 0, capsys.readouterr().err
    mapping = json.loads(capsys.readouterr().out)
    assert "Mary Smith" in mapping.values()
    assert not Path("-").exists()
    both = ["anonymize", "in.jsonl", "-", "--strategy", "replace", "--mapping-out", "-"]
    assert main(both) == 2
    assert capsys.readouterr().err.startswith("debiasrag: error: --mapping-out - and the output - would share")


def _good_index(folder: Path) -> None:
    index = FaissIndex(4, model_name="fake")
    index.add([Document("old", "the good index")], np.ones((1, 4), dtype=np.float32) / 2)
    index.save(folder)


def test_index_from_shards_never_replaces_a_good_index_by_one_that_cannot_load(tmp_path, capsys):
    _good_index(tmp_path / "ix")
    docs = [Document(1, "She is a nurse."), Document(2, "He is a pilot.")]
    write_shard(tmp_path / "sh", docs, np.eye(2, 4), model_name="fake", preprocessing={"foo": 1})
    assert main(["index", "--shards", str(tmp_path / "sh"), "--out", str(tmp_path / "ix")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("debiasrag: error: refusing to save to ") and err.count("\n") == 1, err
    assert "'preprocessing.foo' must be" in err
    assert FaissIndex.load(tmp_path / "ix").ids == ["old"]


def test_save_refuses_what_load_would_refuse_and_keeps_the_previous_index(tmp_path):
    _good_index(tmp_path / "ix")
    index = FaissIndex(4, model_name="fake")
    index.add([Document("new", "x")], np.ones((1, 4), dtype=np.float32) / 2)
    index.preprocessing = {"foo": 1}  # public attribute: checked when saving
    with pytest.raises(InputError, match=r"refusing to save to .*could not be loaded again .*'preprocessing.foo'"):
        index.save(tmp_path / "ix")
    assert FaissIndex.load(tmp_path / "ix").ids == ["old"]


@pytest.mark.parametrize(
    ("options", "fragment"),
    [
        ({"kind": "hnsw", "hnsw_m": 1}, "hnsw_m must be an integer from 2 to 16777216, got 1"),  # FAISS segfaults
        ({"kind": "hnsw", "ef_search": 10**12}, "ef_search must be an integer from 1 to 16777216"),
        ({"kind": "hnsw", "hnsw_m": 2**40}, "hnsw_m must be an integer from 2 to 16777216"),
        ({"kind": "ivf", "nprobe": 2**31}, "nprobe must be an integer from 1 to 16777216"),
        ({"kind": "ivf", "nlist": 0}, "nlist must be an integer from 1 to 16777216 or None, got 0"),
    ],
    ids=["hnsw_m-1", "ef_search", "hnsw_m-huge", "nprobe", "nlist"],
)
def test_index_options_faiss_or_the_loader_would_refuse(options, fragment):
    with pytest.raises(InputError, match=fragment):
        FaissIndex(8, model_name="fake", **options)


def test_a_dimension_past_the_loaders_limit_is_refused_when_built(tmp_path):
    with pytest.raises(InputError, match="dimension must be an integer from 1 to 65536, got 65537"):
        FaissIndex(65537)
    manifest_limit = "'dimension' must be an integer from 1 to 65536"
    _good_index(tmp_path / "ix")
    manifest = tmp_path / "ix" / "manifest.json"
    data = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**data, "dimension": 65537}))
    with pytest.raises(IndexLoadError, match=manifest_limit):
        FaissIndex.load(tmp_path / "ix")


# -- command-line and library inputs that raised raw tracebacks ------------------------------------------------
@pytest.mark.parametrize(
    ("vectors", "args", "fragment"),
    [
        ("3 ²\nhe 1 2\nshe 2 1\nman 1 1\n", ["--algorithm", "hd"], "line 1"),  # "²".isdigit(), int("²") fails
        (VECTORS, ["--algorithm", "dhd"], "it needs at least 10 words and dimensions, got 5 words of 3 dimensions"),
    ],
    ids=["superscript-header", "dhd-small"],
)
def test_mitigate_inputs_that_raised_tracebacks(tmp_path, capsys, vectors, args, fragment):
    (tmp_path / "v.txt").write_text(vectors, encoding="utf-8")
    (tmp_path / "out.txt").write_text("old\n")
    assert main(["mitigate", str(tmp_path / "v.txt"), str(tmp_path / "out.txt"), *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("debiasrag: error: ") and err.count("\n") == 1 and fragment in err, err
    assert (tmp_path / "out.txt").read_text() == "old\n"


def test_half_sibling_regression_takes_definitional_words_not_pairs(tmp_path, capsys):
    (tmp_path / "v.txt").write_text(VECTORS)
    (tmp_path / "def.json").write_text('[["he"], ["she"]]')
    args = ["mitigate", str(tmp_path / "v.txt"), str(tmp_path / "o.txt"), "--algorithm", "hsr"]
    assert main([*args, "--definitional", str(tmp_path / "def.json")]) == 0, capsys.readouterr().err


def test_word_vectors_with_line_separator_characters_in_words_are_read(tmp_path):
    from debiasrag.mitigate.apply import read_vectors

    (tmp_path / "v.txt").write_text("he 1 0\nshe 0 1\na\u2028b 1 1\nc\x85d 0.5 1\n", encoding="utf-8")
    assert read_vectors(tmp_path / "v.txt").words == ["he", "she", "a\u2028b", "c\x85d"]


@pytest.mark.parametrize("template", ["{attribute.foo}", "{attribute[0]}", "{attribute!r}", "{}", "{other}"])
def test_concept_templates_hold_only_the_attribute_placeholder(tmp_path, template):
    from debiasrag.concepts import load_concept

    concept = tmp_path / "c.json"
    concept.write_text(
        json.dumps(
            {
                "name": "religion",
                "groups": ["christian", "muslim"],
                "variants": {"christian": "This person is Christian.", "muslim": "This person is Muslim."},
                "debiasing": "This person's religion is unknown.",
                "templates": {"t": template},
            }
        )
    )
    with pytest.raises(InputError, match="may contain only the placeholder"):
        load_concept(concept)


def test_a_damaged_embedding_cache_is_embedded_again_not_a_traceback(tmp_path, embedder):
    import sqlite3

    from debiasrag.embedding_cache import CachedEmbedder

    texts = ["She is a nurse.", "He is a pilot."]
    fresh = CachedEmbedder.wrap(embedder, tmp_path).encode(texts)
    db = sqlite3.connect(next(tmp_path.glob("*.sqlite")))
    db.execute("UPDATE vectors SET vector = substr(vector, 1, 101)")  # odd length
    db.execute("UPDATE meta SET value = 'abc' WHERE key = 'dimension'")
    db.commit()
    db.close()
    again = CachedEmbedder.for_model(None, tmp_path)  # the dimension from the (damaged) cache, not given
    np.testing.assert_allclose(again.encode(texts), fresh, atol=1e-6)
    assert again.misses == 2
    assert CachedEmbedder.for_model(None, tmp_path).encode(texts).shape == (2, 384)  # mended: served from the cache
    with pytest.raises(InputError, match="cannot use the embedding cache folder"):
        CachedEmbedder.wrap(embedder, next(tmp_path.glob("*.sqlite")))  # a file where the folder should be
