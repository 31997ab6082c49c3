"""The one way into the packaged data under ``debiasrag/data/`` (word lists, names, prompts, test sets, figures).

Every module that reads a shipped file goes through here, so the data layout is described in one place and a
move of a file is a change of one call. Paths are relative to ``debiasrag/data/``, one argument per folder::

    from debiasrag.resources import read_json

    figures = read_json("bench", "seed002_figures.json")

The package is installed as plain files (setuptools, not a zip), so :func:`data_path` can hand out a real
:class:`~pathlib.Path` for code that needs one (``open``, ``csv``); :func:`as_file` is the zip-safe form for
folders.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import Any

PACKAGE = "debiasrag"
DATA_FOLDER = "data"


def data_file(*parts: str) -> Traversable:
    """The packaged file or folder ``debiasrag/data/<parts...>`` (it may not exist; ``.is_file()`` tells)."""
    return resources.files(PACKAGE).joinpath(DATA_FOLDER, *parts)


def data_path(*parts: str) -> Path:
    """:func:`data_file` as a filesystem :class:`~pathlib.Path` (for ``open``, ``csv`` and writers of data)."""
    return Path(str(data_file(*parts)))


@contextmanager
def as_file(*parts: str) -> Iterator[Path]:
    """A real path to a packaged file or folder for the duration of the ``with`` block (zip-safe)."""
    with resources.as_file(data_file(*parts)) as local:
        yield Path(local)


def read_text(*parts: str) -> str:
    """The UTF-8 text of a packaged file."""
    return data_file(*parts).read_text(encoding="utf-8")


def read_json(*parts: str) -> Any:
    """A packaged JSON file, parsed."""
    return json.loads(read_text(*parts))


def module_bytes(module: str) -> bytes:
    """The source of the package module ``debiasrag/<module>.py`` (e.g. to fingerprint rules kept in code)."""
    return resources.files(PACKAGE).joinpath(f"{module}.py").read_bytes()


def read_jsonl(*parts: str) -> list[Any]:
    """A packaged JSON Lines file: one parsed value per non-blank line."""
    return [json.loads(line) for line in read_text(*parts).splitlines() if line.strip()]


def list_files(*parts: str, suffix: str = "") -> list[str]:
    """Names of the files in a packaged folder ending with ``suffix``, sorted."""
    return sorted(p.name for p in data_file(*parts).iterdir() if p.is_file() and p.name.endswith(suffix))


__all__ = ["as_file", "data_file", "data_path", "list_files", "read_json", "read_jsonl", "read_text"]
