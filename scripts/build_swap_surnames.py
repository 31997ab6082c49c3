"""Maintainer tool: rebuild ``common_surnames`` in ``debiasrag/data/gender_swap_context.json``.

The gender swap reads a lone listed first name right after an honorific as the person's surname when it is a common
surname ("Mr. James said" keeps James; "Mrs. Mary said she" swaps Mary). Common: names-dataset 3.3.1 ranks it among
the ``--top`` most common surnames of the United States or the United Kingdom. Needs the ``names-dataset`` package
(the ``nlp`` extra). Run from the repository root::

    python scripts/build_swap_surnames.py [--top 1000]
"""

from __future__ import annotations

import argparse
import json

from debiasrag.fileio import atomic_write_text
from debiasrag.resources import data_path

COUNTRIES = ("United States", "United Kingdom")


def common_surnames(top: int = 1000) -> list[str]:
    """The first names of the swap's name pairs that names-dataset ranks among the ``top`` surnames of COUNTRIES."""
    from names_dataset import NameDataset

    pairs = json.loads(data_path("names", "gender_swap_names.json").read_text(encoding="utf-8"))["pairs"]
    dataset = NameDataset()
    found = set()
    for pair in pairs:
        for name in pair:
            ranks = (dataset.search(name).get("last_name") or {}).get("rank") or {}
            if any(ranks.get(country) and ranks[country] <= top for country in COUNTRIES):
                found.add(name)
    return sorted(found)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--top", type=int, default=1000)
    args = parser.parse_args()
    path = data_path("gender_swap_context.json")
    context = json.loads(path.read_text(encoding="utf-8"))
    context["common_surnames"] = common_surnames(args.top)
    atomic_write_text(path, json.dumps(context, indent=1, ensure_ascii=False) + "\n")
    print(f"{len(context['common_surnames'])} common surnames -> {path}")


if __name__ == "__main__":
    main()
