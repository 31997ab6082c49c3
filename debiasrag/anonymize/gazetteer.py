"""Name and place lists used by the NER anonymizer to type and confirm proper nouns.

Shipped data (``debiasrag/data/names/``), built once from public packages by the maintainer script
``scripts/build_gazetteer.py``:

* ``given_names.txt.gz`` / ``surnames.txt.gz``: names ranked in the top 1,000 of at least one of 105 countries
  in the ``names-dataset`` package (v3, Facebook-derived), minus English stop words. The lists are noisy
  ("Love", "Heart" are someone's names), so they never decide alone that a word is a name: the detector only
  consults them for tokens the tagger already calls proper nouns, to choose PERSON vs place vs organisation.
* ``places.txt``: countries and their subdivisions from ``pycountry`` (ISO 3166) plus continents.
* ``cities.txt``: GeoNames cities of 50,000 people or more (``scripts/build_cities.py``), read only when text in
  capitals is recased ("HALIFAX" → "Halifax"); never to type an entity.
* ``non_names.json``: capitalised words that are not names (titles, weekdays, months, ...).
* ``dictionary_names.txt``: given names the English dictionary also lists that text uses as names (Maria, Rebecca,
  Joel; not Dawn, Will, Hunter), by their GloVe neighbours — ``scripts/build_dictionary_names.py``.
* ``origin_names.json``: given names and surnames of origins the names-dataset lists hold few of (Maori and Pacific,
  East African, Thai, Ukrainian, Gulf family names, ...), written in session 44 from the misses of the design half of
  ``origin_probe.json`` (``benchmarks/anonymize_by_origin.py``): a lower-case or untagged name of those origins is
  then found about as often as one of the well-listed origins.
* ``seed002_universes.json`` (written by the name-bias benchmark) adds the seed's Table 9 / 12 names when present.
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from debiasrag.resources import data_path

_DATA = "names"  # under debiasrag/data/


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
    dictionary_names: frozenset[str] = field(default=frozenset())
    particles: frozenset[str] = field(default=frozenset())
    cities: frozenset[str] = field(default=frozenset())  # read only for text in capitals (``cities.txt``)

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

    def is_dictionary_name(self, word: str) -> bool:
        """Whether the word is a given name that the dictionary also lists but that text uses as a name."""
        key = word.casefold()
        return key in self.dictionary_names and key not in self.excluded

    def is_particle(self, word: str) -> bool:
        """Whether the word is a particle of multi-part names (``van``, ``der``, ``bin``, ``de`` ...)."""
        return word.casefold() in self.particles

    def is_city(self, text: str) -> bool:
        """Whether the text (spaces collapsed, case-insensitive) is the name of a city of 50,000 people or more."""
        key = " ".join(text.split()).casefold()
        return key in self.cities and key not in self.excluded

    def is_non_name(self, word: str) -> bool:
        """Whether the word is a capitalised word known not to be a name (weekdays, months, ...)."""
        return word.casefold() in self.non_names


@lru_cache(maxsize=8)
def load_gazetteer(exclude: frozenset[str] = frozenset(), extra: bool = True) -> Gazetteer:
    """Load the shipped lists (cached). ``extra`` adds seed 002's name universes when that file exists."""
    given = {n.casefold() for n in _read_lines("given_names.txt.gz")}
    surnames = {n.casefold() for n in _read_lines("surnames.txt.gz")}
    origins = json.loads(_data_path("origin_names.json").read_text(encoding="utf-8"))
    given.update(n.casefold() for names in origins["given"].values() for n in names)
    surnames.update(n.casefold() for names in origins["surnames"].values() for n in names)
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
        frozenset(n.casefold() for n in _read_lines("dictionary_names.txt")),
        frozenset(w.casefold() for w in non.get("particles", [])),
        frozenset(c.casefold() for c in _read_lines("cities.txt")),
    )
