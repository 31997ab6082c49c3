"""Operators: turn a text plus detected spans (offsets into that text) into the anonymized text.

``Remove`` deletes names (the seed's default) and keeps whitespace and punctuation tidy; ``Replace`` puts
consistent placeholders (``PERSON_1``, ``LOC_1``, ``ORG_1``) so the same name gets the same id across a
document, or across a corpus when one :class:`PlaceholderMapping` is shared, and the mapping can be reversed.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from functools import lru_cache
from typing import Protocol

from debiasrag.anonymize.base import AnonymizedText, Entity
from debiasrag.resources import read_json

# A possessive right after a removed name goes with it: "Nikolai's heart" -> "heart", not "'s heart".
_POSSESSIVE = re.compile(r"(?:['\u2019]s\b|(?<=s)['\u2019](?![\w]))")
# "Dr." / "Mr." before a removed name is not a sentence end: keep "Mr., a teacher" rather than eat the comma.
_ABBREVIATION = re.compile(r"(?:^|\s)[A-Z][a-z]{0,3}\.\s*$")
_CLOSERS = ",.;:!?)]}\u201d"
_OPENERS = "([{\u201c"

PLACEHOLDER_PREFIX = {
    "PERSON": "PERSON",
    "GPE": "LOC",
    "LOC": "LOC",
    "ORG": "ORG",
    "NORP": "NORP",
    "FAC": "FAC",
    "MISC": "MISC",
    "NAME": "NAME",
}


class Operator(Protocol):
    """Transforms ``text`` given non-overlapping, sorted entities; returns (new text, placeholder mapping)."""

    name: str

    def apply(self, text: str, entities: Sequence[Entity]) -> tuple[str, dict[str, str]]:  # pragma: no cover
        """``text`` with ``entities`` transformed, and the placeholder -> original name mapping it used."""
        ...


_PAIRS = {"(": ")", "[": "]", "{": "}", "\u201c": "\u201d"}


def _join_after_removal(left: str, right: str) -> str:
    """Glue the text before and after a removed name without double spaces or a space before punctuation."""
    opener, closer = left.rstrip(" \t")[-1:], right.lstrip(" \t")[:1]
    if opener in _PAIRS and closer == _PAIRS[opener]:  # "Maria (maria@uni.edu) said" -> "said", not "() said"
        return _join_after_removal(left.rstrip(" \t")[:-1], right.lstrip(" \t")[1:])
    if left.endswith((" ", "\t")) and right[:1] in (" ", "\t"):
        right = right.lstrip(" \t")
    if right[:1] and right[0] in _CLOSERS and left.endswith((" ", "\t")):
        left = left.rstrip(" \t")
    if left.endswith(tuple(_OPENERS)) and right[:1] in (" ", "\t"):
        right = right.lstrip(" \t")
    if right == "" or right[:1] in ("\n", "\r"):  # the name ended the text or line: no trailing space left
        left = left.rstrip(" \t")
    # A comma before a clause end that the removal (of a name and its preposition) exposed: "client, in
    # Paris." -> "client." rather than "client,.".
    if right[:1] in (".", ";", ":", "!", "?") and left.rstrip(" \t").endswith(","):
        left = left.rstrip(" \t")[:-1]
    at_line_start = left == "" or left.endswith("\n")
    if at_line_start:
        right = right.lstrip(" \t")
    # A comma left orphaned by the removal goes too: "Alejandro, come" -> "come"; "them. Deborah, with" ->
    # "them. with"; "his client, Mike, who" -> "his client, who".
    if right[:1] == "," and (
        at_line_start
        or (left.rstrip(" \t")[-1:] in (".", "!", "?", ",", ";", ":", "(") and not _ABBREVIATION.search(left))
    ):
        right = right[1:]
        right = right.lstrip(" \t") if at_line_start or left.endswith((" ", "\t")) else right
    return left + right


@lru_cache(maxsize=1)
def _stub_patterns() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """(title before a name, preposition before a name) as patterns anchored at the end of the text so far."""
    words = read_json("names", "removal_context.json")
    titles = "|".join(sorted(map(re.escape, words["titles"]), key=len, reverse=True))
    prepositions = "|".join(sorted(map(re.escape, words["prepositions"]), key=len, reverse=True))
    return (
        re.compile(rf"(?:(?<=[\s\"'(\[\u201c\u2018])|^)({titles})\.?[ \t]+$"),
        re.compile(rf"(?:(?<=\s)|^)(?:{prepositions})[ \t]+$", re.IGNORECASE),
    )


@lru_cache(maxsize=1)
def _role_titles() -> dict[str, str]:
    """Title -> the role it names ("Dr" -> "doctor"): these titles become "the <role>" instead of going."""
    return dict(read_json("names", "removal_context.json")["role_titles"])


# Words after which a role needs no article of its own: "our Dr. Lee" -> "our doctor".
_DETERMINERS = frozenset("a an the this that these those my your his her its our their".split())


def _role_phrase(before: str, role: str) -> str:
    """``role`` with the article the text ``before`` it needs: "the doctor", "The doctor" or "doctor"."""
    words = before.split()
    if words and words[-1].casefold() in _DETERMINERS:
        return role
    tail = before.rstrip(" \t")
    starts_sentence = tail == "" or tail.endswith(
        ("\n", ".", "!", "?", '"', "'", "\u201c", "\u2018", "(", "[", "-", "\u2014")
    )
    return ("The " if starts_sentence and not _ABBREVIATION.search(tail) else "the ") + role


def _role_title(title: re.Pattern[str], before: str) -> tuple[re.Match[str], str] | None:
    """The role title ending ``before`` (right before a removed name) and its role, if it is one."""
    found = title.search(before)
    role = _role_titles().get(found.group(1)) if found else None
    return (found, role) if found and role else None


# What may follow a removed name for it to end its clause (then a preposition before it is a stub).
_CLAUSE_END = re.compile(r"[ \t]*(?:[.,;:!?)\]}\u201d]|\n|$)")


def stub_spans(text: str, entities: Sequence[Entity]) -> list[tuple[int, int]]:
    """``[start, end)`` of the titles and prepositions :class:`Remove` drops with these (sorted) entities.

    For measuring: those words go by design, so a word-survival score should not count them as lost. A role
    title ("Dr.") is counted here too (it becomes "the doctor"), but a preposition before it is kept.
    """
    title, preposition = _stub_patterns()
    spans: list[tuple[int, int]] = []
    previous_end = 0
    for index, ent in enumerate(entities):
        before = text[previous_end : ent.start]
        found = title.search(before)
        cut = found.start() if found else len(before)
        if found:
            spans.append((previous_end + found.start(), ent.start))
        if _role_title(title, before):
            while found is not None and (found := title.search(before[: found.start()])) is not None:
                spans.append((previous_end + found.start(), previous_end + cut))  # stacked: "Mr. Dr. Lee"
                cut = found.start()
            previous_end = ent.end
            continue
        end = ent.end
        possessive = _POSSESSIVE.match(text, end)
        if possessive:
            end = possessive.end()
        following = entities[index + 1].start if index + 1 < len(entities) else len(text)
        if _CLAUSE_END.match(text[end:following]) and (end < following or following == len(text)):
            found = preposition.search(before[:cut])
            if found:
                spans.append((previous_end + found.start(), previous_end + cut))
        previous_end = ent.end
    return sorted(spans)


class Remove:
    """Delete each entity (and a possessive ``'s`` right after it), tidying spaces and punctuation.

    Words that only make sense with the name go too (lists in ``data/names/removal_context.json``): a title
    right before it ("Mrs. Yerusha examined" -> "examined") and a preposition right before a name that ends its
    clause ("met in Northampton." -> "met."), so no "Mrs." or "in." stub is left behind. A title that names a
    role keeps the role, which says what the person does and not their gender: "Dr. Yerusha examined Reyan's
    heart." -> "The doctor examined heart."; "met with Senator Warren." -> "met with the senator.".
    """

    name = "remove"

    def apply(self, text: str, entities: Sequence[Entity]) -> tuple[str, dict[str, str]]:
        """``text`` with every entity (and its title / clause-final preposition stub) removed; no mapping."""
        if not entities:
            return text, {}
        title, preposition = _stub_patterns()
        out = text[: entities[0].start]
        position = entities[0].start
        for index, ent in enumerate(entities):
            if index:
                out = _join_after_removal(out, text[position : ent.start])
            role = _role_title(title, out)
            if role:  # the name becomes its role; its possessive and a preposition before it stay
                found, noun = role
                before = out[: found.start()]
                while (stacked := title.search(before)) is not None:  # "Mr. Dr. Lee" -> "the doctor"
                    before = before[: stacked.start()]
                out = before + _role_phrase(before, noun)
                position = ent.end
                continue
            out = title.sub("", out)
            position = ent.end
            possessive = _POSSESSIVE.match(text, position)
            if possessive:
                position = possessive.end()
            following = entities[index + 1].start if index + 1 < len(entities) else len(text)
            if _CLAUSE_END.match(text[position:following]) and (position < following or following == len(text)):
                out = preposition.sub("", out)
            out = out if out.strip() else ""
        out = _join_after_removal(out, text[position:])
        return out, {}


class PlaceholderMapping:
    """Placeholder ids shared by every text anonymized with it (pass one to ``Replace`` for a whole corpus).

    ``mapping`` is placeholder -> original name; :meth:`reverse` puts the names back.
    """

    def __init__(self) -> None:
        self._ids: dict[tuple[str, str], str] = {}
        self._counters: dict[str, int] = {}
        self._person_parts: dict[str, str] = {}
        self.mapping: dict[str, str] = {}
        self._lock = threading.Lock()  # LLM anonymization may call from worker threads

    def placeholder_for(self, label: str, name: str) -> str:
        """The placeholder of ``name`` (an entity of type ``label``): the same name gets the same id every time."""
        prefix = PLACEHOLDER_PREFIX.get(label, label)
        key = (prefix, " ".join(name.split()).casefold())
        with self._lock:
            if key in self._ids:
                return self._ids[key]
            # "Sarah" after "Sarah Connor" is the same person: reuse the id of the full name.
            if prefix == "PERSON" and key[1] in self._person_parts:
                return self._person_parts[key[1]]
            self._counters[prefix] = self._counters.get(prefix, 0) + 1
            placeholder = f"{prefix}_{self._counters[prefix]}"
            self._ids[key] = placeholder
            self.mapping[placeholder] = name
            if prefix == "PERSON":
                parts = key[1].split()
                if len(parts) > 1:
                    for part in (parts[0], parts[-1]):
                        self._person_parts.setdefault(part, placeholder)
            return placeholder

    def reverse(self, text: str) -> str:
        """Replace placeholders in ``text`` by the original names (longest ids first: PERSON_10 before PERSON_1)."""
        if not self.mapping:
            return text
        pattern = re.compile("|".join(re.escape(p) for p in sorted(self.mapping, key=len, reverse=True)) + r"(?!\d)")
        return pattern.sub(lambda m: self.mapping[m.group(0)], text)


def reverse_placeholders(text: str, mapping: dict[str, str]) -> str:
    """Undo ``Replace`` given the ``mapping`` of an :class:`~debiasrag.anonymize.AnonymizedText`."""
    restored = PlaceholderMapping()
    restored.mapping = dict(mapping)
    return restored.reverse(text)


class Replace:
    """Replace each entity by a consistent placeholder such as ``PERSON_1``.

    Without a shared ``mapping`` ids restart for every text (consistent within the document); with one, ids
    are consistent across every text anonymized with that mapping.
    """

    name = "replace"

    def __init__(self, mapping: PlaceholderMapping | None = None) -> None:
        self.shared = mapping

    def apply(self, text: str, entities: Sequence[Entity]) -> tuple[str, dict[str, str]]:
        """``text`` with each entity replaced by its placeholder, and the placeholders this text used."""
        mapping = self.shared if self.shared is not None else PlaceholderMapping()
        pieces: list[str] = []
        used: dict[str, str] = {}
        position = 0
        for ent in entities:
            pieces.append(text[position : ent.start])
            placeholder = mapping.placeholder_for(ent.label, ent.text)
            used[placeholder] = mapping.mapping[placeholder]
            pieces.append(placeholder)
            position = ent.end
        pieces.append(text[position:])
        return "".join(pieces), used


def compose(text: str, entities: Sequence[Entity], operator: Operator, method: str) -> AnonymizedText:
    """Detection + operator = result: ``operator`` applied to ``entities`` found in ``text`` by ``method``.

    The one composer of the NER and LLM anonymizers (Presidio's analyzer -> anonymizer step).
    """
    new_text, mapping = operator.apply(text, entities)
    return AnonymizedText(new_text, list(entities), mapping, method, None)


def get_operator(strategy: str, mapping: PlaceholderMapping | None = None) -> Operator:
    """The operator for ``strategy`` ("remove" or "replace"; ``mapping`` shares placeholders, replace only)."""
    from debiasrag.errors import InputError

    if strategy == "remove":
        if mapping is not None:
            raise InputError("a placeholder mapping only applies to strategy='replace'")
        return Remove()
    if strategy == "replace":
        return Replace(mapping)
    raise InputError(f"unknown anonymization strategy {strategy!r}; choose 'remove' or 'replace'")
