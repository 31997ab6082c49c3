"""The on-disk protocol of an index folder: crash-safe, reader-safe publication of immutable versions.

An index folder holds one ``manifest.json`` (the pointer) and one or more complete versions::

    my-index/
      manifest.json                              which version is current, its checksums and sizes
      debiasrag-data-20261122T224501-1a2b3c4d/   a version: index.faiss + documents.jsonl, never modified
      .debiasrag.lock                            writers hold an exclusive lock on it while saving

A save writes a new version folder (every write checked, flushed, fsynced, then re-read and verified),
then replaces ``manifest.json`` with one :func:`os.replace` — the only step that changes what readers
see. A crash at any point leaves either the old or the new manifest, each naming a complete version.
The previous version is kept so readers that already read the old manifest can finish; older
versions and leftovers of interrupted saves (all recognisably named) are removed by the next save.
A save waits for another writer's lock at most ``lock_timeout`` seconds (default
:data:`DEFAULT_LOCK_TIMEOUT`), then gives up with the previous index unchanged.
Readers take no lock: a reader whose version vanished under it re-reads the manifest and retries.

Saving is refused on anything that is not already an index folder (or an empty or new folder), and on
symbolic links, so a mistyped ``--out`` can never delete a user's files.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import logging
import os
import re
import secrets
import shutil
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from debiasrag.errors import IndexLoadError, IndexWriteError, InputError
from debiasrag.fileio import RepeatedKeyError, fsync_folder, unique_keys

try:  # POSIX; on other systems concurrent saves are not serialised
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

logger = logging.getLogger(__name__)

FORMAT_VERSION = 2
PRODUCER = "debiasrag"
MAX_DIMENSION = 1 << 16  # largest vector dimension an index holds (the largest models use 4,096)
MAX_OPTION = 1 << 24  # largest nlist / nprobe / hnsw_m / ef_search
MANIFEST = "manifest.json"
INDEX_FILE, DOCS_FILE = "index.faiss", "documents.jsonl"
DATA_FILES = (INDEX_FILE, DOCS_FILE)
LOCK_FILE = ".debiasrag.lock"
# NerAnonymizer switches a manifest's preprocessing.anonymize may record (only when off), so that the index's queries
# are anonymized with the same detection as its corpus
RECORDED_NER_SWITCHES = ("use_ner", "lower_case_names")
_VERSION_RE = re.compile(r"^debiasrag-data-\d{8}T\d{6}-[0-9a-f]{8}$")
_MANIFEST_TMP_RE = re.compile(r"^\.manifest-\d{8}T\d{6}-[0-9a-f]{8}\.tmp$")
# Leftovers of format 1 (before versioned folders): sibling temp/old folders of an interrupted swap.
_LEGACY_SIBLING_RE = r"^\.{name}\.[a-z0-9_]{{8}}\.(tmp|old)$"
_LOAD_ATTEMPTS = 8
_MANIFEST_LIMIT = 1 << 20
_CHUNK = 1 << 22
DEFAULT_LOCK_TIMEOUT = 600.0  # seconds a save waits for another writer of the same folder
_LOCK_POLL_MAX = 0.1


def _new_version() -> str:
    return f"{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-{secrets.token_hex(4)}"


# -- writing ------------------------------------------------------------------------------------------
def _sha256_file(path: Path) -> tuple[str, int]:
    digest, size = hashlib.sha256(), 0
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(_CHUNK), b""):
            digest.update(block)
            size += len(block)
    return digest.hexdigest(), size


def write_verified(path: Path, chunks: Iterable[bytes | memoryview]) -> tuple[str, int]:
    """Write ``chunks`` to a new file, flush + fsync, then re-read it: ``(sha256, size)`` as verified on disk.

    Uses the built-in ``open`` so every write error (disk full, file too big) surfaces here as ``OSError``.
    """
    digest, size = hashlib.sha256(), 0
    with open(path, "xb") as handle:
        for chunk in chunks:
            view = memoryview(chunk).cast("B")
            for start in range(0, len(view), _CHUNK):
                part = view[start : start + _CHUNK]
                written = handle.write(part)
                if written is not None and written != len(part):
                    raise OSError(errno.EIO, f"short write to {path.name}")
                digest.update(part)
                size += len(part)
        handle.flush()
        os.fsync(handle.fileno())
    on_disk = _sha256_file(path)
    if on_disk != (digest.hexdigest(), size):
        raise OSError(errno.EIO, f"{path.name} reads back differently from what was written")
    return on_disk


def _is_ours(entry: Path) -> bool:
    return entry.name in (MANIFEST, LOCK_FILE) or bool(
        _VERSION_RE.match(entry.name) or _MANIFEST_TMP_RE.match(entry.name)
    )


def _folder_path(directory: Any) -> Path:
    """``directory`` as a Path; a value that is not a path, or holds a NUL byte, is an :class:`InputError`."""
    if not isinstance(directory, (str, os.PathLike)) or "\x00" in str(os.fspath(directory)):
        raise InputError(f"an index folder must be a path (str or os.PathLike) without NUL bytes, got {directory!r}")
    return Path(directory)


def check_writable_target(target: Path) -> None:
    """Refuse to write over anything that is not an index folder, an empty folder, or a new path."""
    target = _folder_path(target)
    try:
        _check_writable(target)
    except OSError as exc:  # a name too long for the file system, a folder we may not read
        raise InputError(f"cannot write an index to {target}: {exc.strerror or exc}") from None


def _check_writable(target: Path) -> None:
    if target.is_symlink():
        raise InputError(f"{target} is a symbolic link; refusing to write an index through it (pass the real folder)")
    if not target.exists():
        parent = target.parent
        if not parent.is_dir():
            raise InputError(f"parent folder does not exist: {parent}")
        return
    if not target.is_dir():
        raise InputError(f"{target} exists and is not a folder; refusing to replace it with an index")
    entries = list(target.iterdir())
    if (target / MANIFEST).is_file():
        try:
            read_manifest(target)
        except IndexLoadError as exc:
            raise InputError(
                f"{target} holds a {MANIFEST} that is not a valid debiasrag index ({exc}); "
                "refusing to write over it (choose another folder)"
            ) from None
        return
    foreign = [e.name for e in entries if not _is_ours(e)]
    if foreign:
        raise InputError(
            f"{target} is not empty and is not a debiasrag index (it holds {foreign[0]!r}"
            f"{' and more' if len(foreign) > 1 else ''}); refusing to write over it (choose a new folder)"
        )


def check_lock_timeout(lock_timeout: Any) -> float | None:
    """``lock_timeout`` as seconds (a finite number >= 0) or ``None`` (wait without limit); else :class:`InputError`."""
    if lock_timeout is None:
        return None
    if (
        isinstance(lock_timeout, bool)
        or not isinstance(lock_timeout, (int, float))
        or not 0 <= lock_timeout < float("inf")  # NaN fails too
    ):
        raise InputError(
            f"lock_timeout must be a number of seconds >= 0, or None to wait without limit, not {lock_timeout!r}"
        )
    try:
        return float(lock_timeout)
    except OverflowError:  # an int past the largest float: longer than anyone waits
        raise InputError(
            "lock_timeout is too large to be a number of seconds; pass None to wait without limit"
        ) from None


@contextlib.contextmanager
def writer_lock(folder: Path, *, timeout: float | None = DEFAULT_LOCK_TIMEOUT) -> Iterator[None]:
    """Exclusive lock for the duration of a save, so two processes never publish over each other.

    Waits at most ``timeout`` seconds for another process holding the lock (``None``: without limit), then
    raises :class:`~debiasrag.errors.IndexWriteError`; nothing has been written by then.
    """
    timeout = check_lock_timeout(timeout)
    if fcntl is None:  # pragma: no cover
        yield
        return
    path = folder / LOCK_FILE
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
    except OSError as exc:  # e.g. the lock file was replaced by a symbolic link (never followed)
        raise IndexWriteError(f"cannot lock {path}: {exc.strerror or exc}; the previous index is unchanged") from exc
    try:
        _acquire(fd, path, timeout)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def _acquire(fd: int, path: Path, timeout: float | None) -> None:
    """Take the exclusive lock on ``fd``, polling until ``timeout`` seconds have passed (``None``: block)."""
    if timeout is None:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return
    deadline = time.monotonic() + timeout
    pause = 0.005
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:  # another process holds it
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                break
            time.sleep(min(pause, remaining))
            pause = min(pause * 2, _LOCK_POLL_MAX)
    longer = max(2 * timeout, 60.0)
    raise IndexWriteError(
        f"another process has held the lock {path} for {timeout:g} s (a save to this index still running?); "
        "gave up, the previous index is unchanged",
        hint="to wait longer",
        option="lock_timeout",
        value=int(longer) if longer.is_integer() else longer,
    )


def publish(
    target: str | Path,
    payload: dict[str, Iterable[bytes | memoryview]],
    manifest: dict[str, Any],
    *,
    lock_timeout: float | None = DEFAULT_LOCK_TIMEOUT,
    on_replaced: Callable[[dict[str, Any]], None] | None = None,
) -> Path:
    """Write ``payload`` (file name → byte chunks) as a new version of the index folder ``target``.

    ``manifest`` gets the version, checksums and sizes; it is published last, atomically. On any
    failure the previous index stays current and :class:`~debiasrag.errors.IndexWriteError` (or
    :class:`~debiasrag.errors.InputError` for a refused target) is raised. A save waits at most
    ``lock_timeout`` seconds (``None``: without limit) for another process saving to ``target``.
    ``on_replaced`` is called after publishing with the manifest of the index this save replaced, as read
    under the lock (a check before the save can miss another process's save finishing meanwhile).
    """
    lock_timeout = check_lock_timeout(lock_timeout)
    target = _folder_path(target)
    check_writable_target(target)
    _check_loadable(manifest, target)
    try:
        target.mkdir(exist_ok=True)
    except OSError as exc:
        raise IndexWriteError(f"cannot create index folder {target}: {exc.strerror or exc}") from exc
    with writer_lock(target, timeout=lock_timeout):
        check_writable_target(target)  # another writer may have changed it while we waited
        replaced = _current_manifest(target)
        previous, previous_format = _version_of(replaced)
        version = f"debiasrag-data-{_new_version()}"
        version_dir = target / version
        manifest_tmp = target / f".manifest-{version[len('debiasrag-data-') :]}.tmp"
        try:
            version_dir.mkdir()
            sha, sizes = {}, {}
            for name, chunks in payload.items():
                sha[name], sizes[name] = write_verified(version_dir / name, chunks)
            fsync_folder(version_dir)
            record = {**manifest, "format": FORMAT_VERSION, "producer": PRODUCER, "version": version}
            record.update(sha256=sha, size=sizes)
            text = json.dumps(record, indent=1, ensure_ascii=False, allow_nan=False).encode("utf-8")
            write_verified(manifest_tmp, [text])
            os.replace(manifest_tmp, target / MANIFEST)  # the single step readers can observe
        except OSError as exc:
            _undo_unpublished(target, version_dir, manifest_tmp)
            reason = exc.strerror or str(exc)
            kept = "the previous index is unchanged" if previous_format is not None else "no index was written"
            raise IndexWriteError(f"could not write the index to {target}: {reason}; {kept}") from exc
        except BaseException:  # Ctrl-C: undone unless the manifest already names the new version
            _undo_unpublished(target, version_dir, manifest_tmp)
            raise
        # Published: the new version is the index now, whatever happens next (a Ctrl-C during this fsync
        # deleted the version the manifest named, and neither index loaded).
        try:
            fsync_folder(target)
        except OSError as exc:  # the index is written and current; only the rename's durability is in doubt
            logger.warning("index written to %s, but its folder could not be synced: %s", target, exc.strerror or exc)
        _remove_leftovers(target, keep={version, previous}, upgraded_format_1=previous_format == 1)
    if replaced is not None and on_replaced is not None:
        on_replaced(replaced)
    return target


def _undo_unpublished(target: Path, version_dir: Path, manifest_tmp: Path) -> None:
    """Remove a new version that did not become the index. An interrupt can land after the manifest swap but
    before the handler runs, so the manifest on disk decides: a version it names is kept (it is the index)."""
    with contextlib.suppress(OSError):
        manifest_tmp.unlink()
    if _current_version(target)[0] != version_dir.name:
        shutil.rmtree(version_dir, ignore_errors=True)


def _check_loadable(manifest: dict[str, Any], target: Path) -> None:
    """Refuse, before anything is written, a manifest the loader would refuse (an option out of range, an unknown
    preprocessing step): publishing it would replace a good index by one nobody can open."""
    probe = {**manifest, "format": FORMAT_VERSION, "producer": PRODUCER, "version": f"debiasrag-data-{_new_version()}"}
    probe.update(sha256={name: "0" * 64 for name in DATA_FILES}, size={name: 0 for name in DATA_FILES})
    try:
        validate_manifest(probe, target)
    except IndexLoadError as exc:
        reason = exc.message.split(" is invalid: ", 1)[-1]
        raise InputError(f"refusing to save to {target}: the index could not be loaded again ({reason})") from None


def _current_manifest(folder: Path) -> dict[str, Any] | None:
    """The current valid manifest, ``None`` when there is none (a save replacing it goes on)."""
    try:
        return read_manifest(folder)
    except IndexLoadError:
        return None


def _version_of(manifest: dict[str, Any] | None) -> tuple[str | None, int | None]:
    """A manifest's version folder and format, ``(None, None)`` for no manifest."""
    return (None, None) if manifest is None else (manifest.get("version"), manifest["format"])


def _current_version(folder: Path) -> tuple[str | None, int | None]:
    """The current manifest's version folder and format, ``(None, None)`` when there is no valid one."""
    return _version_of(_current_manifest(folder))


def _remove_leftovers(folder: Path, keep: set[str | None], *, upgraded_format_1: bool = False) -> None:
    """Delete versions older than the previous one, temp manifests and format-1 files; only our own names.

    The top-level ``index.faiss`` / ``documents.jsonl`` of a format-1 index, and the sibling swap folders of an
    interrupted 0.1 save, are removed only by the save that replaced that format-1 index: beside or in a format-2
    folder, files and folders of those names are someone else's.
    """
    for entry in folder.iterdir():
        try:
            if _VERSION_RE.match(entry.name) and entry.name not in keep and not entry.is_symlink():
                shutil.rmtree(entry)
            elif _MANIFEST_TMP_RE.match(entry.name) and not entry.is_dir():
                entry.unlink()
            elif upgraded_format_1 and entry.name in DATA_FILES and entry.is_file() and not entry.is_symlink():
                entry.unlink()  # the format-1 index this save upgraded
        except OSError as exc:  # a leftover we cannot remove is harmless; the next save retries
            logger.warning("could not remove leftover %s: %s", entry, exc)
    if not upgraded_format_1:  # 0.1's swap folders lie only beside a format-1 index: any other is the user's
        return  # (".my-index.20261129.old", a dated backup, has that shape too: red-team, session 34)
    pattern = re.compile(_LEGACY_SIBLING_RE.format(name=re.escape(folder.name)))
    for sibling in folder.parent.iterdir():
        if pattern.match(sibling.name) and sibling.is_dir() and not sibling.is_symlink():
            if all(p.name in (MANIFEST, *DATA_FILES) for p in sibling.iterdir()):
                shutil.rmtree(sibling, ignore_errors=True)


# -- reading ------------------------------------------------------------------------------------------
def read_manifest(directory: str | Path) -> dict[str, Any]:
    """The validated manifest of an index folder (to pick the right embedder before loading)."""
    folder = _folder_path(directory)
    if folder.is_file():  # a corpus given where the index belongs, most likely
        raise IndexLoadError(f"{folder} is a file, not an index folder (build one with debiasrag index)")
    if not folder.is_dir():
        raise IndexLoadError(f"index folder not found: {folder}")
    try:
        with open(folder / MANIFEST, "rb") as handle:
            raw = handle.read(_MANIFEST_LIMIT + 1)  # ours are a few hundred bytes; never read a runaway file whole
        if len(raw) > _MANIFEST_LIMIT:
            raise IndexLoadError(f"{folder}/{MANIFEST} is corrupted: larger than {_MANIFEST_LIMIT} bytes")
        manifest = json.loads(raw.decode("utf-8"), parse_constant=_reject_constant, object_pairs_hook=unique_keys)
    except FileNotFoundError:
        raise IndexLoadError(f"{folder} is not a debiasrag index (no {MANIFEST})") from None
    except (ValueError, RecursionError) as exc:  # JSONDecodeError and UnicodeDecodeError are ValueErrors
        raise IndexLoadError(f"{folder}/{MANIFEST} is corrupted: {str(exc).splitlines()[0][:200]}") from None
    except RepeatedKeyError as exc:  # read one way it would pick one of the two values
        raise IndexLoadError(f"{folder}/{MANIFEST} is corrupted: it repeats the key {exc.args[0]!r}") from None
    except OSError as exc:
        raise IndexLoadError(f"cannot read {folder}/{MANIFEST}: {exc.strerror or exc}") from None
    validate_manifest(manifest, folder)
    return manifest


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed in a manifest")


def _fail(folder: Path, field: str, expected: str, value: Any) -> IndexLoadError:
    shown = repr(value)
    shown = shown if len(shown) <= 60 else shown[:57] + "..."
    return IndexLoadError(f"{folder}/{MANIFEST} is invalid: {field!r} must be {expected}, got {shown}")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def is_model_name(value: Any) -> bool:
    """A stored model name: a non-blank string without outer spaces ("" would load the working directory)."""
    return isinstance(value, str) and value != "" and value.strip() == value


def validate_manifest(manifest: Any, folder: Path) -> None:
    """Check every field's type and range; raise :class:`IndexLoadError` naming the first bad one."""
    if not isinstance(manifest, dict):
        raise IndexLoadError(f"{folder}/{MANIFEST} is invalid: not a JSON object")
    fmt = manifest.get("format")
    if fmt not in (1, FORMAT_VERSION) or not _is_int(fmt):
        raise IndexLoadError(f"{folder}: unsupported index format {fmt!r}")
    checks: list[tuple[str, str, Any]] = [
        ("model", "a model name or null", lambda v: v is None or is_model_name(v)),
        ("dimension", f"an integer from 1 to {MAX_DIMENSION}", lambda v: _is_int(v) and 0 < v <= MAX_DIMENSION),
        ("kind", "one of 'flat', 'ivf', 'hnsw'", lambda v: v in ("flat", "ivf", "hnsw")),
        ("count", "a positive integer", lambda v: _is_int(v) and v > 0),
        ("preprocessing", "an object", lambda v: isinstance(v, dict)),
        ("options", "an object", lambda v: isinstance(v, dict)),
        ("sha256", "an object with a checksum per file", lambda v: isinstance(v, dict)),
    ]
    for field, expected, ok in checks:
        if field not in manifest:
            raise IndexLoadError(f"{folder}/{MANIFEST} is invalid: {field!r} is missing")
        if not ok(manifest[field]):
            raise _fail(folder, field, expected, manifest[field])
    _validate_options(manifest["options"], folder)
    _validate_preprocessing(manifest["preprocessing"], folder)
    groups = manifest.get("groups", {})  # concept -> fingerprint of the detector that stored its groups
    if not isinstance(groups, dict):
        raise _fail(folder, "groups", "an object", groups)
    for name, fingerprint in groups.items():
        if not (isinstance(fingerprint, str) and re.fullmatch(r"[0-9a-f]{64}", fingerprint)):
            raise _fail(folder, f"groups.{name}", "a detector fingerprint (SHA-256 hex digest)", fingerprint)
    for name in DATA_FILES:
        value = manifest["sha256"].get(name)
        if not (isinstance(value, str) and re.fullmatch(r"[0-9a-f]{64}", value)):
            raise _fail(folder, f"sha256.{name}", "a SHA-256 hex digest", value)
    if fmt == FORMAT_VERSION:
        if manifest.get("producer") != PRODUCER:
            raise _fail(folder, "producer", repr(PRODUCER), manifest.get("producer"))
        version = manifest.get("version")
        if not (isinstance(version, str) and _VERSION_RE.match(version)):
            raise _fail(folder, "version", "a debiasrag-data-… folder name", version)
        sizes = manifest.get("size")
        if not isinstance(sizes, dict) or not all(_is_int(sizes.get(n)) and sizes[n] >= 0 for n in DATA_FILES):
            raise _fail(folder, "size", "an object with a byte size per file", sizes)


_OPTION_TYPES = {"nlist": True, "nprobe": False, "hnsw_m": False, "ef_search": False}  # name → may be null


def _validate_options(options: dict[str, Any], folder: Path) -> None:
    for key, value in options.items():
        if key not in _OPTION_TYPES:
            raise _fail(folder, f"options.{key}", f"one of {', '.join(_OPTION_TYPES)}", key)
        if value is None and _OPTION_TYPES[key]:
            continue
        if not (_is_int(value) and 0 < value <= MAX_OPTION):
            raise _fail(folder, f"options.{key}", f"an integer from 1 to {MAX_OPTION}", value)


def _validate_preprocessing(preprocessing: dict[str, Any], folder: Path) -> None:
    for key in preprocessing:
        if key not in ("anonymize", "neutralize"):
            raise _fail(folder, f"preprocessing.{key}", "'anonymize' or 'neutralize' (the known steps)", key)
    neutral = preprocessing.get("neutralize")
    if neutral is not None:  # the rewrite every query of this index gets (debiasrag.counterfactual.neutralize)
        if not isinstance(neutral, dict) or set(neutral) != {"concept", "names"}:
            raise _fail(folder, "preprocessing.neutralize", "an object with 'concept' and 'names'", neutral)
        if neutral["concept"] != "gender":
            raise _fail(folder, "preprocessing.neutralize.concept", "'gender'", neutral["concept"])
        if neutral["names"] not in ("ner", "table", "keep"):
            raise _fail(folder, "preprocessing.neutralize.names", "'ner', 'table' or 'keep'", neutral["names"])
    settings = preprocessing.get("anonymize")
    if settings is None:
        return
    if not isinstance(settings, dict):
        raise _fail(folder, "preprocessing.anonymize", "an object", settings)
    if settings.get("method") not in ("ner", "llm"):
        raise _fail(folder, "preprocessing.anonymize.method", "'ner' or 'llm'", settings.get("method"))
    if settings.get("strategy", "remove") not in ("remove", "replace"):
        raise _fail(folder, "preprocessing.anonymize.strategy", "'remove' or 'replace'", settings.get("strategy"))
    entities = settings.get("entities")
    if not (
        entities is None
        or isinstance(entities, str)
        or (isinstance(entities, list) and all(isinstance(e, str) for e in entities))
    ):
        raise _fail(folder, "preprocessing.anonymize.entities", "null, a string or a list of strings", entities)
    if entities is not None:  # the names query-time anonymization would be built with
        from debiasrag.anonymize.base import parse_entity_types

        try:
            parse_entity_types(entities)
        except InputError as exc:
            expected = f"known entity types ({exc.message})"
            raise _fail(folder, "preprocessing.anonymize.entities", expected, entities) from None
    llm_model = settings.get("llm_model")  # which LLM anonymized the corpus: a record, never used to call it
    if llm_model is not None and not (isinstance(llm_model, str) and llm_model.strip()):
        raise _fail(folder, "preprocessing.anonymize.llm_model", "a model name (a non-empty string)", llm_model)
    for key in RECORDED_NER_SWITCHES:
        if key in settings and not isinstance(settings[key], bool):
            raise _fail(folder, f"preprocessing.anonymize.{key}", "true or false", settings[key])
    for key, value in settings.items():
        if not (value is None or isinstance(value, (str, int, float, bool, list))):
            raise _fail(folder, f"preprocessing.anonymize.{key}", "a plain value", value)


def data_paths(folder: str | Path, manifest: dict[str, Any] | None = None) -> dict[str, Path]:
    """Where the current version's files are (``index.faiss``, ``documents.jsonl``)."""
    folder = Path(folder)
    manifest = manifest if manifest is not None else read_manifest(folder)
    base = folder / manifest["version"] if manifest["format"] == FORMAT_VERSION else folder
    return {name: base / name for name in DATA_FILES}


class _VersionGone(IndexLoadError):
    """A file of the version named by the manifest is missing (maybe a concurrent save removed it)."""


def _read_verified(path: Path, manifest: dict[str, Any], name: str) -> bytes:
    size = manifest.get("size", {}).get(name)
    try:
        with open(path, "rb") as handle:
            if size is not None and os.fstat(handle.fileno()).st_size != size:  # before reading a wrong file whole
                raise IndexLoadError(f"{path} is corrupted (size differs from the manifest)")
            data = handle.read()
    except FileNotFoundError:
        raise _VersionGone(f"{path.parent} is incomplete: {name} is missing") from None
    except OSError as exc:
        raise IndexLoadError(f"cannot read {path}: {exc.strerror or exc}") from None
    if (size is not None and len(data) != size) or hashlib.sha256(data).hexdigest() != manifest["sha256"][name]:
        raise IndexLoadError(f"{path} is corrupted (checksum mismatch)")
    return data


def read_current(directory: str | Path) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The validated manifest and the verified bytes of every data file of the current version.

    Retries when a concurrent save replaced the version between reading the manifest and its files.
    """
    folder = _folder_path(directory)
    for _ in range(_LOAD_ATTEMPTS):
        manifest = read_manifest(folder)
        paths = data_paths(folder, manifest)
        try:
            return manifest, {name: _read_verified(path, manifest, name) for name, path in paths.items()}
        except _VersionGone:
            if read_manifest(folder).get("version") == manifest.get("version"):
                raise
            time.sleep(0.01)
    raise IndexLoadError(f"{folder} changed {_LOAD_ATTEMPTS} times while loading; try again")
