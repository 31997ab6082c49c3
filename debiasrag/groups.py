"""Which group of a concept a document is written about (female / male / neutral for gender), from its text.

Retrieval strategies that balance groups (``balanced``, ``dynamic``) need each candidate document's group; users
rarely label them. :class:`GroupDetector` reads the evidence in the text and counts it per group:

* the concept's own word pairs (``pairs`` in the concept JSON), first word → first group, second → second; a pair
  entry with a space is a phrase ("home office"), one mention wherever it occurs; a concept with no evidence for
  one of its groups warns once (no document could be read as of that group, so balancing would do nothing);
* extra evidence words from ``data/group_words.json`` (pronouns, possessives, kin, role words and titles); for
  gender also the counterfactual pair list ``data/gender_words.json`` (plurals and possessives) and gendered
  first names from ``data/names/gender_swap_names.json`` (names-dataset, US, gender share ≥ 0.9) and
  ``data/names/world_first_names.json`` (every country's top 1,000, accents kept, not a frequent English word;
  words are read in any script, so "Ciarán" is one token) and frequent names both miss (``added_names``: Mohammed,
  Lakshmi), counted only when
  capitalised and not a title, month or other capitalised non-name (``data/names/non_names.json``) nor a
  common word (``not_names`` in ``data/group_words.json``); a unisex first name (``unisex_names``) is a mention
  whose group is that of the next pronoun ("Alex … he": male; none: neutral);
* possessives (``mother's``) and hyphenated kin words (``mother-in-law``) count as their base word; in all-caps
  text ("SHE CHECKED THE CHART.") pronouns and kin words (``all_caps_words``) read as in lower case, while an
  all-caps word among lower-case ones, or before a digit, is an acronym ("HER2") and no evidence.

Each piece of evidence is a :class:`Mention` with offsets into the text. For gender the *protagonist* decides
(the person the text is about, as gender-bias IR test sets label their female / male / neutral wordings): the
first mention, unless another group has at least ``first_mention_margin`` (4) more mentions. These readings make
the first mention the protagonist rather than a side character: a possessive determiner and the person noun after
it are one mention of the possessor ("their father", "her husband" — the text is about the owner); "they", "their",
the title "Mx" and the neutral counterparts of gendered nouns ("parent", "person", "sibling") are neutral mentions;
generic phrases ("man-made", "mankind") and a capitalised possessive in mid-sentence ("King's Cross") are not
evidence; a capitalised word right after a title is a surname unless another capitalised word follows ("Mrs
Evans", but "Captain Karen Doyle"), and so is a capitalised word right after a first name ("Karen Doyle"); such a
surname standing alone anywhere in the text, before or after the full name, is a mention of that person ("the Doyle
family … Agnes Doyle … Doyle said"); a named possessive and the person noun after it are one mention of the noun
("Leo's mother"), and a person noun after "whose" is no evidence ("The surgeon, whose wife is a nurse"); acronyms
and firm names ("Holt Brothers") are no evidence, nor are "they" / "their" after a plural person noun in the same
sentence ("Residents cut their bills"); a text of 100 words or more with a single
female or male mention is neutral (a passer-by, not the protagonist); unless a text of under 100 words opens with
a full name, the person it most often names by surname alone is the protagonist ("Kwame felt dizzy … safety
manager Joanne Price rewrote the plan … Price says": the press names its subject that way; :attr:`Mention.kind`
marks such mentions); a unisex first name takes the next pronoun only when no other person's first name or title
comes first ("Jamie Nowak says … Derek Shaw … he" is Derek's "he"); a capitalised word before a street or
institution word is a place, not a person ("Warren Avenue", "Marsh Lane", ``place_words``); clinical shorthand for a
patient's age and sex is a mention of that group ("45M, smoker", "a 28F presents with", "54-year-old F", "(M, 58)";
``clinical_*``), and a contract's capitalised party with no name after it is no one ("the Landlord shall",
``defined_parties``).
For gender a learned decider then weighs that evidence (:data:`PROTAGONIST_DECIDERS`; default ``"learned"``): a
conditional logit over the candidate groups' :data:`PROTAGONIST_FEATURES` (the rules' own pick among them), one
weight vector shared by female and male, fitted on our design sets (``data/groups/protagonist_model.json``,
``scripts/train_protagonist_model.py``); :meth:`GroupDetector.group_probabilities` says how sure it is.
Other concepts count their evidence words and the group with strictly more wins. No evidence, or a tie, gives
``neutral`` (:data:`NEUTRAL`). All of these rules are data (``protagonist`` in ``data/group_words.json``).
A document whose metadata holds :data:`GROUP_KEY` keeps that value (a user label always overrides inference; read in
any case, or by its first letter: "Female", "F").

Measured accuracy: ``.venv/bin/python benchmarks/group_accuracy.py`` (benchmarks/RESULTS.md, "The group detector").
"""

from __future__ import annotations

import hashlib
import json
import re
import warnings
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import cache, cached_property, lru_cache
from math import exp, log1p
from typing import Any

from debiasrag.concepts import Concept, available_concepts, label_key, load_concept
from debiasrag.errors import InputError
from debiasrag.resources import module_bytes, read_json, read_text
from debiasrag.strategies import GroupOf

GROUP_KEY = "debiasrag_group"
"""Metadata key holding a document's group; set by :func:`annotate_groups` at index time or by the user."""

INFERRED_BY_KEY = "debiasrag_group_inferred_by"
"""Metadata key :func:`annotate_groups` sets next to an inferred group: the detector's fingerprint. A group without it
is the user's label and always kept; one inferred by another detector (an older debiasrag) is inferred again."""

BALANCED_GROUP_KEY = "debiasrag_balanced_group"
"""Metadata key of a returned copy (LangChain / LlamaIndex wrappers): the group ``balanced`` / ``dynamic`` counted the
document as. :data:`GROUP_KEY` holds it too, unless the document carries the user's own label there (kept as written:
"F", or a label of another concept such as "wealthy")."""

GROUPS_EQUAL_KEY = "debiasrag_groups_equal"
"""Metadata key of each returned copy (LangChain / LlamaIndex wrappers) of a strategy that balanced groups: whether
the result's groups came back in equal numbers (:attr:`debiasrag.retriever.RetrievalResult.groups_equal`)."""

NEUTRAL = "neutral"

_LETTER = r"[^\W\d_]"  # any script's letters: "Ciarán", "Søren", "Zoë" are one token each
_TOKEN = re.compile(rf"{_LETTER}(?:{_LETTER}|['\-.])*{_LETTER}|{_LETTER}")
_PLURAL_PRONOUNS = frozenset({"they", "their", "them", "theirs", "themselves"})
_SENTENCE_END = '.!?;:"\u201c('
_FIRST_SENTENCE_END = re.compile(r"[.!?](?:\s|$)")
# what joins two people named as one ("he or she", "his/her", "men and women", "Mr & Mrs"): a coordinated pair
_JOINERS = r"or|and|and/or|nor|&"
_COORDINATOR = re.compile(rf"\s*(?:,\s*)?(?:{_JOINERS}|/)\s*", re.IGNORECASE)
# a comma between two people nouns of a list that goes on ("a mother, father, or child"; "mothers, fathers and carers")
_LIST_COMMA = re.compile(r"\s*,\s*")
_LIST_GOES_ON = re.compile(rf"\s*(?:,|(?:{_JOINERS})\b)", re.IGNORECASE)
_ME = frozenset({"me", "i", "you", "we", "us"})  # "Me & John went fishing": people, not a firm
_CONTRACTION = re.compile(r"'(?:s|d|ll|re|ve|m)$")

PROTAGONIST_DECIDERS = ("learned", "rules")
"""How :class:`GroupDetector` picks a gender protagonist from the mentions: ``"learned"`` (default) weighs the
:data:`PROTAGONIST_FEATURES` of each candidate group with weights fitted on our design sets
(``data/groups/protagonist_model.json``, ``scripts/train_protagonist_model.py``); ``"rules"`` is the hand-written
rules alone (round 11), which the learned decider also reads as a feature."""

PROTAGONIST_FEATURES = (
    "log1p mentions",
    "share of the mentions",
    "first mention",
    "1 - offset of the first mention / length",
    "log1p lone-surname mentions",
    "most named lone surname",
    "log1p full-name mentions",
    "log1p pronouns",
    "log1p named mentions",
    "log1p mentions in the first sentence",
    "log1p mentions opening a sentence",
    "the rules' pick",
    "any mention",
    "log1p mentions in the second half",
    "log1p distinct names",
    "log1p mentions of the most named person",
    "first mention x long text (100+ words)",
    "most named lone surname x long text",
    "the rules' pick x long text",
    "log1p mentions x long text",
    "log1p pronouns x long text",
    "log1p mentions right before a speech verb (the one quoted)",
    "log1p mentions in the last sentence",
    "log1p title mentions (Mr, Mrs, Ms, Mx …)",
)


@dataclass(frozen=True)
class Mention:
    """One piece of group evidence: the group it points to and its span ``[start, end)`` in the text."""

    group: str
    start: int
    end: int
    text: str
    kind: str = ""  # "surname" standing alone ("… Doyle said"), "full name" (a first name before its surname), or ""


_WARNED: set[tuple[Any, ...]] = set()  # concepts already warned about (GroupDetector._warn_without_evidence)


@cache
def _group_words() -> dict[str, Any]:
    return read_json("group_words.json")["concepts"]


def generic_phrases(concept: str = "gender") -> list[str]:
    """A bundled concept's phrases whose group words are used of no one ("man-made", "mother board"): no evidence of
    a document's group here, and left as they are by the gender swap."""
    rule = _group_words().get(concept, {}).get("protagonist") or {}
    return list(rule.get("generic_phrases", []))


def generic_phrase_spans(text: str, concept: str = "gender") -> list[tuple[int, int]]:
    """The character spans of ``text`` that are :func:`generic_phrases` (longest first where they overlap): what the
    gender swap and the neutralizer leave as it is ("man-made", "a bachelor's degree", "to groom the horses")."""
    pattern = phrase_pattern(tuple(generic_phrases(concept)))
    return [match.span() for match in pattern.finditer(text)] if pattern is not None else []


@cache
def phrase_pattern(phrases: tuple[str, ...]) -> re.Pattern[str] | None:
    """One case-blind pattern for whole-word ``phrases``, longest first (None for none): generic phrases as the
    detector blanks them and the swapper and neutralizer keep them."""
    if not phrases:
        return None
    alternatives = "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True))
    return re.compile(r"(?<!\w)(?:" + alternatives + r")(?!\w)", re.IGNORECASE)


@cache
def _bundled_concept(name: str) -> Concept | None:
    """The bundled concept called ``name``, or None when no bundled concept has that name."""
    return load_concept(name) if name in available_concepts() else None


@cache
def _bundled_concepts() -> tuple[Concept, ...]:
    """Every bundled concept (read once: labels are checked per document)."""
    return tuple(c for c in (_bundled_concept(name) for name in available_concepts()) if c is not None)


def _bundled_groups(source: str | None, groups: tuple[str, ...]) -> tuple[str, ...]:
    """The order in which the evidence of ``group_words.json``'s entry ``source`` lists its two groups (its bundled
    concept's order); ``groups`` itself when there is no such concept or it has other groups."""
    bundled = _bundled_concept(source) if source is not None else None
    order = tuple(bundled.groups) if bundled is not None else groups
    return order if set(order) == set(groups) else groups


def _names_another_concepts_group(label: Any, concept: Concept) -> bool:
    """Whether ``label`` names a group (not neutral) of a bundled concept other than ``concept``: one
    ``debiasrag_group`` field serves every concept, so a document labelled "wealthy" (or "W") is unlabelled for
    gender. A single letter that also starts one of ``concept``'s own spellings ("W" for gender: woman) is a guess at
    this concept, not another's: refused as unknown, never silently dropped."""
    if isinstance(label, str) and len(label_key(label)) == 1:
        letter = label_key(label)
        own = (*concept.label_aliases, *concept.groups, NEUTRAL)
        if any(label_key(spelling)[:1] == letter for spelling in own):
            return False
    return any(name != concept.name for name in _concepts_spelling(label))


def _concepts_spelling(label: Any) -> list[str]:
    """The bundled concepts that read ``label`` as one of their groups (not neutral)."""
    return [c.name for c in _bundled_concepts() if c.label_group(label) not in (None, NEUTRAL)]


def _bundled_letter_under_a_users_concept(label: Any, concept: Concept) -> str | None:
    """For ``label`` one letter that spells a bundled concept's group ("F", "M", "O", "Y") or neutral ("N") while
    ``concept`` is the user's own: ``"neutral"`` or ``"other"`` (another concept's label: this document's group is
    inferred). An :class:`InputError` when the letter also starts one of the user's groups ("M": male, or muslim?;
    "N": neutral, or north?) — silently read one way it had labelled every church document muslim (red-team round
    6). None when the rule does not apply: not one letter, a bundled concept, or a concept with a bundled concept's
    groups under another name (its letters are its own)."""
    if not isinstance(label, str) or len(label_key(label)) != 1:
        return None
    bundled = _bundled_concepts()
    if any(set(c.groups) == set(concept.groups) for c in bundled):
        return None
    letter = label_key(label)
    spelled = _concepts_spelling(label)
    if letter != NEUTRAL[:1] and not spelled:
        return None
    own = [group for group in concept.groups if label_key(group)[:1] == letter]
    if own:
        meaning = "neutral" if letter == NEUTRAL[:1] else f"a group of {', '.join(spelled)}"
        raise InputError(
            f"metadata {GROUP_KEY!r} is {label!r}, which is {meaning} as debiasrag spells it and the initial of "
            f"{own[0]!r} under concept {concept.name!r}; spell the group out"
        )
    return NEUTRAL if letter == NEUTRAL[:1] else "other"


@cache
def _names(
    names_file: str,
    not_names: tuple[str, ...],
    extra_file: str | None = None,
    added: tuple[tuple[str, ...], tuple[str, ...]] = ((), ()),
) -> tuple[frozenset[str], frozenset[str]]:
    pairs = read_json(*names_file.split("/"))["pairs"]
    female = {f for f, _ in pairs}
    male = {m for _, m in pairs}
    if extra_file is not None:  # names from everywhere, added where the main table does not say the other gender
        extra = read_json(*extra_file.split("/"))
        female, male = female | (set(extra["female"]) - male), male | (set(extra["male"]) - female)
    # hand-added names the tables miss ("Mohammed", "Lakshmi"): they decide over the tables
    female, male = (female - set(added[1])) | set(added[0]), (male - set(added[0])) | set(added[1])
    skip = set(not_names)
    for words in read_json("names", "non_names.json").values():
        if isinstance(words, list):
            skip.update(words)
    both = female & male  # unisex in the table: no evidence either way
    return frozenset(female - both - skip), frozenset(male - both - skip)


class GroupDetector:
    """Infers a document's group for one concept from evidence words in its text (see the module docstring).

    Args:
        concept: bundled concept name, path to a concept JSON, or a :class:`Concept`.
        use_names: count gendered first names (gender only).

    Example:
        >>> GroupDetector("gender").group("Her daughter asked for help.")
        'female'
    """

    def __init__(
        self, concept: str | Concept = "gender", *, use_names: bool = True, protagonist: str = "learned"
    ) -> None:
        if protagonist not in PROTAGONIST_DECIDERS:
            raise InputError(f"protagonist must be one of {', '.join(PROTAGONIST_DECIDERS)}; got {protagonist!r}")
        self.concept = load_concept(concept)
        self.groups: tuple[str, ...] = tuple(self.concept.groups)
        words: dict[str, str] = {}
        table = _group_words()
        bundled = _bundled_concept(self.concept.name)
        if bundled is not None and set(bundled.groups) != set(self.groups):
            raise InputError(
                f"concept name {self.concept.name!r} is a bundled concept with groups {'/'.join(bundled.groups)}, "
                f"not {'/'.join(self.groups)}: rename your concept or use those groups"
            )
        # A user's own concept with the same groups as a bundled one (e.g. female / male) reuses its evidence,
        # whatever order it lists them in: the evidence files list the bundled concept's groups in its order.
        source = self.concept.name if self.concept.name in table else None
        if source is None:
            source = next((name for name, entry in table.items() if all(group in entry for group in self.groups)), None)
        data: dict[str, Any] = table.get(source, {}) if source is not None else {}
        evidence_order = _bundled_groups(source, self.groups)

        def add(word: str, group: str) -> None:
            word = " ".join(word.lower().replace("\u2019", "'").split())
            # A word listed for both groups is not evidence; keep the first assignment otherwise.
            if words.get(word, group) != group:
                words[word] = ""
            else:
                words.setdefault(word, group)

        first, second = self.groups
        for a, b in self.concept.pairs:  # words, or phrases ("home office", "senior citizen")
            add(a, first)
            add(b, second)
        if "word_pairs_file" in data:
            table = read_json(data["word_pairs_file"])
            for a, b in table["pairs"]:
                add(a, evidence_order[0])
                add(b, evidence_order[1])
        for group in self.groups:
            for word in data.get(group, []):
                add(word, group)
        for word in data.get("not_evidence", []):  # "hosts", "master": pair-list words mostly used of no one
            words[word.lower()] = ""
        self._words = {w: g for w, g in words.items() if g and " " not in w}
        self._phrases = {w: g for w, g in words.items() if g and " " in w}
        alternatives = (r"\s+".join(map(re.escape, p.split())) for p in sorted(self._phrases, key=len, reverse=True))
        self._phrase = (
            re.compile(rf"(?<!\w)(?:{'|'.join(alternatives)})(?!\w)", re.IGNORECASE) if self._phrases else None
        )
        self._use_names = use_names
        rule = data.get("protagonist") or {}
        model_file = rule.get("model_file") if protagonist == "learned" and use_names else None
        self._model: dict[str, Any] | None = read_json(*model_file.split("/")) if model_file else None
        if self._model is not None and any(
            len(self._model["weights"][kind]) != len(PROTAGONIST_FEATURES) for kind in ("gendered", "neutral")
        ):
            raise InputError(f"{model_file}: weights do not match the {len(PROTAGONIST_FEATURES)} protagonist features")
        self._protagonist = protagonist
        keys = ("word_pairs_file", "names_file", "extra_names_file")
        self._data_files = tuple(data[key] for key in keys if key in data) + ((model_file,) if model_file else ())
        known = (*self.groups, NEUTRAL)
        self._possessive = {w.lower(): g for g, ws in rule.get("possessive_determiners", {}).items() for w in ws}
        self._relatives = frozenset(w.lower() for w in rule.get("relative_determiners", []))
        self._neutral_words = {w.lower() for w in rule.get("neutral_mentions", [])}
        self._plural_people = frozenset(w.lower() for w in rule.get("plural_people", []))
        self._margin: int | None = rule.get("first_mention_margin")
        self._long_text: int | None = rule.get("single_mention_neutral_from_words")
        self._surname_decides = bool(rule.get("lone_surname_decides"))
        self._full_name_first_below: int | None = rule.get("full_name_first_keeps_protagonist_below_words")
        self._titles = {w: g for g, ws in rule.get("capitalised_titles", {}).items() for w in ws}
        verbs = rule.get("speech_verbs", [])
        # a mention right before a speech verb is the one quoted ("… Pike says", "Holt said"): a feature, not a rule
        self._speaker = re.compile(rf"^\W{{0,3}}\s*(?:{'|'.join(map(re.escape, verbs))})\b") if verbs else None
        self._generic = phrase_pattern(tuple(rule.get("generic_phrases", [])))
        self._after_title = frozenset(read_json("names", "non_names.json")["titles"]) if self._margin else frozenset()
        places = rule.get("place_words", [])
        self._place = (
            re.compile(rf"\b({_LETTER}[\w'\-]*)\s+(?:{'|'.join(map(re.escape, places))})\b") if places else None
        )
        things = rule.get("named_thing_words", [])
        self._named_thing = (  # "Hurricane Maria", "RMS Queen Mary": the capitalised words after the head word
            re.compile(rf"\b(?:{'|'.join(map(re.escape, things))})((?:\s+[A-Z][\w'\-]*)+)") if things else None
        )
        self._firm = re.compile(rf"\b({_LETTER}[\w'\-]*)\s*&\s*({_LETTER}[\w'\-]*)") if things else None
        units = rule.get("unit_words", [])
        self._unit = (  # "3 ms", "840&nbsp;ms": milliseconds, not the title
            re.compile(rf"(?<=\d)(?:\s|&nbsp;)*({'|'.join(map(re.escape, units))})\b") if units else None
        )
        self._clinical, self._clinical_sex, self._clinical_lead = _clinical_pattern(rule)
        self._defined_parties = frozenset(rule.get("defined_parties", []))  # "the Landlord shall": a contract's party
        if not set(self._possessive.values()) <= set(known):
            raise InputError(f"group_words.json: possessive determiners name unknown groups for {self.concept.name!r}")
        self._names: tuple[frozenset[str], frozenset[str]] | None = None
        self._before_surname: tuple[frozenset[str], frozenset[str]] = (frozenset(), frozenset())
        self._unisex: frozenset[str] = frozenset()
        self._pronouns = {w.lower(): g for g, ws in rule.get("pronouns", {}).items() for w in ws}
        # pronouns and kin words of all-caps text ("SHE CHECKED THE CHART.") read as in lower case
        self._caps_words = frozenset(self._pronouns) | {w.lower() for w in rule.get("all_caps_words", [])}
        caps = "|".join(re.escape(w.upper()) for w in sorted(self._caps_words, key=len, reverse=True))
        self._all_caps = re.compile(rf"\b(?:{caps})(?:'S)?\b") if caps else None
        if use_names and "names_file" in data:
            unisex = tuple(data.get("unisex_names", ()))
            extra = data.get("extra_names_file")
            added = data.get("added_names", {})
            hand = (tuple(added.get(evidence_order[0], ())), tuple(added.get(evidence_order[1], ())))
            flip = evidence_order != self.groups  # the name tables are (first, second) in the evidence's order

            def in_our_order(names: tuple[frozenset[str], frozenset[str]]) -> tuple[frozenset[str], frozenset[str]]:
                return (names[1], names[0]) if flip else names

            not_names = tuple(data.get("not_names", ())) + unisex
            self._names = in_our_order(_names(data["names_file"], not_names, extra, hand))
            if self._margin is not None and self._pronouns:
                self._unisex = frozenset(unisex)
                # word-names ("Holly", "Mark") count as first names when a surname follows them
                self._before_surname = in_our_order(_names(data["names_file"], unisex, extra, hand))
        self._lower_evidence = (
            frozenset(self._words) | self._neutral_words | set(self._possessive) | set(self._pronouns) | self._relatives
        )
        if not set(self._pronouns.values()) <= set(known):
            raise InputError(f"group_words.json: pronouns name unknown groups for {self.concept.name!r}")
        self._warn_without_evidence()

    def evidence_note(self) -> str | None:
        """Why no document can be read as of some group (it has no evidence words: a user's concept without
        ``pairs``), so ``balanced`` and ``dynamic`` would balance nothing; None when every group has evidence."""
        found = {
            *self._words.values(),
            *self._phrases.values(),
            *self._pronouns.values(),
            *self._possessive.values(),
            *self._titles.values(),
        }
        found.update(group for group, names in zip(self.groups, self._names or ()) if names)
        missing = [group for group in self.groups if group not in found]
        if not missing:
            return None
        first, second = self.groups
        return (
            f"concept {self.concept.name!r} has no evidence words for group(s) {', '.join(map(repr, missing))}: "
            f"no document is read as of {'that group' if len(missing) == 1 else 'those groups'}, so 'balanced' "
            f"and 'dynamic' balance nothing; give the concept 'pairs' ([{first} word, {second} word] lists, "
            f"phrases too) or label each document in metadata {GROUP_KEY!r}"
        )

    def _warn_without_evidence(self) -> None:
        """Warn once per concept when :meth:`evidence_note` has something to say."""
        note = self.evidence_note()
        key = (self.concept.name, self.groups, self.concept.pairs)
        if note is not None and key not in _WARNED:
            _WARNED.add(key)
            warnings.warn(note, UserWarning, stacklevel=3)

    @cached_property
    def fingerprint(self) -> str:
        """Identifies the rules and data this detector infers with: groups stored at index time by a detector
        with another fingerprint (an edited concept, a newer debiasrag) are inferred again rather than trusted."""
        digest = hashlib.sha256(module_bytes("groups"))  # the rules in code: any edit counts
        digest.update(module_bytes("versions"))  # how contrast_groups finds and reads versions
        for name in ("group_words.json", "names/non_names.json", "version_words.json", *self._data_files):
            digest.update(read_text(*name.split("/")).encode("utf-8"))
        concept = json.dumps(asdict(self.concept), sort_keys=True, ensure_ascii=False, default=str)
        digest.update(f"{concept}|names={self._use_names}|protagonist={self._protagonist}".encode())
        return digest.hexdigest()

    @cached_property
    def concept_words(self) -> frozenset[str]:
        """The lower-case words this detector reads as the concept's evidence or as a neutral mention (the words
        of its phrases too): versions of one text may differ in them (:func:`debiasrag.versions.content_apart`)."""
        words = set(self._words) | self._neutral_words | set(self._pronouns) | set(self._possessive)
        for phrase in self._phrases:
            words.update(phrase.split())
        return frozenset(words)

    def groups_of(self, documents: Iterable[Any]) -> list[str]:
        """Each document's :meth:`group` (labels kept, the rest inferred), in order."""
        return [
            self.group(document_text(doc), getattr(doc, "metadata", None), doc_id=document_id(doc)) for doc in documents
        ]

    def contrast_groups(
        self,
        texts: Sequence[str],
        groups: Sequence[str],
        versions: Sequence[Sequence[int]],
        labelled: Sequence[bool] | None = None,
    ) -> list[str]:
        """``groups`` read again where documents have versions (:mod:`debiasrag.versions`): a document's group is
        that of the words only it has among its versions (:func:`~debiasrag.versions.own_words`: "she … Maria …
        keeps" against "they … Robin … keep"), since the side people and the topic are the same in all of them.
        Where no version's own words are evidence of any group (edits, not a different person), ``groups`` stays;
        so does every ``labelled`` document (a user's label). ``groups`` are this detector's per-document groups."""
        if not len(texts) == len(groups) == len(versions):
            raise InputError(f"{len(texts)} texts, {len(groups)} groups and {len(versions)} version lists")
        return [
            group
            if labelled is not None and labelled[i]
            else self.contrast_group(texts[i], group, [texts[j] for j in mine])
            for i, (group, mine) in enumerate(zip(groups, versions))
        ]

    def contrast_group(self, text: str, group: str, versions: Sequence[str]) -> str:
        """One document's :meth:`contrast_groups`: ``group`` read again against the texts of its ``versions``."""
        from debiasrag.versions import own_words, shared_words

        if not versions:
            return group
        own = self._infer_own(own_words(text, versions))
        theirs = {self._infer_own(own_words(version, [text])) for version in versions}
        if (
            own == NEUTRAL
            and theirs == {group} != {NEUTRAL}
            and self._pronouns_only(shared_words(text, versions), group)
        ):
            # every version names a person of this group, and the words they share refer to them by pronouns of it
            # alone ("Wei … He leads" / "Michael … He leads"): two people of one group in one template, not a
            # neutral wording of a gendered text (red team, session 43). Shared names or kin words ("Funmilayo",
            # "her grandmother") are other people: there the contrast decides, as before.
            return group
        return own if own != NEUTRAL or theirs - {NEUTRAL} else group  # versions differ in a person, not in edits

    def _pronouns_only(self, words: str, group: str) -> bool:
        """Whether ``words`` hold evidence and all of it is the concept's pronouns of ``group`` ("He … his")."""
        found = self.mentions(words)
        return bool(found) and all(m.group == group == self._pronouns.get(m.text.lower()) for m in found)

    @lru_cache(maxsize=65536)  # noqa: B019  # as _infer: a retriever reads the same candidates' versions again
    def _infer_own(self, words: str) -> str:
        """The group of a version's own words (:meth:`contrast_group`): as :meth:`_infer`, except that neutral words
        (singular *they*, *Mx*, *parent*) whose only gendered company is first names read neutral — there the
        author wrote the person neutrally and chose a name our tables list for one gender ("Sol … Mx … they" against
        "Esperanza … Ms … she" and "Joaquín … Mr … he"); a gendered pronoun, title or role word still decides."""
        found = self.mentions(words)
        if any(m.group == NEUTRAL for m in found) and all(
            m.group == NEUTRAL or self.is_first_name(strip_possessive(m.text)) for m in found
        ):
            return NEUTRAL
        return self._decide(words, found)

    def mentions(self, text: str) -> list[Mention]:
        """The evidence in ``text``, in order, each with its group and character offsets (see the module docstring)."""
        plain = text.replace("\u2019", "'")  # same length: offsets stay those of ``text``
        if self._generic is not None:  # "man-made", "mankind": blanked, so they are no evidence
            plain = self._generic.sub(lambda m: " " * len(m.group(0)), plain)
        if self._place is not None:  # "Warren Avenue", "Marsh Lane": a street is named after nobody here
            plain = self._place.sub(lambda m: " " * len(m.group(0)) if m.group(1)[0].isupper() else m.group(0), plain)
        if self._named_thing is not None and self._firm is not None:  # "Hurricane Maria", "Marks & Spencer": nobody
            plain = _blank_groups(self._named_thing, plain, lambda words: True)
            plain = _blank_groups(self._firm, plain, self._names_a_firm)
        if self._unit is not None:
            plain = self._unit.sub(lambda m: m.group(0)[: m.start(1) - m.start()] + " " * len(m.group(1)), plain)
        phrases: list[Mention] = []
        if self._phrase is not None:  # the concept's phrase pairs ("home office"): one mention each, then blanked

            def blank(match: re.Match[str]) -> str:
                group = self._phrases[" ".join(match.group(0).lower().split())]
                phrases.append(Mention(group, match.start(), match.end(), text[match.start() : match.end()]))
                return " " * len(match.group(0))

            plain = self._phrase.sub(blank, plain)
        if self._clinical is not None:  # "45M, smoker", "54-year-old F", "(M, 58)": the patient's sex
            plain = self._clinical.sub(lambda m: self._clinical_mention(text, m, phrases), plain)
        plain = self._lower_all_caps(plain)
        tokens = list(_TOKEN.finditer(plain))
        found: list[Mention] = []
        surnames = self._surnames(plain, tokens)  # "Doyle" -> the group of a "Maureen" or "Mrs" before it
        i = 0
        while i < len(tokens):
            raw = tokens[i].group(0)
            if raw[0].islower() and raw.isalpha() and raw not in self._lower_evidence:
                i += 1  # most tokens: a plain lower-case word that is no evidence of any kind
                continue
            start, end = tokens[i].span()
            base = strip_possessive(raw)
            if (
                base in surnames
                and i > 0
                and not (
                    self._is_first_name(plain, tokens, i - 1) or tokens[i - 1].group(0).rstrip(".") in self._after_title
                )
            ):
                found.append(Mention(surnames[base], start, end, text[start:end], "surname"))  # "… Doyle said"
                i += 1
                continue
            noun = self._owned_noun(plain, tokens, i)
            if noun is not None:  # "Leo's mother": one mention of the mother, the text's subject
                end = tokens[noun].end()
                found.append(Mention(self._noun_group(tokens[noun].group(0)), start, end, text[start:end]))
                i = noun + 1
                continue
            owner = self._possessive.get(raw.lower())
            relative = raw.lower() in self._relatives  # "whose"
            noun = None
            if owner is not None or relative:
                noun = next(
                    (
                        j
                        for j in (i + 1, i + 2)
                        if j < len(tokens)
                        and tokens[j].group(0)[0].islower()  # a person noun: "His therapist, Yasmin" is two people
                        and self._token_group(plain, tokens[j]) is not None
                        and tokens[j].group(0).lower() not in self._pronouns  # "his or her": two pronouns, no noun
                    ),
                    None,
                )
            if relative and noun is not None:  # "The surgeon, whose wife is a nurse": a relative, not the subject
                i = noun + 1
                continue
            if owner == NEUTRAL and self._plural_they(plain, tokens, i):
                owner = None  # "Residents cut their bills": a group's 'their', nobody's wording
            if owner is not None and noun is not None:  # "their father": one mention of the owner, not the father
                end = tokens[noun].end()
                found.append(Mention(owner, start, end, text[start:end]))
                i = noun + 1
                continue
            group = self._group_at(plain, tokens, i)
            if group is not None:
                kind = "full name" if self._is_first_name(plain, tokens, i) else ""
                found.append(Mention(group, start, end, text[start:end], kind))
            i += 1
        found = sorted(found + phrases, key=lambda mention: mention.start) if phrases else found
        return self._coordinated(plain, found) if self._margin is not None else found

    def _coordinated(self, plain: str, found: list[Mention]) -> list[Mention]:
        """``found`` without the pairs of a female and a male word joined by "or", "and", "/" or "&" ("he or she",
        "his/her", "s/he", "men and women", "the mother and father", "Mr and Mrs"): such a pair names anyone, or both
        alike — the inclusive wording of a neutral text, no evidence of either group (before session 36 its first word
        decided). Named people are not joined: "Fiona and Neil Carr" are a couple in a story about one of them as
        often as not."""
        kept: list[Mention] = []
        for mention in found:
            before = plain[max(mention.start - 3, 0) : mention.start].lower()
            if mention.text.lower() == "he" and (before.endswith("s/") or before == "(s)"):  # "s/he", "(s)he"
                continue
            last = kept[-1] if kept else None
            joint = plain[last.end : mention.start] if last is not None else ""
            if (
                last is not None
                and {last.group, mention.group} == set(self.groups)
                and (_COORDINATOR.fullmatch(joint) or self._in_a_list(plain, last, mention, joint))
                and _alike(last.text.lower(), mention.text.lower(), self._pronouns, joint)
                and not any(" " in m.text or self._names_someone(m) for m in (last, mention))  # "His wife and son"
            ):
                kept.pop()  # the words between them are only the joining word: the pair's text ends here
                continue
            kept.append(mention)
        return kept

    def _in_a_list(self, plain: str, last: Mention, mention: Mention, joint: str) -> bool:
        """Whether two people nouns joined by a comma stand in a list that goes on after the second ("the loss of a
        mother, father, or child"): a list of kin or roles, as "or" joins them. Pronouns are never so listed ("her,
        he said")."""
        return (
            _LIST_COMMA.fullmatch(joint) is not None
            and last.text.lower() not in self._pronouns
            and mention.text.lower() not in self._pronouns
            and _LIST_GOES_ON.match(plain, mention.end) is not None
        )

    def _clinical_mention(self, text: str, match: re.Match[str], found: list[Mention]) -> str:
        """A clinical age-and-sex note ("45M, smoker", "a 28F presents", "54-year-old F", "(M, 58)") added to ``found``
        as a mention of that sex's group and blanked; a bare "45M" only at a sentence's start or after a lead word
        ("a", "pt"), so "raised a 45M budget" stays text."""
        letter = next(g for g in (match.group("aged"), match.group("bare"), match.group("b1"), match.group("b2")) if g)
        if match.group("bare"):
            before = match.string[: match.start()].rstrip()
            last = re.search(r"(\S+)$", before)
            if not (
                _starts_sentence(match.string, match.start()) or (last and last.group(1).lower() in self._clinical_lead)
            ):
                return match.group(0)
        found.append(Mention(self._clinical_sex[letter], match.start(), match.end(), text[match.start() : match.end()]))
        return " " * len(match.group(0))

    def clinical_sex_letters(self, text: str) -> list[tuple[int, int, str]]:
        """The sex letters of ``text``'s clinical age-and-sex notes ("45M, smoker", "a 28F presents", "(M, 58)"), as
        :meth:`mentions` reads them: (start, end, group) of each letter. The gender swap swaps them with the names
        and pronouns, or a counterpart read "Pt Jessica Doe, 67M" (a new user's walkthrough, session 46)."""
        if self._clinical is None:
            return []
        letters = []
        for match in self._clinical.finditer(text):
            found: list[Mention] = []
            self._clinical_mention(text, match, found)
            if found:
                name = next(n for n in ("aged", "bare", "b1", "b2") if match.group(n))
                letters.append((match.start(name), match.end(name), found[0].group))
        return letters

    def _names_a_firm(self, words: list[str]) -> bool:
        """Whether "X & Y" names a firm ("Marks & Spencer", "Johnson & Johnson"), not two people ("Sarah & Tom",
        "Me & John"): its first word is no first name and no pronoun, or both words are one name. "Ben & Jerry's" reads
        as two men."""
        first, second = strip_possessive(words[0]), strip_possessive(words[1])
        if first == second:  # "Johnson & Johnson": a firm, though Johnson is a first name too
            return True
        return not self._known_first_name(first) and first.lower() not in self._pronouns and first.lower() not in _ME

    def _names_someone(self, mention: Mention) -> bool:
        """Whether ``mention`` is a person's name (first name or surname), not a pronoun, noun or title."""
        return bool(mention.kind) or self.name_group(strip_possessive(mention.text)) is not None

    def _lower_all_caps(self, text: str) -> str:
        """``text`` with the pronouns and kin words of its all-caps stretches in lower case, offsets unchanged
        ("SHE CHECKED THE CHART." reads "she CHECKED THE CHART."): one counts when the words on either side of it
        are all-caps too and no digit follows it; an all-caps word among lower-case ones is an acronym ("HER2",
        "the HE sector") and stays no evidence."""
        if self._all_caps is None or not self._all_caps.search(text):
            return text
        tokens = list(_TOKEN.finditer(text))
        for i, token in enumerate(tokens):
            raw = token.group(0)
            if not raw.isupper() or strip_possessive(raw.lower()) not in self._caps_words:
                continue
            near = [tokens[j].group(0) for j in (i - 1, i + 1) if 0 <= j < len(tokens)]
            if near and all(word.isupper() for word in near) and not text[token.end() : token.end() + 1].isdigit():
                text = text[: token.start()] + raw.lower() + text[token.end() :]
        return text

    def _plural_they(self, text: str, tokens: list[re.Match[str]], i: int) -> bool:
        """Whether the ``i``-th token is they/their/them after a plural person noun in the same sentence."""
        if not self._plural_people or tokens[i].group(0).lower() not in _PLURAL_PRONOUNS:
            return False
        for j in range(i - 1, -1, -1):
            end = tokens[j].end()
            if tokens[j].group(0).lower() in self._plural_people and text[end : end + 1] != "'":
                return True  # (not "the residents' meeting": a possessive modifier, not the subject)
            if _starts_sentence(text, tokens[j].start()):
                return False
        return False

    def _surnames(self, text: str, tokens: list[re.Match[str]]) -> dict[str, str]:
        """Every surname in ``text`` that follows a first name or a gendered title, with that person's group: a
        lone "Doyle" anywhere in the text, before or after "Agnes Doyle", is a mention of her."""
        found: dict[str, str] = {}
        if self._margin is None:
            return found
        for i, token in enumerate(tokens[:-1]):
            raw = token.group(0)
            if not raw[0].isupper() or raw.endswith("'s") or not self._name_follows(text, tokens, i):
                continue
            if self._is_first_name(text, tokens, i) or raw.rstrip(".") in self._after_title:
                group = self._group_at(text, tokens, i)
                if group is not None:
                    found.setdefault(strip_possessive(tokens[i + 1].group(0)), group)
        return found

    def _noun_group(self, word: str) -> str:
        return NEUTRAL if word.lower() in self._neutral_words else self._word_group(word.lower()) or NEUTRAL

    def _owned_noun(self, text: str, tokens: list[re.Match[str]], i: int) -> int | None:
        """For a capitalised name's possessive ("Leo's"), the index of the person noun right after it, if any."""
        raw = tokens[i].group(0)
        if self._margin is None or not raw.endswith("'s") or not raw[0].isupper():
            return None
        if not self._known_first_name(raw[:-2]):
            return None
        for j in (i + 1, i + 2):
            if j < len(tokens):
                word = tokens[j].group(0)
                if word[0].islower() and (word in self._neutral_words or self._word_group(word) is not None):
                    return j
        return None

    def _group_at(self, text: str, tokens: list[re.Match[str]], i: int) -> str | None:
        """The group the ``i``-th token is evidence for, read with its neighbours (titles, surnames)."""
        raw = tokens[i].group(0)
        word = raw.lower()
        if strip_possessive(raw) in self._defined_parties and not self._name_follows(text, tokens, i):
            return None  # "the Landlord shall …": a contract's defined party ("Landlord Mick Hale" is a man)
        if word in self._neutral_words or (word.endswith("'s") and word[:-2] in self._neutral_words):
            return None if self._plural_they(text, tokens, i) else NEUTRAL
        if raw in self._titles and i + 1 < len(tokens) and tokens[i + 1].group(0)[0].isupper():
            return self._titles[raw]  # "Miss Evans" (a title), not "miss the bus"
        if (
            i > 0
            and tokens[i - 1].group(0).rstrip(".") in self._after_title
            and self._word_group(word) is None
            and not self._name_follows(text, tokens, i)
        ):
            return None  # "Mrs Evans", "Dr Jordan": a surname after a title is not a first name ("Dr Jordan Lee" is)
        if self._margin is not None and raw[0].isupper() and i > 0 and self._is_first_name(text, tokens, i - 1):
            return None  # "Karen Doyle", "Alex Morgan": a capitalised word right after a first name is a surname
        base = strip_possessive(raw)
        if raw[0].isupper() and not raw.endswith("'s") and self._name_follows(text, tokens, i):  # "Holly Grant"
            for group, names in zip(self.groups, self._before_surname):
                if raw in names and raw not in self._unisex:
                    return group
        if base in self._unisex:  # "Alex … they": the person's group is that of the next pronoun
            return self._next_pronoun_group(text, tokens, i)

        return self._token_group(text, tokens[i])

    def _next_pronoun_group(self, text: str, tokens: list[re.Match[str]], i: int) -> str:
        """The group of the first pronoun after the unisex name at ``i``; neutral when there is none, or when
        another person's name or title comes first ("Jamie Nowak says … Derek Shaw … he": Derek's)."""
        own = strip_possessive(tokens[i].group(0))
        skip = i + 1 if self._name_follows(text, tokens, i) else i  # the name's own surname
        for j in range(i + 1, len(tokens)):
            word = tokens[j].group(0)
            pronoun = self._pronouns.get(_CONTRACTION.sub("", word.lower()))  # "he's", "she'd": he, she
            if pronoun is not None:
                return pronoun
            name = strip_possessive(word)
            if j > skip and word[0].isupper() and name != own:
                if self._known_first_name(name) or word.rstrip(".") in self._titles:
                    return NEUTRAL
        return NEUTRAL

    def _name_follows(self, text: str, tokens: list[re.Match[str]], i: int) -> bool:
        """Whether the ``i``-th token is directly followed (one space) by another capitalised word."""
        if i + 1 >= len(tokens) or not tokens[i + 1].group(0)[0].isupper() or tokens[i + 1].group(0).isupper():
            return False  # "Junior ISA": an acronym is no surname
        return text[tokens[i].end() : tokens[i + 1].start()] == " "

    def _is_first_name(self, text: str, tokens: list[re.Match[str]], i: int) -> bool:
        """Whether the ``i``-th token is a first name (gendered or unisex) directly followed by a capitalised word."""
        if i < 0:
            return False
        raw = tokens[i].group(0)
        if self._names is None or not self._name_follows(text, tokens, i) or raw.endswith("'s"):
            return False
        return self._known_first_name(raw)

    def is_first_name(self, word: str, *, before_surname: bool = False) -> bool:
        """Whether ``word`` is a first name the detector knows: gendered, unisex, or a word-name ("Holly", "Mark")
        when ``before_surname`` (a capitalised word follows it)."""
        if word in self._unisex or any(word in names for names in self._names or ()):
            return True
        return before_surname and any(word in names for names in self._before_surname)

    def name_group(self, word: str) -> str | None:
        """The group a gendered first name belongs to ("Fatima" -> "female"), None for any other word."""
        return next((group for group, names in zip(self.groups, self._names or ()) if word in names), None)

    def _known_first_name(self, word: str) -> bool:
        """Whether ``word`` is in the name table: gendered, unisex or a word-name ("Holly")."""
        return word in self._unisex or any(word in names for names in (*(self._names or ()), *self._before_surname))

    def evidence(self, text: str) -> dict[str, int]:
        """How many mentions of each of the concept's groups ``text`` holds (neutral mentions not counted)."""
        return self._counts(self.mentions(text))

    def _token_group(self, text: str, token: re.Match[str]) -> str | None:
        """The group one token is evidence for: an evidence word, or a capitalised gendered first name."""
        raw = token.group(0)
        if self._margin is not None and len(raw) > 1 and raw.isupper():
            return None  # "PRINCE2", "MRSA": acronyms
        group = self._word_group(raw.lower())
        if (
            group is not None
            and self._margin is not None
            and raw[0].isupper()
            and raw.endswith("s")
            and raw.rstrip(".") not in self._after_title
            and self._word_group(raw.lower()[:-1]) is not None
            and (not _starts_sentence(text, token.start()) or self._before_proper_noun(text, token))
        ):
            return None  # "Holt Brothers", "Hale & Sons", "Kings Cross was busy": part of a firm's or place's name
        if group is not None:
            if (
                self._margin is not None
                and raw[0].isupper()
                and raw.endswith("'s")
                and (not _starts_sentence(text, token.start()) or self._before_proper_noun(text, token))
            ):
                return None  # "King's Cross", "Queen's Park" (first in a sentence too): part of a place name
            return group
        if self._names is not None and raw[0].isupper():
            base = strip_possessive(raw)
            if base in self._names[0]:
                return self.groups[0]
            if base in self._names[1]:
                return self.groups[1]
        return None

    def _before_proper_noun(self, text: str, token: re.Match[str]) -> bool:
        """Whether a capitalised word that is no first name follows ``token`` ("King's Cross", not "Sisters Anna")."""
        follows = re.match(r" ([A-Z][a-z]+)\b", text[token.end() :])
        return follows is not None and not self.is_first_name(follows.group(1))

    def _word_group(self, word: str) -> str | None:
        word = word.rstrip(".") if word not in self._words else word
        if word in self._words:
            return self._words[word]
        for base in (word[:-2] if word.endswith("'s") else None, word[:-1] if word.endswith("'") else None):
            if base and base in self._words:
                return self._words[base]
        if "-" in word:
            head = word.split("-", 1)[0]
            return self._words.get(head)
        return None

    def group(self, text: str, metadata: Mapping[str, Any] | None = None, *, doc_id: Any = None) -> str:
        """The document's group: ``metadata[GROUP_KEY]`` if set (and, when :func:`annotate_groups` inferred it, by a
        detector with this one's fingerprint), else the group with most evidence, else neutral. A label is read in
        any case, or by its first letter ("F": :meth:`~debiasrag.concepts.Concept.label_group`), and the group's own
        name returned; one naming no group is an :class:`InputError` naming ``doc_id`` when given."""
        if not isinstance(text, str) or not (metadata is None or isinstance(metadata, Mapping)):
            raise InputError(
                f"group() takes a text and a metadata mapping, got {type(text).__name__} and {type(metadata).__name__}"
            )
        if metadata is not None and _label(metadata) is not None and not self._stale(metadata):
            label = metadata[GROUP_KEY]
            where = f"document {doc_id!r}: " if doc_id is not None else ""
            try:
                letter = _bundled_letter_under_a_users_concept(label, self.concept)
            except InputError as exc:
                raise InputError(f"{where}{exc}") from None
            if letter is not None:  # "F" / "M" / "N" are the README's gender spellings, not the user's initials
                return NEUTRAL if letter == NEUTRAL else self._infer(text)
            group = self.concept.label_group(label)
            if group is None and _names_another_concepts_group(label, self.concept):
                return self._infer(text)  # "wealthy" read for gender: a label about another concept, not this one
            if group is None:
                raise InputError(
                    f"{where}metadata {GROUP_KEY!r} is {label!r}; expected {self.concept.label_spellings()}"
                )
            return group
        return self._infer(text)

    def _stale(self, metadata: Mapping[str, Any]) -> bool:
        """Whether the metadata's group was inferred by another detector (not a user label, not ours)."""
        inferred_by = metadata.get(INFERRED_BY_KEY)
        return inferred_by is not None and inferred_by != self.fingerprint

    @lru_cache(maxsize=65536)  # noqa: B019  # one detector per concept lives as long as the retriever
    def _infer(self, text: str) -> str:
        return self._decide(text, self.mentions(text))

    def _counts(self, found: list[Mention]) -> dict[str, int]:
        """Mentions per concept group (neutral mentions not counted)."""
        counts = dict.fromkeys(self.groups, 0)
        for mention in found:
            if mention.group in counts:
                counts[mention.group] += 1
        return counts

    def _decide(self, text: str, found: list[Mention]) -> str:
        """The group of ``text`` from its mentions ``found`` (see the module docstring)."""
        rule = self._rule_decision(text, found)
        if self._model is None or not found:
            return rule
        candidates = (*self.groups, NEUTRAL)
        scores = self.protagonist_scores(self.protagonist_features(text, found, rule))
        best = max(scores)
        winners = [group for group, score in zip(candidates, scores) if score == best]
        if rule in winners:
            return rule
        return winners[0] if len(winners) == 1 else NEUTRAL  # an exact tie the rules do not settle: neither gender

    def group_probabilities(self, text: str) -> dict[str, float]:
        """How sure the detector is of each group of ``text`` (the concept's groups and neutral, summing to 1): the
        learned decider's softmax over its candidate scores; 1.0 for the group decided when there is no model (other
        concepts, ``protagonist="rules"``, names off) or no evidence. Low values mark the documents to label first."""
        candidates = (*self.groups, NEUTRAL)
        found = self.mentions(text)
        if self._model is None or not found:
            decided = self._decide(text, found)
            return {group: float(group == decided) for group in candidates}
        scores = self.protagonist_scores(self.protagonist_features(text, found, self._rule_decision(text, found)))
        top = max(scores)
        weights = [exp(score - top) for score in scores]
        total = sum(weights)
        return {group: weight / total for group, weight in zip(candidates, weights)}

    def protagonist_scores(self, features: list[list[float]]) -> list[float]:
        """The learned decider's score per candidate group (rows of :meth:`protagonist_features`); the highest is
        the protagonist's group. One weight vector is shared by the two gendered groups, so neither is preferred
        for its own sake; neutral has its own and a bias."""
        if self._model is None:
            raise InputError("this detector decides by the rules alone (protagonist='rules' or names off)")
        weights = self._model["weights"]
        kinds = ("gendered", "gendered", "neutral")
        return [
            sum(w * x for w, x in zip(weights[kind], row)) + (weights["neutral_bias"] if kind == "neutral" else 0.0)
            for kind, row in zip(kinds, features)
        ]

    def protagonist_features(self, text: str, found: list[Mention], rule: str) -> list[list[float]]:
        """The learned decider's inputs: one row per candidate group (the concept's two, then neutral), the
        :data:`PROTAGONIST_FEATURES` in order, from the text's mentions ``found`` and the rules' pick ``rule``."""
        size = len(text)
        long = 1.0 if len(text.split()) >= 100 else 0.0
        first_end = _FIRST_SENTENCE_END.search(text)
        first_sentence = first_end.end() if first_end else size
        lone_group = _most_named_by_surname(found)
        last_sentence = max(text.rfind(". ", 0, size - 2), 0)
        rows = []
        for group in (*self.groups, NEUTRAL):
            own = [m for m in found if m.group == group]
            pronouns = sum(m.text.lower() in self._pronouns for m in own)
            named = [
                strip_possessive(m.text) for m in own if m.text[:1].isupper() and m.text.lower() not in self._pronouns
            ]
            people = Counter(named)
            count = log1p(len(own))
            first_mention = 1.0 if found[0].group == group else 0.0
            lone_pick = 1.0 if lone_group == group else 0.0
            rule_pick = 1.0 if rule == group else 0.0
            row = [
                count,
                len(own) / len(found),
                first_mention,
                1.0 - own[0].start / size if own else 0.0,
                log1p(sum(m.kind == "surname" for m in own)),
                lone_pick,
                log1p(sum(m.kind == "full name" for m in own)),
                log1p(pronouns),
                log1p(len(named)),
                log1p(sum(m.start < first_sentence for m in own)),
                log1p(sum(_starts_sentence(text, m.start) for m in own)),
                rule_pick,
                1.0 if own else 0.0,
                log1p(sum(m.start > size / 2 for m in own)),
                log1p(len(people)),
                log1p(max(people.values(), default=0)),
                first_mention * long,
                lone_pick * long,
                rule_pick * long,
                count * long,
                log1p(pronouns) * long,
                log1p(sum(bool(self._speaker and self._speaker.match(text[m.end : m.end + 20])) for m in own)),
                log1p(sum(m.start > last_sentence for m in own)),
                log1p(sum(m.text.rstrip(".") in self._after_title for m in own)),
            ]
            rows.append(row)
        return rows

    def _rule_decision(self, text: str, found: list[Mention]) -> str:
        """The hand-written rules' group for ``text`` (see the module docstring)."""
        if self._margin is None:  # concepts without a protagonist rule: the group with strictly more evidence
            return _strict_winner(self._counts(found)) or NEUTRAL
        if not found:
            return NEUTRAL
        gendered = sum(mention.group != NEUTRAL for mention in found)
        words = len(text.split())
        if gendered == 1 and self._long_text and words >= self._long_text:
            return NEUTRAL  # a long text names its protagonist more than once: one mention is a passer-by
        short = self._full_name_first_below is None or words < self._full_name_first_below
        if self._surname_decides and not (found[0].kind == "full name" and short):
            # Chunks open on a scene ("Kwame felt dizzy …") before their subject, whom the press then names by
            # surname alone ("… Price says"): the most often so named person is the protagonist. A short text
            # that opens with a full name is about that person ("Professor Elena Rossi and her student, Will
            # Carter … Carter found"); a long chunk often opens with a client or a passer-by by full name.
            lone_group = _most_named_by_surname(found)
            if lone_group is not None:
                return lone_group
        ranked = Counter(mention.group for mention in found).most_common(2)
        if len(ranked) == 1 or ranked[0][1] - ranked[1][1] >= self._margin:
            return ranked[0][0]
        return found[0].group  # the first person a text mentions is the one it is about


# pronouns that can stand in one place: "he or she", "him or her", "his or her", "hers or his", "herself or himself"
_PRONOUN_PAIRS = frozenset(
    frozenset(pair) for pair in (("he", "she"), ("him", "her"), ("his", "her"), ("his", "hers"), ("himself", "herself"))
)


def _alike(first: str, second: str, pronouns: Mapping[str, str], joint: str) -> bool:
    """Whether two joined words name anyone, or both alike: two pronouns of one case joined by "or" or "/" ("him or
    her", "he/she"; "taught him and her" names two people, and "fired her and he was glad" joins two clauses), or
    two nouns or titles ("men and women", "the mother and father", "Mr and Mrs")."""
    if first in pronouns or second in pronouns:
        return frozenset((first, second)) in _PRONOUN_PAIRS and "and" not in joint.lower().replace("and/or", "")
    return True


def _clinical_pattern(rule: Mapping[str, Any]) -> tuple[re.Pattern[str] | None, dict[str, str], frozenset[str]]:
    """The clinical age-and-sex shorthand of ``rule`` (``clinical_*`` in ``group_words.json``) as one pattern, the
    group of each sex letter, and the words a bare "45M" may follow."""
    sex = {letter: group for group, letters in rule.get("clinical_sex_letters", {}).items() for letter in letters}
    if not sex:
        return None, {}, frozenset()
    letters = "|".join(map(re.escape, sex))
    ages = "|".join(map(re.escape, sorted(rule.get("clinical_age_words", []), key=len, reverse=True))) or "(?!)"
    after = "|".join(map(re.escape, rule.get("clinical_next_words", []))) or "(?!)"
    age = r"(?<![\w$£€¥.,])\d{1,3}"
    pattern = re.compile(
        rf"{age}(?:(?:{ages})\s?(?P<aged>{letters})(?![\w\-])|(?P<bare>{letters})(?=[,.;:)]|\s+(?:{after})(?![\w\-])|\s*$))"
        rf"|\(\s*(?P<b1>{letters})\s*[,/]\s*\d{{1,3}}\s*\)|\(\s*\d{{1,3}}\s*[,/]?\s*(?P<b2>{letters})\s*\)"
    )
    return pattern, sex, frozenset(w.lower() for w in rule.get("clinical_lead_words", []))


def _blank_groups(pattern: re.Pattern[str], text: str, keep: Callable[[list[str]], bool]) -> str:
    """``text`` with the groups of ``pattern``'s matches blanked (offsets kept) where ``keep(groups)`` says so and
    every group is capitalised."""

    def blank(match: re.Match[str]) -> str:
        words = [match.group(k) for k in range(1, (match.re.groups or 0) + 1)]
        if not all(word.strip()[:1].isupper() for word in words) or not keep(words):
            return match.group(0)
        out = list(match.group(0))
        for k in range(1, len(words) + 1):
            out[match.start(k) - match.start() : match.end(k) - match.start()] = " " * (match.end(k) - match.start(k))
        return "".join(out)

    return pattern.sub(blank, text)


def strip_possessive(word: str) -> str:
    """``word`` without a trailing possessive 's ("Leo's" -> "Leo", either apostrophe)."""
    return word[:-2] if word.endswith(("'s", "\u2019s")) else word


def _most_named_by_surname(found: list[Mention]) -> str | None:
    """The group of the person most often named by surname alone in ``found`` (ties: the first such), or None."""
    lone = Counter(strip_possessive(m.text) for m in found if m.kind == "surname")
    if not lone:
        return None
    top = lone.most_common(1)[0][0]
    return next(m.group for m in found if m.kind == "surname" and strip_possessive(m.text) == top)


def _starts_sentence(text: str, start: int) -> bool:
    before = text[:start].rstrip()
    return not before or before[-1] in _SENTENCE_END


def _strict_winner(counts: Mapping[str, int]) -> str | None:
    """The group with strictly the most (and some) evidence, else None."""
    ranked = sorted(counts.items(), key=lambda item: -item[1])
    if ranked[0][1] == 0 or (len(ranked) > 1 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]


@lru_cache(maxsize=16)
def detector(concept: str = "gender") -> GroupDetector:
    """A shared :class:`GroupDetector` for a bundled concept (memoized: built once per process)."""
    return GroupDetector(concept)


def detector_for(concept: str | Concept | GroupDetector) -> GroupDetector:
    """The detector for ``concept``: shared for a name (:func:`detector`), new for a :class:`Concept`, as is."""
    if isinstance(concept, GroupDetector):
        return concept
    return detector(concept) if isinstance(concept, str) else GroupDetector(concept)


def user_labelled(metadata: Mapping[str, Any]) -> bool:
    """Whether ``metadata`` holds the user's own group label (a :data:`GROUP_KEY` without :data:`INFERRED_BY_KEY`),
    which inference never replaces."""
    return _label(metadata) is not None and INFERRED_BY_KEY not in metadata


def _label(metadata: Mapping[str, Any]) -> Any:
    """The :data:`GROUP_KEY` label, None when absent or blank (an empty CSV cell labels nothing)."""
    label = metadata.get(GROUP_KEY)
    return None if isinstance(label, str) and not label.strip() else label


def result_group_fields(metadata: Mapping[str, Any], group: str, *, equal: bool | None = None) -> dict[str, Any]:
    """The group keys a returned copy of a document gains: :data:`BALANCED_GROUP_KEY` always, :data:`GROUP_KEY`
    unless ``metadata`` holds the user's own label there, which is kept as written, and :data:`GROUPS_EQUAL_KEY`
    (``equal``: whether the result's balanced groups came back in equal numbers) when given."""
    fields: dict[str, Any] = {BALANCED_GROUP_KEY: group}
    if not user_labelled(metadata):
        fields[GROUP_KEY] = group
    if equal is not None:
        fields[GROUPS_EQUAL_KEY] = equal
    return fields


def groups_equal(groups: Sequence[str | None], balanced: Sequence[str]) -> bool | None:
    """Whether the ``balanced`` groups are equally many among the returned documents' ``groups`` (``None`` when
    nothing was balanced): false when no swap within the strategy's bound closed the gap, or when a store gave
    fewer results than asked."""
    if not balanced:
        return None
    return len({sum(group == wanted for group in groups) for wanted in balanced}) <= 1


def annotate_groups(documents: Iterable[Any], concept: str | Concept = "gender", *, versions: bool = True) -> list[str]:
    """Store each document's group in ``metadata[GROUP_KEY]`` at index time, so a wrapped store keeps it and
    retrieval reads it instead of inferring it; returns the groups.

    A user's label (a group without :data:`INFERRED_BY_KEY`) is kept; an inferred group is marked with the
    detector's fingerprint in ``metadata[INFERRED_BY_KEY]``, so annotating again after an upgrade refreshes it, and
    retrieval with another detector infers it again instead of trusting it. ``versions``: where the batch holds
    versions of one text (:mod:`debiasrag.versions`, found by their words), their groups are read by contrast
    (:meth:`GroupDetector.contrast_groups`) — pass the whole corpus, or batches that keep versions together. Works on
    :class:`~debiasrag.corpus.Document` and on any object with ``text`` / ``page_content`` and a ``metadata`` dict
    (LangChain ``Document``, LlamaIndex nodes via ``get_content()``).
    """
    from debiasrag.versions import find_versions

    found = detector_for(concept)
    docs = list(documents)
    texts = [document_text(doc) for doc in docs]
    labelled = [user_labelled(doc.metadata) for doc in docs]
    groups = [
        found.group(text, doc.metadata if mine else None, doc_id=document_id(doc))
        for doc, text, mine in zip(docs, texts, labelled)
    ]
    if versions and len(docs) > 1:
        groups = found.contrast_groups(texts, groups, find_versions(texts, concept_words=found.concept_words), labelled)
    for doc, group, mine in zip(docs, groups, labelled):
        if not mine:
            doc.metadata[GROUP_KEY], doc.metadata[INFERRED_BY_KEY] = group, found.fingerprint
    return groups


def group_census(
    documents: Iterable[Any], concept: str | Concept | GroupDetector = "gender", *, versions: bool = True
) -> tuple[list[str], dict[str, int]]:
    """Each document's group (labels kept, the rest inferred) and :func:`group_summary`'s counts, in one pass.

    ``versions``: where documents are versions of one text (:mod:`debiasrag.versions`), their groups are read by
    contrast as :func:`annotate_groups` and :meth:`FaissIndex.store_groups` read them, and they are not counted as
    ``mixed`` (the words they differ in settle whose text it is)."""
    found = detector_for(concept)
    groups, mixed = mixed_census(documents, found, versions=versions)
    return groups, census_counts(groups, mixed, found)


def census_counts(
    groups: Sequence[str], mixed: Sequence[bool], concept: str | Concept | GroupDetector = "gender"
) -> dict[str, int]:
    """:func:`mixed_census`'s per-document answer as counts: documents per group, and ``mixed``."""
    counts = dict.fromkeys((*detector_for(concept).groups, NEUTRAL), 0)
    for group in groups:
        counts[group] = counts.get(group, 0) + 1
    return {**counts, "mixed": sum(mixed)}


def mixed_census(
    documents: Iterable[Any], concept: str | Concept | GroupDetector = "gender", *, versions: bool = True
) -> tuple[list[str], list[bool]]:
    """:func:`group_census` per document: each one's group, and whether it is ``mixed`` (inferred, naming people of
    two or more groups, no version settling it) — for a caller that must say which documents, not how many."""
    from debiasrag.versions import find_versions

    found = detector_for(concept)
    docs = list(documents)
    texts = [document_text(doc) for doc in docs]
    groups: list[str] = []
    mixed: list[bool] = []
    for doc, text in zip(docs, texts):
        metadata = getattr(doc, "metadata", None) or {}
        if _label(metadata) is not None:
            groups.append(found.group(text, metadata, doc_id=document_id(doc)))  # a label: checked and kept
            mixed.append(False)
        else:  # one pass over the text gives both the group and whether two groups are named
            mentions = found.mentions(text)
            groups.append(found._decide(text, mentions))
            mixed.append(sum(count > 0 for count in found._counts(mentions).values()) > 1)
    if versions and len(docs) > 1:
        found_versions = find_versions(texts, concept_words=found.concept_words)
        labelled = [user_labelled(getattr(doc, "metadata", None) or {}) for doc in docs]
        groups = found.contrast_groups(texts, groups, found_versions, labelled)
        mixed = [named_both and not mine for named_both, mine in zip(mixed, found_versions)]
    return groups, mixed


def group_summary(documents: Iterable[Any], concept: str | Concept = "gender") -> dict[str, int]:
    """How many documents fall in each group (labels kept, the rest inferred, versions read by contrast), and
    ``mixed``: how many of the inferred ones without versions mention people of two or more of the concept's groups,
    where inference is least reliable (benchmarks/RESULTS.md, "Fair retrieval on passage sets")."""
    return group_census(documents, concept)[1]


def group_lookup(concept: Concept, documents: Mapping[Any, Any], query: str | None = None) -> GroupOf:
    """A strategy's :class:`~debiasrag.strategies.GroupOf` over documents seen so far, keyed like the rankings.

    For wrapped stores (LangChain, LlamaIndex): ``documents`` maps a ranking key to the framework's document
    (or a LlamaIndex ``NodeWithScore``); each group is read from ``metadata[GROUP_KEY]`` or inferred from the
    text, memoized by the shared detector, and one not labelled by the user is read against its versions among the
    documents seen so far (:meth:`GroupDetector.contrast_group`: versions of one text rank together) — also a group
    :func:`annotate_groups` stored at ingestion, whose batch may not have held the document's versions. ``query``:
    the query ranked for (:class:`~debiasrag.strategies.GroupOf`).
    """
    from debiasrag.versions import find_versions

    # the shared detector for a bundled concept; a user's own (even one named like a bundled one) gets its own
    found = detector(concept.name) if _bundled_concept(concept.name) == concept else GroupDetector(concept)
    memo: dict[Any, str] = {}
    versions: dict[Any, list[str]] = {}  # key -> texts of its versions among the documents seen

    def unwrap(key: Any) -> Any:
        return getattr(documents[key], "node", documents[key])  # NodeWithScore -> node

    def of(key: Any) -> str:
        if key not in memo:
            doc = unwrap(key)
            metadata = getattr(doc, "metadata", None)
            text = document_text(doc)
            group = found.group(text, metadata, doc_id=document_id(doc))
            if not user_labelled(metadata or {}):  # inferred here, or by annotate_groups in a batch without them
                if key not in versions:  # (re)read when documents came in since: one pass over all of them
                    keys = list(documents)
                    texts = [document_text(unwrap(k)) for k in keys]
                    versions.update(
                        {
                            k: [texts[j] for j in mine]
                            for k, mine in zip(keys, find_versions(texts, memo=True, concept_words=found.concept_words))
                        }
                    )
                group = found.contrast_group(text, group, versions[key])
            memo[key] = group
        return memo[key]

    return GroupOf(
        (concept.groups[0], concept.groups[1]), of, lambda key: document_text(unwrap(key)), found.concept_words, query
    )


def document_id(doc: Any) -> str | int | None:
    """The id of a debiasrag, LangChain or LlamaIndex document (``id``, ``node_id``), or None when it has none."""
    doc = getattr(doc, "node", doc)  # NodeWithScore -> node
    for attribute in ("id", "node_id"):
        value = getattr(doc, attribute, None)
        if isinstance(value, str | int) and not isinstance(value, bool):
            return value
    return None


def document_text(doc: Any) -> str:
    """The text of a debiasrag, LangChain or LlamaIndex document."""
    for attribute in ("text", "page_content"):
        value = getattr(doc, attribute, None)
        if isinstance(value, str):
            return value
    if hasattr(doc, "get_content"):
        return str(doc.get_content())
    raise InputError(f"cannot read the text of a {type(doc).__name__}")


__all__ = [
    "GROUP_KEY",
    "INFERRED_BY_KEY",
    "NEUTRAL",
    "GroupDetector",
    "Mention",
    "annotate_groups",
    "census_counts",
    "detector",
    "detector_for",
    "document_id",
    "document_text",
    "group_census",
    "group_lookup",
    "group_summary",
    "mixed_census",
]
