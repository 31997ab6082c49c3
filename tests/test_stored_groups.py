"""Groups inferred once at index time, saved with the index and read by the retriever instead of re-inferred."""

from __future__ import annotations

import json

import pytest

from debiasrag import DebiasedRetriever, Document, FaissIndex, IndexLoadError, InputError
from debiasrag.groups import GROUP_KEY, GroupDetector, detector
from debiasrag.index import StoredGroups
from debiasrag.storage import MANIFEST, data_paths

DOCS = [
    Document("f", "Maria fixed the boiler herself before her shift at the hospital."),
    Document("m", "Tom fixed the boiler himself before his shift at the hospital."),
    Document("n", "The boiler was fixed before the shift at the hospital."),
    Document("label", "Tom fixed the boiler.", {GROUP_KEY: "female"}),  # a user label beats the text
]


@pytest.fixture
def index(embedder) -> FaissIndex:
    return FaissIndex.from_documents(DOCS, embedder)


def test_store_groups_infers_each_document_once_and_keeps_labels(index):
    stored = index.store_groups("gender")
    assert stored.groups == ["female", "male", "neutral", "female"]
    assert stored.detector == detector("gender").fingerprint
    assert index.groups == {"gender": stored}


def test_precomputed_groups_are_checked_against_the_index(index):
    from debiasrag import InputError
    from debiasrag.groups import group_census

    groups, summary = group_census(DOCS)
    assert summary == {"female": 2, "male": 1, "neutral": 1, "mixed": 0}
    assert index.store_groups(groups=groups) == StoredGroups(detector("gender").fingerprint, groups)
    with pytest.raises(InputError, match="3 groups for 4 documents"):
        index.store_groups(groups=groups[:3])
    with pytest.raises(InputError, match="unknown group\\(s\\) 'other' for concept 'gender'"):
        index.store_groups(groups=["other", *groups[1:]])


def test_saved_groups_round_trip_and_are_named_in_the_manifest(tmp_path, index, embedder):
    index.store_groups()
    index.save(tmp_path / "ix")
    manifest = json.loads((tmp_path / "ix" / MANIFEST).read_text())
    assert manifest["groups"] == {"gender": detector("gender").fingerprint}
    rows = data_paths(tmp_path / "ix")["documents.jsonl"].read_text().splitlines()
    assert json.loads(rows[0])["groups"] == {"gender": "female"}
    loaded = FaissIndex.load(tmp_path / "ix", embedder=embedder)
    assert loaded.groups == index.groups


def test_retriever_reads_stored_groups_instead_of_inferring(index, embedder):
    # A stored group that differs from what the text says shows which one the retriever uses.
    fingerprint = detector("gender").fingerprint
    index.groups["gender"] = StoredGroups(fingerprint, ["male", "male", "neutral", "female"])
    retriever = DebiasedRetriever(index, embedder)
    assert [retriever.group_of(i) for i in range(4)] == ["male", "male", "neutral", "female"]
    hits = retriever.retrieve("who fixed the boiler", strategy="balanced", k=4).hits
    assert {hit.id: hit.group for hit in hits} == {"f": "male", "m": "male", "n": "neutral", "label": "female"}


def test_groups_from_another_detector_are_inferred_again(index, embedder):
    index.groups["gender"] = StoredGroups("0" * 64, ["male", "male", "male", "male"])  # an older debiasrag's rules
    retriever = DebiasedRetriever(index, embedder)
    assert [retriever.group_of(i) for i in range(4)] == ["female", "male", "neutral", "female"]


def test_stored_groups_outside_the_concept_are_not_trusted(index, embedder):
    index.groups["gender"] = StoredGroups(detector("gender").fingerprint, ["old", "male", "neutral", "female"])
    assert DebiasedRetriever(index, embedder).group_of(0) == "female"


def test_fingerprint_changes_with_the_concept_and_the_names_switch():
    plain = detector("gender").fingerprint
    assert GroupDetector("gender").fingerprint == plain  # same rules, same data
    assert GroupDetector("gender", use_names=False).fingerprint != plain
    assert GroupDetector("age").fingerprint != plain


def test_adding_documents_drops_stored_groups(index, embedder):
    index.store_groups()
    index.add([Document("new", "Her brother called.")], embedder.encode(["Her brother called."]))
    assert index.groups == {}  # no longer one per document; the retriever infers instead


def test_an_index_without_stored_groups_still_loads(tmp_path, index, embedder):
    index.save(tmp_path / "ix")
    assert "groups" not in json.loads(data_paths(tmp_path / "ix")["documents.jsonl"].read_text().splitlines()[0])
    assert FaissIndex.load(tmp_path / "ix").groups == {}
    assert DebiasedRetriever(FaissIndex.load(tmp_path / "ix"), embedder).group_of(1) == "male"


def _rewrite(folder, edit_manifest=None, edit_rows=None):
    """Edit a saved index's manifest / rows and fix up the checksums, as a careless tool would."""
    import hashlib

    manifest_path = folder / MANIFEST
    manifest = json.loads(manifest_path.read_text())
    docs = data_paths(folder, manifest)["documents.jsonl"]
    if edit_rows is not None:
        rows = [json.loads(line) for line in docs.read_text().splitlines()]
        edit_rows(rows)
        data = "".join(json.dumps(row) + "\n" for row in rows).encode()
        docs.write_bytes(data)
        manifest["sha256"]["documents.jsonl"] = hashlib.sha256(data).hexdigest()
        manifest["size"]["documents.jsonl"] = len(data)
    if edit_manifest is not None:
        edit_manifest(manifest)
    manifest_path.write_text(json.dumps(manifest))


def test_a_bad_detector_fingerprint_is_a_one_line_load_error(tmp_path, index):
    index.store_groups()
    index.save(tmp_path / "ix")
    _rewrite(tmp_path / "ix", edit_manifest=lambda m: m["groups"].update(gender="v7"))
    with pytest.raises(IndexLoadError, match=r"'groups.gender' must be a detector fingerprint"):
        FaissIndex.load(tmp_path / "ix")


def test_a_row_without_its_stored_group_is_a_corrupted_line(tmp_path, index):
    index.store_groups()
    index.save(tmp_path / "ix")
    _rewrite(tmp_path / "ix", edit_rows=lambda rows: rows[2].pop("groups"))
    with pytest.raises(IndexLoadError, match="documents.jsonl line 3 is corrupted: its 'groups' field is missing"):
        FaissIndex.load(tmp_path / "ix")


def test_cli_index_stores_groups_the_query_command_uses(tmp_path, run_cli):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"id": d.id, "text": d.text, **d.metadata}) + "\n" for d in DOCS))
    proc = run_cli("index", str(corpus), "--out", str(tmp_path / "ix"))
    assert proc.returncode == 0, proc.stderr.decode()
    assert FaissIndex.load(tmp_path / "ix").groups["gender"].groups == ["female", "male", "neutral", "female"]


def test_merged_indexes_keep_groups_all_inputs_stored_with_one_detector(embedder):
    from debiasrag import merge_indexes

    first = FaissIndex.from_documents(DOCS[:2], embedder)
    second = FaissIndex.from_documents(
        [Document("x", "Her sister fixed it."), Document("y", "It was fixed.")], embedder
    )
    first.store_groups()
    assert merge_indexes([first, second]).groups == {}  # the second never stored them: inferred lazily instead
    second.store_groups()
    merged = merge_indexes([first, second])
    assert merged.ids == ["f", "m", "x", "y"]
    assert merged.groups["gender"].groups == ["female", "male", "female", "neutral"]
    second.groups["gender"] = StoredGroups("0" * 64, second.groups["gender"].groups)  # another detector's
    assert merge_indexes([first, second]).groups == {}


def test_a_label_of_another_concept_leaves_a_document_unlabelled_for_this_one(tmp_path, run_cli):
    # wealth labels were refused by `debiasrag index` (read as gender), and a gender-labelled index could not be
    # queried with --concept age even by topk (red-team, session 34)
    rows = [
        {"id": "a", "text": "The old captain commanded the fleet.", GROUP_KEY: "wealthy"},
        {"id": "b", "text": "The young captain commanded the fleet.", GROUP_KEY: "poor"},
        {"id": "c", "text": "Her mother commanded the fleet.", GROUP_KEY: "female"},
        {"id": "d", "text": "A cat slept in the sun."},
    ]
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    proc = run_cli("index", str(corpus), "--out", str(tmp_path / "ix"))
    assert proc.returncode == 0, proc.stderr.decode()
    index = FaissIndex.load(tmp_path / "ix")
    assert index.groups["gender"].groups == ["neutral", "neutral", "female", "neutral"]
    query = "Who commanded the fleet?"
    wealth = DebiasedRetriever(index, concept="wealth", strategy="balanced").retrieve(query, k=4)
    assert {hit.id: hit.group for hit in wealth}["a"] == "wealthy" and wealth.balanced_groups == ("poor", "wealthy")
    age = DebiasedRetriever(index, concept="age", strategy="balanced").retrieve(query, k=4)
    assert {hit.id: hit.group for hit in age} == {"a": "old", "b": "young", "c": "neutral", "d": "neutral"}
    with pytest.raises(InputError, match=r"metadata 'debiasrag_group' is 'wealthyy'; expected female, male"):
        detector("gender").group("x", {GROUP_KEY: "wealthyy"}, doc_id="e")
