"""Concepts (gender, age, wealth, or the user's own) loaded from JSON data files.

A concept names two groups, the sentence that puts a query into each group (a counterfactual variant),
and the debiasing context of seed 000 §2.2. The bundled files also carry the seed's word pairs,
attribute labels, scenario templates and WEAT sets used by the benchmarks.
"""

from __future__ import annotations

import math
import string
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from debiasrag.errors import InputError
from debiasrag.fileio import loads_strict, read_text
from debiasrag.resources import data_file

_SENTENCE_END = (".", "!", "?", "…")
NEUTRAL_LABEL = "neutral"
"""The label of a document of neither group (what a concept's groups cannot be called)."""


def join_context(text: str, context: str) -> str:
    """Append a context sentence to ``text``, adding the full stop the text may lack."""
    text = text.strip()
    if text and not text.endswith(_SENTENCE_END):
        text += "."
    return f"{text} {context.strip()}".strip()


def label_key(label: str) -> str:
    """How a group label is compared: Unicode-normalised (NFKC: full-width "ｆｅｍａｌｅ" is "female"), outer blanks
    dropped, any case. Group names, aliases and users' labels are all read this way."""
    return unicodedata.normalize("NFKC", label).strip().casefold()


def _group_named(key: str, names: tuple[str, ...]) -> str | None:
    """The name a label read as ``key`` (:func:`label_key`) names: the name itself, or its first letter where no
    other name starts with it; None for any other label."""
    initials = [label_key(name)[:1] for name in names]
    for name, initial in zip(names, initials):
        if key == label_key(name) or (key == initial and initials.count(initial) == 1):
            return name
    return None


@dataclass(frozen=True)
class Concept:
    """A bias concept: two groups, their variant sentences and a debiasing context."""

    name: str
    groups: tuple[str, str]
    variants: dict[str, str]
    debiasing: str
    description: str = ""
    pairs: tuple[tuple[str, str], ...] = ()
    templates: dict[str, str] = field(default_factory=dict)
    attributes: dict[str, float] = field(default_factory=dict)
    attribute_kind: str = ""
    weat: dict[str, tuple[str, ...]] = field(default_factory=dict)
    label_aliases: dict[str, str] = field(default_factory=dict)  # other label spellings -> group ("woman")

    def variant_queries(self, query: str) -> list[tuple[str, str]]:
        """``[(group, query + that group's sentence), ...]`` in the concept's group order."""
        return [(group, join_context(query, self.variants[group])) for group in self.groups]

    def debiased_query(self, query: str) -> str:
        """The query with the debiasing context injected (seed 000 §2.2)."""
        return join_context(query, self.debiasing)

    def label_group(self, label: Any) -> str | None:
        """The group a user's label names (one of :attr:`groups` or ``"neutral"``), or None: any case, outer spaces
        ignored ("Female"), and the first letter alone ("F") where the groups and "neutral" start with distinct
        letters."""
        if not isinstance(label, str):
            return None
        wanted = label_key(label)
        aliases = {label_key(alias): group for alias, group in self.label_aliases.items()}
        if wanted in aliases:
            return aliases[wanted]
        return _group_named(wanted, (*self.groups, NEUTRAL_LABEL))

    def label_spellings(self) -> str:
        """How :meth:`label_group` accepts labels, for messages: "female, male or neutral (any case, or F, M, N)"."""
        names = (*self.groups, NEUTRAL_LABEL)
        initials = [name[:1].upper() for name in names]
        letters = f", or {', '.join(initials)}" if len(set(initials)) == len(initials) else ""
        aliases = f", or {' / '.join(self.label_aliases)}" if self.label_aliases else ""
        return f"{', '.join(names[:-1])} or {names[-1]} (any case{letters}{aliases})"

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, source: str = "concept") -> Concept:
        """Build a concept from parsed JSON, checking every field; any problem is an :class:`InputError`."""
        return cls(**_validated_fields(data, source))


_KNOWN_FIELDS = (
    "name",
    "format",
    "description",
    "groups",
    "variants",
    "debiasing",
    "pairs",
    "attribute_kind",
    "attributes",
    "templates",
    "weat",
    "label_aliases",
)


def _is_text(value: Any) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _check(ok: bool, source: str, message: str) -> None:
    if not ok:
        raise InputError(f"{source}: {message}")


def _validated_fields(data: Any, source: str) -> dict[str, Any]:
    """The keyword arguments of :class:`Concept`, after checking the type of every field of ``data``."""
    _check(isinstance(data, dict), source, "a concept file must hold a JSON object")
    missing = [key for key in ("name", "groups", "variants", "debiasing") if key not in data]
    _check(not missing, source, f"concept is missing field(s) {', '.join(missing)}")
    unknown = sorted(str(key) for key in data if key not in _KNOWN_FIELDS)
    _check(not unknown, source, f"unknown field(s) {', '.join(map(repr, unknown))}; known: {', '.join(_KNOWN_FIELDS)}")
    _check(_is_text(data["name"]), source, "'name' must be a non-empty string")
    _check(data.get("format", 1) == 1 and type(data.get("format", 1)) is int, source, "'format' must be 1")
    groups, variants = data["groups"], data["variants"]
    _check(
        isinstance(groups, list) and len(groups) == 2 and all(_is_text(g) for g in groups),
        source,
        "'groups' must be a list of two non-empty names",
    )
    # labels are read as label_key reads them (Concept.label_group): a name with outer blanks, or two names equal but
    # for case or width, could never be named by a label
    _check(all(g == g.strip() for g in groups), source, "group names must not begin or end with blanks")
    _check(
        label_key(groups[0]) != label_key(groups[1]), source, "the two groups must differ (in more than case or width)"
    )
    # "neutral" is what a document with no evidence of either group is labelled: a group of that name could not be
    # told apart from it
    _check(
        NEUTRAL_LABEL not in (label_key(g) for g in groups),
        source,
        "'neutral' cannot be a group name (it labels documents of neither group)",
    )
    _check(
        isinstance(variants, dict) and all(_is_text(variants.get(g)) for g in groups),
        source,
        f"'variants' needs a non-empty sentence for each group {groups}",
    )
    extra = [str(k) for k in variants if k not in groups]
    _check(not extra, source, f"'variants' has sentences for unknown group(s) {extra}; the groups are {groups}")
    _check(_is_text(data["debiasing"]), source, "'debiasing' must be a non-empty sentence")
    for key in ("description", "attribute_kind"):
        _check(isinstance(data.get(key, ""), str), source, f"'{key}' must be a string")
    pairs = data.get("pairs", [])
    _check(
        isinstance(pairs, list) and all(isinstance(p, list) and len(p) == 2 and all(map(_is_text, p)) for p in pairs),
        source,
        "'pairs' must be a list of [group 1 word, group 2 word] lists of non-empty strings",
    )
    attributes = data.get("attributes", {})
    _check(
        isinstance(attributes, dict) and all(_is_number(v) for v in attributes.values()),
        source,
        "'attributes' must map each attribute word to a finite number",
    )
    templates = data.get("templates", {})
    _check(
        isinstance(templates, dict) and all(isinstance(t, str) for t in templates.values()),
        source,
        "'templates' must map each scenario name to a sentence",
    )
    for name, template in templates.items():
        try:  # exactly "{attribute}": "{attribute.x}" or "{attribute[0]}" would fail or misread real words
            fields = [(f, spec, conv) for _, f, spec, conv in string.Formatter().parse(template) if f is not None]
            if any((f, spec, conv) != ("attribute", "", None) for f, spec, conv in fields):
                raise ValueError(name)
        except ValueError:
            raise InputError(
                f"{source}: template {name!r} may contain only the placeholder {{attribute}} "
                "(write other braces as {{ and }})"
            ) from None
    weat = data.get("weat", {})
    _check(
        isinstance(weat, dict)
        and all(isinstance(words, list) and all(_is_text(w) for w in words) for words in weat.values()),
        source,
        "'weat' must map each set name to a list of non-empty words",
    )
    aliases = data.get("label_aliases", {})
    _check(
        isinstance(aliases, dict) and all(_is_text(k) and v in (*groups, NEUTRAL_LABEL) for k, v in aliases.items()),
        source,
        f"'label_aliases' must map each other spelling of a label to one of {[*groups, NEUTRAL_LABEL]}",
    )
    read_as: dict[str, str] = {}
    for alias, group in aliases.items():  # {"Woman ": "female", "woman": "male"}: one label, two groups
        _check(
            read_as.setdefault(label_key(alias), group) == group,
            source,
            f"'label_aliases' spells {alias!r} twice (as labels are read), for two groups",
        )
    for alias, group in aliases.items():  # {"muslim": "christian"}: a typo that would relabel every such document
        named = _group_named(label_key(alias), (*groups, NEUTRAL_LABEL))
        _check(
            named is None or named == group,
            source,
            f"'label_aliases' maps {alias!r} to {group!r}, but {alias!r} names the group {named!r} itself",
        )
    return {
        "name": data["name"],
        "groups": (groups[0], groups[1]),
        "variants": {g: variants[g] for g in groups},
        "debiasing": data["debiasing"],
        "description": data.get("description", ""),
        "pairs": tuple((a, b) for a, b in pairs),
        "templates": dict(templates),
        "attributes": {k: float(v) for k, v in attributes.items()},
        "attribute_kind": data.get("attribute_kind", ""),
        "weat": {k: tuple(v) for k, v in weat.items()},
        "label_aliases": dict(aliases),
    }


def available_concepts() -> list[str]:
    """Names of the concepts bundled with the package."""
    folder = data_file("concepts")
    return sorted(p.name[: -len(".json")] for p in folder.iterdir() if p.name.endswith(".json"))


def load_concept(concept: str | Path | Concept) -> Concept:
    """Load a bundled concept by name (``"gender"``) or the user's own from a JSON file path.

    A file that is missing, not UTF-8, not strict JSON (see :func:`~debiasrag.fileio.loads_strict`) or
    has a field of the wrong type raises :class:`InputError`.
    """
    if isinstance(concept, Concept):
        return concept
    text = str(concept)
    if text.endswith(".json") or Path(text).is_file():
        source = text
        raw = read_text(text, what="concept file")
    else:
        if text not in available_concepts():
            raise InputError(
                f"unknown concept {text!r}; choose one of {', '.join(available_concepts())} or give a .json file"
            )
        raw = data_file("concepts", f"{text}.json").read_text(encoding="utf-8")
        source = f"concept {text!r}"
    try:
        data = loads_strict(raw)
    except InputError as exc:
        raise InputError(f"{source}: {exc.message}") from None
    return Concept.from_dict(data, source=source)
