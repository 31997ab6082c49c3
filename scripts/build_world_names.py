"""Maintainer tool: rebuild ``debiasrag/data/names/world_first_names.json``, the group detector's extra first names.

The detector's main name table (``gender_swap_names.json``) holds the 2,500 most common US names per gender; chunks
name people from everywhere ("Fatima Idrissi", "Huw Griffiths", "Kwame"). This adds, from the offline
``names-dataset`` package, every first name that at least 90% of its bearers share one gender of and that ranks in
the top ``--rank`` (1,000) of some country, except names that are also frequent English words (in GloVe 6B's
``--frequent`` (10,000) most frequent words: "Will", "Hope", "Grant" stay as the main table has them). The two
cut-offs were chosen on the design sets of ``benchmarks/group_accuracy.py`` (benchmarks/RESULTS.md, "The group
detector", round 9); needs the ``nlp`` extra (names-dataset) and the packaged GloVe vectors.
Run from the repository root::

    .venv/bin/python scripts/build_world_names.py [--rank 1000] [--frequent 10000]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from debiasrag.glove import GloveVectors
from debiasrag.resources import data_path


def _is_name(word: str) -> bool:
    """A capitalised single word of letters, accents allowed ("Ciarán", "Søren"), no hyphens or initials."""
    return word.isalpha() and word[0].isupper() and word[1:].islower() and len(word) > 1


def build_world_names(rank: int = 1000, frequent: int = 10000, min_share: float = 0.9) -> dict:
    """Female and male first names: share ≥ ``min_share``, top-``rank`` somewhere, not a frequent English word."""
    from names_dataset import NameDataset

    common = {word for word, row in GloveVectors().index.items() if row < frequent}
    table = NameDataset(load_first_names=True, load_last_names=False).first_names
    found: dict[str, list[str]] = {"female": [], "male": []}
    for name, info in table.items():
        ranks = [r for r in (info.get("rank") or {}).values() if r]
        if not _is_name(name) or name.lower() in common or not ranks or min(ranks) > rank:
            continue
        shares = info.get("gender") or {}
        for gender, key in (("F", "female"), ("M", "male")):
            if shares.get(gender, 0.0) >= min_share:
                found[key].append(name)
    return {
        "source": (
            f"names-dataset (offline first-name table): first names whose bearers are >= {min_share:.0%} one gender, "
            f"in the top {rank} of at least one country, not among GloVe 6B's {frequent} most frequent words. "
            "Built by scripts/build_world_names.py."
        ),
        "format": 1,
        "female": sorted(found["female"]),
        "male": sorted(found["male"]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rank", type=int, default=1000, help="best rank in some country (default 1000)")
    parser.add_argument("--frequent", type=int, default=10000, help="skip GloVe's most frequent words (default 10000)")
    parser.add_argument("--out", type=Path, default=None, help="output file (default: the packaged data file)")
    args = parser.parse_args()
    out = args.out or data_path("names", "world_first_names.json")
    data = build_world_names(args.rank, args.frequent)
    out.write_text(json.dumps(data, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {out}: {len(data['female'])} female, {len(data['male'])} male names")


if __name__ == "__main__":
    main()
