"""Operators: turn a text plus detected spans (offsets into that text) into the anonymized text.

``Remove`` deletes names (the seed's default) and keeps whitespace and punctuation tidy; ``Replace`` puts
consistent placeholders (``PERSON_1``, ``LOC_1``, ``ORG_1``) so the same name gets the same id across a
document, or across a corpus when one :class:`PlaceholderMapping` is shared, and the mapping can be reversed.
"""

from __future__ import annotations

import html
import re
import threading
from collections.abc import Collection, Iterable, Sequence
from functools import lru_cache
from typing import Protocol

from debiasrag.anonymize.base import PLACEHOLDER_ID, AnonymizedText, Entity
from debiasrag.anonymize.gazetteer import load_gazetteer
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


_PAIRS = {"(": ")", "[": "]", "{": "}", "<": ">", "\u201c": "\u201d"}


def _join_after_removal(left: str, right: str) -> str:
    """Glue the text before and after a removed name without double spaces or a space before punctuation."""
    opener, closer = left.rstrip(" \t")[-1:], right.lstrip(" \t")[:1]
    # "Maria (maria@uni.edu) said" -> "said", not "() said"; "Jane Doe <jane@example.com> wrote" -> "wrote"; a
    # Markdown link's brackets stay with its target: "by [Tomás Herrera](https://…)" -> "by [](https://…)"
    link = opener == "[" and right.lstrip(" \t")[1:2] == "("
    if opener in _PAIRS and closer == _PAIRS[opener] and not link:
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
    """(title before a name, preposition before a name) as patterns anchored at the end of the text so far.

    The title pattern ignores case; :func:`_title_before` keeps only the forms that are titles ("Dr", "DR",
    "dr." with its dot; not the verb in "I miss Maria")."""
    words = read_json("names", "removal_context.json")
    titles = "|".join(sorted(map(re.escape, words["titles"]), key=len, reverse=True))
    prepositions = "|".join(sorted(map(re.escape, words["prepositions"]), key=len, reverse=True))
    return (
        re.compile(rf"(?:(?<=[\s\"'(\[\u201c\u2018])|^)({titles})(\.[ \t]*|[ \t]+)$", re.IGNORECASE),
        re.compile(rf"(?:(?<=\s)|^)(?:{prepositions})[ \t]+$", re.IGNORECASE),
    )


@lru_cache(maxsize=1)
def _stub_reach() -> tuple[int, int]:
    """How far before the trailing whitespace a title (with its dot) / a preposition of :func:`_stub_patterns` can
    start."""
    words = read_json("names", "removal_context.json")
    return max(map(len, words["titles"])) + 1, max(map(len, words["prepositions"]))


def _end_search(pattern: re.Pattern[str], text: str, reach: int) -> re.Match[str] | None:
    """``pattern``, anchored at the end of ``text``, searched only where a match can start (``reach`` characters
    before the trailing whitespace, one more for a lookbehind): scanning all the text before every name made one
    long document quadratic (a 195 KB row took minutes)."""
    start = len(text.rstrip()) - reach - 1
    return pattern.search(text, start) if start > 0 else pattern.search(text)


def _ends_with_preposition(text: str) -> re.Match[str] | None:
    """The preposition (and the spaces after it) that ends ``text``, if any."""
    return _end_search(_stub_patterns()[1], text, _stub_reach()[1])


@lru_cache(maxsize=1)
def _title_forms() -> dict[str, str]:
    """Casefolded title -> the title as listed ("dr" -> "Dr")."""
    return {title.casefold(): title for title in read_json("names", "removal_context.json")["titles"]}


@lru_cache(maxsize=1)
def _role_titles() -> dict[str, str]:
    """Title -> the role it names ("Dr" -> "doctor"): these titles become "the <role>" instead of going."""
    return dict(read_json("names", "removal_context.json")["role_titles"])


@lru_cache(maxsize=1)
def _role_modifiers() -> frozenset[str]:
    """Words that join a role phrase when they stand right before its title ("Vice", "former")."""
    return frozenset(w.casefold() for w in read_json("names", "removal_context.json")["role_modifiers"])


@lru_cache(maxsize=1)
def _salutations() -> frozenset[str]:
    """Greetings after which a role takes no article ("Dear Dr. Lee" -> "Dear doctor")."""
    return frozenset(w.casefold() for w in read_json("names", "removal_context.json")["salutations"])


def _title_before(before: str) -> re.Match[str] | None:
    """The title ending ``before`` (right before a name): as listed, in capitals, or in lower case with its dot;
    a dot after a title of more than five letters ends a sentence ("Officer. Lee")."""
    found = _end_search(_stub_patterns()[0], before, _stub_reach()[0])
    if found is None:
        return None
    word = found.group(1)
    if found.group(2).startswith(".") and len(word) > 5:  # "... as Chief Financial Officer. De Sousa": a full stop
        return None
    if (
        word == _title_forms()[word.casefold()]
        or (word.isupper() and len(word) > 1)
        or (word.islower() and found.group(2).startswith("."))
    ):
        return found
    return None


_AND_END = re.compile(r"[ \t]+(?:and|&)[ \t]+$")


def _coordinated_title(before: str) -> int | None:
    """Where a title joined by "and" to the removed name's own title starts, at the end of ``before`` ("Call Mr. and "
    before "Mrs. Smith"; a walkthrough, session 46, found "Call Mr. and now."), or None; not a role title ("Dr. and
    Mrs. Lee"), which would have to become a role of its own."""
    joined = _AND_END.search(before)
    title = _title_before(before[: joined.start()]) if joined is not None else None
    if title is None or _role_of(title) is not None:
        return None
    return title.start()


def _role_of(title: re.Match[str]) -> str | None:
    return _role_titles().get(_title_forms()[title.group(1).casefold()])


@lru_cache(maxsize=1)
def _lexicon() -> tuple[frozenset[str], frozenset[str]]:
    """(English words, words that modify no title: stop words, adverbs and verbs) from the default spaCy
    pipeline's lemma tables (shared with the NER anonymizer); empty sets without that pipeline."""
    from debiasrag.errors import InputError

    try:
        from spacy.lang.en.stop_words import STOP_WORDS

        from debiasrag.anonymize.ner import DEFAULT_SPACY_MODEL, english_words, load_spacy

        nlp = load_spacy(DEFAULT_SPACY_MODEL)
    except (ImportError, InputError):  # pragma: no cover - spaCy and its packaged pipeline are dependencies
        return frozenset(), frozenset()
    return english_words(nlp), english_words(nlp, "adv") | english_words(nlp, "verb") | frozenset(STOP_WORDS)


# A role is kept for people only: NER's persons and the LLM's unlabelled names.
_PERSON_LABELS = frozenset({"PERSON", "NAME"})
_ADDRESS = re.compile(r"[^@\s]+@[^@\s]+\.[^\W\d_]{2,}")


def _is_address(entity: Entity) -> bool:
    """Whether the entity is an e-mail address ("jane.doe@example.com")."""
    return _ADDRESS.fullmatch(entity.text) is not None


def _is_titled_person(entity: Entity) -> bool:
    """Whether a role title before ``entity`` names that person's role: a person (not an organisation, place or
    address) whose name holds a listed given name or surname, or a word that is neither an English word nor a
    place ("Yerusha"); not a brand named after a titled person ("Dr Pepper", "Captain Crunch")."""
    from debiasrag.anonymize.ner import is_dictionary_word

    if entity.label not in _PERSON_LABELS or _is_address(entity):
        return False
    gazetteer, english = load_gazetteer(), _lexicon()[0]
    return any(
        gazetteer.is_person_name(word) or not (is_dictionary_word(word.casefold(), english) or gazetteer.is_place(word))
        for word in re.findall(r"[^\W\d_]{2,}", entity.text)
    )


# Words after which a role needs no article of its own: "our Dr. Lee" -> "our doctor".
_DETERMINERS = frozenset("a an the this that these those my your his her its our their".split())
_POSSESSIVE_BEFORE = re.compile(r"(?:['\u2019]s|s['\u2019])[ \t]*$")  # "The hospital's Dr. Lee"
_SALUTATION = re.compile(r"(?:(?<=\s)|^)([^\W\d_]+),?[ \t]+$")  # "Dear ", "Thanks, "
_DOTTED = re.compile(r"(?:^|\s)(?:[a-z]\.){2,}$")  # "e.g.", "i.e.": no sentence end
# A word (or dotted acronym: "U.S.") right before a title, one space or tab apart.
_WORD_BEFORE_TITLE = re.compile(r"(?:(?<=[\s\"(\[\u201c\u2018])|^)((?:[A-Z]\.){2,}|[^\W\d_]+)[ \t]+$")


def _opens_sentence(before: str) -> bool:
    """Whether text after ``before`` opens a sentence (a bracket or dash takes the case of what precedes it)."""
    tail = before.rstrip(" \t")
    while tail.endswith(("(", "[", "-", "\u2014")):
        tail = tail[:-1].rstrip(" \t")
    if tail == "" or tail.endswith(("\n", '"', "'", "\u201c", "\u2018")):
        return True
    return tail.endswith((".", "!", "?")) and not (_ABBREVIATION.search(tail) or _DOTTED.search(tail))


def _role_rewrite(before: str, entity: Entity) -> tuple[int, str, list[tuple[int, int]]] | None:
    """When ``before`` (the text right before ``entity``, a titled person) ends with a role title: where the role phrase
    starts in ``before``, the phrase, and the spans of ``before`` it drops or rewrites (titles; modifiers put in
    lower case). "Our Dr. " -> "Our doctor"; "Vice President " -> "The vice president"; "The hospital's Dr. " ->
    "The hospital's doctor"; "Lieutenant Governor " -> "The lieutenant governor"; "Mr. Dr. " -> "The doctor"."""
    found = _title_before(before)
    role = _role_of(found) if found else None
    if found is None or role is None or not _is_titled_person(entity):
        return None
    roles, stubs, cut = [role], [(found.start(), len(before))], found.start()
    while (stacked := _title_before(before[:cut])) is not None:  # "Lieutenant Governor", "Mr. Dr."
        extra = _role_of(stacked)
        if extra:
            roles.insert(0, extra)
        stubs.append((stacked.start(), cut))
        cut = stacked.start()
    modifiers: list[str] = []
    article = True
    not_modifiers = _lexicon()[1]
    while (word := _WORD_BEFORE_TITLE.search(before, 0, cut)) is not None:
        text = word.group(1)
        if text.casefold() in _role_modifiers():  # "Vice President", "former President"
            modifiers.insert(0, text.casefold())
            stubs.append((word.start(1), word.end(1)))
        elif found.group(1).isupper():  # "ASK DR. LEE": in capitals no word says it is a modifier
            break
        elif text.isupper() and len(text) > 1 and text != "I":  # an acronym: "US Senator", "NHS Dr. Lee"
            modifiers.insert(0, text)
        elif text[:1].isupper() and text.casefold() not in not_modifiers and not load_gazetteer().is_non_name(text):
            if _opens_sentence(before[: word.start()]):
                article = False  # "Dear Dr. Lee" -> "Dear doctor": a capitalised sentence opener stays as it is
                break
            modifiers.insert(0, text)  # "met Harvard Professor Lee" -> "met the Harvard professor"
        else:
            break
        cut = word.start()
    head = before[:cut]
    greeting = _SALUTATION.search(head)
    if greeting is not None and greeting.group(1).casefold() in _salutations():
        article = False
    if not article or (head.split() and head.split()[-1].casefold() in _DETERMINERS) or _POSSESSIVE_BEFORE.search(head):
        prefix = ""
    else:
        prefix = "The " if _opens_sentence(head) else "the "
    return cut, prefix + " ".join([*modifiers, *roles]), stubs


# What may follow a removed name for it to end its clause (then a preposition before it is a stub).
_CLAUSE_END = re.compile(r"[ \t]*(?:[.,;:!?)\]}\u201d]|\n|$)")


def stub_spans(text: str, entities: Sequence[Entity]) -> list[tuple[int, int]]:
    """``[start, end)`` of the titles and prepositions :class:`Remove` drops with these (sorted) entities.

    For measuring: those words go by design, so a word-survival score should not count them as lost. A role
    title ("Dr.") is counted here too (it becomes "the doctor"), and so is a modifier the role phrase puts in lower
    case ("Vice" of "Vice President"), but a preposition before it is kept.
    """
    spans: list[tuple[int, int]] = []
    previous_end = 0
    for index, ent in enumerate(entities):
        before = text[previous_end : ent.start]
        rewrite = _role_rewrite(before, ent)
        if rewrite:
            spans.extend((previous_end + start, previous_end + end) for start, end in rewrite[2])
            previous_end = ent.end
            continue
        cut = len(before)
        while (found := _title_before(before[:cut])) is not None:
            spans.append((previous_end + found.start(), previous_end + cut))
            cut = found.start()
        if cut < len(before) and (pair := _coordinated_title(before[:cut])) is not None:
            spans.append((previous_end + pair, previous_end + cut))
            cut = pair
        end = ent.end
        possessive = _POSSESSIVE.match(text, end)
        if possessive:
            end = possessive.end()
        following = entities[index + 1].start if index + 1 < len(entities) else len(text)
        if _is_address(ent) or (_CLAUSE_END.match(text[end:following]) and (end < following or following == len(text))):
            found_preposition = _ends_with_preposition(before[:cut])
            if found_preposition:
                spans.append((previous_end + found_preposition.start(), previous_end + cut))
        previous_end = ent.end
    return sorted(spans)


class Remove:
    """Delete each entity (and a possessive ``'s`` right after it), tidying spaces and punctuation.

    Words that only make sense with the name go too (lists in ``data/names/removal_context.json``): a title
    right before it ("Mrs. Yerusha examined" -> "examined") and a preposition right before a name that ends its
    clause ("met in Northampton." -> "met."), or before an e-mail address ("write to me at jane@example.com for
    more" -> "write to me for more"), so no "Mrs." or "in." stub is left behind. A title that names a person's
    role keeps the role, which says what the person does and not their gender: "Dr. Yerusha examined Reyan's
    heart." -> "The doctor examined heart."; "met with Senator Warren." -> "met with the senator."; "Vice
    President Harris" -> "the vice president"; not for brands or organisations ("a Dr Pepper" -> "a").
    """

    name = "remove"

    def apply(self, text: str, entities: Sequence[Entity]) -> tuple[str, dict[str, str]]:
        """``text`` with every entity (and its title / clause-final preposition stub) removed; no mapping."""
        if not entities:
            return text, {}
        out = text[: entities[0].start]
        position = entities[0].start
        for index, ent in enumerate(entities):
            if index:
                out = _join_after_removal(out, text[position : ent.start])
            rewrite = _role_rewrite(out, ent)
            if rewrite:  # the name becomes its role; its possessive and a preposition before it stay
                cut, phrase, _ = rewrite
                out = out[:cut] + phrase
                position = ent.end
                continue
            titled = False
            while (found := _title_before(out)) is not None:  # "Detective Inspector" before a brand: all of it
                out, titled = out[: found.start()], True
            if titled and (pair := _coordinated_title(out)) is not None:  # "Mr. and Mrs. Smith": "Mr. and" goes too
                out = out[:pair]
            position = ent.end
            possessive = _POSSESSIVE.match(text, position)
            if possessive:
                position = possessive.end()
            following = entities[index + 1].start if index + 1 < len(entities) else len(text)
            if _is_address(ent) or (
                _CLAUSE_END.match(text[position:following]) and (position < following or following == len(text))
            ):
                found_preposition = _ends_with_preposition(out)
                if found_preposition:
                    out = out[: found_preposition.start()] + out[found_preposition.end() :]
            out = out if out.strip() else ""
        out = _join_after_removal(out, text[position:])
        return out, {}


class PlaceholderMapping:
    """Placeholder ids shared by every text anonymized with it (pass one to ``Replace`` for a whole corpus).

    ``mapping`` is placeholder -> original name; :meth:`reverse` puts the names back.
    """

    def __init__(self, reserved: Iterable[str] = ()) -> None:
        self._ids: dict[tuple[str, str], str] = {}
        self._counters: dict[str, int] = {}
        self._person_parts: dict[str, str] = {}
        self.mapping: dict[str, str] = {}
        # ids some text of the corpus holds as literal text ("Ticket PERSON_1 was closed"): never given to a name,
        # or reversing with the corpus mapping writes that name into the row that held the literal
        self.reserved: set[str] = set(reserved)
        # literal ids found in a text after this mapping had given them to a name (a corpus not reserved first)
        self.collisions: set[str] = set()
        self._lock = threading.Lock()  # LLM anonymization may call from worker threads

    def reserve(self, texts: Iterable[str]) -> None:
        """Keep the placeholder-shaped ids ``texts`` hold (:func:`placeholders_in`) from ever being given to a name:
        call it with the whole corpus before anonymizing it with this mapping."""
        with self._lock:
            for text in texts:
                self.reserved.update(placeholders_in(text))

    def placeholder_for(
        self, label: str, name: str, avoid: Collection[str] = (), parts: dict[str, str] | None = None
    ) -> str:
        """The placeholder of ``name`` (an entity of type ``label``): the same name gets the same id every time. A new
        id skips those in ``avoid`` (the ids the text being anonymized already holds, :func:`placeholders_in`) and
        :attr:`reserved`: "PERSON_1 is our template's name, and Maria wrote it" must not read back as Maria twice.
        A first name or surname alone after a full name ("Sarah" after "Sarah Connor") takes the full name's id when
        that full name is in ``parts`` (:class:`Replace` passes one per text: "Mr. Smith" in one document is not
        "Anna Smith" of another); without ``parts``, any full name this mapping has seen."""
        prefix = PLACEHOLDER_PREFIX.get(label, label)
        # a name as the reader sees it: "Ra&#250;l Fern&#225;ndez" in a web page is "Raúl Fernández" of plain text
        shown = html.unescape(name) if "&" in name else name
        key = (prefix, " ".join(shown.split()).casefold())
        seen_parts = self._person_parts if parts is None else parts
        with self._lock:
            if prefix == "PERSON" and key[1] in seen_parts:
                return seen_parts[key[1]]
            if key in self._ids:
                placeholder = self._ids[key]
                self._remember_parts(key[1], placeholder, prefix, seen_parts)
                return placeholder
            self._counters[prefix] = self._counters.get(prefix, 0) + 1
            while (
                f"{prefix}_{self._counters[prefix]}" in avoid or f"{prefix}_{self._counters[prefix]}" in self.reserved
            ):
                self._counters[prefix] += 1
            placeholder = f"{prefix}_{self._counters[prefix]}"
            self._ids[key] = placeholder
            self.mapping[placeholder] = name
            self._remember_parts(key[1], placeholder, prefix, seen_parts)
            return placeholder

    @staticmethod
    def _remember_parts(name: str, placeholder: str, prefix: str, parts: dict[str, str]) -> None:
        """A full name's first and last word lead to its id: "Sarah" after "Sarah Connor" is the same person."""
        words = name.split()
        if prefix == "PERSON" and len(words) > 1:
            for part in (words[0], words[-1]):
                parts.setdefault(part, placeholder)

    def reverse(self, text: str) -> str:
        """Replace placeholders in ``text`` by the original names (longest ids first: PERSON_10 before PERSON_1)."""
        if not self.mapping:
            return text
        pattern = re.compile("|".join(re.escape(p) for p in sorted(self.mapping, key=len, reverse=True)) + r"(?!\d)")
        return pattern.sub(lambda m: self.mapping[m.group(0)], text)


def placeholders_in(text: str) -> set[str]:
    """The ids shaped like our placeholders (``PERSON_1``) that ``text`` already holds."""
    return set(PLACEHOLDER_ID.findall(text))


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
        present = placeholders_in(text)
        if self.shared is not None:
            mapping.collisions.update(p for p in present if p in mapping.mapping)  # not a copy of every id per row
            mapping.reserve([text])  # later texts' names never take an id this one holds as literal text
        parts: dict[str, str] = {}  # full names of this text only: a surname alone elsewhere is someone else
        pieces: list[str] = []
        used: dict[str, str] = {}
        position = 0
        for index, ent in enumerate(entities):
            pieces.append(text[position : ent.start])
            whole = _full_name_after(entities, index) if ent.label == "PERSON" else None
            if whole is not None:  # "<!-- TODO(siobhan) -->" before "Siobhan Kelly": the full name's id, given now
                mapping.placeholder_for(whole.label, whole.text, avoid=present, parts=parts)
            placeholder = mapping.placeholder_for(ent.label, ent.text, avoid=present, parts=parts)
            used[placeholder] = mapping.mapping[placeholder]
            pieces.append(placeholder)
            position = ent.end
        pieces.append(text[position:])
        return "".join(pieces), used


def _full_name_after(entities: Sequence[Entity], index: int) -> Entity | None:
    """The first full name of a person after ``entities[index]`` (one word, a person, its name not seen earlier in
    the text) whose first or last word that word is: the same person, met first by that word alone."""
    word = " ".join(html.unescape(entities[index].text).split()).casefold()
    if " " in word or any(" ".join(html.unescape(e.text).split()).casefold() == word for e in entities[:index]):
        return None
    for ent in entities[index + 1 :]:
        words = html.unescape(ent.text).casefold().split()
        if ent.label == "PERSON" and len(words) > 1 and word in (words[0], words[-1]):
            return ent
    return None


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
