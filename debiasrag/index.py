"""FAISS-backed vector index that also keeps ids, texts and metadata, saved without pickle.

On disk an index is a folder with ``index.faiss`` (FAISS's own format), ``documents.jsonl`` (one
``{"id", "text", "metadata"}`` per vector, in vector order) and ``manifest.json`` (model, dimension,
kind, count and SHA-256 of both files). :meth:`FaissIndex.save` writes a sibling temp folder and swaps
it in, so an interrupted save leaves the previous index intact.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Literal

import faiss
import numpy as np

from debiasrag.corpus import Document
from debiasrag.embedders import Embedder
from debiasrag.errors import IndexLoadError, InputError

IndexKind = Literal["flat", "ivf", "hnsw"]
FORMAT_VERSION = 1
_INDEX_FILE, _DOCS_FILE, _MANIFEST = "index.faiss", "documents.jsonl", "manifest.json"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


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
        if dimension <= 0:
            raise InputError(f"dimension must be positive, got {dimension}")
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
        self._position: dict[str | int, int] = {}
        self._index: faiss.Index | None = None if kind == "ivf" else self._new_index()

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
        index = faiss.IndexIVFFlat(quantizer, self.dimension, nlist, faiss.METRIC_INNER_PRODUCT)
        index.nprobe = min(self.nprobe, nlist)
        return index

    def add(self, documents: Sequence[Document], vectors: np.ndarray) -> None:
        """Add documents with their (normalised) vectors. Ids must be new."""
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[1] != self.dimension:
            raise InputError(f"vectors must have shape (n, {self.dimension}), got {vectors.shape}")
        if len(documents) != len(vectors):
            raise InputError(f"{len(documents)} documents but {len(vectors)} vectors")
        for doc in documents:
            if doc.id in self._position:
                raise InputError(f"duplicate id {doc.id!r}")
        if self._index is None:  # IVF trains on its first batch
            self._index = self._new_index(len(vectors))
            self._index.train(vectors)
        start = len(self.ids)
        self._index.add(vectors)
        for offset, doc in enumerate(documents):
            self._position[doc.id] = start + offset
            self.ids.append(doc.id)
            self.texts.append(doc.text)
            self.metadatas.append(dict(doc.metadata))
        if self.kind == "ivf":
            self._index.make_direct_map()  # lets vectors_at() reconstruct stored vectors

    @classmethod
    def from_documents(
        cls,
        documents: Sequence[Document],
        embedder: Embedder,
        *,
        batch_size: int = 256,
        progress: Callable[[int], None] | None = None,
        **options: Any,
    ) -> FaissIndex:
        """Embed ``documents`` in batches and index them; ``progress(n)`` is called after each batch."""
        if not documents:
            raise InputError("the corpus is empty: no documents to index")
        index = cls(embedder.dimension, model_name=embedder.name, **options)
        parts = []
        for start in range(0, len(documents), batch_size):
            batch = documents[start : start + batch_size]
            parts.append(embedder.encode([d.text for d in batch]))
            if progress is not None:
                progress(len(batch))
        index.add(documents, np.concatenate(parts))
        return index

    # -- querying ---------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.ids)

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """One FAISS call for all query rows: ``(scores, positions)``, each ``(n_queries, k')``.

        ``k'`` is ``min(k, len(self))``; approximate kinds may pad with position ``-1``.
        """
        if self._index is None or not self.ids:
            raise InputError("the index is empty")
        queries = np.ascontiguousarray(queries, dtype=np.float32)
        if queries.ndim == 1:
            queries = queries[None, :]
        k = min(int(k), len(self.ids))
        scores, positions = self._index.search(queries, k)
        return scores, positions

    def vectors_at(self, positions: Sequence[int] | np.ndarray) -> np.ndarray:
        """Stored vectors for the given positions (exact scores for chunks outside a search's top list)."""
        positions = np.asarray(positions, dtype=np.int64)
        if len(positions) == 0:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self._index.reconstruct_batch(positions)  # type: ignore[union-attr]

    def document(self, position: int) -> Document:
        return Document(self.ids[position], self.texts[position], self.metadatas[position])

    def position_of(self, doc_id: str | int) -> int:
        try:
            return self._position[doc_id]
        except KeyError:
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
            "options": {"nlist": self.nlist, "nprobe": self.nprobe, "hnsw_m": self.hnsw_m, "ef_search": self.ef_search},
        }

    def save(self, directory: str | Path) -> Path:
        """Write the index to ``directory`` atomically (temp folder, then rename over the old one)."""
        if self._index is None or not self.ids:
            raise InputError("refusing to save an empty index")
        target = Path(directory)
        parent = target.parent if str(target.parent) else Path(".")
        if not parent.exists():
            raise InputError(f"parent folder does not exist: {parent}")
        if target.exists() and not target.is_dir():
            raise InputError(f"{target} exists and is not a folder")
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=parent))
        try:
            faiss.write_index(self._index, str(tmp / _INDEX_FILE))
            with (tmp / _DOCS_FILE).open("w", encoding="utf-8") as handle:
                for doc_id, text, metadata in zip(self.ids, self.texts, self.metadatas):
                    try:
                        line = json.dumps({"id": doc_id, "text": text, "metadata": metadata}, ensure_ascii=False)
                    except TypeError as exc:
                        raise InputError(f"metadata of document {doc_id!r} is not JSON-serialisable: {exc}") from exc
                    handle.write(line + "\n")
            manifest = self._manifest()
            manifest["sha256"] = {name: _sha256(tmp / name) for name in (_INDEX_FILE, _DOCS_FILE)}
            (tmp / _MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
            _swap_into_place(tmp, target)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return target

    @classmethod
    def load(cls, directory: str | Path, *, embedder: Embedder | None = None, verify: bool = True) -> FaissIndex:
        """Load an index folder; with ``embedder``, check it is the model the index was built with."""
        folder = Path(directory)
        manifest = read_manifest(folder)
        for name in (_INDEX_FILE, _DOCS_FILE):
            if not (folder / name).is_file():
                raise IndexLoadError(f"{folder} is incomplete: {name} is missing")
            expected = manifest.get("sha256", {}).get(name)
            if verify and expected and _sha256(folder / name) != expected:
                raise IndexLoadError(f"{folder}/{name} is corrupted (checksum mismatch)")
        if embedder is not None:
            check_model(manifest, embedder, folder)
        options = manifest.get("options", {})
        index = cls(int(manifest["dimension"]), model_name=manifest.get("model"), kind=manifest["kind"], **options)
        index.preprocessing = dict(manifest.get("preprocessing") or {})
        try:
            index._index = faiss.read_index(str(folder / _INDEX_FILE))
        except RuntimeError as exc:
            raise IndexLoadError(f"{folder}/{_INDEX_FILE} cannot be read: {str(exc).splitlines()[0]}") from exc
        if index._index.d != index.dimension:
            raise IndexLoadError(
                f"{folder}: FAISS index has dimension {index._index.d}, manifest says {index.dimension}"
            )
        with (folder / _DOCS_FILE).open(encoding="utf-8") as handle:
            for number, line in enumerate(handle, start=1):
                try:
                    row = json.loads(line)
                    doc = Document(row["id"], row["text"], row.get("metadata", {}))
                except (json.JSONDecodeError, KeyError, TypeError) as exc:
                    raise IndexLoadError(f"{folder}/{_DOCS_FILE} line {number} is corrupted") from exc
                index._position[doc.id] = len(index.ids)
                index.ids.append(doc.id)
                index.texts.append(doc.text)
                index.metadatas.append(doc.metadata)
        if not (len(index.ids) == index._index.ntotal == manifest.get("count")):
            raise IndexLoadError(
                f"{folder}: {len(index.ids)} documents, {index._index.ntotal} vectors, "
                f"manifest says {manifest.get('count')}"
            )
        if index.kind == "ivf":
            index._index.make_direct_map()
            index._index.nprobe = min(index.nprobe, index._index.nlist)
        if index.kind == "hnsw":
            index._index.hnsw.efSearch = index.ef_search
        return index


def check_model(manifest: dict[str, Any], embedder: Embedder, folder: Path) -> None:
    """Raise when ``embedder`` is not the model (or dimension) the index was built with."""
    built_name, built_dim = manifest.get("model"), manifest.get("dimension")
    if embedder.dimension != built_dim:
        raise IndexLoadError(
            f"{folder} was built with {built_name} (dimension {built_dim}); "
            f"the embedder {embedder.name} has dimension {embedder.dimension}"
        )
    if built_name is not None and embedder.name != built_name:
        raise IndexLoadError(
            f"{folder} was built with model {built_name}, not {embedder.name}; pass --model {built_name}"
        )


def read_manifest(directory: str | Path) -> dict[str, Any]:
    """The manifest of an index folder (to pick the right embedder before loading), format checked."""
    folder = Path(directory)
    if not folder.is_dir():
        raise IndexLoadError(f"index folder not found: {folder}")
    try:
        manifest = json.loads((folder / _MANIFEST).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise IndexLoadError(f"{folder} is not a debiasrag index (no {_MANIFEST})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise IndexLoadError(f"{folder}/{_MANIFEST} is corrupted: {exc}") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT_VERSION:
        found = manifest.get("format") if isinstance(manifest, dict) else None
        raise IndexLoadError(f"{folder}: unsupported index format {found!r}")
    return manifest


def _swap_into_place(tmp: Path, target: Path) -> None:
    """Replace ``target`` by ``tmp``; the old folder is only removed once the new one is in place."""
    if not target.exists():
        os.replace(tmp, target)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.parent))
    old.rmdir()
    os.replace(target, old)
    try:
        os.replace(tmp, target)
    except BaseException:
        os.replace(old, target)  # put the previous index back
        raise
    shutil.rmtree(old, ignore_errors=True)
