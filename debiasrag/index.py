"""FAISS-backed vector index that also keeps ids, texts and metadata, saved without pickle.

On disk an index is a folder whose ``manifest.json`` (model, dimension, kind, count, SHA-256 and size
of each file) names the current version: ``index.faiss`` (FAISS's own format) and ``documents.jsonl``
(one ``{"id", "text", "metadata"}`` per vector, in vector order; with ``"groups"`` too once
:meth:`FaissIndex.store_groups` inferred them, the manifest naming the detector). Publication is atomic,
verified and reader-safe; :mod:`debiasrag.storage` holds the protocol.
"""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from copy import deepcopy
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import faiss
import numpy as np

from debiasrag import storage
from debiasrag.concepts import Concept
from debiasrag.corpus import Document, check_storable_metadata, is_document_id, stored_row_problem
from debiasrag.embedders import Embedder, embed_documents, load_embedder, to_unit_length
from debiasrag.errors import IndexLoadError, InputError, check_int, is_blank
from debiasrag.groups import NEUTRAL, GroupDetector, detector_for, user_labelled
from debiasrag.versions import CANDIDATES, find_versions, is_version, word_candidates

logger = logging.getLogger(__name__)

IndexKind = Literal["flat", "ivf", "hnsw"]
FORMAT_VERSION = storage.FORMAT_VERSION
_INDEX_FILE, _DOCS_FILE = storage.INDEX_FILE, storage.DOCS_FILE


@dataclass(frozen=True)
class StoredGroups:
    """Every document's group for one concept, as inferred at index time, and the detector that inferred them
    (its :attr:`~debiasrag.groups.GroupDetector.fingerprint`)."""

    detector: str
    groups: list[str]


class FaissIndex:
    """Vectors in FAISS (inner product on normalised vectors = cosine) plus their documents.

    Args:
        dimension: vector size.
        model_name: name of the embedding model the vectors come from; checked on load.
        kind: ``"flat"`` (exact, default), ``"ivf"`` (inverted lists, for large corpora) or ``"hnsw"``.
        nlist: IVF list count (default ``4·sqrt(n)``, capped so every list gets ≥ 39 training points).
        nprobe: IVF lists visited per query.
        hnsw_m: HNSW graph degree.
        ef_search: HNSW search breadth.
    """

    def __init__(
        self,
        dimension: int,
        *,
        model_name: str | None = None,
        kind: IndexKind = "flat",
        nlist: int | None = None,
        nprobe: int = 16,
        hnsw_m: int = 32,
        ef_search: int = 128,
    ) -> None:
        if kind not in ("flat", "ivf", "hnsw"):
            raise InputError(f"unknown index kind {kind!r}; choose flat, ivf or hnsw")
        # the ranges the loader accepts (storage.validate_manifest), so that every index built can be saved and
        # loaded; HNSW needs two links per node (FAISS crashes with one)
        top = storage.MAX_OPTION
        check_int("dimension", dimension, 1, storage.MAX_DIMENSION)
        check_int("nprobe", nprobe, 1, top)
        check_int("hnsw_m", hnsw_m, 2, top)
        check_int("ef_search", ef_search, 1, top)
        if nlist is not None:  # None: chosen from the training set's size
            check_int("nlist", nlist, 1, top)
        if model_name is not None and not storage.is_model_name(model_name):  # as the loader checks it
            raise InputError(f"model_name must be a model name without outer spaces or None, got {model_name!r}")
        self.dimension = int(dimension)
        self.model_name = model_name
        self.kind: IndexKind = kind
        self.nlist = nlist
        self.nprobe = nprobe
        self.hnsw_m = hnsw_m
        self.ef_search = ef_search
        # How texts were transformed before embedding (e.g. anonymization); queries must get the same.
        self.preprocessing: dict[str, Any] = {}
        self.ids: list[str | int] = []
        self.texts: list[str] = []
        self.metadatas: list[dict[str, Any]] = []
        # concept name -> groups computed once (store_groups) and saved, so retrievers need not infer them
        self.groups: dict[str, StoredGroups] = {}
        self._position: dict[str | int, int] = {}
        # FAISS's Python types are partial (IVF/HNSW attributes are not on faiss.Index): Any, checked on load.
        self._index: Any = None if kind == "ivf" else self._new_index()

    # -- building ---------------------------------------------------------------------------------
    def _new_index(self, n_train: int = 0) -> faiss.Index:
        if self.kind == "flat":
            return faiss.IndexFlatIP(self.dimension)
        if self.kind == "hnsw":
            index = faiss.IndexHNSWFlat(self.dimension, self.hnsw_m, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efSearch = self.ef_search
            return index
        nlist = self.nlist or max(1, int(4 * math.sqrt(n_train)))
        nlist = max(1, min(nlist, n_train // 39 or 1))
        self.nlist = nlist
        quantizer = faiss.IndexFlatIP(self.dimension)
        ivf = faiss.IndexIVFFlat(quantizer, self.dimension, nlist, faiss.METRIC_INNER_PRODUCT)
        ivf.nprobe = min(self.nprobe, nlist)
        # only silences FAISS's C++ warning (printed for fewer than 39 training points per list): training is the same
        ivf.cp.min_points_per_centroid = 1
        return ivf

    def add(self, documents: Sequence[Document], vectors: np.ndarray) -> None:
        """Add documents with their vectors (from the index's model; ids must be new).

        Rows are L2-normalised here, as ``from_documents`` does, so scores stay cosine similarities: a longer
        vector from another pipeline would otherwise outrank every document. ``vectors`` embed the documents as
        given: for an index built with ``preprocessing`` (anonymized or gender-neutral wording), embed that wording
        (``debiasrag index`` / ``from_documents(embed_texts=...)`` do it for you).
        """
        try:
            vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        except (TypeError, ValueError):
            raise InputError(f"vectors must be an array of numbers, got {type(vectors).__name__}") from None
        if vectors.ndim != 2 or vectors.shape[1] != self.dimension:
            raise InputError(f"vectors must have shape (n, {self.dimension}), got {vectors.shape}")
        if not np.isfinite(vectors).all():
            raise InputError("vectors contain NaN or infinity")
        with np.errstate(over="ignore", under="ignore"):  # such rows are redone below, not warned about
            norms = np.linalg.norm(vectors, axis=1).astype(np.float64)
        extreme = ~np.isfinite(norms) | (norms == 0)
        if extreme.any():  # float32 over- or underflows on 1e20 or 1e-30 rows: those rows again in float64
            norms[extreme] = np.linalg.norm(vectors[extreme].astype(np.float64), axis=1)
        if vectors.size and not norms.all():
            raise InputError(f"vector {int(np.argmin(norms))} is all zeros: it has no direction to compare")
        vectors = to_unit_length(vectors, norms)  # on a copy: the caller's array is theirs, a refused call unchanged
        if len(documents) != len(vectors):
            raise InputError(f"{len(documents)} documents but {len(vectors)} vectors")
        self._check_documents(documents)
        if not len(documents):  # nothing to add: an IVF index must not train on an empty first batch
            return
        if self._index is None:  # IVF trains on its first batch; kept only once trained, so a failure can retry
            index = self._new_index(len(vectors))
            index.train(vectors)
            self._index = index
        start = len(self.ids)
        self._index.add(vectors)
        self.groups.clear()  # they no longer cover every document: store_groups() again, or retrievers infer
        for offset, doc in enumerate(documents):
            self._position[doc.id] = start + offset
            self.ids.append(doc.id)
            self.texts.append(doc.text)
            self.metadatas.append(deepcopy(dict(doc.metadata)))  # the caller's nested objects stay theirs
        if self.kind == "ivf":
            self._index.make_direct_map()  # lets vectors_at() reconstruct stored vectors

    def _check_documents(self, documents: Sequence[Document]) -> None:
        """Refuse ids, texts and metadata the index cannot keep, and ids it already has, before any work."""
        seen: set[str | int] = set()
        for doc in documents:
            if not isinstance(doc, Document):
                raise InputError(f"expected Document objects, got {type(doc).__name__}")
            if not is_document_id(doc.id):
                raise InputError(f"document ids must be strings or integers, got {type(doc.id).__name__} {doc.id!r}")
            if isinstance(doc.id, int) and doc.id.bit_length() > 14_000:  # ~4,200 digits: maybe past str()'s limit
                try:
                    str(doc.id)
                except ValueError:
                    raise InputError("a document id is an integer too long to write (4300 digits or more)") from None
            if not isinstance(doc.text, str):
                raise InputError(f"document {doc.id!r}: text must be a string, got {type(doc.text).__name__}")
            if is_blank(doc.text):  # as queries are refused: only spaces or invisible marks embed to no meaning
                raise InputError(f"document {doc.id!r}: text is blank")
            if not isinstance(doc.metadata, dict):
                raise InputError(f"document {doc.id!r}: metadata must be a dict, got {type(doc.metadata).__name__}")
            check_storable_metadata(doc.id, doc.metadata)  # found at save() it would cost the whole embedding
            if doc.id in self._position or doc.id in seen:
                raise InputError(f"duplicate id {doc.id!r}")
            seen.add(doc.id)

    @classmethod
    def from_documents(
        cls,
        documents: Sequence[Document],
        embedder: Embedder,
        *,
        batch_size: int = 256,
        progress: Callable[[int], None] | None = None,
        embed_texts: Sequence[str] | None = None,
        preprocessing: dict[str, Any] | None = None,
        **options: Any,
    ) -> FaissIndex:
        """Embed ``documents`` in batches and index them; ``progress(n)`` is called after each batch.

        ``documents`` may be any iterable of :class:`Document`; ``options`` go to :class:`FaissIndex`.
        ``embed_texts``: what to embed instead of each document's text, one per document (its anonymized or
        gender-neutral wording); the index still stores and returns the documents' own text. ``preprocessing``:
        how those texts were made, recorded in the manifest so queries are rewritten the same way.
        """
        if documents is None or isinstance(documents, (str, bytes, dict)):
            documents = [documents] if documents else []  # type: ignore[list-item]  # refused below
        try:
            documents = list(documents)
        except TypeError:
            raise InputError(f"documents must be an iterable of Document, got {type(documents).__name__}") from None
        if not documents:
            raise InputError("the corpus is empty: no documents to index")
        if not _is_positive_int(batch_size):
            raise InputError(f"batch_size must be a positive integer, got {batch_size!r}")
        if isinstance(embedder, str) or not isinstance(embedder, Embedder):
            raise InputError(
                f"embedder must be an Embedder (name, dimension, encode()), got {type(embedder).__name__}; "
                "build one with debiasrag.load_embedder(name)"
            )
        unknown = sorted(set(options) - {"kind", "nlist", "nprobe", "hnsw_m", "ef_search"})
        if unknown:
            known = "kind, nlist, nprobe, hnsw_m, ef_search"
            raise InputError(f"unknown index option(s) {', '.join(unknown)}; known: {known}")
        index = cls(embedder.dimension, model_name=embedder.name, **options)
        index._check_documents(documents)  # before embedding, which would fail on them less clearly
        texts = [d.text for d in documents] if embed_texts is None else list(embed_texts)
        if len(texts) != len(documents):
            raise InputError(f"{len(texts)} texts to embed for {len(documents)} documents")
        parts = []
        for start in range(0, len(documents), batch_size):
            batch = texts[start : start + batch_size]
            parts.append(embed_documents(embedder, batch))
            if progress is not None:
                progress(len(batch))
        index.add(documents, np.concatenate(parts))
        if preprocessing:
            index.preprocessing = {**index.preprocessing, **preprocessing}
        return index

    def store_groups(
        self,
        concept: str | Concept | GroupDetector = "gender",
        *,
        groups: Sequence[str] | None = None,
        versions: bool = True,
    ) -> StoredGroups:
        """Infer every document's group for ``concept`` once (a ``debiasrag_group`` label is kept) and keep them
        with the index, saved by :meth:`save`; :class:`~debiasrag.retriever.DebiasedRetriever` reads them
        instead of inferring at query time, as long as its detector has the same fingerprint.

        ``groups``: the same detector's groups already computed for these documents, in index order
        (e.g. by :func:`~debiasrag.groups.group_census` while counting them), so they are not inferred twice.
        ``versions``: where documents have versions in the index (the same text in another wording,
        :mod:`debiasrag.versions`, found by their words: :meth:`versions`), read their groups from the words
        in which they differ (:meth:`~debiasrag.groups.GroupDetector.contrast_groups`).
        """
        found = detector_for(concept)
        if groups is None:
            docs = [Document(i, t, m) for i, t, m in zip(self.ids, self.texts, self.metadatas)]
            groups = found.groups_of(docs)
        elif len(groups) != len(self.ids):
            raise InputError(f"{len(groups)} groups for {len(self.ids)} documents")
        elif not set(groups) <= {*found.groups, NEUTRAL}:
            unknown = sorted(set(groups) - {*found.groups, NEUTRAL})
            raise InputError(f"unknown group(s) {', '.join(map(repr, unknown))} for concept {found.concept.name!r}")
        if versions and len(self.ids) > 1:
            labelled = [user_labelled(m) for m in self.metadatas]
            groups = found.contrast_groups(
                self.texts, groups, self.versions(concept_words=found.concept_words), labelled
            )
        stored = StoredGroups(found.fingerprint, list(groups))
        self.groups[found.concept.name] = stored
        return stored

    # -- querying ---------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.ids)

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """One FAISS call for all query rows: ``(scores, positions)``, each ``(n_queries, k')``.

        ``k'`` is ``min(k, len(self))``; approximate kinds may pad with position ``-1``.
        """
        if self._index is None or not self.ids:
            raise InputError("the index is empty")
        try:
            queries = np.ascontiguousarray(queries, dtype=np.float32)
        except (TypeError, ValueError):
            raise InputError(f"queries must be an array of numbers, got {type(queries).__name__}") from None
        if queries.ndim == 1:
            queries = queries[None, :]
        if queries.ndim != 2 or queries.shape[1] != self.dimension:
            raise InputError(f"queries must have shape (n, {self.dimension}), got {queries.shape}")
        if not _is_positive_int(k):
            raise InputError(f"k must be a positive integer, got {k!r}")
        depth = min(int(k), len(self.ids))
        if self.kind == "flat":
            return self._index.search(queries, depth)
        return self._approximate_search(queries, depth)

    def _approximate_search(self, queries: np.ndarray, depth: int) -> tuple[np.ndarray, np.ndarray]:
        """IVF / HNSW search that returns ``depth`` results per row where the index holds them: with their default
        breadth (``nprobe``, ``ef_search``) they return far fewer than a large k (HNSW 312 of 500 on 1,320
        documents; red-team, session 34), so a short row is searched again wider — IVF up to every list, HNSW up
        to ``ef_search`` = the index size, then exactly over its stored vectors."""
        if self.kind == "ivf":
            nlist, nprobe = self._index.nlist, min(self.nprobe, self._index.nlist)
            while True:
                params = faiss.SearchParametersIVF()
                params.nprobe = nprobe
                scores, positions = self._index.search(queries, depth, params=params)
                if (positions >= 0).all() or nprobe >= nlist:  # every list visited: exact, nothing more to find
                    return scores, positions
                nprobe = min(2 * nprobe, nlist)
        ef = max(self.ef_search, depth)
        while True:
            params = faiss.SearchParametersHNSW()  # type: ignore[attr-defined]  # faiss's stubs predate it
            params.efSearch = ef
            scores, positions = self._index.search(queries, depth, params=params)
            if (positions >= 0).all():
                return scores, positions
            if ef >= len(self.ids):  # near-duplicates can leave parts of the graph unreachable: read them exactly
                return faiss.downcast_index(self._index.storage).search(queries, depth)
            ef = min(2 * ef, len(self.ids))

    def vectors_at(self, positions: Sequence[int] | np.ndarray) -> np.ndarray:
        """Stored vectors for the given positions (exact scores for chunks outside a search's top list)."""
        positions = self._checked_positions(positions)
        if len(positions) == 0:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self._index.reconstruct_batch(positions)

    def _checked_positions(self, positions: Any) -> np.ndarray:
        """``positions`` as int64 rows of this index; anything else is an :class:`InputError` (FAISS would read
        memory outside the index for a negative one)."""
        try:
            found = np.asarray(positions)
        except (TypeError, ValueError):
            found = np.asarray([None])
        if found.size == 0:
            return np.zeros(0, dtype=np.int64)
        if found.ndim != 1 or found.dtype.kind not in "iu" or found.min() < 0 or found.max() >= len(self.ids):
            raise InputError(f"positions must be a list of integers from 0 to {len(self.ids) - 1}")
        return found.astype(np.int64)

    def versions(
        self,
        candidates: int = CANDIDATES,
        *,
        positions: Sequence[int] | None = None,
        batch: int = 1024,
        concept_words: frozenset[str] | None = None,
    ) -> list[list[int]]:
        """Each document's versions in the index (:func:`~debiasrag.versions.find_versions`), looked for among the
        ``candidates`` texts sharing most of its rarest words (:func:`~debiasrag.versions.word_candidates`: linear in
        the corpus, unlike a search of the index over itself). With ``positions``, those documents' versions only,
        looked for among their ``candidates`` nearest stored vectors (one batched search). ``concept_words``: the words
        versions may differ in (:func:`~debiasrag.versions.is_version`; default every bundled concept's)."""
        if not (_is_positive_int(candidates) and _is_positive_int(batch)):
            raise InputError(f"candidates and batch must be positive integers, got {candidates!r} and {batch!r}")
        if positions is None:
            return find_versions(self.texts, word_candidates(self.texts, candidates), concept_words=concept_words)
        wanted = self._checked_positions(positions)
        neighbours: list[list[int]] = []
        for start in range(0, len(wanted), batch):
            _, found = self.search(self.vectors_at(wanted[start : start + batch]), min(candidates + 1, len(self.ids)))
            neighbours += found.tolist()
        return [
            sorted(
                j for j in row if 0 <= j != p and is_version(self.texts[p], self.texts[j], concept_words=concept_words)
            )
            for p, row in zip(wanted.tolist(), neighbours)
        ]

    def document(self, position: int, *, copy: bool = True) -> Document:
        """The document stored at FAISS row ``position`` (its metadata a copy: editing a result, or a document read
        here, never edits the stored corpus — nested objects were shared, and a redacted hit was saved redacted).
        ``copy=False`` shares it, for readers that only read (a walk over the whole index)."""
        valid = isinstance(position, (int, np.integer)) and not isinstance(position, bool)
        if not (valid and 0 <= position < len(self.ids)):
            raise InputError(f"position must be an integer from 0 to {len(self.ids) - 1}, got {position!r}")
        metadata = self.metadatas[position]
        return Document(self.ids[position], self.texts[position], deepcopy(metadata) if copy else metadata)

    def position_of(self, doc_id: str | int) -> int:
        """The FAISS row of the document with id ``doc_id``; an :class:`InputError` when there is none."""
        try:
            return self._position[doc_id]
        except (KeyError, TypeError):  # TypeError: an unhashable value, which no id is
            raise InputError(f"no document with id {doc_id!r}") from None

    # -- persistence --------------------------------------------------------------------------------
    def _manifest(self) -> dict[str, Any]:
        return {
            "format": FORMAT_VERSION,
            "model": self.model_name,
            "dimension": self.dimension,
            "kind": self.kind,
            "count": len(self.ids),
            "preprocessing": self.preprocessing,
            "groups": {name: stored.detector for name, stored in self.groups.items()},
            "options": {"nlist": self.nlist, "nprobe": self.nprobe, "hnsw_m": self.hnsw_m, "ef_search": self.ef_search},
        }

    def save(
        self,
        directory: str | Path,
        *,
        lock_timeout: float | None = storage.DEFAULT_LOCK_TIMEOUT,
        on_replaced: Callable[[dict[str, Any]], None] | None = None,
    ) -> Path:
        """Publish the index in ``directory`` as a new version (see :mod:`debiasrag.storage`).

        Refused when ``directory`` exists and is neither an index folder nor empty, or is a symbolic
        link. Every write is verified before the manifest is swapped in; on failure the previous
        index stays current and :class:`~debiasrag.errors.IndexWriteError` is raised. While another
        process saves to ``directory``, waits at most ``lock_timeout`` seconds (``None``: without
        limit), then raises :class:`~debiasrag.errors.IndexWriteError` (the previous index unchanged).
        ``on_replaced(manifest)`` is called once saved when the save replaced an index (its manifest, read
        while the save held the lock).
        """
        storage.check_lock_timeout(lock_timeout)  # before serialising a large index
        if self._index is None or not self.ids:
            raise InputError("refusing to save an empty index")
        lines = []
        for position, (doc_id, text, metadata) in enumerate(zip(self.ids, self.texts, self.metadatas)):
            row: dict[str, Any] = {"id": doc_id, "text": text, "metadata": metadata}
            if self.groups:
                row["groups"] = {name: stored.groups[position] for name, stored in self.groups.items()}
            try:
                line = json.dumps(row, ensure_ascii=False, allow_nan=False)
            except (TypeError, ValueError, RecursionError) as exc:
                raise InputError(f"metadata of document {doc_id!r} is not JSON-serialisable: {exc}") from None
            try:
                lines.append((line + "\n").encode("utf-8"))
            except UnicodeEncodeError:  # lone surrogates: \uXXXX escapes keep them exactly
                lines.append((json.dumps(row, allow_nan=False) + "\n").encode("ascii"))
        payload: dict[str, Iterable[bytes | memoryview]] = {
            _INDEX_FILE: [faiss.serialize_index(self._index).data],
            _DOCS_FILE: lines,
        }
        return storage.publish(directory, payload, self._manifest(), lock_timeout=lock_timeout, on_replaced=on_replaced)

    @classmethod
    def load(cls, directory: str | Path, *, embedder: Embedder | str | None = None) -> FaissIndex:
        """Load the current version of an index folder, verified against its manifest's checksums.

        With ``embedder`` (an embedder, or a model name or path as the retriever takes), also check it is the model
        (and dimension) the index was built with.
        """
        manifest, files = storage.read_current(directory)  # a bad path is an InputError there
        folder = Path(directory)
        if embedder is not None:
            if isinstance(embedder, str):
                embedder = load_embedder(embedder)
            if not isinstance(embedder, Embedder):
                raise InputError(f"embedder must be an Embedder or a model name or path, got {type(embedder).__name__}")
            check_model(manifest, embedder, folder)
        index = cls(manifest["dimension"], model_name=manifest["model"], kind=manifest["kind"], **manifest["options"])
        index.preprocessing = dict(manifest["preprocessing"])
        paths = storage.data_paths(folder, manifest)  # the version folder's files, for messages
        try:
            index._index = faiss.deserialize_index(np.frombuffer(files[_INDEX_FILE], dtype=np.uint8))
        except RuntimeError as exc:  # FAISS's C++ message names its source file, not the problem
            logger.debug("faiss could not read %s: %s", paths[_INDEX_FILE], exc)
            raise IndexLoadError(
                f"{paths[_INDEX_FILE]} cannot be read: FAISS finds it truncated or not a FAISS index; rebuild the index"
            ) from exc
        expected_type: Any = {"flat": faiss.IndexFlat, "ivf": faiss.IndexIVF, "hnsw": faiss.IndexHNSW}[index.kind]
        if not isinstance(index._index, expected_type):
            raise IndexLoadError(
                f"{folder}: manifest says kind {index.kind!r} but {_INDEX_FILE} holds a {type(index._index).__name__}"
            )
        if index._index.d != index.dimension:
            raise IndexLoadError(
                f"{folder}: FAISS index has dimension {index._index.d}, manifest says {index.dimension}"
            )
        stored_groups: dict[str, list[str]] = {name: [] for name in manifest.get("groups", {})}
        for doc, groups in _parse_documents(files[_DOCS_FILE], paths[_DOCS_FILE], tuple(stored_groups)):
            if doc.id in index._position:
                raise IndexLoadError(f"{folder}/{_DOCS_FILE} is corrupted: duplicate id {doc.id!r}")
            index._position[doc.id] = len(index.ids)
            index.ids.append(doc.id)
            index.texts.append(doc.text)
            index.metadatas.append(doc.metadata)
            for name, group in groups.items():
                stored_groups[name].append(group)
        index.groups = {name: StoredGroups(manifest["groups"][name], g) for name, g in stored_groups.items()}
        if not (len(index.ids) == index._index.ntotal == manifest["count"]):
            raise IndexLoadError(
                f"{folder}: {len(index.ids)} documents, {index._index.ntotal} vectors, "
                f"manifest says {manifest['count']}"
            )
        if index.kind == "ivf":
            index._index.make_direct_map()
            index._index.nprobe = min(index.nprobe, index._index.nlist)
        if index.kind == "hnsw":
            index._index.hnsw.efSearch = index.ef_search
        return index


def _is_positive_int(value: Any) -> bool:
    return bool(isinstance(value, (int, np.integer)) and not isinstance(value, bool) and value > 0)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not strict JSON")


def _parse_documents(data: bytes, path: Path, concepts: tuple[str, ...]) -> Iterator[tuple[Document, dict[str, str]]]:
    """Each row's document and its stored group for every concept in ``concepts`` (the manifest's); a bad row is an
    :class:`IndexLoadError` naming ``path``, its line and what is wrong."""
    for number, line in enumerate(data.split(b"\n")[:-1], start=1):
        try:
            row = json.loads(line.decode("utf-8"), parse_constant=_no_constant)
            problem = stored_row_problem(row)
            if problem is not None:
                raise TypeError(problem)
            doc_id, text, metadata = row["id"], row["text"], row.get("metadata") or {}
            groups = {name: row["groups"][name] for name in concepts}
            if not all(isinstance(group, str) for group in groups.values()):
                raise TypeError("a stored group is not a string")
        except KeyError as exc:
            field = exc.args[0]
            what = "its 'groups' field" if field == "groups" else f"its stored {field!r} group"
            raise IndexLoadError(f"{path} line {number} is corrupted: {what} is missing") from None
        except TypeError as exc:
            raise IndexLoadError(f"{path} line {number} is corrupted: {exc}") from None
        except (ValueError, AttributeError, RecursionError):
            raise IndexLoadError(f"{path} line {number} is corrupted: not valid JSON") from None
        yield Document(doc_id, text, metadata), groups


def check_model(manifest: dict[str, Any], embedder: Embedder, folder: Path) -> None:
    """Raise when ``embedder`` is not the model (or dimension) the index was built with."""
    built_name, built_dim = manifest.get("model"), manifest.get("dimension")
    if embedder.dimension != built_dim:
        if embedder.name == built_name:  # the same model cannot change its size: the manifest is wrong
            raise IndexLoadError(
                f"{folder}/manifest.json says dimension {built_dim}, but its model {built_name} gives "
                f"{embedder.dimension}: the manifest is corrupted; rebuild the index"
            )
        raise IndexLoadError(
            f"{folder} was built with {built_name} (dimension {built_dim}); "
            f"the embedder {embedder.name} has dimension {embedder.dimension}"
        )
    if built_name is not None and embedder.name != built_name:
        if Path(built_name).is_absolute() and not Path(built_name).exists():
            raise IndexLoadError(
                f"{folder} was built with the model folder {built_name}, which is not there any more: put the model "
                f"back at that path (the index keeps its name, not its files), or build the index again with "
                f"{embedder.name}"
            )
        raise IndexLoadError(
            f"{folder} was built with model {built_name}, not {embedder.name}",
            hint="to embed queries with the model the index was built with",
            option="embedder",
            value=built_name,
        )


def read_manifest(directory: str | Path) -> dict[str, Any]:
    """The validated manifest of an index folder (to pick the right embedder before loading)."""
    return storage.read_manifest(directory)
