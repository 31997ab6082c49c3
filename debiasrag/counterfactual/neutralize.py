"""Gender-blind text for embedding: every gendered word, pronoun, title and first name rewritten neutrally.

An embedding of "She sets the annealer …" and of "He sets the annealer …" differ only by gender, and that difference
moves their scores for a neutral query (seed 000); seed 002 removes names before embedding for the same reason.
:class:`GenderNeutralizer` goes one step further and writes the text the way its neutral wording would read —
pronouns become *they* / *their* / *them* and the verb after *she* / *he* agrees ("she keeps" -> "they keep"),
gendered nouns their neutral counterparts ("mother" -> "parent", "policewoman" -> "police officer";
``data/neutral_words.json``), titles *Mx*, and first names are removed — so the female, male and neutral wordings of
a document embed (almost) alike and a ranking cannot prefer one gender's documents. The index stores the original
text and returns it; only the vectors are of the neutral text (``debiasrag index --neutralize``; queries are
neutralized the same way).

Names: ``"ner"`` (default) removes the first names of the person names spaCy's NER finds (seed 002's anonymizer,
person entities only; surnames stay, as they do not change with gender: "Ingrid Halvorsen … Halvorsen says" ->
"Halvorsen … Halvorsen says") and then first names from the name tables; ``"table"`` only the latter (no spaCy,
faster, misses names in no table); ``"keep"`` leaves names alone. With ``"ner"`` spaCy's dependency parser also
finds the verbs whose subject is "she" / "he" beyond the next word ("she checks the tyres, refills the bottles and
heads back") and object "her"s ("helped her write"), for texts that have such a pronoun (the rules alone serve
``"table"`` and ``"keep"``). (Removing whole names, surnames included,
was measured too and lost: NER finds a name in one wording and misses it in another, so the wordings differ.)

Measured: ``.venv/bin/python benchmarks/blind_index.py`` (benchmarks/RESULTS.md, "Gender-blind index").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from debiasrag.corpus import Document
from debiasrag.embedders import Embedder
from debiasrag.errors import InputError, check_search_left, check_texts
from debiasrag.fileio import encodable
from debiasrag.groups import detector, generic_phrase_spans, strip_possessive
from debiasrag.index import FaissIndex
from debiasrag.resources import read_json

NAME_MODES = ("ner", "table", "keep")
_TOKEN = re.compile(r"[^\W\d_](?:[^\W\d_]|['\u2019\-])*[^\W\d_]|[^\W\d_]")
_GENDERED_PRONOUN = re.compile(r"\b(?:she|he|her)\b", re.IGNORECASE)


@dataclass
class _Grammar:
    """What a dependency parse says about one text (character offsets of its tokens): the verbs whose subject is
    "she" / "he" (with their auxiliaries and the verbs conjoined to them), which take the plural form as after
    "they", and the "her"s that are objects ("them"), not possessives ("their")."""

    agree: set[int] = field(default_factory=set)
    objects: set[int] = field(default_factory=set)


@cache
def _neutral_words() -> dict[str, Any]:
    return read_json("neutral_words.json")


class GenderNeutralizer:
    """Rewrite texts in gender-neutral wording before they are embedded (see the module docstring).

    Args:
        names: ``"ner"`` (spaCy person names, then the name tables), ``"table"`` or ``"keep"``.
        spacy_model: with ``names="ner"``, the spaCy model (default: the packaged ``en_core_web_sm``).

    Example:
        >>> GenderNeutralizer(names="table").neutralize("Maria said her mother would call.")
        'said their parent would call.'
    """

    def __init__(self, names: str = "ner", *, spacy_model: str | None = None) -> None:
        if names not in NAME_MODES:
            raise InputError(f"names must be one of {', '.join(NAME_MODES)}; got {names!r}")
        self.names = names
        self.spacy_model = spacy_model
        data = _neutral_words()
        self._pronouns: dict[str, str] = data["pronouns"]
        self._words: dict[str, str] = data["words"]
        self._titles: dict[str, str] = data["titles"]
        self._verbs: dict[str, str] = data["verbs_after_pronoun"]
        self._adverbs = frozenset(data["adverbs"])
        self._not_verbs = frozenset(data["not_verbs"])
        self._her_object_before = frozenset(data["her_object_before"])
        self._after_title = frozenset(read_json("names", "non_names.json")["titles"])  # "Mrs Evans": a surname
        self._detector = detector("gender")  # the shared one: only its name tables are read
        self._anonymizer: Any = None

    @property
    def settings(self) -> dict[str, Any]:
        """What an index records in its manifest (``preprocessing.neutralize``) so queries get the same."""
        return {"concept": "gender", "names": self.names}

    @classmethod
    def from_settings(cls, settings: dict[str, Any]) -> GenderNeutralizer:
        """The neutralizer an index's manifest names (:attr:`settings`)."""
        return cls(names=settings.get("names", "ner"))

    def neutralize(self, text: str) -> str:
        """``text`` in gender-neutral wording (whitespace collapsed)."""
        return self.neutralize_batch([text])[0]

    def neutralize_batch(self, texts: Iterable[str]) -> list[str]:
        """Each text in gender-neutral wording; person names found by NER in one spaCy pass over the batch."""
        texts = check_texts(texts)
        removed: list[set[str]] = [set() for _ in texts]
        grammar: list[_Grammar | None] = [None for _ in texts]
        if self.names == "ner" and texts:
            texts, removed = self._remove_first_names(texts)
            grammar = self._parse(texts)
        return [self._rewrite(text, names, parsed) for text, names, parsed in zip(texts, removed, grammar)]

    def _parse(self, texts: list[str]) -> list[_Grammar | None]:
        """Verb agreement and object "her" from spaCy's parse, for the texts that have "she", "he" or "her"
        (a parse costs several milliseconds; the rules of :meth:`_rewrite` serve when spaCy is not used)."""
        from debiasrag.anonymize.ner import DEFAULT_SPACY_MODEL, load_spacy_parser

        nlp = load_spacy_parser(self.spacy_model or DEFAULT_SPACY_MODEL)
        # beyond spaCy's max_length (a whole book as one text) the rules alone serve, as for "table"
        todo = [i for i, text in enumerate(texts) if len(text) <= nlp.max_length and _GENDERED_PRONOUN.search(text)]
        out: list[_Grammar | None] = [None for _ in texts]
        for i, doc in zip(todo, nlp.pipe(encodable(texts[i]) for i in todo)):
            found = out[i] = _Grammar()
            for token in doc:
                hyphenated = token.i + 2 < len(doc) and doc[token.i + 2].tag_ == "HYPH"  # "her in-laws"
                if token.lower_ == "her" and token.tag_ == "PRP" and token.dep_ != "poss" and not hyphenated:
                    found.objects.add(token.idx)  # "helped her write"; not "her own" (tagged PRP, parsed poss)
                elif token.lower_ in ("she", "he") and token.dep_ in ("nsubj", "nsubjpass"):
                    verbs = [token.head]  # "she checks the tyres, refills the bottles and heads back"
                    while verbs:
                        verb = verbs.pop()
                        auxiliaries = [c for c in verb.children if c.dep_ in ("aux", "auxpass")]
                        found.agree.update(t.idx for t in (verb, *auxiliaries) if t.tag_ == "VBZ" or t.lower_ == "was")
                        verbs.extend(
                            c
                            for c in verb.children
                            if c.dep_ == "conj" and not any(g.dep_ in ("nsubj", "nsubjpass") for g in c.children)
                        )
        return out

    def _remove_first_names(self, texts: list[str]) -> tuple[list[str], list[set[str]]]:
        """Each person name spaCy finds loses all but its surname ("Ingrid Halvorsen" -> "Halvorsen"); a
        one-word name goes unless it is a surname of the text (the last word of a longer name, or after a title).
        Also returns, per text, the first names removed, so that occurrences spaCy missed go too."""
        out = []
        removed: list[set[str]] = []
        for text, entities in zip(texts, self._ner().detect_batch(texts)):
            names = [[(e.start + t.start(), e.start + t.end()) for t in _TOKEN.finditer(e.text)] for e in entities]
            surnames = {text[spans[-1][0] : spans[-1][1]] for spans in names if len(spans) >= 2}
            tokens = _TOKEN.findall(text)  # a word right after a known first name is a surname too ("Ingrid Sørensen")
            surnames.update(
                b for a, b in zip(tokens, tokens[1:]) if b[:1].isupper() and self._detector.is_first_name(a)
            )
            cuts = []
            for spans in names:
                if len(spans) >= 2:
                    cuts.append((spans[0][0], spans[-2][1]))
                elif spans:
                    word = text[spans[0][0] : spans[0][1]]
                    before = _TOKEN.findall(text[max(0, spans[0][0] - 12) : spans[0][0]])
                    if word not in surnames and not (before and before[-1] in self._after_title):
                        end = spans[0][1]
                        if text[end : end + 2] in ("'s", "\u2019s"):
                            end += 2  # "Ingrid's plan" -> "plan", not "'s plan"
                        cuts.append((spans[0][0], end))
            found: set[str] = set()
            for start, end in sorted(cuts, reverse=True):
                found.update(word for word in _TOKEN.findall(text[start:end]) if word[:1].isupper())
                text = text[:start] + text[end:]
            out.append(text)
            removed.append({strip_possessive(word) for word in found} - surnames)
        return out, removed

    def query_transform(self, query: str) -> str:
        """For ``DebiasedRetriever(query_transform=...)``: the neutral query. One made only of names (nothing but
        punctuation left) is an :class:`InputError`: the documents were embedded without their names, so searching
        the names as typed would rank by their gender and origin, and searching "?" by nothing."""
        how = "the index embedded its documents' gender-neutral wording without names"
        return check_search_left(self.neutralize(query), how)

    def _ner(self) -> Any:
        if self._anonymizer is None:
            from debiasrag.anonymize import get_anonymizer

            options = {"model": self.spacy_model} if self.spacy_model else {}
            self._anonymizer = get_anonymizer("ner", strategy="remove", entities="person", **options)
        return self._anonymizer

    def _rewrite(
        self, text: str, first_names: set[str] | frozenset[str] = frozenset(), grammar: _Grammar | None = None
    ) -> str:
        """The neutral wording of one text. Rules: the verb right after "she" / "he" and one joined to it by and /
        or / but takes the plural form; "her" before a function word or punctuation is an object ("them").
        ``grammar`` (a dependency parse) adds the verbs and object "her"s the rules miss."""
        out: list[str] = []
        last = 0
        tokens = list(_TOKEN.finditer(text))
        # "a bachelor's degree", "to groom the horses", "mother board": words of the lists used of no one stay
        generic = generic_phrase_spans(text)
        surname_next = False  # the capitalised word after a title or a first name is a surname ("Mrs Evans")
        verb_due = False  # after "she" / "he": the verb takes the plural form, as after the neutral "they"
        conjunct = False
        for i, token in enumerate(tokens):
            raw = token.group(0)
            # the next word, when only a space separates them ("Holly Grant", not "… Evans. Halvorsen")
            adjacent = i + 1 < len(tokens) and text[token.end() : tokens[i + 1].start()] == " "
            following = tokens[i + 1].group(0) if adjacent else ""
            parsed_verb = grammar is not None and token.start() in grammar.agree
            if verb_due and raw not in self._adverbs and raw.lower() not in self._pronouns:
                verb_due = False
                replacement: str | None = self._plural_verb(raw, tagged=parsed_verb)
                conjunct = replacement is not None  # "she counts … and phones": the second verb agrees too
            elif parsed_verb:  # the parse finds what the rules miss ("she checks …, refills … and heads …")
                replacement = self._plural_verb(raw, tagged=True)
            elif conjunct and raw in ("and", "or", "but"):
                # "boots and gloves": after a plural noun the next word is likely one too, not a second verb
                replacement, verb_due, conjunct = None, not tokens[i - 1].group(0).endswith("s"), False
            elif raw.lower() == "her" and (
                not following
                or following.lower() in self._her_object_before
                or (grammar is not None and token.start() in grammar.objects)
            ):
                replacement = "Them" if raw[0].isupper() else "them"  # "asked her to", "thanked her."
            elif any(start <= token.start() < end for start, end in generic):
                replacement = None
            elif strip_possessive(raw) in first_names:
                replacement = ""  # a first name spaCy found elsewhere in this text
            else:
                replacement = self._replacement(raw, following, surname_next)
            verb_due = verb_due or raw.lower() in ("she", "he")
            gap = text[token.end() : tokens[i + 1].start()] if i + 1 < len(tokens) else "."
            conjunct = conjunct and not any(mark in gap for mark in ".,;:!?")  # within the clause only
            surname_next = raw in self._after_title or (replacement == "" and following[:1].isupper())
            if replacement is None:
                continue
            out.append(text[last : token.start()])
            out.append(replacement)
            last = token.end()
        out.append(text[last:])
        neutral = re.sub(r"[ \t]+", " ", "".join(out))
        return re.sub(r" +([,.;:!?])", r"\1", neutral).strip()

    def _plural_verb(self, word: str, *, tagged: bool = False) -> str | None:
        """The plural form of the verb after "she" / "he" ("keeps" -> "keep", "was" -> "were"), ``None`` to keep;
        ``tagged``: the parser says it is a verb (else a word on the not-a-verb list or under 4 letters is kept)."""
        if word in self._verbs:
            return self._verbs[word]
        if not word.islower() or not word.endswith("s"):
            return None
        if not tagged and (len(word) < 4 or word in self._not_verbs):
            return None
        if word.endswith(("ss", "us", "is", "'s")):
            return None
        if word.endswith("ies"):
            return word[:-3] + "y"  # "carries" -> "carry"
        if word.endswith(("sses", "shes", "ches", "xes", "zes", "oes")):
            return word[:-2]  # "teaches" -> "teach", "goes" -> "go"
        return word[:-1]

    def _replacement(self, raw: str, following: str, surname: bool) -> str | None:
        """The neutral form of one token, "" to remove it, ``None`` to keep it."""
        word = raw.replace("\u2019", "'")
        lower = word.lower()
        if raw in self._titles and following[:1].isupper():
            return self._titles[raw]  # "Mrs Evans" -> "Mx Evans" (not "miss the bus")
        neutral = self._pronouns.get(lower) or self._words.get(lower)
        if neutral is not None:
            return neutral[0].upper() + neutral[1:] if raw[0].isupper() else neutral
        if self.names != "keep" and raw[0].isupper() and not (surname and not following[:1].isupper()):
            if self._detector.is_first_name(strip_possessive(word), before_surname=following[:1].isupper()):
                return ""
        return None


def neutralizer_for(neutralize: str | None) -> GenderNeutralizer | None:
    """The neutralizer a ``neutralize=`` option asks for (``None``: none), an InputError naming that option."""
    if neutralize is None:
        return None
    if not isinstance(neutralize, str) or neutralize not in NAME_MODES:
        raise InputError(
            f"neutralize must be None or how first names go: one of {', '.join(NAME_MODES)}; got {neutralize!r}"
        )
    return GenderNeutralizer(names=neutralize)


def blind_index(
    documents: Iterable[Document],
    embedder: Embedder,
    neutralizer: GenderNeutralizer | None = None,
    **options: Any,
) -> FaissIndex:
    """A gender-blind :class:`FaissIndex`: vectors of each document's neutral wording, the original text stored
    and returned, ``preprocessing.neutralize`` recorded so that :class:`~debiasrag.DebiasedRetriever` neutralizes
    queries the same way. ``options`` go to :meth:`FaissIndex.from_documents` (``kind``, ``batch_size`` …)."""
    neutralizer = neutralizer or GenderNeutralizer()
    documents = list(documents)
    texts = neutralizer.neutralize_batch([doc.text for doc in documents])
    return FaissIndex.from_documents(
        documents, embedder, embed_texts=texts, preprocessing={"neutralize": neutralizer.settings}, **options
    )


__all__ = ["NAME_MODES", "GenderNeutralizer", "blind_index", "neutralizer_for"]
