"""Name tools shared by the anonymizer evaluation and the benchmarks, and seed 002's STS triplets.

* :func:`replace_names` / :func:`remove_names`: whole-word, simultaneous name substitution and deletion;
* :class:`Triplet` / :func:`load_sts_triplets`: the ten Appendix D triplets (query, positive, negative) with the
  names of each text, role counterparts in the same order (``data/bench/sts_triplets.json``);
* :func:`identical_names` and :func:`gold_removed`: the two name-controlled variants of a triplet (Table 6).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from debiasrag.errors import InputError
from debiasrag.fileio import loads_strict
from debiasrag.fileio import read_text as read_file
from debiasrag.resources import read_text

STS_ROLES = ("query", "positive", "negative")
STS_TRIPLETS_FILE = ("bench", "sts_triplets.json")


def name_pattern(names: Iterable[str], flags: int = 0) -> re.Pattern[str] | None:
    """A regex matching any of ``names`` as a whole word, longest first; ``None`` when there is no name."""
    ordered = sorted({n for n in names if n}, key=len, reverse=True)  # "New Zealand" before "New"
    if not ordered:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(n) for n in ordered) + r")(?!\w)", flags)


def replace_names(text: str, mapping: dict[str, str]) -> str:
    """Replace every whole-word occurrence of each key by its value, all at once.

    Simultaneous replacement matters: with sequential ``str.replace`` a name drawn as a replacement could itself
    be replaced by a later step (Mike -> Donald, then Donald -> Shawn).
    """
    pattern = name_pattern(mapping)
    if pattern is None:
        return text
    return pattern.sub(lambda m: mapping[m.group(0)], text)


def remove_names(text: str, names: Iterable[str]) -> str:
    """Delete the given names (and a following possessive 's) and tidy the spaces left behind."""
    pattern = name_pattern(names)
    if pattern is None:
        return text
    text = re.sub(pattern.pattern + r"(?:'s)?", "", text)
    text = re.sub(r"[ \t]{2,}", " ", text)
    return re.sub(r" +([,.;:!?])", r"\1", text).strip()


@dataclass(frozen=True)
class Triplet:
    """One Appendix D triplet and the names in each of its texts (role counterparts in the same order).

    Besides attributes, a triplet reads like the JSON row it came from (``t["query"]``, ``t["names"]``), for
    code written against the file's rows.
    """

    query: str
    positive: str
    negative: str
    names: dict[str, tuple[str, ...]]

    def texts(self) -> tuple[str, str, str]:
        """``(query, positive, negative)``."""
        return self.query, self.positive, self.negative

    def with_texts(self, texts: Sequence[str]) -> Triplet:
        """The same triplet (same names) with new query, positive and negative texts."""
        return Triplet(texts[0], texts[1], texts[2], self.names)

    def __getitem__(self, key: str) -> Any:
        if key not in (*STS_ROLES, "names"):
            raise KeyError(key)
        return getattr(self, key)

    def keys(self) -> Iterator[str]:
        """The JSON row's keys: the three roles and ``names``."""
        return iter((*STS_ROLES, "names"))


def _is_str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def load_sts_triplets(path: str | Path | None = None) -> list[Triplet]:
    """Read the packaged ``data/bench/sts_triplets.json`` (or a file with the same schema)."""
    source = path or "data/bench/sts_triplets.json"
    try:
        text = read_text(*STS_TRIPLETS_FILE) if path is None else read_file(path, what="STS triplets file")
    except OSError as exc:
        raise InputError(f"cannot read the STS triplets ({source}): {exc}") from exc
    try:
        data = loads_strict(text)
    except InputError as exc:
        raise InputError(f"STS triplets {source}: {exc.message}") from None
    rows = data.get("triplets", []) if isinstance(data, dict) else None
    if not isinstance(rows, list):
        raise InputError(f"STS triplets {source}: expected an object with a 'triplets' list")
    triplets = []
    for number, row in enumerate(rows, 1):
        missing = [k for k in (*STS_ROLES, "names") if not isinstance(row, dict) or k not in row]
        if missing:
            raise InputError(f"STS triplet {number}: missing {', '.join(missing)}")
        texts, names = [row[role] for role in STS_ROLES], row["names"]
        lists = [names.get(role, []) for role in STS_ROLES] if isinstance(names, dict) else [None]
        if not all(isinstance(t, str) for t in texts) or not all(_is_str_list(found) for found in lists):
            raise InputError(f"STS triplet {number}: texts must be strings, 'names' a map of roles to lists of names")
        names_of = {role: tuple(found or ()) for role, found in zip(STS_ROLES, lists)}
        triplets.append(Triplet(texts[0], texts[1], texts[2], names_of))
    if not triplets:
        raise InputError("the STS triplets file holds no triplets")
    return triplets


def identical_names(triplet: Triplet) -> Triplet:
    """Seed 002's "identical names" variant: the positive and negative get the query's names.

    The i-th name of each becomes the query's i-th (the seed does not say how it aligned them); a text with more
    names than the query cycles through the query's names; names already equal stay.
    """
    query_names = triplet.names["query"]
    if not query_names:
        return triplet
    texts = [triplet.query]
    for role in STS_ROLES[1:]:
        mapping = {
            name: query_names[i % len(query_names)]
            for i, name in enumerate(triplet.names[role])
            if name != query_names[i % len(query_names)]
        }
        texts.append(replace_names(getattr(triplet, role), mapping))
    return triplet.with_texts(texts)


def gold_removed(triplet: Triplet) -> Triplet:
    """Delete every listed name of the triplet from all three texts (what a perfect anonymizer would do)."""
    every_name = [n for role in STS_ROLES for n in triplet.names[role]]
    return triplet.with_texts([remove_names(t, every_name) for t in triplet.texts()])


__all__ = [
    "STS_ROLES",
    "Triplet",
    "gold_removed",
    "identical_names",
    "load_sts_triplets",
    "name_pattern",
    "remove_names",
    "replace_names",
]
