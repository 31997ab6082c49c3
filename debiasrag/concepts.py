"""Concepts (gender, age, wealth, or the user's own) loaded from JSON data files.

A concept names two groups, the sentence that puts a query into each group (a counterfactual variant),
and the debiasing context of seed 000 §2.2. The bundled files also carry the seed's word pairs,
attribute labels, scenario templates and WEAT sets used by the benchmarks.
"""

from __future__ import annotations

import math
import string
import unicodedata
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from debiasrag.errors import InputError, warn_caller
from debiasrag.extras import MissingExtraError
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
        """Build a concept from parsed JSON, checking every field; any problem is an :class:`InputError`.

        Word lists that load but would skew the results each give a :class:`~debiasrag.errors.DebiasragWarning`
        naming the words (:func:`word_list_problems`)."""
        return _built(data, source, seed_lists=False, kind=cls)


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
    for number, (first, second) in enumerate(pairs, 1):  # a word cannot stand for both groups at once
        _check(
            word_key(first) != word_key(second),
            source,
            f"'pairs' item {number} {[first, second]!r} holds the same word twice; give one word for each group",
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
    for name, words in weat.items():  # an empty set would end the WEAT test in a division by zero
        _check(bool(words), source, f"'weat' set {name!r} is empty; give it words or leave it out")
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


def _built(data: Any, source: str, *, seed_lists: bool, kind: type[Concept] = Concept) -> Concept:
    """A concept (of class ``kind``) from parsed JSON, after a warning for each of :func:`word_list_problems`."""
    concept = kind(**_validated_fields(data, source))
    for problem in _word_list_problems(concept, seed_lists=seed_lists):
        warn_caller(f"{source}: {problem}")
    return concept


def word_key(word: str) -> str:
    """How concept words are compared when looking for overlaps and repeats: any case or width, a typographic
    apostrophe as ', blanks collapsed (the group detector reads "Barn" and "barn" as one word)."""
    return " ".join(unicodedata.normalize("NFKC", word).casefold().replace("\u2019", "'").split())


def _shown(words: Iterable[str], limit: int = 8) -> str:
    words = list(words)
    more = f" (+{len(words) - limit} more)" if len(words) > limit else ""
    return ", ".join(words[:limit]) + more


def _repeats(items: Iterable[str]) -> list[str]:
    """The items listed more than once, each with its count ("ample (4×)"), in first-seen order."""
    return [f"{item} ({count}×)" for item, count in Counter(items).items() if count > 1]


def word_list_problems(concept: Concept) -> list[str]:
    """What in a concept's word lists loads but would skew what it detects or measures, one sentence per problem
    naming the words: a word listed for both groups (in ``pairs``, or in both WEAT target or attribute sets), a
    repeated pair, a word repeated within a WEAT set, and scored words that also define the concept (attributes or
    WEAT attribute sets holding pair or WEAT target words: seed 003's rule, checked by
    :func:`debiasrag.metrics.check_word_sets` when the ``metrics`` extra is installed). Empty for a clean concept.

    Loading a concept warns with each of these (:class:`~debiasrag.errors.DebiasragWarning`). The bundled ``age``
    and ``wealth`` WEAT sets repeat words as seed 000 Appendix A.3 prints them; loading them by name does not warn
    about those repeats (this function still lists them)."""
    return _word_list_problems(concept, seed_lists=False)


def _word_list_problems(concept: Concept, *, seed_lists: bool) -> list[str]:
    """:func:`word_list_problems`; ``seed_lists`` (a bundled concept, the seed's lists as printed) leaves out the
    seed's own repeats and the scoring-set check (it loads the metrics extra; the test suite checks the bundled
    sets), so that the retriever's default concept loads fast and quietly."""
    problems = []
    first, second = concept.groups
    keys = [(word_key(a), word_key(b)) for a, b in concept.pairs]
    in_both = sorted({a for a, _ in keys} & {b for _, b in keys})
    if in_both:
        problems.append(
            f"'pairs' list {_shown(in_both)} for both groups ({first} and {second}): the group detector reads such a "
            "word as evidence of neither group, and it pulls the concept direction both ways"
        )
    repeated = _repeats(f"[{a}, {b}]" for a, b in keys)
    if repeated:
        problems.append(f"'pairs' repeats {_shown(repeated)}: a repeated pair weighs more in the concept direction")
    for one, other in (("T1", "T2"), ("A1", "A2")):
        if one in concept.weat and other in concept.weat:
            shared = sorted(set(map(word_key, concept.weat[one])) & set(map(word_key, concept.weat[other])))
            if shared:
                problems.append(
                    f"'weat' sets {one} and {other} share {_shown(shared)}: such a word counts for both sides"
                )
    for name, words in concept.weat.items():
        repeated = _repeats(map(word_key, words))
        if repeated and not seed_lists:
            problems.append(
                f"'weat' set {name!r} repeats {_shown(repeated)}: a repeated word counts once for each time it is "
                "listed"
            )
    return problems + ([] if seed_lists else _scoring_leaks(concept))


def _scoring_leaks(concept: Concept) -> list[str]:
    """Seed 003's rule (Table 3) on a concept: words that learn a direction or stand for a group must not be scored.
    Checked by :func:`~debiasrag.metrics.check_word_sets`; nothing to check (and nothing scores these sets) without
    the ``metrics`` extra."""
    attribute_names = [name for name in ("A1", "A2") if name in concept.weat]
    if not concept.attributes and not attribute_names:
        return []
    try:
        from debiasrag.metrics.query import Query, check_word_sets
    except MissingExtraError:
        return []
    definition = [word for pair in concept.pairs for word in pair]
    sides = [[a for a, _ in concept.pairs], [b for _, b in concept.pairs]]
    problems = []
    if concept.attributes and concept.pairs:
        query = Query.build(sides, [list(concept.attributes)], name=concept.name)
        leaks = check_word_sets(query, definition, on_leak="ignore").leaks
        if "definition words scored as attributes" in leaks:
            problems.append(
                f"'attributes' holds pair words {_shown(leaks['definition words scored as attributes'])}: words "
                "that learn the concept direction must not be scored on it (seed 003 Table 3)"
            )
    targets = [list(concept.weat.get(name, ())) for name in ("T1", "T2")]
    have_targets = all(targets)
    if attribute_names and (have_targets or concept.pairs):
        attributes = [list(concept.weat[name]) for name in attribute_names]
        query = Query.build(targets if have_targets else sides, attributes, name=concept.name)
        leaks = check_word_sets(query, definition, on_leak="ignore").leaks
        labels = [("definition words scored as attributes", "pair words")]
        if have_targets:
            labels.append(("attributes that are also targets", "WEAT target (T1 / T2) words"))
        for label, what in labels:
            if label in leaks:
                problems.append(
                    f"'weat' {' / '.join(attribute_names)} hold {what} {_shown(leaks[label])}: words that stand "
                    "for a group must not be scored as attributes (seed 003 Table 3)"
                )
    return problems


def available_concepts() -> list[str]:
    """Names of the concepts bundled with the package."""
    folder = data_file("concepts")
    return sorted(p.name[: -len(".json")] for p in folder.iterdir() if p.name.endswith(".json"))


def load_concept(concept: str | Path | Concept) -> Concept:
    """Load a bundled concept by name (``"gender"``) or the user's own from a JSON file path.

    A file that is missing, not UTF-8, not strict JSON (see :func:`~debiasrag.fileio.loads_strict`) or
    has a field of the wrong type raises :class:`InputError`; word lists that load but would skew the results warn
    (:func:`word_list_problems`).
    """
    if isinstance(concept, Concept):
        return concept
    text = str(concept)
    bundled = not (text.endswith(".json") or Path(text).is_file())
    if not bundled:
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
    return _built(data, source, seed_lists=bundled)


def is_bundled(concept: Concept) -> bool:
    """Whether ``concept`` is a bundled concept as shipped (same name and every field): what the seeds report for
    that concept applies to it, and not to a file of the same name with other words."""
    return concept.name in available_concepts() and load_concept(concept.name) == concept


def load_concepts(concepts: Iterable[str | Path | Concept]) -> list[Concept]:
    """:func:`load_concept` for each of ``concepts``, in order; one given twice is kept once. Two different concepts
    of one name are an :class:`InputError` (results are keyed by the concept's name)."""
    loaded: dict[str, Concept] = {}
    for concept in map(load_concept, concepts):
        if loaded.setdefault(concept.name, concept) != concept:
            raise InputError(f"two different concepts are named {concept.name!r}; rename one (its 'name' field)")
    return list(loaded.values())
