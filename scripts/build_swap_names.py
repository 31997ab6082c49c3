"""Maintainer tool: rebuild ``debiasrag/data/names/gender_swap_names.json`` (the gender swapper's name pairs).

Needs the ``names-dataset`` package (the ``nlp`` extra). Run from the repository root::

    python scripts/build_swap_names.py [--out PATH] [--n 2500]
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from debiasrag.counterfactual.gender_swap import load_gender_words
from debiasrag.resources import data_path

_NAME_RE = re.compile(r"^[A-Z][a-z]+$")


def build_swap_names(
    n: int = 2500, *, country: str = "US", min_share: float = 0.9, exclude: Iterable[str] = ()
) -> dict[str, Any]:
    """Pair the ``n`` most common female and male given names of ``country`` by popularity rank.

    Source: the offline ``names-dataset`` package (v3: first names with per-country popularity ranks and a
    gender share). A name counts as female (male) when at least ``min_share`` of its bearers are; unisex
    names (Jordan, Taylor) are dropped because swapping them would not change gender. The i-th most common
    female name is paired with the i-th most common male name ("equally popular", seed 001 §4.2.2, which used
    the US Social Security list; that list is not available offline). Names that are also gendered words
    (Guy, Prince) are dropped.

    Regenerate the packaged file with ``python scripts/build_swap_names.py``.
    """
    from names_dataset import NameDataset

    blocked = {w.lower() for w in exclude}
    table = NameDataset(load_first_names=True, load_last_names=False).first_names
    by_gender: dict[str, list[tuple[int, str]]] = {"F": [], "M": []}
    for name, info in table.items():
        rank = info.get("rank", {}).get(country)
        shares = info.get("gender") or {}
        if not rank or not _NAME_RE.match(name) or name.lower() in blocked:
            continue
        for gender in ("F", "M"):
            if shares.get(gender, 0.0) >= min_share:
                by_gender[gender].append((rank, name))
    female = [name for _, name in sorted(by_gender["F"])][:n]
    male = [name for _, name in sorted(by_gender["M"])][:n]
    count = min(len(female), len(male))
    return {
        "source": (
            f"names-dataset {_version('names-dataset')} (offline first-name table): the {count} most common female and "
            f"male first names in {country} by the package's popularity rank, gender share >= {min_share}, paired "
            "by rank (i-th female <-> i-th male). Stand-in for the seed's US Social Security top-2500 lists."
        ),
        "format": 1,
        "country": country,
        "min_share": min_share,
        "pairs": [[f, m] for f, m in zip(female[:count], male[:count], strict=True)],
    }


def write_swap_names(path: str | Path | None = None, n: int = 2500) -> Path:
    """Rebuild ``data/names/gender_swap_names.json`` (see :func:`build_swap_names`)."""
    path = Path(path) if path is not None else data_path("names", "gender_swap_names.json")
    words = load_gender_words()
    vocab = {w for pair in words["pairs"] for w in pair}
    data = build_swap_names(n, exclude=vocab)
    path.write_text(json.dumps(data, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    return path


def _version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None, help="output file (default: the packaged data file)")
    parser.add_argument("--n", type=int, default=2500, help="name pairs to keep (default 2500)")
    args = parser.parse_args()
    print(f"wrote {write_swap_names(args.out, args.n)}")


if __name__ == "__main__":
    main()
