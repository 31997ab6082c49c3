"""Name and place lists used by the NER anonymizer to type and confirm proper nouns.

Shipped data (``debiasrag/data/names/``), built once from public packages by :func:`build` (run
``python -m debiasrag.anonymize.gazetteer``):

* ``given_names.txt.gz`` / ``surnames.txt.gz``: names ranked in the top 1,000 of at least one of 105 countries
  in the ``names-dataset`` package (v3, Facebook-derived), minus English stop words. The lists are noisy
  ("Love", "Heart" are someone's names), so they never decide alone that a word is a name: the detector only
  consults them for tokens the tagger already calls proper nouns, to choose PERSON vs place vs organisation.
* ``places.txt``: countries and their subdivisions from ``pycountry`` (ISO 3166) plus continents.
* ``non_names.json``: capitalised words that are not names (titles, weekdays, months, ...).
* ``seed002_universes.json`` (written by the name-bias benchmark) adds the seed's Table 9 / 12 names when present.
"""

from __future__ import annotations

import gzip
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from debiasrag.resources import data_path

_DATA = "names"  # under debiasrag/data/
_RANK_LIMIT = 1000
_CONTINENTS = [
    "Africa",
    "Antarctica",
    "Asia",
    "Europe",
    "North America",
    "South America",
    "Oceania",
    "Australia",
    "Central America",
    "Latin America",
    "Middle East",
    "Scandinavia",
    "Caribbean",
    "Balkans",
]


def _data_path(name: str) -> Path:
    return data_path(_DATA, name)


def _read_lines(name: str) -> list[str]:
    path = _data_path(name)
    if not path.exists():
        return []
    opener = gzip.open if name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        return [line.strip() for line in handle if line.strip() and not line.startswith("#")]


@dataclass(frozen=True)
class Gazetteer:
    """Casefolded name sets. ``exclude`` removes names (used to measure without benchmark-specific names)."""

    given: frozenset[str]
    surnames: frozenset[str]
    places: frozenset[str]
    titles: frozenset[str]
    non_names: frozenset[str]
    landmark_heads: frozenset[str] = field(default=frozenset())
    excluded: frozenset[str] = field(default=frozenset())

    def is_person_name(self, word: str) -> bool:
        """Whether the word is a listed given name or surname (case-insensitive) and not excluded."""
        key = word.casefold()
        return (key in self.given or key in self.surnames) and key not in self.excluded

    def is_place(self, text: str) -> bool:
        """Whether the text (spaces collapsed, case-insensitive) is a listed place and not excluded."""
        key = " ".join(text.split()).casefold()
        return key in self.places and key not in self.excluded

    def is_title(self, word: str) -> bool:
        """Whether the word is a title such as ``Dr`` or ``Mrs`` (a trailing dot ignored)."""
        return word.casefold().rstrip(".") in self.titles

    def is_landmark_head(self, word: str) -> bool:
        """Whether the word heads a landmark name (``Street``, ``Bridge``, ...)."""
        return word.casefold() in self.landmark_heads

    def is_non_name(self, word: str) -> bool:
        """Whether the word is a capitalised word known not to be a name (weekdays, months, ...)."""
        return word.casefold() in self.non_names


@lru_cache(maxsize=8)
def load_gazetteer(exclude: frozenset[str] = frozenset(), extra: bool = True) -> Gazetteer:
    """Load the shipped lists (cached). ``extra`` adds seed 002's name universes when that file exists."""
    given = {n.casefold() for n in _read_lines("given_names.txt.gz")}
    surnames = {n.casefold() for n in _read_lines("surnames.txt.gz")}
    places = {n.casefold() for n in _read_lines("places.txt")}
    if extra:
        path = _data_path("seed002_universes.json")
        if path.exists():
            universes = json.loads(path.read_text(encoding="utf-8"))
            given.update(n.casefold() for n in universes.get("person_names", []))
            for names in universes.get("by_country", {}).values():
                given.update(n.casefold() for n in names)
            places.update(n.casefold() for n in universes.get("country_names", []))
    non = json.loads(_data_path("non_names.json").read_text(encoding="utf-8"))
    titles = {t.casefold() for t in non["titles"]}
    non_names = {w.casefold() for key in ("weekdays", "months", "other") for w in non[key]}
    excluded = frozenset(e.casefold() for e in exclude)
    return Gazetteer(
        frozenset(given - excluded),
        frozenset(surnames - excluded),
        frozenset(places - excluded),
        frozenset(titles),
        frozenset(non_names),
        frozenset(w.casefold() for w in non.get("landmark_heads", [])),
        excluded,
    )


def _clean_names(names: Iterable[str], stop_words: set[str]) -> list[str]:
    # Letters, apostrophes and hyphens only; no single letters; no English function words ("The", "And").
    keep = re.compile(r"^[^\W\d_][^\W\d_'\u2019-]*(?:['\u2019-][^\W\d_]+)*$")
    return sorted({n for n in names if len(n) > 1 and keep.match(n) and n.casefold() not in stop_words})


def build(out_dir: Path | None = None, rank_limit: int = _RANK_LIMIT) -> dict[str, int]:
    """Regenerate the shipped lists from the installed ``names-dataset`` and ``pycountry`` packages."""
    import pickle

    import names_dataset
    import pycountry
    from spacy.lang.en.stop_words import STOP_WORDS

    out = out_dir or _data_path("")
    base = Path(names_dataset.__file__).parent / "v3"
    counts: dict[str, int] = {}
    for source, target in (("first_names.pkl.gz", "given_names.txt.gz"), ("last_names.pkl.gz", "surnames.txt.gz")):
        with gzip.open(base / source, "rb") as handle:
            table = pickle.load(handle)  # the package's own data file, shipped in its wheel
        names = [n for n, info in table.items() if info.get("rank") and min(info["rank"].values()) <= rank_limit]
        cleaned = _clean_names(names, set(STOP_WORDS))
        header = (
            f"# names-dataset {getattr(names_dataset, '__version__', 'v3')}: names ranked <= {rank_limit} "
            "in at least one country, stop words removed\n"
        )
        with gzip.open(out / target, "wt", encoding="utf-8", compresslevel=9) as handle:
            handle.write(header + "\n".join(cleaned) + "\n")
        counts[target] = len(cleaned)
    places = set(_CONTINENTS)
    for country in pycountry.countries:
        for attr in ("name", "common_name", "official_name"):
            value = getattr(country, attr, None)
            if value:
                places.add(value)
    for sub in pycountry.subdivisions:
        places.add(sub.name)
    places = {p for p in places if "," not in p and "(" not in p}
    (out / "places.txt").write_text(
        "# pycountry countries and ISO 3166-2 subdivisions, plus continents\n" + "\n".join(sorted(places)) + "\n",
        encoding="utf-8",
    )
    counts["places.txt"] = len(places)
    return counts


if __name__ == "__main__":  # pragma: no cover - maintenance entry point
    print(build())
