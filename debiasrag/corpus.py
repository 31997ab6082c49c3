"""Reading corpora from JSON Lines: one ``{"id": ..., "text": ..., other fields -> metadata}`` per line (a
``"metadata"`` object gives its fields: :func:`row_metadata`).

Bad lines are reported with their line number. ``on_error="stop"`` (default) raises at the first bad
line; ``"skip"`` drops it and records it in :attr:`JsonlReport.skipped` so callers can tell the user.
Nothing is dropped silently.

This is the one row reader of the package: :func:`iter_jsonl` yields parsed lines (strict JSON, see
:func:`debiasrag.fileio.loads_strict`), :func:`iter_rows` adds the required fields and their types, and
:func:`read_documents` builds documents on top. :func:`write_jsonl_atomic` is the matching writer.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

from debiasrag.errors import InputError, is_blank
from debiasrag.fileio import atomic_write, dumps_strict, loads_strict, terminal_safe_json

logger = logging.getLogger(__name__)

OnError = Literal["stop", "skip"]


@dataclass
class Document:
    """A chunk of a corpus: its id, text and any other fields as metadata."""

    id: str | int
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_row(self) -> dict[str, Any]:
        """The document as one JSON Lines row: ``id``, ``text`` and the metadata fields."""
        return {"id": self.id, "text": self.text, **self.metadata}


def is_document_id(value: Any) -> bool:
    """A value a document id may be: a string or an integer (``True`` is an ``int`` to Python, not an id)."""
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def check_storable_metadata(doc_id: str | int, metadata: Any) -> None:
    """Refuse metadata an index or shard cannot keep as given, before any work: values JSON cannot write
    (numpy scalars, dates, sets, NaN) and keys that are not strings, at any depth (JSON would write ``3`` as
    ``"3"``, so the row would read back with another key). Tuples are kept as lists."""
    try:
        json.dumps(metadata, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as exc:
        raise InputError(f"metadata of document {doc_id!r} is not JSON-serialisable: {exc}") from None
    key = _non_string_key(metadata)
    if key is not None:
        raise InputError(
            f"metadata of document {doc_id!r} has the key {key[0]!r} ({type(key[0]).__name__}): JSON keeps "
            "only string keys, so it would not read back as written; make every metadata key a string"
        )


def _non_string_key(value: Any) -> tuple[Any] | None:
    """The first dict key, at any depth of ``value``, that is not a string (in a 1-tuple), or ``None``.

    ``json.dumps`` writes an int, float, bool or None key as a string: the row would read back with another key,
    or two keys that became the same string (which the strict reader refuses as a corrupted shard).
    """
    stack, seen = [value], set()
    while stack:
        item = stack.pop()
        if isinstance(item, (dict, list, tuple)):
            if id(item) in seen:
                continue
            seen.add(id(item))
        if isinstance(item, dict):
            for key in item:
                if not isinstance(key, str):
                    return (key,)
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
    return None


@dataclass
class JsonlReport:
    """What was read: lines seen and lines skipped (``(line_number, reason)``)."""

    lines: int = 0
    skipped: list[tuple[int, str]] = field(default_factory=list)

    def summary(self) -> str:
        """One line naming the skipped lines (the first three) and why; empty when none were skipped."""
        if not self.skipped:
            return ""
        first = "; ".join(f"line {n}: {why}" for n, why in self.skipped[:3])
        more = f" (+{len(self.skipped) - 3} more)" if len(self.skipped) > 3 else ""
        return f"skipped {len(self.skipped)} bad line(s): {first}{more}"


SKIP_HINT = {"hint": "to skip bad lines", "option": "on_error", "value": "skip"}  # InputError keywords: a bad line


def _open(source: str | Path | IO[Any]) -> tuple[IO[Any], bool, str]:
    """The handle to read, whether we must close it, and a name for messages."""
    if isinstance(source, (str, Path)):
        if str(source) == "-":
            return sys.stdin.buffer, False, "standard input"
        path = Path(source)
        if not path.is_file():
            raise InputError(f"input file not found: {path}" if not path.exists() else f"input is not a file: {path}")
        try:
            return path.open("rb"), True, str(path)
        except OSError as exc:
            raise InputError(f"cannot read {path}: {exc.strerror or exc}") from None
    return source, False, str(getattr(source, "name", "input"))


def _lines(handle: IO[Any], name: str) -> Iterator[bytes | str]:
    """The handle's lines; a text handle that cannot decode, or a read error, ends with an InputError."""
    number = 0
    iterator = iter(handle)
    while True:
        try:
            raw = next(iterator)
        except StopIteration:
            return
        except UnicodeDecodeError:  # a text handle decodes ahead in blocks: the exact line is unknown
            raise InputError(
                f"{name}: not valid UTF-8 at or after line {number + 1}",
                hint="open it in binary mode ('rb') to learn the exact line",
            ) from None
        except OSError as exc:
            raise InputError(f"cannot read {name} after line {number}: {exc.strerror or exc}") from None
        number += 1
        yield raw


def iter_jsonl(
    source: str | Path | IO[bytes] | IO[str],
    *,
    on_error: OnError = "stop",
    report: JsonlReport | None = None,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line; ``-`` reads standard input.

    Accepts a path, ``-``, or an open handle (binary or text). A UTF-8 byte-order mark and CRLF line
    ends are accepted. Lines that are not UTF-8, not strict JSON (see
    :func:`~debiasrag.fileio.loads_strict`) or not a JSON object are bad lines.
    """
    if on_error not in ("stop", "skip"):
        raise InputError(f"on_error must be 'stop' or 'skip', not {on_error!r}")
    report = report if report is not None else JsonlReport()
    handle, close, name = _open(source)
    seen = first = False
    try:
        for number, raw in enumerate(_lines(handle, name), start=1):
            report.lines = number
            problem: str | None = None
            try:
                if isinstance(raw, bytes):
                    raw = raw.decode("utf-8")
                if number == 1 and raw.startswith("\ufeff"):  # a byte-order mark, as some editors write
                    raw = raw[1:]
                if not raw.strip():
                    continue
                first, seen = not seen, True  # the first line that holds anything
                obj = loads_strict(raw)
            except UnicodeDecodeError:
                problem = "not valid UTF-8"
            except InputError as exc:
                problem = exc.message
            else:
                if not isinstance(obj, dict):
                    problem = "not a JSON object"
            if problem is not None:
                if on_error == "stop":
                    # The first line already wrong: another format was given; skipping lines would skip them all.
                    if first and isinstance(raw, str) and raw.lstrip().startswith("["):  # one JSON array
                        raise InputError(
                            f"line {number}: a JSON array, not an object: {name} is not JSON Lines (one "
                            '{"id": ..., "text": ...} object per line, no enclosing [ ])'
                        )
                    if first and problem.startswith("not valid JSON"):  # a CSV or plain text, most likely
                        raise InputError(
                            f"line {number}: {problem}: {name} is not JSON Lines (one "
                            '{"id": ..., "text": ...} object per line)'
                        )
                    raise InputError(f"line {number}: {problem}", **SKIP_HINT)
                logger.info("%s: skipped line %d: %s", name, number, problem)
                report.skipped.append((number, problem))
                continue
            yield number, obj
    finally:
        if close:
            handle.close()


_TYPE_WORDS = {str: "a string", int: "an integer", float: "a number", bool: "true or false", list: "a list"}


@dataclass(frozen=True)
class Field:
    """A field of a row: its name, the JSON types it may hold, and whether it must be there and non-blank."""

    name: str
    types: tuple[type, ...] = (str,)
    required: bool = True
    nonempty: bool = False

    def problem(self, row: dict[str, Any]) -> str | None:
        """Why ``row`` breaks this field's rule, or None."""
        if self.name not in row:
            return f"row has no {self.name!r}" if self.required else None
        value = row[self.name]
        is_bool = isinstance(value, bool)
        if not isinstance(value, self.types) or (is_bool and bool not in self.types):
            words = " or ".join(_TYPE_WORDS.get(t, t.__name__) for t in self.types)
            return f"{self.name!r} must be {words}"
        if self.nonempty and isinstance(value, str) and is_blank(value):  # "\u200b" too: nothing to read
            return f"{self.name!r} is empty"
        return None


DOCUMENT_FIELDS = (Field("id", (str, int)), Field("text", (str,), nonempty=True))


def iter_rows(
    source: str | Path | IO[bytes] | IO[str] | Iterable[dict[str, Any]],
    fields: Sequence[Field] = (),
    *,
    on_error: OnError = "stop",
    report: JsonlReport | None = None,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, row)`` for the rows whose ``fields`` are present and of the right type.

    ``source`` is a JSONL path, ``-``, an open handle, or an iterable of dicts (numbered from 1). A bad
    row stops with ``InputError("line N: ...")``, or with ``on_error="skip"`` is left out and recorded.
    """
    report = report if report is not None else JsonlReport()
    if isinstance(source, (str, Path)) or hasattr(source, "read"):
        rows: Iterable[tuple[int, Any]] = iter_jsonl(source, on_error=on_error, report=report)  # type: ignore[arg-type]
    else:
        if on_error not in ("stop", "skip"):
            raise InputError(f"on_error must be 'stop' or 'skip', not {on_error!r}")
        try:
            rows = enumerate(source, start=1)
        except TypeError:
            raise InputError(
                f"expected a JSONL path, '-', an open file or an iterable of dicts, got {type(source).__name__}"
            ) from None
    for number, obj in rows:
        problem = "not a JSON object" if not isinstance(obj, dict) else None
        for rule in fields if problem is None else ():
            problem = rule.problem(obj)
            if problem is not None:
                break
        if problem is not None:
            if on_error == "stop":
                raise InputError(f"line {number}: {problem}")
            report.skipped.append((number, problem))
            continue
        yield number, obj


def row_problem(obj: dict[str, Any]) -> str | None:
    """Why a row cannot be a document, or None when it can."""
    for rule in DOCUMENT_FIELDS:
        problem = rule.problem(obj)
        if problem is not None:
            return problem
    return None


def stored_row_problem(row: Any) -> str | None:
    """What is wrong with one row of a stored ``documents.jsonl`` (an index's or a shard's: ``id``, ``text``,
    optional ``metadata`` object), or None."""
    if not isinstance(row, dict):
        return "not a JSON object"
    for name in ("id", "text"):
        if name not in row:
            return f"its {name!r} field is missing"
    if not is_document_id(row["id"]):
        return "'id' is not a string or an integer"
    if not isinstance(row["text"], str):
        return "'text' is not a string"
    if not isinstance(row.get("metadata") or {}, dict):
        return "'metadata' is not an object"
    return None


def row_metadata(row: Mapping[str, Any], exclude: Iterable[str] = ("id", "text"), *, where: str = "") -> dict[str, Any]:
    """A corpus row's metadata: its fields but ``exclude``; a ``metadata`` field holding an object (the shape of a
    :class:`Document`, and of an index's own ``documents.jsonl``) gives its fields, not one nested field — nested,
    a ``debiasrag_group`` label in it would be silently ignored. A field both inside and beside it is an error. Beside
    it, an index row's ``groups`` (concept -> group, stored by ``debiasrag index``; a row of exactly that shape) is
    left out: re-indexing an index's own ``documents.jsonl`` infers them again rather than carrying them along."""
    skip = set(exclude)
    metadata = {k: v for k, v in row.items() if k not in skip}
    nested = metadata.get("metadata")
    if isinstance(nested, Mapping):
        del metadata["metadata"]
        if _index_row(row):
            del metadata["groups"]  # an index's own documents.jsonl: the groups it stored, inferred again on indexing
        both = sorted(set(nested) & set(metadata), key=str)
        if both:
            raise InputError(f"{where}field {both[0]!r} is both in 'metadata' and beside it; keep one")
        metadata.update(nested)
    return metadata


def _index_row(row: Mapping[str, Any]) -> bool:
    """Whether ``row`` has the shape of an index's own ``documents.jsonl`` row: exactly id, text, a metadata object
    and ``groups`` (concept -> group, any concept, bundled or the user's own), the groups it stored."""
    groups = row.get("groups")
    return (
        set(row) == {"id", "text", "metadata", "groups"}
        and isinstance(groups, Mapping)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in groups.items())
    )


def read_documents(
    source: str | Path | IO[bytes] | IO[str] | Iterable[dict[str, Any]],
    *,
    on_error: OnError = "stop",
    report: JsonlReport | None = None,
    check: Callable[[Document], str | None] | None = None,
) -> list[Document]:
    """Read a corpus (JSONL path, ``-``, open handle, or an iterable of dicts) into documents.

    Ids are strings or integers of any size (kept exactly). Duplicate ids are always an error: a second
    row with the same id would silently shadow the first. Every problem is an :class:`InputError`. ``check``
    names what else makes a row bad (a group label no concept has): a problem like any other, its line named, and
    skipped with ``on_error="skip"``.
    """
    report = report if report is not None else JsonlReport()
    documents: list[Document] = []
    seen: dict[str | int, int] = {}
    for number, obj in iter_rows(source, DOCUMENT_FIELDS, on_error=on_error, report=report):
        doc_id = obj["id"]
        if doc_id in seen:
            raise InputError(f"line {number}: duplicate id {doc_id!r} (first seen on line {seen[doc_id]})")
        document = Document(doc_id, obj["text"], row_metadata(obj, where=f"line {number}: "))
        problem = check(document) if check is not None else None
        if problem is not None:
            if on_error == "stop":
                raise InputError(f"line {number}: {problem}", **SKIP_HINT)
            report.skipped.append((number, problem))
            continue
        seen[doc_id] = number
        documents.append(document)
    if not documents:
        raise InputError("the corpus is empty: no documents to index")
    return documents


def write_jsonl_atomic(
    rows: Iterable[dict[str, Any]], target: str | Path, *, before_replace: Callable[[], object] | None = None
) -> int:
    """Write rows as strict JSON Lines to ``target`` (``-`` = stdout) atomically; returns the rows written.
    ``before_replace``: see :func:`debiasrag.fileio.atomic_write` (with ``-``, called after the last row).

    A failure part-way — including an exception raised while producing the rows — leaves an existing
    ``target`` untouched (see :func:`debiasrag.fileio.atomic_write`). Non-finite floats are written as
    ``null`` and lone surrogates as ``\\uXXXX`` escapes, so every line is valid JSON and UTF-8.
    """
    count = 0

    def lines() -> Iterator[str]:
        nonlocal count
        for row in rows:
            yield dumps_strict(row) + "\n"
            count += 1

    if str(target) == "-":  # a terminal, maybe: C1 and bidi controls as \uXXXX escapes (the same JSON)
        for line in lines():
            sys.stdout.write(terminal_safe_json(line))
        sys.stdout.flush()
        if before_replace is not None:
            before_replace()
        return count
    atomic_write(target, lines(), before_replace=before_replace)
    return count
