"""One I/O layer: atomic file writes, strict JSON in and out, and terminal-safe text.

* :func:`atomic_write` (and :func:`atomic_write_text`, :func:`atomic_write_json`) writes a temp file in the
  target's folder, flushes and fsyncs it, then swaps it in with one :func:`os.replace`. On any failure the
  old file stays as it was and the temp file is removed.
* :func:`loads_strict` parses JSON the way our readers accept it: no ``NaN``/``Infinity``, no numbers that
  overflow, no nesting deeper than Python can follow; every problem is an :class:`InputError`.
* :func:`dumps_strict` writes JSON every parser accepts: non-finite floats become ``null``, and text with
  lone surrogates is written with ``\\uXXXX`` escapes so it round-trips exactly.
* :func:`printable` escapes control characters, bidirectional overrides and lone surrogates, so echoing a
  user's text, id or path can never drive the terminal.

Rows of JSON Lines are read by :func:`debiasrag.corpus.iter_rows`, built on :func:`loads_strict`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import math
import os
import re
import secrets
import stat
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from debiasrag.errors import InputError, OutputError

logger = logging.getLogger(__name__)

# C0/C1 controls, DEL, bidirectional marks/overrides/isolates and lone surrogates: never sent to a terminal raw.
_UNSAFE_ONE_LINE = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)
_UNSAFE_MULTI_LINE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escape(match: re.Match[str]) -> str:
    if match.group() in _NAMED_ESCAPES:
        return _NAMED_ESCAPES[match.group()]
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(value: Any, *, one_line: bool = True) -> str:
    """``str(value)`` safe to show on a terminal: control and bidi characters and lone surrogates escaped.

    With ``one_line`` (default) newlines and tabs are escaped too, so a message stays one line.
    """
    pattern = _UNSAFE_ONE_LINE if one_line else _UNSAFE_MULTI_LINE
    return pattern.sub(_escape, str(value))


# What json.dumps(ensure_ascii=False) leaves raw but a terminal acts on: DEL, C1 controls, bidi controls.
_UNSAFE_IN_JSON = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def terminal_safe_json(text: str) -> str:
    """JSON text with DEL, C1 and bidirectional controls written as ``\\uXXXX`` escapes (the same JSON value).

    For JSON printed to a terminal: ``json.dumps`` already escapes the C0 controls (ESC, BEL, ...) itself.
    """
    return _UNSAFE_IN_JSON.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def encodable(text: Any) -> Any:
    """``text`` with lone surrogates replaced by U+FFFD, so tokenizers and UTF-8 encoders accept it.

    For handing text to a model only: what is stored keeps the original characters. Non-strings pass through.
    """
    return _LONE_SURROGATE.sub("\ufffd", text) if isinstance(text, str) else text


# -- JSON in ------------------------------------------------------------------------------------------
class _NotFinite(ValueError):
    pass


class RepeatedKeyError(Exception):  # not a ValueError: that branch below means an overlong integer
    pass


def unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose keys are all different: ``{"id": 1, "id": 2}`` is ambiguous (JSON parsers keep either)."""
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise RepeatedKeyError(key)
            seen.add(key)
    return found


def _reject_constant(name: str) -> Any:
    raise _NotFinite(name)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400 parses to inf
        raise _NotFinite(text)
    return value


def loads_strict(text: str | bytes) -> Any:
    """Parse JSON text, refusing what other tools cannot read back; every problem is an :class:`InputError`.

    Refused: invalid JSON, ``NaN``/``Infinity``, floats that overflow to infinity, integers longer than
    Python converts (4300 digits), nesting deeper than the recursion limit, an object that repeats a key, and bytes
    that are not UTF-8.
    Integers of any smaller size are kept exactly (they are not limited to 64 bits).
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise InputError("not valid UTF-8") from None
    if text.startswith("\ufeff"):  # a byte-order mark, as some editors write
        text = text[1:]
    try:
        return json.loads(
            text, parse_constant=_reject_constant, parse_float=_finite_float, object_pairs_hook=unique_keys
        )
    except RepeatedKeyError as exc:
        raise InputError(f"an object repeats the key {exc.args[0]!r}; keep one") from None
    except json.JSONDecodeError as exc:
        # a hand-written file of many lines (a concept, a word list) says where; a JSON Lines row is one line,
        # and its reader names the line
        where = f" at line {exc.lineno}, column {exc.colno}" if "\n" in text.strip() else ""
        raise InputError(f"not valid JSON{where} ({exc.msg})") from None
    except _NotFinite as exc:
        raise InputError(f"{exc} is not valid JSON; write null or a finite number") from None
    except RecursionError:
        raise InputError("JSON nested too deeply") from None
    except ValueError:  # an integer with more digits than int() converts
        limit = getattr(sys, "get_int_max_str_digits", lambda: 4300)()
        raise InputError(f"a number has more than {limit} digits") from None


# -- JSON out -----------------------------------------------------------------------------------------
def _finite_copy(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite_copy(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite_copy(v) for v in value]
    return value


def dumps_strict(obj: Any, *, indent: int | None = None, sort_keys: bool = False, ascii_only: bool = False) -> str:
    """JSON text every strict parser accepts (RFC 8259).

    Non-finite floats become ``null``; text with lone surrogates (which UTF-8 cannot encode) is written
    with ``\\uXXXX`` escapes, which read back to the same string. Values JSON cannot hold raise
    :class:`InputError`.
    """
    options: dict[str, Any] = {"indent": indent, "sort_keys": sort_keys, "allow_nan": False}
    try:
        try:
            text = json.dumps(obj, ensure_ascii=ascii_only, **options)
        except ValueError as exc:
            if "Out of range float" not in str(exc):
                raise
            logger.debug("non-finite float(s) written as null")
            obj = _finite_copy(obj)
            text = json.dumps(obj, ensure_ascii=ascii_only, **options)
    except RecursionError:
        raise InputError("data nested too deeply to write as JSON") from None
    except (TypeError, ValueError) as exc:
        raise InputError(f"cannot write as JSON: {exc}") from None
    if not ascii_only:
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates: escaped, so the output is valid UTF-8 and round-trips
            text = json.dumps(obj, ensure_ascii=True, **options)
    return text


# -- files --------------------------------------------------------------------------------------------
def check_output_path(target: str | Path) -> Path:
    """The file path to write, after checking its folder exists and it is not itself a folder."""
    path = Path(target)
    if path.is_symlink():  # write the file the link points to, and keep the link
        path = Path(os.path.realpath(path))
    folder = path.parent
    if not folder.is_dir():
        raise InputError(f"output folder does not exist: {folder}", hint="create it first or choose another path")
    if path.is_dir():
        raise InputError(f"output path is a folder, not a file: {path}")
    with contextlib.suppress(OSError):
        mode = path.stat().st_mode
        if not (stat.S_ISREG(mode) or _is_stream(mode)):
            raise InputError(f"output path is not a regular file (a block device or socket): {path}")
    return path


def _is_stream(mode: int) -> bool:
    """A character device or FIFO (``/dev/null``, a named pipe): written in place, never replaced by a file."""
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def _temp_stem(path: Path) -> str:
    """The part of a temp file's name that names its target: the target's name, or a digest of it where the
    name is so long that ``.<name>.<pid>-<hex>.tmp`` would pass the 255-byte limit of most filesystems."""
    if len(os.fsencode(path.name)) <= 200:
        return path.name
    return "~" + hashlib.sha256(os.fsencode(path.name)).hexdigest()[:32]


def refuse_same_file(source: str | Path, target: str | Path) -> None:
    """Refuse to write the output over the input it is read from (``-`` is never the same file)."""
    if str(source) == "-" or str(target) == "-":
        return
    with contextlib.suppress(OSError):
        if os.path.samefile(source, target):
            raise InputError(
                f"the output file is the input file ({target}); refusing to overwrite the input",
                hint="write to another path",
            )


def fsync_folder(folder: Path) -> None:
    """Fsync a folder so a rename or new entry in it survives a crash (quietly skipped where unsupported)."""
    with contextlib.suppress(OSError):  # not every filesystem lets a folder be fsynced
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def user_cache_dir() -> Path:
    """debiasrag's cache folder: ``$DEBIASRAG_CACHE_DIR`` (``~`` expanded) or ``~/.cache/debiasrag``."""
    env = os.environ.get("DEBIASRAG_CACHE_DIR")
    return Path(env).expanduser() if env else Path.home() / ".cache" / "debiasrag"


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError, OverflowError):  # alive under another user, or not ours to judge
        return True
    return True


def _remove_dead_temps(path: Path) -> None:
    """Remove temp files an earlier write of ``path`` left when its process was killed (kill -9, power loss).

    Only our own names (``.<name>.<pid>-<8 hex>.tmp``) whose process is gone; a live writer's file is kept.
    """
    pattern = re.compile(rf"^\.{re.escape(_temp_stem(path))}\.(\d+)-[0-9a-f]{{8}}\.tmp$")
    try:
        siblings = list(path.parent.iterdir())
    except OSError:
        return
    for entry in siblings:
        match = pattern.match(entry.name)
        if match and not _pid_alive(int(match.group(1))) and entry.is_file() and not entry.is_symlink():
            with contextlib.suppress(OSError):
                entry.unlink()
                logger.info("removed %s, left by an interrupted write", entry)


def atomic_write(
    target: str | Path,
    chunks: Iterable[str | bytes] | str | bytes,
    *,
    encoding: str = "utf-8",
    before_replace: Callable[[], object] | None = None,
    sync_folder: bool = True,
) -> Path:
    """Write ``chunks`` (text is encoded with ``encoding``) to ``target`` atomically; returns the path written.

    The data goes to a temp file in the same folder, is flushed and fsynced, then replaces ``target``
    in one :func:`os.replace`. If anything fails — a write, the disk filling up, an exception raised by
    the ``chunks`` generator itself — the temp file is removed and an existing ``target`` is unchanged.
    An existing file keeps its permissions; a new one gets the usual ones (0666 minus the umask).
    Write failures raise :class:`OutputError`; exceptions of ``chunks`` propagate unchanged. A temp file
    that a killed earlier write of the same target left behind is removed first. A character device or FIFO
    (``/dev/null``, a named pipe) is written in place: replacing it would remove the device.

    ``before_replace`` is called once the data is safely on disk, just before ``target`` is replaced: a companion
    file written there (a mapping that belongs to this output) goes first, and if it fails ``target`` stays as it
    was. ``sync_folder=False`` leaves the folder's fsync to the caller (such a companion: its fsync, milliseconds,
    would otherwise sit between the two replaces).
    """
    path = check_output_path(target)
    if isinstance(chunks, (str, bytes)):
        chunks = [chunks]
    with contextlib.suppress(OSError):
        if _is_stream(path.stat().st_mode):
            return _write_stream(path, chunks, encoding)
    _remove_dead_temps(path)
    tmp = path.parent / f".{_temp_stem(path)}.{os.getpid()}-{secrets.token_hex(4)}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from exc
    try:
        with os.fdopen(fd, "wb") as handle:
            for chunk in chunks:
                handle.write(chunk.encode(encoding) if isinstance(chunk, str) else chunk)
            handle.flush()
            os.fsync(handle.fileno())
        with contextlib.suppress(FileNotFoundError):
            os.chmod(tmp, stat.S_IMODE(path.stat().st_mode))
        if before_replace is not None:
            before_replace()
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(exc, OSError):
            raise OutputError(f"cannot write {path}: {exc.strerror or exc}; it is unchanged") from exc
        raise
    if sync_folder:
        fsync_folder(path.parent)
    return path


def _write_stream(path: Path, chunks: Iterable[str | bytes], encoding: str) -> Path:
    try:
        with open(path, "wb") as handle:
            for chunk in chunks:
                handle.write(chunk.encode(encoding) if isinstance(chunk, str) else chunk)
    except OSError as exc:
        raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from exc
    return path


def atomic_write_text(target: str | Path, text: str, *, encoding: str = "utf-8") -> Path:
    """Write one string to ``target`` atomically (see :func:`atomic_write`)."""
    return atomic_write(target, [text], encoding=encoding)


def atomic_write_json(
    target: str | Path, data: Any, *, indent: int | None = 2, sort_keys: bool = False, sync_folder: bool = True
) -> Path:
    """Write ``data`` as strict JSON (see :func:`dumps_strict`) to ``target`` atomically."""
    text = dumps_strict(data, indent=indent, sort_keys=sort_keys) + "\n"
    return atomic_write(target, [text], sync_folder=sync_folder)


def read_text(path: str | Path, *, what: str = "file") -> str:
    """Read a whole UTF-8 text file (a leading byte-order mark is dropped); problems are :class:`InputError`."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"{what} not found: {path}" if not path.exists() else f"{what} is not a file: {path}")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        packed = next((kind for magic, kind in _PACKED if data.startswith(magic)), None)
        if packed is not None:  # GloVe and word2vec downloads come compressed: say so, not "line 1"
            raise InputError(f"{what} {path} is a {packed} file, not text: unpack it first") from None
        raise InputError(f"{what} {path}: line {line}: not valid UTF-8 (a binary file? only text is read)") from None
    return text[1:] if text.startswith("\ufeff") else text


_PACKED = ((b"\x1f\x8b", "gzip"), (b"PK\x03\x04", "zip"), (b"BZh", "bzip2"), (b"\xfd7zXZ", "xz"))


__all__ = [
    "atomic_write",
    "atomic_write_json",
    "atomic_write_text",
    "check_output_path",
    "dumps_strict",
    "encodable",
    "loads_strict",
    "printable",
    "read_text",
    "refuse_same_file",
    "terminal_safe_json",
]
