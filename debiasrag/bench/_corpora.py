"""Corpus readers shared by the benchmarks: seed 002's name universes, the built-in narratives, CMU summaries.

Each reader returns plain records; no benchmark logic lives here, so any benchmark can use them without
importing another benchmark.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from debiasrag.errors import InputError
from debiasrag.fileio import loads_strict
from debiasrag.fileio import read_text as read_file
from debiasrag.resources import read_jsonl, read_text

UNIVERSES_FILE = ("names", "seed002_universes.json")
NARRATIVES_FILE = ("bench", "narratives.jsonl")


@dataclass(frozen=True)
class NameUniverses:
    """Replacement names: seed 002 Table 9 (persons, countries) and Table 12 (persons per country)."""

    person_names: tuple[str, ...]
    country_names: tuple[str, ...]
    by_country: dict[str, tuple[str, ...]]
    source: str = ""

    def every_name(self) -> list[str]:
        """All person and country names of every list, sorted."""
        names = set(self.person_names) | set(self.country_names)
        for pool in self.by_country.values():
            names |= set(pool)
        return sorted(names)


def load_universes(path: str | Path | None = None) -> NameUniverses:
    """Load ``data/names/seed002_universes.json`` (or a file with the same schema)."""
    text = read_text(*UNIVERSES_FILE) if path is None else read_file(path, what="name universes file")
    try:
        data = loads_strict(text)
    except InputError as exc:
        raise InputError(f"name universes {path}: {exc.message}") from None

    def words(value: Any) -> bool:
        return isinstance(value, list) and all(isinstance(v, str) for v in value)

    by_country = data.get("by_country", {}) if isinstance(data, dict) else None
    if not (
        isinstance(data, dict)
        and words(data.get("person_names"))
        and words(data.get("country_names"))
        and isinstance(by_country, dict)
        and all(words(v) for v in by_country.values())
        and isinstance(data.get("source", ""), str)
    ):
        raise InputError(
            f"name universes {path}: expected an object with 'person_names' and 'country_names' lists of names "
            "(and optional 'by_country' of lists, 'source' string)"
        )
    return NameUniverses(
        person_names=tuple(data["person_names"]),
        country_names=tuple(data["country_names"]),
        by_country={k: tuple(v) for k, v in by_country.items()},
        source=data.get("source", ""),
    )


@dataclass
class NarrativeText:
    """A text and the person / country names in it (``None`` = not marked yet, find them with NER)."""

    id: str
    text: str
    persons: list[str] | None = None
    countries: list[str] | None = None
    title: str = ""
    metadata: dict[str, str] = field(default_factory=dict)


def load_builtin_narratives() -> list[NarrativeText]:
    """The shipped corpus of name-rich stories (``data/bench/narratives.jsonl``), names marked."""
    rows = read_jsonl(*NARRATIVES_FILE)
    return [NarrativeText(r["id"], r["text"], list(r["persons"]), list(r["countries"])) for r in rows]


def _open_tsv(path: Path) -> Iterable[list[str]]:
    try:
        handle = path.open(encoding="utf-8", newline="")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from exc
    with handle:
        # The CMU files are tab-separated without quoting (summaries contain quote characters).
        yield from csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)


def load_cmu_movies(path: str | Path) -> list[NarrativeText]:
    """CMU Movie Summary Corpus (Bamman et al. 2013).

    ``path`` is the corpus folder (``plot_summaries.txt``: ``wikipedia_id<TAB>plot``; ``movie.metadata.tsv``:
    ``wikipedia_id, freebase_id, name, release_date, box_office, runtime, languages, countries, genres``) or the
    ``plot_summaries.txt`` file itself (then titles are left empty). Names are not marked (NER finds them).
    """
    path = Path(path).expanduser()
    plots_path = path / "plot_summaries.txt" if path.is_dir() else path
    meta_path = plots_path.parent / "movie.metadata.tsv"
    titles: dict[str, str] = {}
    if meta_path.exists():
        for row in _open_tsv(meta_path):
            if len(row) >= 3:
                titles[row[0]] = row[2]
    texts = []
    for number, row in enumerate(_open_tsv(plots_path), 1):
        if not row or not row[0].strip():
            continue
        if len(row) < 2:
            raise InputError(f"{plots_path}:{number}: expected 'wikipedia_id<TAB>plot', got {len(row)} column")
        texts.append(NarrativeText(f"movie-{row[0]}", row[1].strip(), title=titles.get(row[0], "")))
    return texts


def load_cmu_books(path: str | Path) -> list[NarrativeText]:
    """CMU Book Summary Dataset (Bamman and Smith 2013).

    ``booksummaries.txt``: 7 tab-separated columns ``wikipedia_id, freebase_id, title, author, publication_date,
    genres_json, summary``; ``path`` is the file or its folder.
    """
    path = Path(path).expanduser()
    if path.is_dir():
        path = path / "booksummaries.txt"
    texts = []
    for number, row in enumerate(_open_tsv(path), 1):
        if not row or not row[0].strip():
            continue
        if len(row) < 7:
            raise InputError(f"{path}:{number}: expected 7 tab-separated columns, got {len(row)}")
        texts.append(NarrativeText(f"book-{row[0]}", row[6].strip(), title=row[2], metadata={"author": row[3]}))
    return texts
