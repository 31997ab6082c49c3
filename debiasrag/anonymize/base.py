"""Shared types of the anonymizers: entities found in a text, the result, entity-type selection.

Detection is separate from transformation (Presidio's design): detectors return :class:`Entity` spans whose
offsets point into the ORIGINAL text; operators (:mod:`debiasrag.anonymize.operators`) turn text + spans into
the anonymized text. Offsets into the output text would break as soon as a span is removed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from debiasrag.errors import InputError, check_texts

# User-facing entity types -> the labels our detectors emit (spaCy / OntoNotes names).
# FAC (buildings, bridges, monuments) is its own type and off by default: the seed's prompt keeps landmarks.
ENTITY_TYPES: dict[str, frozenset[str]] = {
    "person": frozenset({"PERSON"}),
    "location": frozenset({"GPE", "LOC"}),
    "organization": frozenset({"ORG"}),
    "nationality": frozenset({"NORP"}),
    "facility": frozenset({"FAC"}),
    # Proper nouns the detector could not type (products, works, events, unknown capitalised names).
    "misc": frozenset({"MISC"}),
}
_ALIASES = {
    "persons": "person",
    "people": "person",
    "per": "person",
    "loc": "location",
    "locations": "location",
    "org": "organization",
    "orgs": "organization",
    "organisation": "organization",
    "organizations": "organization",
    "norp": "nationality",
    "fac": "facility",
    "other": "misc",
}
# The seed's default prompt removes person, place and organisation names; unknown proper nouns go too.
DEFAULT_ENTITIES: tuple[str, ...] = ("person", "location", "organization", "misc")


def parse_entity_types(entities: str | Iterable[str] | None) -> tuple[str, ...]:
    """Normalise ``"person,location"`` or ``["person", "loc"]`` to canonical type names; ``None`` = default."""
    if entities is None:
        return DEFAULT_ENTITIES
    if isinstance(entities, str):
        items = entities.split(",")
    elif isinstance(entities, (list, tuple, set, frozenset)):
        items = list(entities)
    else:
        raise InputError(f"entities must be a comma-separated string or a list of entity types, got {entities!r}")
    result: list[str] = []
    for item in items:
        name = str(item).strip().lower()
        if not name:
            continue
        name = _ALIASES.get(name, name)
        if name == "all":
            return tuple(ENTITY_TYPES)
        if name not in ENTITY_TYPES:
            raise InputError(f"unknown entity type {item!r}; choose from {', '.join(ENTITY_TYPES)} (or 'all')")
        if name not in result:
            result.append(name)
    if not result:
        raise InputError("no entity types selected; choose from " + ", ".join(ENTITY_TYPES))
    return tuple(result)


def labels_for(entity_types: Iterable[str]) -> frozenset[str]:
    """The spaCy entity labels covered by the given entity types (``person`` -> ``PERSON``, ...)."""
    return frozenset().union(*(ENTITY_TYPES[t] for t in entity_types))


@dataclass(frozen=True)
class Entity:
    """A detected name: its text, label and ``[start, end)`` character offsets into the ORIGINAL text."""

    text: str
    label: str
    start: int
    end: int

    def to_dict(self) -> dict[str, Any]:
        """``{text, label, start, end}`` (offsets into the original text)."""
        return {"text": self.text, "label": self.label, "start": self.start, "end": self.end}


@dataclass
class AnonymizedText:
    """The anonymized text plus what was done to it.

    ``mapping`` maps each placeholder to the original name (``replace`` strategy; empty for ``remove``), so the
    user can reverse the replacement. ``fallback`` says why another method was used for this text (e.g. the LLM
    answer was rejected and NER took over), or is None.
    """

    text: str
    entities: list[Entity]
    mapping: dict[str, str] = field(default_factory=dict)
    method: str = "ner"
    fallback: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready copy: the text, its entities and the other fields."""
        return {
            "text": self.text,
            "entities": [e.to_dict() for e in self.entities],
            "mapping": dict(self.mapping),
            "method": self.method,
            "fallback": self.fallback,
        }

    def metadata_record(self, include_names: bool = False) -> dict[str, str | int | bool]:
        """Flat, vector-store-safe metadata for this result (every value a str, int or bool; Chroma-safe).

        By default it holds no surface text, so storing it beside the vectors does not undo the anonymization:
        ``anonymization_method``, ``anonymized_count``, ``anonymized_spans`` (a JSON string of
        ``[[start, end, label], ...]``, offsets into the ORIGINAL text) and, when another method took over,
        ``anonymization_fallback`` (the reason without its quoted text). ``include_names=True`` opts in to
        ``anonymized_names`` (JSON list of the removed names, in span order) and, for ``replace``,
        ``anonymization_mapping`` (JSON object placeholder -> name), which let a user reverse the change.
        """
        record: dict[str, str | int | bool] = {
            "anonymization_method": self.method,
            "anonymized_count": len(self.entities),
            "anonymized_spans": json.dumps([[e.start, e.end, e.label] for e in self.entities]),
        }
        if self.fallback:
            # Rejection reasons quote the text ("keeps name(s) NER found ('Alice')"): keep only the reason.
            record["anonymization_fallback"] = self.fallback.split(" (", 1)[0]
        if include_names:
            record["anonymized_names"] = json.dumps([e.text for e in self.entities], ensure_ascii=False)
            if self.mapping:
                record["anonymization_mapping"] = json.dumps(dict(self.mapping), ensure_ascii=False)
        return record


@runtime_checkable
class Anonymizer(Protocol):
    """Anything that anonymizes texts; ``anonymize_batch`` returns one result per input, same order."""

    def anonymize(self, text: str) -> AnonymizedText:  # pragma: no cover - protocol
        """One text with its names removed or replaced, and the entities found."""
        ...

    def anonymize_batch(self, texts: Sequence[str]) -> list[AnonymizedText]:  # pragma: no cover - protocol
        """Several texts at once (same results as :meth:`anonymize` on each, usually faster)."""
        ...


def check_text(text: object, position: int | None = None) -> str:
    """Reject non-strings with a clear message (None and numbers sneak in from JSON)."""
    if not isinstance(text, str):
        where = f" (item {position})" if position is not None else ""
        raise InputError(f"texts to anonymize must be strings, got {type(text).__name__}{where}")
    return text


def check_batch(texts: Any) -> list[str]:
    """A batch of texts as a list, each checked by :func:`check_text`; one str (which would be anonymized
    character by character) or a value that is not a collection is an :class:`InputError`."""
    if isinstance(texts, (str, bytes)) or not isinstance(texts, Iterable):
        check_texts(texts)  # raises, in the words every batch method of the package uses
    items = list(texts)
    for position, text in enumerate(items):
        check_text(text, position)
    return items


# The shape of our placeholders (PERSON_1, LOC_2): one found in a text is an earlier anonymization's, never a name
PLACEHOLDER_ID = re.compile(r"(?<![A-Za-z0-9_])[A-Z]+_\d+(?!\d)")


def filter_entities(
    entities: Iterable[Entity],
    labels: frozenset[str],
    allow_list: frozenset[str] = frozenset(),
    deny_list: frozenset[str] = frozenset(),
) -> list[Entity]:
    """Keep entities of the selected labels, minus allow-listed names; sorted, overlaps resolved (longest wins).

    The allow-list (names that must stay, e.g. a product or "Eiffel Tower") is compared case-insensitively
    with the entity text; deny-list matches are added by the detectors themselves.
    """
    allow = {a.casefold() for a in allow_list}
    deny = {d.casefold() for d in deny_list}
    kept = [
        e
        for e in entities
        if (e.label in labels or e.text.casefold() in deny)
        and e.text.casefold() not in allow
        and not PLACEHOLDER_ID.fullmatch(e.text.strip())  # "PERSON_1" already there stays itself (NER tagged it GPE)
    ]
    return resolve_overlaps(kept)


def resolve_overlaps(entities: Iterable[Entity]) -> list[Entity]:
    """Sort by start; of overlapping spans keep the longer one (earlier one on ties)."""
    result: list[Entity] = []
    for ent in sorted(entities, key=lambda e: (e.start, -(e.end - e.start))):
        if ent.end <= ent.start:
            continue
        if result and ent.start < result[-1].end:
            if ent.end - ent.start > result[-1].end - result[-1].start:
                result[-1] = ent
            continue
        result.append(ent)
    return result
