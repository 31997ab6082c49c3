"""Reading corpora from JSON Lines: one ``{"id": ..., "text": ..., other fields -> metadata}`` per line.

Bad lines are reported with their line number. ``on_error="stop"`` (default) raises at the first bad
line; ``"skip"`` drops it and records it in :attr:`JsonlReport.skipped` so callers can tell the user.
Nothing is dropped silently.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Literal

from debiasrag.errors import InputError

OnError = Literal["stop", "skip"]


@dataclass
class Document:
    """A chunk of a corpus: its id, text and any other fields as metadata."""

    id: str | int
    text: str
    metadata: dict[str, Any] = field(default_factory=dict)

    def to_row(self) -> dict[str, Any]:
        return {"id": self.id, "text": self.text, **self.metadata}


@dataclass
class JsonlReport:
    """What was read: lines seen and lines skipped (``(line_number, reason)``)."""

    lines: int = 0
    skipped: list[tuple[int, str]] = field(default_factory=list)

    def summary(self) -> str:
        if not self.skipped:
            return ""
        first = "; ".join(f"line {n}: {why}" for n, why in self.skipped[:3])
        more = f" (+{len(self.skipped) - 3} more)" if len(self.skipped) > 3 else ""
        return f"skipped {len(self.skipped)} bad line(s): {first}{more}"


def _open_binary(source: str | Path | IO[bytes]) -> tuple[IO[bytes], bool]:
    if isinstance(source, (str, Path)):
        if str(source) == "-":
            return sys.stdin.buffer, False
        path = Path(source)
        if not path.is_file():
            raise InputError(f"input file not found: {path}")
        return path.open("rb"), True
    return source, False


def iter_jsonl(
    source: str | Path | IO[bytes],
    *,
    on_error: OnError = "stop",
    report: JsonlReport | None = None,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield ``(line_number, object)`` for each non-blank line; ``-`` reads standard input."""
    if on_error not in ("stop", "skip"):
        raise InputError(f"on_error must be 'stop' or 'skip', not {on_error!r}")
    report = report if report is not None else JsonlReport()
    handle, close = _open_binary(source)
    try:
        for number, raw in enumerate(handle, start=1):
            report.lines = number
            problem: str | None = None
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                problem = "not valid UTF-8"
            else:
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line)
                except json.JSONDecodeError as exc:
                    problem = f"not valid JSON ({exc.msg})"
                else:
                    if not isinstance(obj, dict):
                        problem = "not a JSON object"
            if problem is not None:
                if on_error == "stop":
                    raise InputError(f"line {number}: {problem} (use --on-error skip to skip bad lines)")
                report.skipped.append((number, problem))
                continue
            yield number, obj
    finally:
        if close:
            handle.close()


def row_problem(obj: dict[str, Any]) -> str | None:
    """Why a row cannot be a document, or None when it can."""
    if "id" not in obj:
        return "row has no 'id'"
    if not isinstance(obj["id"], (str, int)) or isinstance(obj["id"], bool):
        return "'id' must be a string or an integer"
    if "text" not in obj:
        return "row has no 'text'"
    if not isinstance(obj["text"], str):
        return "'text' must be a string"
    if not obj["text"].strip():
        return "'text' is empty"
    return None


def read_documents(
    source: str | Path | IO[bytes] | Iterable[dict[str, Any]],
    *,
    on_error: OnError = "stop",
    report: JsonlReport | None = None,
) -> list[Document]:
    """Read a corpus (JSONL path, ``-``, binary handle, or an iterable of dicts) into documents.

    Duplicate ids are always an error: a second row with the same id would silently shadow the first.
    """
    report = report if report is not None else JsonlReport()
    if isinstance(source, (str, Path)) or hasattr(source, "read"):
        rows: Iterable[tuple[int, dict[str, Any]]] = iter_jsonl(source, on_error=on_error, report=report)  # type: ignore[arg-type]
    else:
        rows = enumerate(source, start=1)  # type: ignore[arg-type]
    documents: list[Document] = []
    seen: dict[str | int, int] = {}
    for number, obj in rows:
        problem = row_problem(obj) if isinstance(obj, dict) else "not a JSON object"
        if problem is None and obj["id"] in seen:
            raise InputError(f"line {number}: duplicate id {obj['id']!r} (first seen on line {seen[obj['id']]})")
        if problem is not None:
            if on_error == "stop":
                raise InputError(f"line {number}: {problem}")
            report.skipped.append((number, problem))
            continue
        seen[obj["id"]] = number
        metadata = {k: v for k, v in obj.items() if k not in ("id", "text")}
        documents.append(Document(obj["id"], obj["text"], metadata))
    if not documents:
        raise InputError("the corpus is empty: no documents to index")
    return documents


def write_jsonl_atomic(rows: Iterable[dict[str, Any]], target: str | Path) -> int:
    """Write rows as JSON Lines to ``target`` (``-`` = stdout) via a temp file and rename.

    A failure part-way leaves an existing ``target`` untouched. Returns the number of rows written.
    """
    if str(target) == "-":
        count = 0
        for row in rows:
            sys.stdout.write(json.dumps(row, ensure_ascii=False) + "\n")
            count += 1
        sys.stdout.flush()
        return count
    path = Path(target)
    if path.parent and not path.parent.exists():
        raise InputError(f"output folder does not exist: {path.parent}")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    count = 0
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
                count += 1
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return count
