"""Precomputed embedding shards: write them from many workers, build or merge a :class:`FaissIndex` from them.

A shard is three files sharing a stem inside a shard folder::

    part-<id>.npy     float32 vectors, shape (n, dimension), L2-normalised, in document order
    part-<id>.jsonl   one {"id", "text", "metadata"} per vector, same order
    part-<id>.json    {"format", "model", "dimension", "count", "preprocessing", "groups"}, written last

(``groups``, optional: per concept the detector's fingerprint and each document's group, as
:meth:`FaissIndex.store_groups` keeps them, and ``mixed``: how many of the shard's documents name people of two
groups with no version in the shard to settle them, their ids, :func:`~debiasrag.groups.mixed_census`.)

The ``.json`` sidecar is written (atomically) only after both data files, so a worker that dies mid-write
leaves no shard that readers would pick up: :func:`list_shards` lists only complete shards. Distributed
jobs (:mod:`debiasrag.scale`) write one shard per batch under unique names; :func:`index_from_shards` then
builds the index from the vectors as stored, without re-embedding. Duplicate ids across shards (a batch
retried by the engine, or the same corpus written twice) raise :class:`~debiasrag.errors.InputError`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeGuard

import numpy as np

from debiasrag.corpus import Document, check_storable_metadata, is_document_id, row_problem, stored_row_problem
from debiasrag.embedders import resolve_model
from debiasrag.errors import InputError
from debiasrag.fileio import atomic_write, loads_strict
from debiasrag.groups import NEUTRAL, GroupDetector, detector
from debiasrag.index import FaissIndex, StoredGroups
from debiasrag.storage import is_model_name

SHARD_FORMAT = 1
RUN_MARKER = ".debiasrag-run-unfinished"
"""Written into an ``out_dir`` by :func:`~debiasrag.scale.run_ray` / ``run_datasets`` when a run starts and removed
when it ends well: a folder that holds it is refused by :func:`index_from_shards` — a run that stopped part-way
leaves whole shards for some batches and none for others, and an index of them would miss documents silently."""
# The earlier run's shards while a run with existing="replace" writes (debiasrag.scale); EARLIER_LIST inside it names
# them (and whether that run had finished), written before any moves, so a run killed at any point is finished or
# undone by the next replace run
REPLACED_DIR = ".debiasrag-replaced"
EARLIER_LIST = ".earlier-run.json"
_SUFFIXES = (".npy", ".jsonl", ".json")
NORM_TOLERANCE = 1e-3  # how far a stored vector's L2 norm may be from 1 (float32 rounding, quantised models)
INDEX_OPTIONS = ("kind", "nlist", "nprobe", "hnsw_m", "ef_search")  # FaissIndex's options, as from_documents lists


@dataclass
class Shard:
    """One shard in memory: documents, their vectors, and the model they were embedded with."""

    documents: list[Document]
    vectors: np.ndarray
    model_name: str | None
    preprocessing: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None
    groups: dict[str, StoredGroups] = field(default_factory=dict)
    mixed: dict[str, list[str | int]] = field(default_factory=dict)  # per concept, when the writer found them

    def __len__(self) -> int:
        return len(self.documents)


def write_shard(
    directory: str | Path,
    documents: Sequence[Document],
    vectors: np.ndarray,
    *,
    model_name: str | None,
    preprocessing: dict[str, Any] | None = None,
    name: str | None = None,
    groups: dict[str, StoredGroups] | None = None,
    mixed: dict[str, list[str | int]] | None = None,
) -> Path:
    """Write one shard into ``directory`` (created if needed); returns the path of its ``.json`` sidecar.

    ``name`` defaults to a random unique stem, so concurrent workers never collide. Rows must match
    ``vectors`` one to one; ids must be unique within the shard; texts must not be blank (as ``debiasrag index``
    refuses them); metadata must be JSON with string keys (at every depth), so the shard reads back as written;
    every vector must be L2-normalised (norm 1 within ``NORM_TOLERANCE``), as the index's inner-product
    scores assume. ``groups``: per concept, the documents' groups and
    the detector that inferred them (kept in the sidecar; :func:`index_from_shards` stores them); ``mixed``: per
    concept of ``groups``, the ids of the documents that name people of two groups (:func:`shards_mixed`).
    """
    try:
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    except (TypeError, ValueError):
        raise InputError(f"vectors must be an array of numbers, got {type(vectors).__name__}") from None
    if vectors.ndim != 2:
        raise InputError(f"vectors must be a 2-D array, got shape {vectors.shape}")
    if len(documents) != len(vectors):
        raise InputError(f"{len(documents)} documents but {len(vectors)} vectors")
    if not np.isfinite(vectors).all():
        raise InputError("vectors contain NaN or infinity")
    for doc in documents:
        valid_id = isinstance(doc, Document) and is_document_id(doc.id)
        if not (valid_id and isinstance(doc.text, str) and isinstance(doc.metadata, dict)):
            raise InputError(f"expected Documents with a str/int id, str text and dict metadata, got {doc!r:.80}")
        problem = row_problem({"id": doc.id, "text": doc.text})  # the rule `debiasrag index` applies to a corpus
        if problem is not None:
            raise InputError(f"document {doc.id!r}: {problem}")
    norms = np.linalg.norm(vectors.astype(np.float64), axis=1) if vectors.shape[1] else np.zeros(len(vectors))
    off = np.flatnonzero(np.abs(norms - 1.0) > NORM_TOLERANCE)
    if off.size:
        bad = int(off[0])
        raise InputError(
            f"vector {bad} (document {documents[bad].id!r}) has L2 norm {norms[bad]:.4g}, not 1: shard vectors "
            "must be L2-normalised (normalise them, e.g. with debiasrag.embedders.normalize_rows)"
        )
    ids = [doc.id for doc in documents]
    if len(set(ids)) != len(ids):
        duplicate = next(i for i in ids if ids.count(i) > 1)
        raise InputError(f"duplicate id {duplicate!r} within one shard")
    # every argument is checked before a file is touched: a refusal after the data files would leave a shard the
    # whole folder is then refused for (red-team, session 34)
    if model_name is not None and not isinstance(model_name, str):
        raise InputError(f"model_name must be a model name (a string) or None, got {model_name!r:.80}")
    if name is not None and not (
        isinstance(name, str) and name.strip() and not any(c in name for c in "/\\\x00") and name not in (".", "..")
    ):
        raise InputError(f"name must be a file-name stem (no '/', '\\' or NUL), got {name!r:.80}")
    if preprocessing is not None and not isinstance(preprocessing, dict):
        raise InputError(f"preprocessing must be a dict (as a manifest records it), got {type(preprocessing).__name__}")
    if groups is not None and not (
        isinstance(groups, dict) and all(isinstance(g, StoredGroups) for g in groups.values())
    ):
        raise InputError("groups must map each concept to StoredGroups (as FaissIndex.store_groups makes them)")
    for concept, stored in (groups or {}).items():
        if len(stored.groups) != len(documents):
            raise InputError(f"{len(stored.groups)} {concept} groups for {len(documents)} documents")
    for concept, mixed_ids in (mixed or {}).items():
        if concept not in (groups or {}) or not isinstance(mixed_ids, list) or not set(mixed_ids) <= set(ids):
            raise InputError(f"mixed documents for {concept!r} must be ids of the shard, with its groups")
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"part-{name or uuid.uuid4().hex}"
    lines = []
    for doc in documents:
        check_storable_metadata(doc.id, doc.metadata)
        row = {"id": doc.id, "text": doc.text, "metadata": dict(doc.metadata)}
        line = json.dumps(row, ensure_ascii=False, allow_nan=False) + "\n"
        try:
            lines.append(line.encode("utf-8"))
        except UnicodeEncodeError:  # lone surrogates: \uXXXX escapes keep them exactly
            lines.append((json.dumps(row, allow_nan=False) + "\n").encode("ascii"))
    sidecar = {
        "format": SHARD_FORMAT,
        "model": model_name,
        "dimension": int(vectors.shape[1]),
        "count": len(documents),
        "preprocessing": dict(preprocessing or {}),
        "groups": {c: _groups_entry(g, (mixed or {}).get(c)) for c, g in (groups or {}).items()},
    }
    try:
        sidecar_bytes = json.dumps(sidecar, indent=1, allow_nan=False).encode("utf-8")
    except (TypeError, ValueError) as exc:  # a set or an Enum in preprocessing: found before anything is written
        raise InputError(
            f"the shard's sidecar is not JSON: {exc} (preprocessing must hold plain JSON values)"
        ) from None
    path = folder / f"{stem}.json"
    # The sidecar is the shard's commit point: a rewrite removes it first and writes it last, so one stopped in
    # between leaves an incomplete shard (refused), never new rows and vectors under the old sidecar.
    path.unlink(missing_ok=True)
    atomic_write(folder / f"{stem}.npy", _npy_bytes(vectors))
    atomic_write(folder / f"{stem}.jsonl", b"".join(lines))
    atomic_write(path, sidecar_bytes)
    return path


def _groups_entry(stored: StoredGroups, mixed: list[str | int] | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"detector": stored.detector, "groups": list(stored.groups)}
    return entry if mixed is None else {**entry, "mixed": list(mixed)}


def _npy_bytes(vectors: np.ndarray) -> bytes:
    import io

    buffer = io.BytesIO()
    np.save(buffer, vectors, allow_pickle=False)
    return buffer.getvalue()


def list_shards(directory: str | Path) -> list[Path]:
    """Complete shards in a folder (their ``.json`` sidecars), sorted by name; partial writes are ignored."""
    folder = Path(directory)
    if not folder.is_dir():
        raise InputError(f"shard folder not found: {folder}")
    return sorted(p for p in folder.glob("part-*.json") if not p.name.startswith("."))


def _shard_base(path: str | Path) -> Path:
    """The shard's path without suffix, from any of its three files (or the stem itself)."""
    path = Path(path)
    return path.parent / (path.name[: -len(path.suffix)] if path.suffix in _SUFFIXES else path.name)


def read_shard(path: str | Path) -> Shard:
    """Read one shard given its ``.json`` sidecar (or any of its three files), checking counts and shape."""
    base = _shard_base(path)
    try:
        meta = loads_strict(Path(f"{base}.json").read_bytes())  # strict JSON: every problem is an InputError
        vectors = np.load(f"{base}.npy", allow_pickle=False)
        rows = [loads_strict(line) for line in Path(f"{base}.jsonl").read_bytes().splitlines() if line.strip()]
    except FileNotFoundError as exc:
        raise InputError(f"shard {base} is incomplete: {Path(exc.filename).name} is missing") from exc
    except InputError as exc:
        raise InputError(f"shard {base} is corrupted: {exc.message}") from None
    except (ValueError, OSError, EOFError) as exc:
        raise InputError(f"shard {base} is corrupted: {(str(exc) or type(exc).__name__).splitlines()[0]}") from exc
    if not isinstance(meta, dict) or meta.get("format") != SHARD_FORMAT:
        raise InputError(
            f"shard {base}: unsupported shard format {meta.get('format') if isinstance(meta, dict) else meta!r}"
        )
    count, dimension, model = meta.get("count"), meta.get("dimension"), meta.get("model")
    if not (_is_count(count) and _is_count(dimension)):
        raise InputError(f"shard {base}: the sidecar's 'count' and 'dimension' must be integers")
    preprocessing = meta.get("preprocessing")
    if not (model is None or is_model_name(model)) or not (preprocessing is None or isinstance(preprocessing, dict)):
        raise InputError(f"shard {base}: the sidecar's 'model' must be a model name and 'preprocessing' an object")
    if not np.issubdtype(vectors.dtype, np.number) or not np.isfinite(vectors).all():
        raise InputError(f"shard {base}: the vectors must be finite numbers")
    if vectors.ndim != 2 or vectors.shape != (meta["count"], meta["dimension"]) or len(rows) != meta["count"]:
        raise InputError(
            f"shard {base}: {len(rows)} documents and vectors of shape {vectors.shape}, "
            f"sidecar says {meta['count']} x {meta['dimension']}"
        )
    groups, mixed = _sidecar_groups(meta.get("groups") or {}, meta["count"], base)
    documents = []
    for number, row in enumerate(rows, start=1):
        problem = stored_row_problem(row)
        if problem is not None:
            raise InputError(f"shard {base}.jsonl line {number} is corrupted: {problem}")
        doc_id = row["id"]
        problem = row_problem(row)  # a blank text, which write_shard and `debiasrag index` refuse
        if problem is not None:
            raise InputError(f"shard {base}.jsonl line {number} (document {doc_id!r}): {problem}")
        documents.append(Document(row["id"], row["text"], dict(row.get("metadata") or {})))
    return Shard(
        documents,
        np.ascontiguousarray(vectors, dtype=np.float32),
        meta.get("model"),
        dict(meta.get("preprocessing") or {}),
        Path(f"{base}.json"),
        groups,
        mixed,
    )


def _is_count(value: Any) -> TypeGuard[int]:
    """A sidecar's ``count`` / ``dimension``: a non-negative integer (not a bool)."""
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _sidecar_groups(raw: Any, count: int, base: Path) -> tuple[dict[str, StoredGroups], dict[str, list[str | int]]]:
    """The sidecar's ``groups``, checked: per concept a detector fingerprint and one group name per document, and
    the ``mixed`` documents' ids where the writer kept them."""
    if not isinstance(raw, dict):
        raise InputError(f"shard {base}: the sidecar's 'groups' must be an object")
    out = {}
    mixed = {}
    for concept, entry in raw.items():
        fingerprint = entry.get("detector") if isinstance(entry, dict) else None
        groups = entry.get("groups") if isinstance(entry, dict) else None
        if not (isinstance(fingerprint, str) and isinstance(groups, list) and all(isinstance(g, str) for g in groups)):
            raise InputError(f"shard {base}: the sidecar's {concept!r} groups are corrupted")
        if len(groups) != count:
            raise InputError(f"shard {base}: {len(groups)} {concept!r} groups for {count} documents")
        known = _current_detector(concept)
        unknown = sorted(set(groups) - {*known.groups, NEUTRAL}) if known is not None else []
        if unknown:
            raise InputError(f"shard {base}: unknown {concept!r} group(s) {', '.join(map(repr, unknown))}")
        out[concept] = StoredGroups(fingerprint, groups)
        if "mixed" in entry:
            found = entry["mixed"]
            if not (isinstance(found, list) and len(found) <= count and all(map(is_document_id, found))):
                raise InputError(f"shard {base}: the sidecar's {concept!r} mixed documents are corrupted")
            mixed[concept] = found
    return out, mixed


def iter_shards(sources: str | Path | Iterable[str | Path]) -> Iterator[Shard]:
    """Shards from shard folders and/or individual shard files, in a stable order."""
    for path in _shard_paths(sources):
        yield read_shard(path)


def _shard_paths(sources: str | Path | Iterable[str | Path]) -> Iterator[Path]:
    try:
        items = [sources] if isinstance(sources, (str, Path)) else list(sources)
    except TypeError:
        raise InputError(f"shard sources must be folders or files, got {type(sources).__name__}") from None
    if not all(isinstance(item, (str, Path)) for item in items):
        raise InputError("shard sources must be folder or file paths")
    if not items:
        raise InputError("no shard folders or files given")
    seen: dict[Path, str | Path] = {}
    for item in items:
        resolved = Path(item).resolve()
        if resolved in seen:  # each shard would clash with itself: "duplicate id … in X (also in X)"
            raise InputError(f"{item} is given twice (also as {seen[resolved]}); give each shard folder or file once")
        seen[resolved] = item
    yielded: set[Path] = set()
    for item in items:
        item = Path(item)
        if not item.exists():
            raise InputError(f"shard folder not found: {item}")
        paths = list_shards(item) if item.is_dir() else [item]
        if item.is_dir():
            if (item / REPLACED_DIR).exists():
                raise InputError(
                    f"{item}: a run with existing='replace' was interrupted and the earlier run's shards are set "
                    f"aside in {item / REPLACED_DIR}; re-run it with existing='replace' (they stay there until it "
                    "finishes), or move them back and delete the other part-* files and the marker to index them"
                )
            if (item / RUN_MARKER).exists():
                raise InputError(
                    f"{item}: the run writing these shards did not finish ({RUN_MARKER} is there), so some batches "
                    "may have no shard; re-run it with existing='replace', or delete the marker to index what is there"
                )
            _refuse_unfinished(item, paths)
            if not paths:
                raise InputError(f"no complete shards in {item}")
        for path in paths:
            resolved = path.resolve()
            if resolved in yielded:  # a folder and a shard file in it
                raise InputError(f"shard {path} is given twice (its folder and the file); give it once")
            yielded.add(resolved)
            yield path


def _refuse_unfinished(folder: Path, sidecars: list[Path]) -> None:
    """A shard whose data files are there but whose sidecar (written last) is not was never finished: its worker
    stopped. Left out, its documents would be missing from the index without a word."""
    finished = {_shard_base(p) for p in sidecars}
    for path in sorted(folder.glob("part-*")):
        if path.suffix in (".npy", ".jsonl") and not path.name.startswith(".") and _shard_base(path) not in finished:
            base = _shard_base(path)
            raise InputError(
                f"shard {base} is incomplete: {base.name}.json is missing (its worker stopped before finishing); "
                f"re-run the batch that wrote it, or delete {base.name}.* to index without its documents"
            )


def _comparable(preprocessing: dict[str, Any]) -> dict[str, Any]:
    """``preprocessing`` with the anonymized entity types spelt one way: ``debiasrag index --anonymize ner`` records
    the option as given (None = the default types), a :class:`~debiasrag.scale.ShardWriter` the anonymizer's sorted
    list — the same anonymization, which must merge (red-team, session 34)."""
    settings = preprocessing.get("anonymize")
    if not isinstance(settings, dict) or "entities" not in settings:
        return preprocessing
    from debiasrag.anonymize.base import parse_entity_types

    try:
        entities = sorted(parse_entity_types(settings["entities"]))
    except InputError:  # not a list of entity types: compared as written
        return preprocessing
    return {**preprocessing, "anonymize": {**settings, "entities": entities}}


def _check_index_options(options: dict[str, Any]) -> None:
    """Refuse keyword arguments :class:`FaissIndex` does not take, with the wording of
    :meth:`FaissIndex.from_documents` (their values are checked by :class:`FaissIndex` itself)."""
    unknown = sorted(set(options) - set(INDEX_OPTIONS))
    if unknown:
        raise InputError(f"unknown index option(s) {', '.join(unknown)}; known: {', '.join(INDEX_OPTIONS)}")


class _Builder:
    """Checks shards agree (model, dimension, preprocessing) and have unique ids, then fills one index."""

    def __init__(self, model_name: str | None, options: dict[str, Any]) -> None:
        _check_index_options(options)
        # the name the shards record for it: "all-MiniLM-L6-v2" or the packaged folder is the packaged default
        self.model_name = resolve_model(model_name)[0] if isinstance(model_name, str) else model_name
        self.options = options
        self.first_model: tuple[str | None, str] | None = None  # the first input's own model and where it was
        self.preprocessing: dict[str, Any] | None = None
        self.index: FaissIndex | None = None
        self.pending: list[tuple[list[Document], np.ndarray]] = []  # IVF trains once on all vectors
        self.seen: dict[str | int, str] = {}
        self.groups: list[dict[str, StoredGroups]] = []  # per input, in index order

    def add(
        self,
        documents: list[Document],
        vectors: np.ndarray,
        model: str | None,
        pre: dict,
        where: str,
        groups: dict[str, StoredGroups] | None = None,
    ) -> None:
        if not documents:
            return
        if self.first_model is None:
            self.first_model = (model, where)
        elif (model is None) != (self.first_model[0] is None):  # an unnamed model may be any model
            unnamed = where if model is None else self.first_model[1]
            named = model if model is not None else self.first_model[0]
            raise InputError(
                f"{unnamed} records no embedding model but other inputs were embedded with {named}: vectors may "
                "not be comparable (write every shard with its model_name)"
            )
        if self.model_name is None:
            self.model_name = model
        elif model is not None and model != self.model_name:
            raise InputError(f"{where} was embedded with {model}, not {self.model_name}: vectors are not comparable")
        if self.preprocessing is None:
            self.preprocessing = dict(pre)
        elif _comparable(pre) != _comparable(self.preprocessing):
            raise InputError(f"{where} was preprocessed differently ({pre} vs {self.preprocessing})")
        for doc in documents:
            if doc.id in self.seen:
                raise InputError(f"duplicate id {doc.id!r} in {where} (also in {self.seen[doc.id]})")
            self.seen[doc.id] = where
        if self.index is None:
            self.index = FaissIndex(vectors.shape[1], model_name=self.model_name, **self.options)
        elif vectors.shape[1] != self.index.dimension:
            raise InputError(f"{where} has dimension {vectors.shape[1]}, earlier shards {self.index.dimension}")
        if self.index.kind == "ivf":
            self.pending.append((documents, vectors))
        else:
            self.index.add(documents, vectors)
        self.groups.append(dict(groups or {}))

    def finish(self) -> FaissIndex:
        if self.index is None:
            raise InputError("the shards hold no documents")
        if self.pending:
            self.index.add([d for docs, _ in self.pending for d in docs], np.concatenate([v for _, v in self.pending]))
        self.index.preprocessing = dict(self.preprocessing or {})
        for concept, first in self.groups[0].items():  # groups every input stored with one detector carry over
            stored = [groups.get(concept) for groups in self.groups]
            if all(s is not None and s.detector == first.detector for s in stored):
                joined = [g for s in stored if s for g in s.groups]
                found = _current_detector(concept)
                if found is not None and found.fingerprint == first.detector:
                    self.index.store_groups(found, groups=joined)  # versions in different inputs read by contrast
                else:
                    self.index.groups[concept] = StoredGroups(first.detector, joined)
        return self.index


def _current_detector(concept: str) -> GroupDetector | None:
    """This debiasrag's detector for a bundled concept; ``None`` for a concept it cannot load by name."""
    try:
        return detector(concept)
    except InputError:
        return None


def index_from_shards(
    sources: str | Path | Iterable[str | Path],
    *,
    model_name: str | None = None,
    groups: str | None = "gender",
    **options: Any,
) -> FaissIndex:
    """Build a :class:`FaissIndex` from precomputed shards (folders or files) without re-embedding.

    ``options`` go to :class:`FaissIndex` (``kind=``, ``nlist=``, ...). ``model_name`` defaults to the shards'
    model; shards from different models or preprocessing, or repeating an id, raise InputError. Groups the shards
    hold (:class:`~debiasrag.scale.ShardWriter` infers them in the workers) are stored with the index, versions in
    different shards read by contrast; ``groups``: a concept whose groups the index must store all the same
    (inferred here where the shards lack them or another detector made them, as ``debiasrag index`` stores gender
    groups), ``None`` for none. Save the result with :meth:`FaissIndex.save`.
    """
    builder = _Builder(model_name, options)
    for shard in iter_shards(sources):
        builder.add(
            shard.documents, shard.vectors, shard.model_name, shard.preprocessing, str(shard.path), shard.groups
        )
    index = builder.finish()
    if groups is not None:
        found = detector(groups)
        stored = index.groups.get(found.concept.name)
        if stored is None or stored.detector != found.fingerprint:
            index.store_groups(found)
    return index


def shards_mixed(sources: str | Path | Iterable[str | Path], concept: str = "gender") -> list[str | int] | None:
    """The ids of the shards' documents that name people of two of ``concept``'s groups with no version in their
    own shard to settle them (where inferred groups are least reliable; :func:`~debiasrag.groups.mixed_census`),
    from the sidecars alone: nothing is inferred again. ``None`` when a shard did not record them, or recorded them
    with another detector than this debiasrag's."""
    found = _current_detector(concept)
    out: list[str | int] = []
    for path in _shard_paths(sources):
        base = _shard_base(path)
        try:
            meta = loads_strict(Path(f"{base}.json").read_bytes())
        except (OSError, InputError):
            return None  # read_shard, building the index, says what is wrong with it
        count = meta.get("count") if isinstance(meta, dict) else None
        if not _is_count(count):
            return None
        groups, mixed = _sidecar_groups(meta.get("groups") or {}, count, base)
        stored = groups.get(concept)
        if found is None or stored is None or stored.detector != found.fingerprint or concept not in mixed:
            return None
        out += mixed[concept]
    return out


def index_to_shard(index: FaissIndex, directory: str | Path, *, name: str | None = None) -> Path:
    """Write a whole index as one shard (its stored vectors, not re-embedded)."""
    documents = [index.document(i, copy=False) for i in range(len(index))]
    vectors = index.vectors_at(np.arange(len(index)))
    return write_shard(
        directory,
        documents,
        vectors,
        model_name=index.model_name,
        preprocessing=index.preprocessing,
        name=name,
        groups=index.groups,
    )


def merge_indexes(indexes: Iterable[FaissIndex], **options: Any) -> FaissIndex:
    """One new index holding every document of ``indexes`` (a list, or any iterable; stored vectors reused, nothing
    re-embedded).

    ``options`` go to the new :class:`FaissIndex`; by default it keeps the first index's kind. All inputs
    must share model, dimension and preprocessing; an id present twice raises InputError. Groups stored by
    :meth:`FaissIndex.store_groups` carry over for a concept every input stored with the same detector; when that
    is this debiasrag's detector, versions in different inputs are read by contrast (nothing is inferred again).
    """
    wrong = InputError("indexes must be a list of FaissIndex objects (load folders with FaissIndex.load)")
    if isinstance(indexes, (str, bytes, Path, FaissIndex, dict)):
        raise wrong
    try:
        items = list(indexes)  # a generator would be used up by the check below
    except TypeError:
        raise wrong from None
    if not all(isinstance(i, FaissIndex) for i in items):
        raise wrong
    if not items:
        raise InputError("no indexes to merge")
    _check_index_options(options)  # before the default kind joins them
    options.setdefault("kind", items[0].kind)
    builder = _Builder(None, options)
    for number, index in enumerate(items):
        documents = [index.document(i, copy=False) for i in range(len(index))]
        vectors = index.vectors_at(np.arange(len(index)))
        builder.add(documents, vectors, index.model_name, index.preprocessing, f"index {number}", index.groups)
    return builder.finish()


__all__ = [
    "SHARD_FORMAT",
    "Shard",
    "index_from_shards",
    "index_to_shard",
    "iter_shards",
    "list_shards",
    "merge_indexes",
    "read_shard",
    "shards_mixed",
    "write_shard",
]
