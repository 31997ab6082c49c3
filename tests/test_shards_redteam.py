"""Red-team round 26 on shards and scale-out: what a writer, a merge or a Ray run must refuse, and how it says so.

Real components throughout: the packaged MiniLM (session fixture ``embedder``), real shards on disk, and one real
local Ray cluster for the one failure that only shows through Ray's workers. The other Ray cases are checked up
front by :func:`run_ray`, before any cluster is touched, or by calling :class:`ShardWriter` on a batch shaped as
Ray Data hands it (numpy columns, object arrays of dicts holding arrays).
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from debiasrag import Document, FaissIndex
from debiasrag.corpus import read_documents
from debiasrag.errors import InputError
from debiasrag.scale import ShardWriter, run_datasets, run_ray
from debiasrag.shards import (
    EARLIER_LIST,
    REPLACED_DIR,
    RUN_MARKER,
    index_from_shards,
    list_shards,
    merge_indexes,
    read_shard,
    write_shard,
)

ROWS = [{"id": 1, "text": "She codes."}, {"id": 2, "text": "He codes."}]


def unit(n: int, dimension: int = 4) -> np.ndarray:
    return np.eye(n, dimension, dtype=np.float32)


def object_array(values: list) -> np.ndarray:
    """A 1-D numpy object array of these values, as Ray Data hands a column of dicts."""
    out = np.empty(len(values), dtype=object)
    for i, value in enumerate(values):
        out[i] = value
    return out


# -- A2: columns of different lengths ------------------------------------------------------------------------------
def test_shard_writer_refuses_columns_of_different_lengths(tmp_path, embedder) -> None:
    writer = ShardWriter(tmp_path, embedder)
    with pytest.raises(InputError, match=r"columns differ in length \('id' 3, 'text' 2\)"):
        writer({"id": [1, 2, 3], "text": ["She codes.", "He codes."]})
    with pytest.raises(InputError, match=r"columns differ in length \('id' 2, 'text' 2, 'lang' 1\)"):
        writer({"id": [1, 2], "text": ["She codes.", "He codes."], "lang": ["en"]})
    assert list_shards(tmp_path) == []  # nothing written, nothing reported as written


# -- A3: metadata keys that JSON turns into strings --------------------------------------------------------------
def test_metadata_keys_that_are_not_strings_are_refused_when_writing(tmp_path, embedder) -> None:
    with pytest.raises(InputError, match=r"metadata of document 20 has the key 1 \(int\)"):
        ShardWriter(tmp_path, embedder)(
            {"id": [20, 21], "text": ["She codes.", "He codes."], "m": [{1: "a", "1": "b"}, {}]}
        )
    nested = Document("n", "She codes.", {"m": {"a": [{"ok": 1}, {2.5: "x"}]}})
    with pytest.raises(InputError, match=r"metadata of document 'n' has the key 2.5 \(float\)"):
        write_shard(tmp_path, [nested], unit(1), model_name="m")
    with pytest.raises(InputError, match=r"metadata of document 't' has the key None"):
        write_shard(tmp_path, [Document("t", "He codes.", {None: 1})], unit(1), model_name="m")  # type: ignore[dict-item]
    assert list_shards(tmp_path) == []
    fine = Document("f", "She codes.", {"m": {"a": [1, {"b": None}]}})
    index = index_from_shards(write_shard(tmp_path, [fine], unit(1), model_name="m"), groups=None)
    assert index.metadatas == [fine.metadata]


# -- A7: blank texts, refused as `debiasrag index` refuses them ---------------------------------------------------
def test_blank_texts_are_refused_with_the_corpus_wording(tmp_path, embedder) -> None:
    with pytest.raises(InputError) as corpus_error:
        read_documents([{"id": 10, "text": "  "}])
    reason = str(corpus_error.value).split(": ", 1)[1]
    assert reason == "'text' is empty"
    with pytest.raises(InputError, match=rf"^row 1 of the batch \(id 10\): {reason}$"):
        ShardWriter(tmp_path, embedder)({"id": [10, 11], "text": ["", "  "]})
    with pytest.raises(InputError, match=r"^row 1 of the batch \(id 10\): 'body' is empty$"):
        ShardWriter(tmp_path, embedder, text_field="body")({"id": [10], "body": ["\n"]})
    with pytest.raises(InputError, match=rf"^document 'b': {reason}$"):
        write_shard(tmp_path, [Document("a", "She codes."), Document("b", " \t")], unit(2), model_name="m")
    assert list_shards(tmp_path) == []
    # a shard written before (or by hand) with a blank text does not reach an index either
    sidecar = write_shard(tmp_path, [Document("a", "She codes.")], unit(1), model_name="m", name="old")
    rows = tmp_path / "part-old.jsonl"
    rows.write_text(json.dumps({"id": "a", "text": " ", "metadata": {}}) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=rf"part-old.jsonl line 1 \(document 'a'\): {reason}"):
        read_shard(sidecar)


# -- A8: vectors that are not unit length, and shards that do not name their model --------------------------------
def test_write_shard_refuses_vectors_that_are_not_normalised(tmp_path) -> None:
    docs = [Document("q1", "She codes."), Document("q2", "He codes.")]
    with pytest.raises(InputError, match=r"vector 0 \(document 'q1'\) has L2 norm 0, not 1"):
        write_shard(tmp_path, docs, np.array([[0, 0, 0, 0], [100, 0, 0, 0]]), model_name="m")
    with pytest.raises(InputError, match=r"vector 1 \(document 'q2'\) has L2 norm 100, not 1.*L2-normalised"):
        write_shard(tmp_path, docs, np.array([[1, 0, 0, 0], [100, 0, 0, 0]]), model_name="m")
    assert list_shards(tmp_path) == []
    nearly = unit(2) * np.float32(1 + 5e-4)  # float32 rounding and quantised models: within the tolerance
    write_shard(tmp_path, docs, nearly, model_name="m")
    assert len(index_from_shards(tmp_path, groups=None)) == 2


def test_a_shard_without_a_model_does_not_merge_with_a_named_model(tmp_path) -> None:
    def shard(folder: str, prefix: str, model: str | None, name: str) -> None:
        docs = [Document(f"{prefix}1", "She codes."), Document(f"{prefix}2", "He codes.")]
        write_shard(tmp_path / folder, docs, unit(2), model_name=model, name=name)

    shard("mixed", "x", None, "a")  # sorted first: the unnamed shard comes before the named one
    shard("mixed", "y", "A", "b")
    with pytest.raises(
        InputError, match=r"part-a.json records no embedding model but other inputs were embedded with A"
    ):
        index_from_shards(tmp_path / "mixed", groups=None)
    shard("mixed2", "x", "A", "a")  # and the other way round
    shard("mixed2", "y", None, "b")
    with pytest.raises(
        InputError, match=r"part-b.json records no embedding model but other inputs were embedded with A"
    ):
        index_from_shards(tmp_path / "mixed2", groups=None)
    with pytest.raises(InputError, match="records no embedding model"):
        index_from_shards(tmp_path / "mixed2", model_name="A", groups=None)
    unnamed = FaissIndex(4)
    unnamed.add([Document("u", "She codes.")], unit(1))
    named = FaissIndex(4, model_name="A")
    named.add([Document("v", "He codes.")], unit(1))
    with pytest.raises(InputError, match="index 1 records no embedding model but other inputs were embedded with A"):
        merge_indexes([named, unnamed])
    # shards that all leave the model out still build, and the caller may name it
    shard("none", "x", None, "a")
    shard("none", "y", None, "b")
    assert index_from_shards(tmp_path / "none", groups=None).model_name is None
    assert index_from_shards(tmp_path / "none", model_name="A", groups=None).model_name == "A"


# -- B1, B2: merge_indexes and index_from_shards arguments --------------------------------------------------------
def small_index(*ids: str) -> FaissIndex:
    index = FaissIndex(4, model_name="m")
    index.add([Document(i, f"Text {i}.") for i in ids], unit(len(ids)))
    return index


def test_merge_indexes_takes_a_generator() -> None:
    first, second = small_index("a", "b"), small_index("c")
    merged = merge_indexes(index for index in [first, second])
    assert merged.ids == ["a", "b", "c"]
    with pytest.raises(InputError, match="no indexes to merge"):
        merge_indexes(iter([]))
    with pytest.raises(InputError, match="indexes must be a list of FaissIndex objects"):
        merge_indexes(x for x in [first, "b"])
    with pytest.raises(InputError, match="indexes must be a list of FaissIndex objects"):
        merge_indexes(3)  # type: ignore[arg-type]


def test_unknown_index_options_are_one_line_input_errors(tmp_path, embedder) -> None:
    with pytest.raises(InputError) as direct:
        FaissIndex.from_documents([Document("a", "She codes.")], embedder, nonsense=1)
    expected = str(direct.value)
    assert "nonsense" in expected
    with pytest.raises(InputError) as merged:
        merge_indexes([small_index("a")], nonsense=1)
    assert str(merged.value) == expected
    index_to_folder = write_shard(tmp_path, [Document("a", "She codes.")], unit(1), model_name="m")
    with pytest.raises(InputError) as built:
        index_from_shards(index_to_folder.parent, nonsense=1)
    assert str(built.value) == expected
    with pytest.raises(InputError, match="unknown index option"):
        merge_indexes([small_index("a")], model_name="other")  # would have been "multiple values" TypeError


# -- B7, B8, C2, C3: run_ray refuses before any cluster is touched -------------------------------------------------
def test_run_ray_checks_its_numbers_up_front(tmp_path) -> None:
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(InputError, match=f"batch_size must be an integer >= 1, got {bad!r}"):
            run_ray(ROWS, tmp_path, batch_size=bad)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="concurrency must be an integer >= 1, got 0"):
        run_ray(ROWS, tmp_path, concurrency=0)
    for bad_cpus in (-1, math.nan, math.inf, "1"):
        with pytest.raises(InputError, match="num_cpus must be a"):
            run_ray(ROWS, tmp_path, num_cpus=bad_cpus)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="num_proc must be an integer >= 1, got 0"):
        run_datasets(object(), tmp_path, num_proc=0)
    with pytest.raises(InputError, match="batch_size must be an integer >= 1, got 0"):
        run_datasets(object(), tmp_path, batch_size=0)
    assert not os.listdir(tmp_path)


def test_run_ray_refuses_ids_mixing_integers_and_strings(tmp_path) -> None:
    rows = [{"id": 1, "text": "She codes."}, {"id": "b", "text": "He codes."}]
    with pytest.raises(InputError, match=r"^the ids mix integers and strings \(1 and 'b'\).*every id a string"):
        run_ray(rows, tmp_path / "out")
    custom = [{"doc": "a", "body": "She codes."}, {"doc": 2, "body": "He codes."}]
    with pytest.raises(InputError, match=r"ids mix integers and strings \(2 and 'a'\)"):
        run_ray(custom, tmp_path / "out", id_field="doc", text_field="body")


def test_run_ray_says_an_empty_dataset_is_empty(tmp_path) -> None:
    with pytest.raises(InputError, match="^the dataset is empty: no documents to write$"):
        run_ray([], tmp_path / "out")
    with pytest.raises(InputError, match="dataset must be a Ray Dataset or a list of row dicts, got str"):
        run_ray("corpus.jsonl", tmp_path / "out")
    with pytest.raises(InputError, match="dataset must be a Ray Dataset or a list of row dicts, got generator"):
        run_ray((row for row in ROWS), tmp_path / "out")  # reached dataset.map_batches: AttributeError


def test_run_ray_refuses_shards_of_an_earlier_run(tmp_path) -> None:
    out = tmp_path / "out"
    write_shard(out, [Document("deleted", "A document removed since.")], unit(1), model_name="m", name="old")
    with pytest.raises(InputError) as refused:
        run_ray(ROWS, out)
    message = str(refused.value)
    assert "already holds 1 shard(s) of an earlier run" in message and "existing='replace'" in message
    assert "\n" not in message
    with pytest.raises(InputError, match="existing must be one of 'refuse', 'replace', 'add', got 'keep'"):
        run_ray(ROWS, out, existing="keep")  # type: ignore[arg-type]
    assert [p.name for p in list_shards(out)] == ["part-old.json"]  # untouched


def test_run_datasets_replaces_or_keeps_the_shards_of_an_earlier_run(tmp_path, embedder) -> None:
    datasets = pytest.importorskip("datasets")
    out = tmp_path / "out"
    write_shard(out, [Document("deleted", "A document removed since.")], unit(1, 384), model_name=embedder.name)
    (out / "part-partial.npy").write_bytes(b"left by a killed worker")  # no sidecar: not a complete shard
    (out / "notes.txt").write_text("mine", encoding="utf-8")
    rows = datasets.Dataset.from_list(ROWS)
    with pytest.raises(InputError, match="already holds 1 shard"):
        run_datasets(rows, out, embedder=embedder)
    assert run_datasets(rows, out, embedder=embedder, existing="replace") == {"documents": 2, "shards": 1}
    assert sorted(index_from_shards(out).ids) == [1, 2]  # the deleted document did not come back
    assert (out / "notes.txt").read_text(encoding="utf-8") == "mine" and not (out / "part-partial.npy").exists()
    more = datasets.Dataset.from_list([{"id": 3, "text": "They code."}])
    assert run_datasets(more, out, embedder=embedder, existing="add") == {"documents": 1, "shards": 2}
    assert sorted(index_from_shards(out).ids) == [1, 2, 3]


def test_a_failed_run_leaves_the_earlier_shards_and_a_folder_index_from_shards_refuses(tmp_path, embedder) -> None:
    # existing="replace" deleted the earlier run's shards first: a re-run failing on one row left part of the corpus,
    # which index_from_shards indexed without a word (red-team, session 34)
    datasets = pytest.importorskip("datasets")
    out = tmp_path / "out"
    assert run_datasets(datasets.Dataset.from_list(ROWS), out, embedder=embedder, batch_size=1)["shards"] == 2
    bad = datasets.Dataset.from_list([*ROWS, {"id": 3, "text": "   "}])
    with pytest.raises(InputError, match="'text' is empty"):
        run_datasets(bad, out, embedder=embedder, batch_size=1, existing="replace")
    assert sorted(index_from_shards(out).ids) == [1, 2]  # as before the failed run, its own shards gone
    fresh = tmp_path / "fresh"
    with pytest.raises(InputError, match="'text' is empty"):
        run_datasets(bad, fresh, embedder=embedder, batch_size=1)
    with pytest.raises(InputError, match="the run writing these shards did not finish"):
        index_from_shards(fresh)
    assert run_datasets(datasets.Dataset.from_list(ROWS), fresh, embedder=embedder, existing="replace")["shards"] == 1
    assert sorted(index_from_shards(fresh).ids) == [1, 2]
    # a Spark part-*.json of the user's is no shard: kept by existing="replace"
    (fresh / "part-00000-3f2a-c000.json").write_text('{"a": 1}\n{"a": 2}\n', encoding="utf-8")
    run_datasets(datasets.Dataset.from_list(ROWS), fresh, embedder=embedder, existing="replace")
    assert (fresh / "part-00000-3f2a-c000.json").read_text(encoding="utf-8") == '{"a": 1}\n{"a": 2}\n'


def finished_run(tmp_path: Path, embedder) -> tuple[Any, Path]:
    """``datasets`` and a folder holding a finished run of ROWS: two shards, one document each."""
    datasets = pytest.importorskip("datasets")
    out = tmp_path / "out"
    assert run_datasets(datasets.Dataset.from_list(ROWS), out, embedder=embedder, batch_size=1)["shards"] == 2
    return datasets, out


def failing_replace_run(datasets: Any, out: Path, embedder) -> None:
    """A replace run over ``out`` that fails on its third row, as any run can."""
    bad = datasets.Dataset.from_list([*ROWS, {"id": 3, "text": "   "}])
    with pytest.raises(InputError, match="'text' is empty"):
        run_datasets(bad, out, embedder=embedder, batch_size=1, existing="replace")


def killed_replace_run(out: Path, moved: list[str], *, unfinished: bool = False) -> Path:
    """The folder as a replace run killed after listing the earlier run's shard files and moving ``moved`` aside
    leaves it (a kill runs no handlers, so the state is made by hand); returns the set-aside folder."""
    earlier = sorted(p.name for p in out.glob("part-*"))
    aside = out / REPLACED_DIR
    aside.mkdir()
    (aside / EARLIER_LIST).write_text(json.dumps({"files": earlier, "unfinished": unfinished}), encoding="utf-8")
    (out / RUN_MARKER).write_text("started\n", encoding="utf-8")
    for name in moved:
        (out / name).rename(aside / name)
    return aside


def test_a_replace_run_killed_while_setting_the_earlier_shards_aside_is_never_indexed_as_a_subset(
    tmp_path, embedder
) -> None:
    # the marker was written after the moves: a kill between them left a folder index_from_shards read as 2,956 of
    # 3,000 documents without a word (red-team round 5). A kill cannot run handlers, so the state is made by hand.
    datasets, out = finished_run(tmp_path, embedder)
    earlier = sorted(p.name for p in out.glob("part-*"))
    aside = killed_replace_run(out, earlier[:2])  # killed half-way through the moves
    with pytest.raises(InputError, match="was interrupted and the earlier run's shards are set aside"):
        index_from_shards(out)
    with pytest.raises(InputError, match="finish it with existing='replace'"):
        run_datasets(datasets.Dataset.from_list(ROWS), out, embedder=embedder, existing="add")
    failing_replace_run(datasets, out, embedder)  # restores the earlier run
    assert sorted(p.name for p in out.glob("part-*")) == earlier and not aside.exists()
    assert sorted(index_from_shards(out).ids) == [1, 2]
    more = datasets.Dataset.from_list([{"id": 5, "text": "They code."}])
    assert run_datasets(more, out, embedder=embedder, existing="replace")["documents"] == 1
    assert index_from_shards(out).ids == [5] and not aside.exists()


def test_a_resumed_replace_run_keeps_the_earlier_run_when_the_killed_run_reused_its_shard_names(
    tmp_path, embedder
) -> None:
    # shard names hash the batch's ids: the killed run wrote the earlier run's names again, and the next replace
    # run moved them over the earlier run's files set aside (review of red-team round 5)
    datasets, out = finished_run(tmp_path, embedder)
    earlier = sorted(p.name for p in out.glob("part-*"))
    before = {name: (out / name).read_bytes() for name in earlier}
    killed_replace_run(out, earlier)
    for name in earlier:
        (out / name).write_bytes(b"the killed run's own file")  # same name, other content
    failing_replace_run(datasets, out, embedder)
    assert {name: (out / name).read_bytes() for name in earlier} == before
    assert sorted(index_from_shards(out).ids) == [1, 2]


def test_a_failed_replace_run_gives_an_unfinished_earlier_run_its_marker_back(tmp_path, embedder) -> None:
    datasets, out = finished_run(tmp_path, embedder)
    # that run was killed, and so was a replace run after it, once it had set that run's shards aside
    killed_replace_run(out, sorted(p.name for p in out.glob("part-*")), unfinished=True)
    failing_replace_run(datasets, out, embedder)
    with pytest.raises(InputError, match="did not finish"):
        index_from_shards(out)


def test_a_finished_replace_run_killed_while_deleting_the_earlier_shards_is_still_finished(tmp_path, embedder) -> None:
    # the success path deleted the set-aside shards with no commit point: a kill inside that delete, then a failed
    # replace run, restored part of the earlier run without a marker (second review); now one rename commits first
    datasets, out = finished_run(tmp_path, embedder)
    more = datasets.Dataset.from_list([{"id": 5, "text": "They code."}])
    assert run_datasets(more, out, embedder=embedder, existing="replace")["documents"] == 1
    assert sorted(p.name for p in out.iterdir() if p.name.startswith(".")) == []  # aside gone, marker gone
    done = out / (REPLACED_DIR + ".done")  # as a kill during its deletion leaves it
    done.mkdir()
    (done / "part-0.npy").write_bytes(b"an earlier shard, half deleted")
    assert index_from_shards(out).ids == [5]
    failing_replace_run(datasets, out, embedder)
    assert index_from_shards(out).ids == [5] and not done.exists()


def test_a_replace_run_killed_while_writing_its_list_can_run_again(tmp_path, embedder) -> None:
    datasets, out = finished_run(tmp_path, embedder)
    (out / REPLACED_DIR).mkdir()
    (out / REPLACED_DIR / "..earlier-run.json.123-abcdef01.tmp").write_text("{", encoding="utf-8")
    (out / RUN_MARKER).write_text("started\n", encoding="utf-8")
    assert run_datasets(datasets.Dataset.from_list(ROWS), out, embedder=embedder, existing="replace")["documents"] == 2
    assert sorted(index_from_shards(out).ids) == [1, 2]


def test_a_shard_rewrite_that_fails_leaves_the_old_shard_whole(tmp_path) -> None:
    # the data files were replaced before the sidecar failed: new rows and vectors under the old sidecar's groups
    write_shard(tmp_path, [Document("a", "She is a nurse.")], unit(1), model_name="m", name="one")
    for bad in ({"preprocessing": {"x": {1, 2}}}, {"preprocessing": "ner"}, {"model_name": 123}, {"groups": []}):
        with pytest.raises(InputError):
            write_shard(
                tmp_path, [Document("a", "He is a pilot.")], unit(1), **{"model_name": "m", "name": "one", **bad}
            )
        assert read_shard(tmp_path / "part-one.json").documents[0].text == "She is a nurse."
    with pytest.raises(InputError, match="name must be a file-name stem"):
        write_shard(tmp_path, [Document("a", "x")], unit(1), model_name="m", name="a/b")


# -- B11, C1: batches as Ray Data hands them, written by the writer directly ----------------------------------------
def test_nested_metadata_in_a_numpy_batch_is_written_as_plain_json(tmp_path, embedder) -> None:
    batch = {  # what ray.data.from_items(rows).take_batch(batch_format="numpy") gives for nested metadata
        "id": np.array([1, 2]),
        "text": np.array(["She codes.", "He codes."], dtype=object),
        "m": object_array([{"a": np.array([1, 2]), "b": {"c": np.array([[1.5], [2.5]])}}, {"a": np.array([3])}]),
        "tags": object_array([np.array(["x", "y"], dtype=object), np.array([], dtype=object)]),
    }
    written = ShardWriter(tmp_path, embedder)(batch)
    assert written["id"] == [1, 2]
    index = index_from_shards(tmp_path)
    assert index.metadatas == [
        {"m": {"a": [1, 2], "b": {"c": [[1.5], [2.5]]}}, "tags": ["x", "y"]},
        {"m": {"a": [3]}, "tags": []},
    ]


def test_a_bad_text_in_a_batch_names_its_row_and_id(tmp_path, embedder) -> None:
    writer = ShardWriter(tmp_path, embedder)
    with pytest.raises(InputError, match=r"^row 2 of the batch \(id 2\): 'text' must be a string$"):
        writer({"id": [1, 2], "text": ["She codes.", None]})
    with pytest.raises(InputError, match=r"^row 1 of the batch \(id 1.0\): 'id' must be a string or an integer$"):
        writer({"id": np.array([1.0, 2.0]), "text": ["She codes.", "He codes."]})
    assert list_shards(tmp_path) == []


# -- B9: through real Ray workers --------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ray_local(tmp_path_factory):
    ray = pytest.importorskip("ray")
    pytest.importorskip("ray.data")
    os.environ.setdefault("RAY_DATA_DISABLE_PROGRESS_BARS", "1")
    started = not ray.is_initialized()
    if started:  # one actor and one CPU left for Ray Data's own tasks
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    ray.data.DataContext.get_current().enable_progress_bars = False
    yield ray
    if started:
        ray.shutdown()


def test_run_ray_raises_a_worker_input_error_as_its_one_line_message(ray_local, tmp_path) -> None:
    context = ray_local.data.DataContext.get_current()
    before = context.raise_original_map_exception
    rows = [{"id": 1, "text": "She codes."}, {"id": 2, "text": None}]
    with pytest.raises(InputError) as raised:
        run_ray(rows, tmp_path / "out", concurrency=1)  # the writer fails before it embeds: no model loads
    assert type(raised.value) is InputError  # the worker's own error, not Ray's RayTaskError around it
    assert str(raised.value) == "row 2 of the batch (id 2): 'text' must be a string"
    assert context.raise_original_map_exception == before


def test_index_from_shards_takes_the_default_models_short_name(tmp_path, embedder) -> None:
    # "all-MiniLM-L6-v2" works for `debiasrag index CORPUS` but was "not comparable" for --shards (red-team, s34)
    write_shard(tmp_path, [Document(1, "She codes.")], embedder.encode(["She codes."]), model_name=embedder.name)
    assert index_from_shards(tmp_path, model_name="all-MiniLM-L6-v2").model_name == embedder.name
    with pytest.raises(InputError, match="vectors are not comparable"):
        index_from_shards(tmp_path, model_name="all-mpnet-base-v2")
