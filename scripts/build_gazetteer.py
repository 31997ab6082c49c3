"""Maintainer script: regenerate the NER anonymizer's shipped name and place lists (``debiasrag/data/names/``).

Needs ``names-dataset``, ``pycountry`` and spaCy installed. Run ``.venv/bin/python scripts/build_gazetteer.py``;
the lists it writes are read by :mod:`debiasrag.anonymize.gazetteer`.
"""

from __future__ import annotations

import gzip
import re
from collections.abc import Iterable
from pathlib import Path

from debiasrag.resources import data_path

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
    return data_path("names", name)


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


if __name__ == "__main__":
    print(build())
