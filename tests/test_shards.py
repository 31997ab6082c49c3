"""Shards: a FaissIndex built from precomputed vectors without re-embedding, and indexes merged.

Vectors come from the packaged MiniLM (session fixture); "without re-embedding" is checked by building from
shards whose vectors were deliberately not the model's: the index must hold exactly those.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import test_versions

from debiasrag import DebiasedRetriever, Document, FaissIndex
from debiasrag.anonymize import DEFAULT_ENTITIES
from debiasrag.errors import InputError
from debiasrag.shards import (
    index_from_shards,
    index_to_shard,
    list_shards,
    merge_indexes,
    read_shard,
    shards_mixed,
    write_shard,
)

TEXTS = [
    "The nurse worked the night shift at the hospital.",
    "The engineer designed a new bridge over the river.",
    "A teacher graded essays late into the evening.",
    "The pilot landed the plane safely in the storm.",
    "He cooked dinner for the whole family.",
    "She repaired the car engine in the garage.",
]


def docs(start: int, n: int) -> list[Document]:
    return [Document(f"d{i}", TEXTS[i % len(TEXTS)] + f" ({i})", {"i": i}) for i in range(start, start + n)]


def test_index_from_shards_keeps_the_stored_vectors(tmp_path, embedder) -> None:
    first, second = docs(0, 4), docs(4, 3)
    rng = np.random.default_rng(0)
    v1 = embedder.encode_documents([d.text for d in first])
    v2 = rng.normal(size=(3, 384)).astype(np.float32)  # not what the model would give: must survive as is
    v2 /= np.linalg.norm(v2, axis=1, keepdims=True)
    write_shard(tmp_path, first, v1, model_name=embedder.name, name="a")
    write_shard(tmp_path, second, v2, model_name=embedder.name, name="b")
    index = index_from_shards(tmp_path)
    assert index.ids == [d.id for d in first + second]
    assert index.texts == [d.text for d in first + second]
    assert index.metadatas == [d.metadata for d in first + second]
    assert index.model_name == embedder.name
    np.testing.assert_array_equal(index.vectors_at(np.arange(7)), np.concatenate([v1, v2]))


def test_index_from_shards_retrieves_like_an_index_built_directly(tmp_path, embedder) -> None:
    corpus = docs(0, 12)
    direct = FaissIndex.from_documents(corpus, embedder)
    for start in range(0, 12, 5):
        part = corpus[start : start + 5]
        write_shard(tmp_path / "s", part, embedder.encode_documents([d.text for d in part]), model_name=embedder.name)
    built = index_from_shards(tmp_path / "s")
    query = "who works in a hospital at night"
    got = DebiasedRetriever(built, embedder, strategy="topk", k=5).retrieve(query)
    want = DebiasedRetriever(direct, embedder, strategy="topk", k=5).retrieve(query)
    assert got.ids == want.ids
    np.testing.assert_allclose([h.score for h in got], [h.score for h in want], atol=1e-5)
    built.save(tmp_path / "index")
    assert FaissIndex.load(tmp_path / "index").ids == built.ids


@pytest.mark.parametrize("kind", ["flat", "hnsw", "ivf"])
def test_every_index_kind_builds_from_shards_and_merges(tmp_path, embedder, kind) -> None:
    corpus = docs(0, 80)
    vectors = embedder.encode_documents([d.text for d in corpus])
    write_shard(tmp_path, corpus[:50], vectors[:50], model_name=embedder.name)
    write_shard(tmp_path, corpus[50:], vectors[50:], model_name=embedder.name)
    index = index_from_shards(tmp_path, kind=kind)
    assert index.kind == kind and len(index) == 80 and sorted(index.ids) == sorted(d.id for d in corpus)
    merged = merge_indexes([index, FaissIndex.from_documents(docs(80, 5), embedder, kind="flat")])
    assert merged.kind == kind and len(merged) == 85
    position = merged.position_of("d82")
    np.testing.assert_allclose(
        merged.vectors_at([position]), embedder.encode_documents([docs(82, 1)[0].text]), atol=1e-5
    )


def test_duplicate_ids_across_shards_are_refused(tmp_path, embedder) -> None:
    vectors = embedder.encode_documents([d.text for d in docs(0, 3)])
    write_shard(tmp_path, docs(0, 3), vectors, model_name=embedder.name, name="one")
    write_shard(tmp_path, docs(2, 1), vectors[:1], model_name=embedder.name, name="two")
    with pytest.raises(InputError, match=r"duplicate id 'd2' in .*part-two\.json \(also in .*part-one\.json\)"):
        index_from_shards(tmp_path)


def test_a_shard_folder_or_file_given_twice_is_named(tmp_path, embedder) -> None:
    vectors = embedder.encode_documents([d.text for d in docs(0, 2)])
    write_shard(tmp_path, docs(0, 2), vectors, model_name=embedder.name, name="one")
    with pytest.raises(InputError, match=r"is given twice \(also as .*\); give each shard folder or file once"):
        index_from_shards([tmp_path, tmp_path / "."])
    shard = tmp_path / "part-one.json"
    with pytest.raises(InputError, match="is given twice"):
        index_from_shards([shard, shard])
    with pytest.raises(InputError, match=r"part-one\.json is given twice \(its folder and the file\)"):
        index_from_shards([tmp_path, shard])


def test_duplicate_ids_across_merged_indexes_are_refused(embedder) -> None:
    a = FaissIndex.from_documents(docs(0, 3), embedder)
    b = FaissIndex.from_documents(docs(1, 3), embedder)
    with pytest.raises(InputError, match="duplicate id 'd1' in index 1"):
        merge_indexes([a, b])


def test_duplicate_ids_within_one_shard_are_refused(tmp_path) -> None:
    with pytest.raises(InputError, match="duplicate id 'x' within one shard"):
        write_shard(tmp_path, [Document("x", "a"), Document("x", "b")], np.eye(2, 4), model_name="m")
    assert list(tmp_path.iterdir()) == []


def test_shards_of_different_models_or_dimensions_do_not_mix(tmp_path) -> None:
    write_shard(tmp_path / "m", [Document("a", "x")], np.eye(1, 4), model_name="model-a")
    write_shard(tmp_path / "m", [Document("b", "y")], np.eye(1, 4), model_name="model-b")
    with pytest.raises(InputError, match="not comparable"):
        index_from_shards(tmp_path / "m")
    write_shard(tmp_path / "d", [Document("a", "x")], np.eye(1, 4), model_name="m")
    write_shard(tmp_path / "d", [Document("b", "y")], np.eye(1, 8), model_name="m")
    with pytest.raises(InputError, match="dimension"):
        index_from_shards(tmp_path / "d")


def test_merge_refuses_indexes_preprocessed_differently(embedder) -> None:
    a = FaissIndex.from_documents(docs(0, 2), embedder)
    b = FaissIndex.from_documents(docs(2, 2), embedder)
    b.preprocessing = {"anonymize": {"method": "ner", "strategy": "remove", "entities": None}}
    with pytest.raises(InputError, match="preprocessed differently"):
        merge_indexes([a, b])
    b.preprocessing = {}
    assert merge_indexes([a, b]).ids == ["d0", "d1", "d2", "d3"]
    # the same anonymization recorded as `index --anonymize ner` does (None) and as ShardWriter does (its list)
    a.preprocessing = {"anonymize": {"method": "ner", "strategy": "remove", "entities": None}}
    b.preprocessing = {"anonymize": {"method": "ner", "strategy": "remove", "entities": sorted(DEFAULT_ENTITIES)}}
    assert len(merge_indexes([a, b])) == 4
    b.preprocessing = {"anonymize": {"method": "ner", "strategy": "remove", "entities": ["person"]}}
    with pytest.raises(InputError, match="preprocessed differently"):
        merge_indexes([a, b])


def test_an_unfinished_shard_is_named_and_a_damaged_one_reported(tmp_path) -> None:
    write_shard(tmp_path, [Document("a", "x")], np.eye(1, 4), model_name="m", name="good")
    (tmp_path / "part-crashed.npy").write_bytes(b"half a file")  # worker died before its sidecar
    (tmp_path / "part-crashed.jsonl").write_text('{"id": "c", "text": "z"}\n', encoding="utf-8")
    assert [p.name for p in list_shards(tmp_path)] == ["part-good.json"]  # readers during a run skip it
    # building the index does not: its documents would be missing without a word
    with pytest.raises(InputError, match=r"part-crashed is incomplete: part-crashed.json is missing .*re-run"):
        index_from_shards(tmp_path)
    for path in tmp_path.glob("part-crashed.*"):
        path.unlink()
    assert index_from_shards(tmp_path).ids == ["a"]
    write_shard(tmp_path, [Document("b", "y")], np.eye(1, 4), model_name="m", name="bad")
    (tmp_path / "part-bad.jsonl").write_text("", encoding="utf-8")
    with pytest.raises(InputError, match="part-bad: 0 documents"):
        index_from_shards(tmp_path)
    (tmp_path / "part-bad.npy").unlink()
    with pytest.raises(InputError, match="part-bad is incomplete: part-bad.npy is missing"):
        read_shard(tmp_path / "part-bad.json")


def test_bad_shard_inputs_are_one_line_errors(tmp_path) -> None:
    with pytest.raises(InputError, match="2 documents but 1 vectors"):
        write_shard(tmp_path, docs(0, 2), np.eye(1, 4), model_name="m")
    with pytest.raises(InputError, match="NaN"):
        write_shard(tmp_path, docs(0, 1), np.full((1, 4), np.nan), model_name="m")
    with pytest.raises(InputError, match="not JSON-serialisable"):
        write_shard(tmp_path, [Document("a", "x", {"when": object()})], np.eye(1, 4), model_name="m")
    with pytest.raises(InputError, match="shard folder not found"):
        index_from_shards(tmp_path / "missing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no complete shards"):
        index_from_shards(tmp_path / "empty")
    with pytest.raises(InputError, match="no indexes to merge"):
        merge_indexes([])


def test_index_round_trips_through_a_shard(tmp_path, embedder) -> None:
    index = FaissIndex.from_documents(docs(0, 5), embedder)
    index.preprocessing = {"anonymize": {"method": "ner", "strategy": "remove", "entities": None}}
    sidecar = index_to_shard(index, tmp_path, name="all")
    assert json.loads(sidecar.read_text())["count"] == 5
    back = index_from_shards(sidecar)
    assert back.ids == index.ids and back.preprocessing == index.preprocessing
    np.testing.assert_array_equal(back.vectors_at(np.arange(5)), index.vectors_at(np.arange(5)))


# Versions of one text split across inputs: only together do their own words say whose text each is
# (tests/test_versions.py: the detector alone reads the female wording as Mr Hale's).
DEPOT = [Document(key, text) for key, text in zip("fmn", test_versions.DEPOT)]


def test_groups_in_shards_are_stored_and_versions_across_shards_read_by_contrast(tmp_path, embedder) -> None:
    from debiasrag.groups import detector
    from debiasrag.index import StoredGroups

    found = detector("gender")
    for name, part in (("a", DEPOT[:1]), ("b", DEPOT[1:])):
        alone = StoredGroups(found.fingerprint, found.groups_of(part))
        vectors = embedder.encode_documents([d.text for d in part])
        write_shard(tmp_path, part, vectors, model_name=embedder.name, name=name, groups={"gender": alone})
    assert read_shard(tmp_path / "part-a.json").groups["gender"].groups == ["male"]  # alone: the side person's
    index = index_from_shards(tmp_path)
    assert index.groups["gender"] == StoredGroups(found.fingerprint, ["female", "male", "neutral"])
    stale = {"gender": StoredGroups("another detector", ["male"])}
    write_shard(tmp_path / "old", DEPOT[:1], embedder.encode_documents([DEPOT[0].text]), model_name="m", groups=stale)
    assert index_from_shards(tmp_path / "old").groups["gender"].detector == found.fingerprint  # inferred again
    assert index_from_shards(tmp_path / "old", groups=None).groups["gender"].detector == "another detector"
    with pytest.raises(InputError, match="2 gender groups for 1 documents"):
        write_shard(tmp_path, DEPOT[:1], np.eye(1, 4), model_name="m", groups={"gender": StoredGroups("x", ["a", "b"])})
    sidecar = json.loads((tmp_path / "part-a.json").read_text())
    sidecar["groups"]["gender"]["groups"] = [1]
    (tmp_path / "part-a.json").write_text(json.dumps(sidecar))
    with pytest.raises(InputError, match="'gender' groups are corrupted"):
        read_shard(tmp_path / "part-a.json")


def test_a_sidecar_group_the_concept_does_not_have_names_its_shard(tmp_path) -> None:
    write_shard(tmp_path, docs(0, 2), np.eye(2, 4), model_name="m", name="g")
    sidecar = tmp_path / "part-g.json"
    meta = json.loads(sidecar.read_text())
    meta["groups"] = {"gender": {"detector": "0" * 64, "groups": ["neutral", "zzz"]}}
    sidecar.write_text(json.dumps(meta))
    with pytest.raises(InputError, match=r"shard .*part-g: unknown 'gender' group\(s\) 'zzz'"):
        index_from_shards(tmp_path)


def test_mixed_documents_are_kept_in_the_sidecar_and_checked(tmp_path) -> None:
    from debiasrag.groups import detector
    from debiasrag.index import StoredGroups

    found = detector("gender")
    groups = {"gender": StoredGroups(found.fingerprint, ["male"])}
    write_shard(tmp_path, DEPOT[:1], np.eye(1, 4), model_name="m", name="a", groups=groups, mixed={"gender": ["f"]})
    assert read_shard(tmp_path / "part-a.json").mixed == {"gender": ["f"]}
    assert shards_mixed(tmp_path) == ["f"]
    write_shard(tmp_path / "old", DEPOT[:1], np.eye(1, 4), model_name="m", groups=groups)  # recorded none
    assert shards_mixed([tmp_path, tmp_path / "old"]) is None
    for mixed in ({"gender": ["m"]}, {"age": []}):  # not an id of the shard; no groups for the concept
        with pytest.raises(InputError, match="must be ids of the shard, with its groups"):
            write_shard(tmp_path, DEPOT[:1], np.eye(1, 4), model_name="m", groups=groups, mixed=mixed)
    sidecar = json.loads((tmp_path / "part-a.json").read_text())
    sidecar["groups"]["gender"]["mixed"] = "f"
    (tmp_path / "part-a.json").write_text(json.dumps(sidecar))
    with pytest.raises(InputError, match="'gender' mixed documents are corrupted"):
        read_shard(tmp_path / "part-a.json")


def test_merged_indexes_read_versions_across_inputs(embedder) -> None:
    first = FaissIndex.from_documents(DEPOT[:1], embedder)
    second = FaissIndex.from_documents(DEPOT[1:], embedder)
    assert first.store_groups().groups == ["male"]
    second.store_groups()
    assert merge_indexes([first, second]).groups["gender"].groups == ["female", "male", "neutral"]
    second.groups.clear()  # groups every input stored carry over, others do not
    assert "gender" not in merge_indexes([first, second]).groups


def test_a_sidecar_whose_preprocessing_is_a_list_is_corrupted(tmp_path) -> None:
    # "preprocessing": [] read as "no preprocessing" (red-team, session 34)
    path = write_shard(tmp_path, [Document("a", "A text.")], np.eye(1, 4, dtype=np.float32), model_name="m")
    sidecar = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(json.dumps({**sidecar, "preprocessing": []}), encoding="utf-8")
    with pytest.raises(InputError, match="'preprocessing' an object"):
        read_shard(path)
