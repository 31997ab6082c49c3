"""Bundled retrieval test sets and the labelled-set reader for ``debiasrag bench retrieval --data``.

* seed 000's Appendix E toy task and our gendered multi-topic set (:func:`load_toy_task`,
  :func:`load_gendered_topics`);
* the fairness set (:func:`load_fairness_set`): gender-neutral queries in bias-sensitive areas, each with one
  relevant and one close non-relevant document in female, male and neutral wording; format in
  ``debiasrag/data/retrieval/README.md``;
* the wide-topic set (:func:`load_wide_topics`): 16 topics with 3 to 15 relevant documents each (F / M / N
  wording), for rules that must estimate how many documents a query needs;
* the mixed corpora (:func:`load_mixed_corpora`): small hand-written corpora of mostly neutral documents with a
  few gendered ones and hand-fixed relevance, design and report sets;
* the passage set (:func:`load_fairness_passages`): the fairness set's design with 3–5 sentence passages in
  the query–document rows layout, a report-only set;
* the protagonist triples (:func:`load_protagonist_triples`): 100 short texts, each in female, male and neutral
  wording of its protagonist, labelled with the protagonist's group (for group detectors; format in
  ``debiasrag/data/groups/README.md``);
* :func:`load_labelled_set` reads a user's set in that format (folder or file, JSONL or CSV) or in a
  query–document rows layout (Grep-BiasIR's: one row per judgement with ``content_gender``).
"""

from __future__ import annotations

import csv
import difflib
import io
import math
from collections import defaultdict
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from debiasrag.concepts import Concept, load_concept
from debiasrag.corpus import Document, Field, row_metadata
from debiasrag.errors import InputError, check_texts, is_blank
from debiasrag.fileio import loads_strict
from debiasrag.groups import GROUP_KEY
from debiasrag.resources import as_file, read_json


def _load(*parts: str) -> dict[str, Any]:
    return read_json(*parts)


@dataclass
class RetrievalTask:
    """Documents, neutral queries and, per query, the ids of the relevant documents."""

    name: str
    documents: list[Document]
    queries: dict[str, str]  # query name -> neutral query text
    relevant: dict[str, set[str]]  # query name -> relevant document ids
    concept: Concept | None = None
    areas: dict[str, str] = field(default_factory=dict)  # query name -> area (fairness sets; may be empty)
    # what reading the set changed (labels read as neutral, documents or queries left out)
    notes: list[str] = field(default_factory=list)


def load_toy_task() -> RetrievalTask:
    """Seed 000 Appendix E: 15 gendered/neutral chunks about an army officer, 5 random ones, 1 query.

    The concept uses Table 11's own variant sentences ("This person is a female." / "... a male.").
    """
    data = _load("toy", "appendix_e.json")
    documents = [Document(c["id"], c["text"], {"group": c["group"], "topic": "army"}) for c in data["chunks"]]
    relevant = {c["id"] for c in data["chunks"] if c["relevant"]}
    return RetrievalTask(
        "toy",
        documents,
        {"army": data["queries"]["neutral"]},
        {"army": relevant},
        Concept.from_dict(data["concept"], source="toy concept"),
    )


def toy_data() -> dict[str, Any]:
    """The raw Appendix E data (queries of all four scenarios, chunks, paper figures)."""
    return _load("toy", "appendix_e.json")


def load_gendered_topics(split: str | None = None) -> RetrievalTask:
    """Our gendered set: 12 occupations × 5 chunks × (female, male, neutral) + 20 distractors.

    Every topic's neutral query is asked against the whole corpus; its 15 chunks are relevant,
    everything else is not. ``split`` = ``"design"`` / ``"holdout"`` keeps those topics' queries only
    (the corpus stays whole), so a rule tuned on one split can be checked on the other.
    """
    data = _load("retrieval", "gendered_topics.json")
    documents: list[Document] = []
    queries: dict[str, str] = {}
    relevant: dict[str, set[str]] = {}
    wanted = set(data["split"][split]) if split else None
    for topic in data["topics"]:
        ids = set()
        for i, template in enumerate(topic["templates"], start=1):
            for group, forms in data["forms"].items():
                doc_id = f"{topic['name']}-{group}-C{i}"
                text = template.format(**forms)
                documents.append(Document(doc_id, text[0].upper() + text[1:], {"group": group, "topic": topic["name"]}))
                ids.add(doc_id)
        if wanted is None or topic["name"] in wanted:
            queries[topic["name"]] = topic["query"]
            relevant[topic["name"]] = ids
    for i, text in enumerate(data["distractors"], start=1):
        documents.append(Document(f"distractor-{i}", text, {"group": "none", "topic": "distractor"}))
    return RetrievalTask(f"gendered-topics{'-' + split if split else ''}", documents, queries, relevant)


# ---------------------------------------------------------------------------------------------------------------
# Fairness sets: queries + documents with a group label and relevance (documented in data/retrieval/README.md)

LABELLED_GROUPS = ("female", "male", "neutral")
FAIRNESS_SPLITS = ("main", "holdout")  # "all" = these two
FAIRNESS_REPORT_SPLITS = (
    "report1",
    "report2",
    "report3",
    "report4",
    "report5",
    "report6",
    "report7",
    "report8",
    "report9",
    "report10",
    "report11",
    "report12",
    "report13",
)  # written blind (sessions 28-41), report only
_SUFFIXES = (".jsonl", ".csv")


def _read_rows(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(where, row)`` for each non-blank row of a JSONL or CSV file; ``where`` is ``"file:line"``."""
    suffix = path.suffix.lower()
    if suffix not in _SUFFIXES:
        raise InputError(f"{path}: expected a .jsonl or .csv file")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bad_line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(f"{path.name}:{bad_line}: not valid UTF-8") from None
    if suffix == ".jsonl":
        # split at "\n" only: str.splitlines would also cut at U+2028 and other separators a JSON string may hold
        for number, line in enumerate(text.split("\n"), start=1):
            if not line.strip():
                continue
            try:
                row = loads_strict(line)  # also refuses NaN, overflowing numbers and too deep nesting
            except InputError as exc:
                # old Mac line ends: the whole file is one line, read as rows run together ("Extra data")
                cr_only = (
                    " (the file's lines end in '\\r' only: save it with '\\n' line ends)"
                    if "\r" in text and "\n" not in text
                    else ""
                )
                raise InputError(f"{path.name}:{number}: {exc.message}{cr_only}") from None
            if not isinstance(row, dict):
                raise InputError(f"{path.name}:{number}: not a JSON object")
            yield f"{path.name}:{number}", row
        return
    try:
        # quoted fields keep their line breaks; strict: an unclosed quote is an error, not the rest of the file
        reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
        header = [name.strip() for name in reader.fieldnames or []]
        if not any(header) and text.strip():
            raise InputError(f"{path.name}:1: the first line is empty; the header must be the first line")
        if len(header) <= 2 and header and header[0].lower().startswith("sep="):  # Excel's delimiter hint
            first = text.split("\n", 1)[0].strip()
            raise InputError(f"{path.name}:1: {first!r} is Excel's delimiter line; delete it (the header first)")
        other = next((sep for sep in (";", "\t", "|") if len(header) == 1 and sep in header[0]), None)
        if other is not None:  # every layout needs two or more columns: a spreadsheet saved with another delimiter
            raise InputError(
                f"{path.name}:1: the header is one column, {header[0]!r}: columns must be separated by commas, "
                f"not {other!r}"
            )
        repeated = sorted({name for name in header if name and header.count(name) > 1})
        if repeated:  # DictReader would keep the last column of that name, silently
            raise InputError(f"{path.name}:1: the header repeats the column {repeated[0]!r}")
        start = reader.line_num + 1  # where the record being read begins (an unclosed quote fails at the end)
        for row in reader:
            if None in row:  # more cells than header columns
                raise InputError(f"{path.name}:{reader.line_num}: more cells than columns in the header")
            if any((v or "").strip() for v in row.values()):
                yield f"{path.name}:{reader.line_num}", {k.strip(): v for k, v in row.items() if k is not None}
            start = reader.line_num + 1
    except csv.Error as exc:
        raise InputError(f"{path.name}:{start}: not valid CSV in the record starting on this line ({exc})") from None


def _field(where: str, row: dict[str, Any], key: str, *, required: bool = True) -> str:
    """``row[key]`` as a string with its outer whitespace removed (an integer as its digits); ``""`` for a missing,
    null or blank optional field. A required one that is missing, null or blank is an :class:`InputError`."""
    value = row.get(key)
    if _blank(value):
        if required:
            raise InputError(f"{where}: {_missing(row, key)}")
        return ""
    problem = Field(key, (str, int)).problem(row)
    if problem is not None:
        raise InputError(f"{where}: {problem}")
    return str(value).strip()


def _text(where: str, row: dict[str, Any], key: str) -> str:
    """A required text field (a query's or document's text): as :func:`_field`, and one holding only invisible
    characters (U+200B, U+2060, U+FEFF; :func:`debiasrag.errors.is_blank`, the index's own test) is refused here,
    with file and line, as the index would refuse it after the model loads."""
    text = _field(where, row, key)
    if is_blank(text):
        raise InputError(f"{where}: {key!r} is blank (only invisible characters)")
    return text


def _relevance_like(key: Any) -> bool:
    """A field named like a judgement ('relevant_to', 'relevant_docs', 'relevancy')."""
    return isinstance(key, str) and "relevan" in key.lower()


def _nothing(value: Any) -> bool:
    """A field that holds nothing: blank (:func:`_blank`) or an empty list."""
    return _blank(value) or value == []


def _blank(value: Any) -> bool:
    """A field that holds nothing: missing or null, or a string of only whitespace (an empty CSV cell)."""
    return value is None or (isinstance(value, str) and not value.strip())


def _missing(row: dict[str, Any], key: str) -> str:
    """What is wrong with a required ``key`` that holds nothing: absent, or present and null / blank."""
    if key in row:
        return f"{key!r} is empty"
    other = next((k for k in row if isinstance(k, str) and k.strip().lower() == key), None)
    if other is not None:  # "ID", "Q_ID": names are case-sensitive
        return f"row has no {key!r} (it has {other!r}; column and field names are lower case)"
    return f"row has no {key!r}"


UNKNOWN_GROUPS = ("error", "neutral", "skip")
"""What :func:`load_labelled_set` does with a document labelled other than female / male / neutral (public sets
have a few such labels, e.g. ``both`` for a text about a woman and a man) or not labelled at all (label missing or
empty): refuse the set (``error``, the default: a typo in your own labels should not pass), read the document as
``neutral`` (it adds to neither side of |#F − #M|), or ``skip`` it with its judgements (and a query left without a
relevant document)."""


# Labels both layouts accept, any case: the rows layout's F / M / N, the names of our groups, and woman / man.
_GENDERS = {
    **{group: group for group in LABELLED_GROUPS},
    **{group[0]: group for group in LABELLED_GROUPS},
    **{word: "female" for word in ("woman", "women")},
    **{word: "male" for word in ("man", "men")},
}
_NO_LABEL = ""  # the key under which unlabelled documents are counted in _SetBuilder.unknown


def _group_refusal(label: str) -> str:
    return f"'group' must be female, male or neutral (or F, M, N), got {label!r}"


def _group_field(where: str, row: dict[str, Any]) -> str:
    """A labelled row's ``group`` (any case): female, male or neutral, or F / M / N."""
    label = _field(where, row, "group")
    group = _GENDERS.get(label.lower())
    if group is None:
        raise InputError(f"{where}: {_group_refusal(label)}")
    return group


def _unknown_group_error(message: str, what: str = "the set") -> InputError:
    """``message`` with the way out as an option hint: the CLI words it with its flag (--unknown-groups neutral),
    the library with the parameter (unknown_groups='neutral'); it showed both before."""
    return InputError(
        message, option="unknown_groups", value="neutral", hint=f"to read {what} anyway ('skip' leaves them out)"
    )


# names of a column a user may have meant as the documents layout's label column 'group' (compared in lower case)
_LABEL_LIKE = ("gender", "content_gender", "sex", "label", "groups")


def _label_like_field(row: dict[str, Any]) -> str | None:
    """The first filled field of ``row`` named like a label column ('gender', 'Sex', ...), as written; or ``None``."""
    return next(
        (k for k, v in row.items() if isinstance(k, str) and k.strip().lower() in _LABEL_LIKE and not _blank(v)),
        None,
    )


def _misplaced_label(other: str) -> str:
    """The refusal of a document row without 'group' but with ``other``, a field named like a label column."""
    if other.strip().lower() == "content_gender":  # the rows layout's column (queries-documents* files)
        return (
            f"row has no 'group' (it has {other!r}, the label column of the query-document rows layout; "
            "in the documents layout the label column is 'group')"
        )
    return f"row has no 'group' (it has {other!r}; the label column is 'group')"


# what a missing or empty label should hold, per column
_LABELS_WANTED = {
    "group": "female, male or neutral (or F, M, N)",
    "content_gender": "F, M or N (or female, male, neutral)",
}


def _id_list(where: str, value: Any) -> list[str]:
    """``relevant_to`` as a list of query ids: a JSON list, or a string separated by ``;`` (CSV)."""
    if value is None or value == "":
        return []
    if isinstance(value, str):
        return [part.strip() for part in value.split(";") if part.strip()]
    if isinstance(value, int) and not isinstance(value, bool):  # one integer query id
        return [str(value)]
    if isinstance(value, list) and all(isinstance(v, str | int) and not isinstance(v, bool) for v in value):
        return [str(v).strip() for v in value]  # ids are read without their outer whitespace everywhere
    raise InputError(f"{where}: 'relevant_to' must be a list of query ids or a ';'-separated string")


def _id_list_hint(value: str) -> str:
    """For an unknown query id read from ``relevant_to`` that looks like several ids joined otherwise than with
    ``;`` (``"q1, q2"``, a pandas list written as text ``"['q1']"``): how to write it; else ``""``."""
    if "," not in value and not value.startswith("["):
        return ""
    ids = ";".join(i for i in (part.strip().strip("'\"").strip() for part in value.strip("[]").split(",")) if i)
    return f"; separate ids with ';' (write {ids!r})" if ids else "; separate ids with ';'"


class _SetBuilder:
    """Collects query, document and qrel rows and checks them against each other."""

    def __init__(self, name: str, unknown_groups: str = "error") -> None:
        if unknown_groups not in UNKNOWN_GROUPS:
            raise InputError(f"unknown_groups must be one of {', '.join(UNKNOWN_GROUPS)}; got {unknown_groups!r}")
        self.name = name
        self.unknown_groups = unknown_groups
        self.queries: dict[str, str] = {}
        self.areas: dict[str, str] = {}
        self.documents: list[Document] = []
        self.doc_ids: set[str] = set()
        self.qrels: list[tuple[str, str, str, bool]] = []  # (where, query id, document id, relevant)
        self.judged: dict[tuple[str, str], tuple[str, bool]] = {}  # (query id, document id) -> (where, relevant)
        self.listed: set[str] = set()  # where judgements come from a document's 'relevant_to' (a list of ids)
        self.unknown: defaultdict[str, set[str]] = defaultdict(set)  # other labels, as written -> document ids
        self.skipped: set[str] = set()  # documents left out for such a label (unknown_groups="skip")

    def group(self, where: str, doc_id: str, row: dict[str, Any], column: str, refusal: str) -> str | None:
        """The group of document ``doc_id`` whose label is ``row[column]`` (any case; missing or empty: no label);
        ``None`` when the document is left out (recorded in ``skipped``). ``refusal``: the error for an unknown
        label under ``error``."""
        label = _field(where, row, column, required=False)
        known = _GENDERS.get(label.lower())
        if known is not None:
            return known
        if column == "group" and column not in row:
            other = _label_like_field(row)
            if other is not None:  # under any unknown_groups: read as neutral, every fairness number would be 0
                raise InputError(f"{where}: {_misplaced_label(other)}")
        if self.unknown_groups == "error":
            if label == _NO_LABEL:
                raise _unknown_group_error(
                    f"{where}: {_missing(row, column)}; label it {_LABELS_WANTED[column]}", "unlabelled documents"
                )
            raise _unknown_group_error(f"{where}: {refusal}", "such documents")
        self.unknown[label].add(doc_id)
        if self.unknown_groups == "neutral":
            return "neutral"
        self.skipped.add(doc_id)
        return None

    def judge(self, where: str, query_id: str, doc_id: str, relevant: bool) -> None:
        """Record one judgement (from ``relevant_to``, a qrels row or a judgement row); the same pair judged
        otherwise anywhere in the set is an :class:`InputError` naming both places."""
        earlier = self.judged.setdefault((query_id, doc_id), (where, relevant))
        if earlier[1] != relevant:
            raise InputError(
                f"{where}: query {query_id!r} and document {doc_id!r} were judged otherwise at {earlier[0]}"
            )
        self.qrels.append((where, query_id, doc_id, relevant))

    def add(self, kind: str, where: str, row: dict[str, Any], *, own_fields: bool = True) -> None:
        """Read one row of ``kind``; ``own_fields``: the row's fields are the user's own (not the rows layout's
        columns passed on), so a field named like a judgement is refused."""
        if kind == "query":
            query_id = _field(where, row, "id")
            if query_id in self.queries:
                raise InputError(f"{where}: duplicate query id {query_id!r}")
            # 'relevant_docs', 'relevant_ids': other fields of a query row are not read, so its judgements would be
            # lost (empty cells of one CSV's other columns, such as 'relevant_to' and 'relevance', are nothing)
            stray = next((k for k, v in row.items() if _relevance_like(k) and not _nothing(v)), None)
            if stray is not None:
                raise InputError(
                    f"{where}: unknown field {stray!r}; a query row carries no judgements: mark relevance with the "
                    "documents' 'relevant_to' or a qrels file"
                )
            self.queries[query_id] = _text(where, row, "text")
            self.areas[query_id] = _field(where, row, "area", required=False)
        elif kind == "document":
            # a "metadata" object's fields are the row's own (its 'relevant_to' and 'group' are read, not kept);
            # blank cells of other kinds' columns (one CSV file holding every kind) and unnamed ones are nothing
            row = {
                k: v
                for k, v in row_metadata(row, (), where=f"{where}: ").items()
                if not (_blank(v) and k in _OTHER_KINDS_FIELDS)
            }
            doc_id = _field(where, row, "id")
            if doc_id in self.doc_ids or doc_id in self.skipped:
                raise InputError(f"{where}: duplicate document id {doc_id!r}")
            _refuse_misspelt_fields(where, row, _DOCUMENT_FIELDS)
            if "relevance" in row:  # read from qrels rows only: here it would be kept as metadata, unread
                raise InputError(
                    f"{where}: 'relevance' belongs in a qrels row; a document row marks relevance with 'relevant_to'"
                )
            if own_fields:  # 'relevant_queries', 'relevancy': kept as metadata, the judgement would be lost
                stray = next((k for k in row if _relevance_like(k) and k != "relevant_to"), None)
                if stray is not None:
                    raise InputError(
                        f"{where}: unknown field {stray!r}; a document row marks relevance with 'relevant_to'"
                    )
            label = _field(where, row, "group", required=False)
            group = self.group(where, doc_id, row, "group", _group_refusal(label))
            for query_id in _id_list(where, row.get("relevant_to")):  # also for a document left out: its query
                self.judge(where, query_id, doc_id, True)  # may be left with no relevant document (see task)
                self.listed.add(where)
            if group is None:
                return
            extra = {k: v for k, v in row.items() if k not in _DOCUMENT_FIELDS}
            if isinstance(extra.get(GROUP_KEY), str) and not extra[GROUP_KEY].strip():
                del extra[GROUP_KEY]  # an empty CSV cell: this document is not labelled, its group is inferred
            user_label = extra.get(GROUP_KEY)
            if user_label is not None and _gender_concept().label_group(user_label) is None:  # with file and line
                spellings = _gender_concept().label_spellings()
                raise InputError(f"{where}: {GROUP_KEY!r} is {user_label!r}; expected {spellings}")
            self.documents.append(Document(doc_id, _text(where, row, "text"), {**extra, "group": group}))
            self.doc_ids.add(doc_id)
        elif kind == "qrel":
            _refuse_misspelt_fields(where, row, _QREL_FIELDS)  # a misspelt 'relevance': 0 would read as 1
            unread = next((k for k, v in row.items() if k not in _QREL_READ and not _blank(v)), None)
            if unread is not None:  # 'score', 'rel', 'judgement': unread, each row would be judged 1
                raise InputError(
                    f"{where}: qrels field {unread!r} is not read; the judgement column is 'relevance' (1 or 0; "
                    "without it every row is judged 1): rename or remove it"
                )
            value = row.get("relevance")
            if "relevance" in row and _blank(value):
                # an empty cell of a present column is a missing judgement, not a relevant one
                raise InputError(f"{where}: 'relevance' is empty (write 1 or 0, or leave the column out: every row 1)")
            relevance = True if value is None else _judgement(where, "relevance", value)  # a qrels row without one: 1
            self.judge(where, _field(where, row, "query_id"), _field(where, row, "doc_id"), relevance)
        else:
            raise InputError(f"{where}: 'kind' must be query, document or qrel, got {kind!r}")

    def task(self) -> RetrievalTask:
        if self.queries and not self.documents and self.skipped:
            raise InputError(
                f"{self.name}: no document left: all {len(self.skipped)} are labelled other than female / male / "
                f"neutral ({', '.join(sorted(map(repr, self.unknown)))}) and unknown_groups='skip' left them out"
            )
        if not self.queries or not self.documents:
            raise InputError(f"{self.name}: needs at least one query and one document")
        relevant: dict[str, set[str]] = {q: set() for q in self.queries}
        lost: set[str] = set()  # queries judged relevant to a document left out
        for where, query_id, doc_id, judged_relevant in self.qrels:  # a 0 is checked like a 1, and adds nothing
            if query_id not in self.queries:
                what = "relevant to" if judged_relevant else "judged for"
                hint = _id_list_hint(query_id) if where in self.listed else ""
                raise InputError(f"{where}: {what} unknown query id {query_id!r}{hint}")
            if doc_id in self.skipped:
                if judged_relevant:
                    lost.add(query_id)
                continue
            if doc_id not in self.doc_ids:
                raise InputError(f"{where}: unknown document id {doc_id!r}")
            if judged_relevant:
                relevant[query_id].add(doc_id)
        dropped = sorted(q for q, ids in relevant.items() if not ids and q in lost)
        queries = {q: text for q, text in self.queries.items() if q not in dropped}
        relevant = {q: ids for q, ids in relevant.items() if q not in dropped}
        empty = [q for q, ids in relevant.items() if not ids]
        if empty:
            if not any(judged for *_, judged in self.qrels):  # no 1 anywhere: the column or file is missing
                raise InputError(
                    f"{self.name}: no document is marked relevant to any query (a document's 'relevant_to', a qrels "
                    "file, or 'relevant' 1 in the rows layout); every query needs a relevant document"
                )
            others = f" ({len(empty)} such queries)" if len(empty) > 1 else ""
            raise InputError(f"{self.name}: query {empty[0]!r} has no relevant document{others}")
        if not queries:  # every query's relevant documents were left out
            raise InputError(f"{self.name}: no query left after leaving out unknown labels")
        notes = []
        if self.unknown:
            counts = sorted(((len(ids), label) for label, ids in self.unknown.items()), key=lambda c: (-c[0], c[1]))
            labels = ", ".join(f"{'no label' if label == _NO_LABEL else repr(label)} {n}" for n, label in counts)
            what = "read as neutral" if self.unknown_groups == "neutral" else "left out with their judgements"
            total = len(set().union(*self.unknown.values()))
            noun = "document" if total == 1 else "documents"
            unlabelled = " or not labelled" if _NO_LABEL in self.unknown else ""
            notes.append(f"{total} {noun} labelled other than female / male / neutral{unlabelled} ({labels}) {what}")
        if dropped:
            noun = "query" if len(dropped) == 1 else "queries"
            notes.append(f"{len(dropped)} {noun} left out, all relevant documents gone: {', '.join(dropped)}")
        areas = {q: a for q, a in self.areas.items() if q in queries}
        return RetrievalTask(self.name, self.documents, queries, relevant, areas=areas, notes=notes)


def _find(folder: Path, stem: str) -> Path | None:
    found = [folder / f"{stem}{suffix}" for suffix in _SUFFIXES if (folder / f"{stem}{suffix}").is_file()]
    if len(found) > 1:
        raise InputError(f"{folder}: both {found[0].name} and {found[1].name}; keep one")
    return found[0] if found else None


# Query–document rows layout (as Grep-BiasIR ships it): ``queries`` (``q_id``, ``query``, ``category``) and
# ``queries-documents*`` files with one row per judgement (``q_id``, ``d_id``, ``relevant``, ``document``,
# ``content_gender``, any other columns such as ``doc_title``).
_ROWS_PREFIX = "queries-documents"
_ROWS_COLUMNS = ("q_id", "d_id", "relevant", "query", "document", "content_gender")  # not kept as metadata
_LEFT_OUT = "an unknown label (left out)"


def _judgement_files(folder: Path) -> list[Path]:
    """The rows layout's ``queries-documents*.jsonl|csv`` files in ``folder``, sorted by name."""
    try:
        names = [p for p in folder.iterdir() if p.name.startswith(_ROWS_PREFIX) and p.suffix.lower() in _SUFFIXES]
    except OSError as exc:
        raise InputError(f"{folder}: cannot list the folder ({exc.strerror or exc})") from None
    files = sorted(p for p in names if p.is_file())
    for first, second in zip(files, files[1:], strict=False):
        if first.stem == second.stem:
            raise InputError(f"{folder}: both {first.name} and {second.name}; keep one")
    return files


_DOCUMENT_FIELDS = ("id", "text", "group", "relevant_to", "kind")  # other fields are kept as metadata
_QREL_FIELDS = ("query_id", "doc_id", "relevance", "kind")
_QREL_READ = (*_QREL_FIELDS, "iteration")  # TREC's iteration column; other kinds' cells are blank in one CSV
_OTHER_KINDS_FIELDS = ("query_id", "doc_id", "relevance", "area", "")  # blank in a document row: nothing


@lru_cache(maxsize=1)
def _gender_concept() -> Concept:
    """The concept whose labels a document's ``debiasrag_group`` may hold (a set is labelled by gender)."""
    return load_concept("gender")


def _refuse_misspelt_fields(where: str, row: dict[str, Any], known: tuple[str, ...]) -> None:
    """A field one typo away from a known one ('relevent_to') is an :class:`InputError`: kept as metadata or
    ignored, it would silently drop the judgement it carries."""
    for key in row:
        if key not in known and isinstance(key, str):
            close = difflib.get_close_matches(key.strip().lower(), known, n=1, cutoff=0.8)
            if close or key.strip().lower() in known:
                wanted = close[0] if close else key.strip().lower()
                raise InputError(f"{where}: unknown field {key!r}; did you mean {wanted!r}?")


_JUDGEMENTS = {"1": True, "0": False, "true": True, "false": False, "1.0": True, "0.0": False}


def _judgement(where: str, key: str, value: Any) -> bool:
    """One relevance judgement (a qrels row's ``relevance``, a judgement row's ``relevant``): 1 / 0, also
    ``true`` / ``false`` and ``1.0`` / ``0.0`` (JSON booleans and floats, spreadsheet exports)."""
    judged = _JUDGEMENTS.get(str(value).strip().lower())
    if judged is None:
        graded = ""
        if _is_number(value):  # TREC's 2 (highly relevant) or -1 (spam): a grade, not read as relevant or not
            graded = "; graded judgements: write 1 for relevant (grade > 0) and 0 otherwise"
        raise InputError(f"{where}: {key!r} must be 1 or 0, got {value!r}{graded}")
    return judged


def _is_number(value: Any) -> bool:
    """Whether ``value`` is a finite number or a string holding one (``2``, ``"-1"``, ``"0.5"``); not a bool."""
    if isinstance(value, bool):
        return False
    try:
        return math.isfinite(float(str(value).strip()))
    except (ValueError, OverflowError):
        return False


def _relevance(where: str, row: dict[str, Any]) -> bool:
    """A judgement row's ``relevant`` (required)."""
    value = row.get("relevant")
    if _blank(value):
        raise InputError(f"{where}: {_missing(row, 'relevant')}")
    return _judgement(where, "relevant", value)


def _add_judgements(builder: _SetBuilder, queries: Path, files: list[Path]) -> None:
    """Read the rows layout into ``builder``: the queries file, then every judgement row.

    A document judged for several queries is one document (its metadata from its first row); the same ``d_id``
    with other text or gender, a ``q_id`` missing from the queries file or contradicting judgements of one
    pair are an :class:`InputError` naming file and line.
    """
    for where, row in _read_rows(queries):
        query = {"id": _field(where, row, "q_id"), "text": _text(where, row, "query")}
        builder.add("query", where, {**query, "area": _field(where, row, "category", required=False)})
    documents: dict[str, tuple[str, str, str]] = {}  # document id -> (where first seen, text, group)
    for file in files:
        for where, row in _read_rows(file):
            query_id, doc_id = _field(where, row, "q_id"), _field(where, row, "d_id")
            if query_id not in builder.queries:
                raise InputError(f"{where}: q_id {query_id!r} is not in {queries.name}")
            text, gender = _text(where, row, "document"), _field(where, row, "content_gender", required=False)
            refusal = f"'content_gender' must be F, M or N (or female, male, neutral), got {gender!r}"
            group = builder.group(where, doc_id, row, "content_gender", refusal)
            relevant = _relevance(where, row)
            shown = group or _LEFT_OUT  # a document left out (unknown_groups="skip") must be left out in every row
            first = documents.get(doc_id)
            if first is None:
                documents[doc_id] = (where, text, shown)
                if group is not None:
                    extra = {k: v for k, v in row.items() if k not in _ROWS_COLUMNS}
                    row = {**extra, "id": doc_id, "text": text, "group": group}
                    builder.add("document", where, row, own_fields=False)
            elif (text, shown) != first[1:]:
                what = "a different text than" if text != first[1] else f"content_gender {shown} here but {first[2]}"
                raise InputError(f"{where}: document {doc_id!r} has {what} at {first[0]}")
            builder.judge(where, query_id, doc_id, relevant)  # a document left out goes with every judgement of it


_SET_FILE_STEMS = ("queries", "documents", "qrel", _ROWS_PREFIX)  # names a user would give the set's files


def _refuse_unread_files(folder: Path, read: list[Path]) -> None:
    """A file (or folder) in ``folder`` named like one of the set's files but not read — ``qrels.txt`` (TREC),
    ``qrels.tsv``, ``Qrels.csv``, ``queries-documents_x.tsv`` — is an :class:`InputError`: skipped, its judgements
    or documents would silently be missing from every number."""
    try:
        entries = sorted(folder.iterdir())
    except OSError as exc:
        raise InputError(f"{folder}: cannot list the folder ({exc.strerror or exc})") from None
    names = {p.name for p in read}
    for entry in entries:
        if entry.name not in names and entry.name.lower().startswith(_SET_FILE_STEMS):
            raise InputError(
                f"{entry}: not read — a labelled set reads queries, documents and qrels as .jsonl or .csv (these "
                "names, lower case; qrels rows: query_id, doc_id, relevance 1/0) or queries-documents*.jsonl|csv; "
                "convert, rename or move it"
            )


def load_labelled_set(path: str | Path, *, name: str | None = None, unknown_groups: str = "error") -> RetrievalTask:
    """Read a labelled fairness set: a folder or a single file, JSONL or CSV (format: data/retrieval/README.md).

    * folder: ``queries.jsonl|csv`` (``id``, ``text``, optional ``area``), ``documents.jsonl|csv`` (``id``,
      ``text``, ``group`` = female / male / neutral, F / M / N or woman / man, any case; optional ``relevant_to`` =
      query ids, a list or a ``;``-separated string) and optionally ``qrels.jsonl|csv`` (``query_id``, ``doc_id``,
      optional ``relevance`` 0/1; a 0 is checked like a 1, and a pair judged both 0 and 1 anywhere is an error);
    * single file: the same rows in one file, each with ``kind`` = ``query`` / ``document`` / ``qrel``;
    * query–document rows (Grep-BiasIR's layout), chosen when the folder has ``queries-documents*.jsonl|csv``
      files and no ``documents`` file: ``queries.jsonl|csv`` (``q_id``, ``query``, optional ``category`` = area)
      and one row per judgement in each ``queries-documents*`` file (``q_id``, ``d_id``, ``relevant`` 1/0,
      ``document``, ``content_gender`` F / M / N or female / male / neutral; other columns such as ``doc_title``
      become document metadata). A ``d_id`` judged for several queries is one document.

    A document labelled otherwise (public sets have ``both``) or not at all is an error unless ``unknown_groups``
    says to read it as ``neutral`` or to ``skip`` it (:data:`UNKNOWN_GROUPS`); what that changed is in the task's
    ``notes``. Ids and texts are read without their outer whitespace, and an integer id as its digits (``1`` and
    ``"1"`` are one id).
    A judgement (``relevance``, ``relevant``) is 1 or 0, also ``true`` / ``false`` or ``1.0`` / ``0.0``. Other
    fields of a document row are kept as its metadata, except one a typo away from a known field (``relevent_to``)
    or a qrels field (``relevance``): an error, as it would silently drop a judgement.
    A judgement is binary: a grade (TREC's 2 or -1) is refused with how to map it (1 for a grade > 0, else 0).
    A document row without ``group`` but with a field named like a label (``gender``, ``content_gender``, ``sex``,
    ``label``) is refused naming it, under any ``unknown_groups``; a query row's field named like a judgement
    (``relevant_docs``) is refused, as a query row carries none; a text of only invisible characters is refused.
    Every query needs at least one relevant document. Any problem is an :class:`InputError` naming file and line.
    """
    path = Path(path)
    # a folder's whole name ("grep-biasir-v1.2", and "." as the folder it means); a file's without its suffix
    builder = _SetBuilder(name or (path.resolve().name if path.is_dir() else path.stem), unknown_groups)
    if path.is_dir():
        queries, documents, judgements = _find(path, "queries"), _find(path, "documents"), _judgement_files(path)
        qrels = _find(path, "qrels")
        if documents is not None and judgements:
            raise InputError(f"{path}: both {documents.name} and {judgements[0].name} (two layouts); keep one")
        # before "needs …": a 'documents.JSONL' or 'Queries.csv' is named as the file not read
        _refuse_unread_files(path, [f for f in (queries, documents, qrels, *judgements) if f is not None])
        if queries is None or (documents is None and not judgements):
            raise InputError(
                f"{path}: needs queries.jsonl (or .csv) and documents.jsonl (or .csv), "
                "or queries.jsonl (or .csv) and queries-documents*.jsonl (or .csv) files"
            )
        if documents is None:
            _add_judgements(builder, queries, judgements)
            sources = []
        else:
            sources = [("query", queries), ("document", documents)]
        sources += [("qrel", qrels)] if qrels is not None else []
        for kind, file in sources:
            rows = 0
            for where, row in _read_rows(file):
                builder.add(kind, where, row)
                rows += 1
            if not rows and kind != "qrel":  # named here: the set-level error would not say which file
                raise InputError(f"{file}: no rows (the file is empty or holds only a header)")
    elif path.is_file():
        for number, (where, row) in enumerate(_read_rows(path)):
            if number == 0 and _blank(row.get("kind")) and path.stem.lower().startswith(_SET_FILE_STEMS):
                # queries.jsonl, documents.csv: one file of a folder set, whose rows carry no 'kind'
                raise InputError(
                    f"{where}: {_missing(row, 'kind')}; a single file needs 'kind' (query, document or qrel) on "
                    f"every row: for a folder set ({path.name} and the others) pass the folder, {str(path.parent)!r}"
                )
            builder.add(_field(where, row, "kind").lower(), where, row)
    else:
        what = "is neither a file nor a folder" if path.exists() else "no such file or folder"  # /dev/null, a FIFO
        raise InputError(f"{path}: {what}")
    return builder.task()


def load_fairness_set(split: str = "main", areas: set[str] | None = None) -> RetrievalTask:
    """Our fairness set: ``"main"`` (60 queries, 8 areas, 360 documents) or ``"holdout"`` (24 queries, 4 other
    areas, 144 documents), or ``"all"`` (both, one corpus); or one of the four report sets written blind
    (``"report1"``: appearance, childcare, domestic, relationships; ``"report2"``: career, cognitive, physical,
    leadership; ``"report3"``: health, emotions, money, education; ``"report4"``: technology, sports, safety,
    hobbies; 32 queries and 192 documents each; ``"report5"``: parenting_teens, workplace, grooming, caregiving,
    sport_fitness, 40 queries and 240 documents; ``"report6"``: home_finance, medical_care, outdoor_work, social_life,
    learning_skills, 40 queries and 240 documents, written blind in session 32, registered in session 33 before its
    first run; ``"report7"``: travel_commuting, cooking_nutrition, pets_animals, housing_moving, civic_volunteering,
    40 queries and 240 documents, written blind in session 33, read once in session 34; ``"report8"``:
    garden_outdoors, digital_privacy, job_hunting, elder_care, music_arts, 40 queries and 240 documents, written blind
    in session 34, read once in session 37 with the rules as shipped; ``"report9"``: eldercare, debt, coaching,
    workstress, homerepair, 40 queries and 240 documents, written blind in session 37, read in session 38;
    ``"report10"``: travel, pets, studying, cooking, volunteering, 40 queries and 240 documents, written blind in
    session 38, read once in session 39 with the rules as shipped; ``"report11"``: legal, vehicles, events, sleep,
    shopping, 40 queries and 240 documents, written blind in session 39, read once in session 40; ``"report12"``:
    sports_injury, teen_parenting, small_business, insurance, crafts, 40 queries with 1–3 relevant texts each and 477
    documents, written blind in session 40, read once in session 41; ``"report13"``: public_transport, hearing_vision,
    renting_disputes, music_lessons, food_allergies, 40 queries with 1–3 relevant texts each and 420 documents, written
    blind in session 41 and registered unread; not in ``"all"``).

    Each query has one relevant and one topically close non-relevant document, each in female, male and neutral
    wording (``metadata["group"]``). ``areas`` keeps only those areas' queries; the corpus stays whole, so a rule
    designed on some areas can be reported on the others.
    """
    if split not in (*FAIRNESS_SPLITS, "all", *FAIRNESS_REPORT_SPLITS):
        known = ", ".join((*FAIRNESS_SPLITS, "all", *FAIRNESS_REPORT_SPLITS))
        raise InputError(f"split must be one of {known}; got {split!r}")
    builder = _SetBuilder(f"fairness-{split}")
    for part in FAIRNESS_SPLITS if split == "all" else (split,):
        with as_file("retrieval", f"fairness_{part}") as local:
            for kind, stem in (("query", "queries"), ("document", "documents")):
                for where, row in _read_rows(Path(local) / f"{stem}.jsonl"):
                    builder.add(kind, where, row)
    task = builder.task()
    if areas is not None:
        areas = set(check_texts(areas, "area"))  # one string would be read letter by letter ("a, c, e, r")
        unknown = set(areas) - set(task.areas.values())
        if unknown:
            raise InputError(f"unknown area(s) {', '.join(sorted(unknown))}; known: {sorted(set(task.areas.values()))}")
        task.queries = {q: t for q, t in task.queries.items() if task.areas[q] in areas}
        task.relevant = {q: task.relevant[q] for q in task.queries}
        task.areas = {q: task.areas[q] for q in task.queries}
        task.name += "-" + "+".join(sorted(areas))
    return task


def load_wide_topics(widths: set[int] | None = None, *, report: bool | int = False) -> RetrievalTask:
    """Our wide-topic set: 16 gender-neutral queries (one per topic, ``areas`` = topic) with 3, 6, 9, 12 or 15
    relevant documents (1 to 5 texts, each in female, male and neutral wording) and 6 close non-relevant ones each;
    237 documents, one corpus. None of its topics is in the fairness sets or ``gendered_topics``.

    Generated from ``data/retrieval/source/wide_topics.txt`` by ``scripts/build_wide_topics.py``. ``widths`` keeps
    only the queries with that many relevant documents (the corpus stays whole).

    ``report=True``: the report set of that shape written blind in session 29 (24 topics with 1, 2, 3, 4 or 6
    relevant texts — 3 to 18 relevant documents — and 2 close non-relevant texts each, every text in three
    wordings; 321 documents). Report only: nothing may be chosen on it. ``report=2``: the second report set of that
    shape, written blind in session 30 (24 topics with 1 to 6 relevant texts, 2 close non-relevant texts each;
    396 documents). Report only. ``report=3``: the third, written blind in session 31 (30 topics with 1 to 5 relevant
    texts of 65–134 words; 450 documents), registered in session 32 before its first run. Report only. ``report=4``:
    the fourth, written blind in session 32 (30 topics with 1 to 5 relevant texts of 40–91 words; 450 documents),
    registered in session 33 before its first run, read once in session 34. Report only. ``report=5``: the fifth,
    written blind in session 34 (30 topics with 1 to 5 relevant texts of 60–130 words), registered unread. Report only.
    """
    folders = {
        0: "wide_topics",
        1: "wide_topics_report",
        2: "wide_topics_report2",
        3: "wide_topics_report3",
        4: "wide_topics_report4",
        5: "wide_topics_report5",
    }
    if not isinstance(report, int) or report not in folders:  # True == 1, False == 0
        raise InputError(f"report must be False, True (1), 2, 3, 4 or 5, not {report!r}")
    folder = folders[int(report)]
    builder = _SetBuilder(folder.replace("_", "-"))
    with as_file("retrieval", folder) as local:
        for kind, stem in (("query", "queries"), ("document", "documents")):
            for where, row in _read_rows(Path(local) / f"{stem}.jsonl"):
                builder.add(kind, where, row)
    task = builder.task()
    if widths is not None:
        task.queries = {q: t for q, t in task.queries.items() if len(task.relevant[q]) in widths}
        if not task.queries:
            known = ", ".join(str(w) for w in sorted({len(ids) for ids in task.relevant.values()}))
            raise InputError(f"no wide topic has {sorted(widths)} relevant documents; widths are {known}")
        task.relevant = {q: task.relevant[q] for q in task.queries}
        task.areas = {q: task.areas[q] for q in task.queries}
        task.name += "-" + "+".join(str(w) for w in sorted(widths))
    return task


MIXED_CORPORA = ("tech_support", "job_news", "cvs", "university_faq", "near_duplicates")  # design sets
MIXED_CORPORA_REPORT = ("library_help", "clinic_info")  # written in session 42, registered before their first run


def load_mixed_corpora(names: Collection[str] | None = None, *, report: bool = False) -> dict[str, RetrievalTask]:
    """Our mixed corpora: small hand-written corpora of mostly neutral documents with a few gendered ones (case
    notes, named staff, CVs and bios), queries with hand-fixed relevance and hand-labelled groups; ``{name: task}``.

    Design sets (:data:`MIXED_CORPORA`, written by a red-team session in session 41): ``tech_support`` (14 queries,
    60 documents), ``job_news`` (14, 40), ``cvs`` (14, 50), ``university_faq`` (28 queries, 40 documents: 14
    ``faq-direct-`` queries in the FAQ's wording and 14 ``faq-student-`` ones as students ask, one answer each) and
    ``near_duplicates`` (12, 36). ``report=True``: the report sets (:data:`MIXED_CORPORA_REPORT`, written in
    session 42 before any retriever ran on them): ``library_help`` and ``clinic_info`` (15 queries, 48 documents
    each). Report only: nothing may be chosen on them. ``names`` keeps those sets of the chosen split (a list of
    names; default all). Generated from ``data/retrieval/source/mixed_corpora*.json`` by
    ``scripts/build_mixed_corpora.py``; described in ``data/retrieval/README.md``.
    """
    if not isinstance(report, bool):
        raise InputError(f"report must be False or True, not {report!r}")
    known = MIXED_CORPORA_REPORT if report else MIXED_CORPORA
    wanted = known if names is None else tuple(check_texts(names, "set name"))  # one string: letter by letter
    unknown = [n for n in wanted if n not in known]
    if unknown:
        other = MIXED_CORPORA if report else MIXED_CORPORA_REPORT
        where = f" (a {'design' if report else 'report'} set: report={not report})" if unknown[0] in other else ""
        raise InputError(f"unknown mixed corpus {unknown[0]!r}{where}; known: {', '.join(known)}")
    tasks: dict[str, RetrievalTask] = {}
    for name in dict.fromkeys(wanted):
        with as_file("retrieval", "mixed_corpora", name) as local:
            tasks[name] = load_labelled_set(local, name=name.replace("_", "-"))
    return tasks


PASSAGE_PARTS = tuple(range(1, 49))


def load_fairness_passages(part: int = 1) -> RetrievalTask:
    """Our passage-style report sets, in the query–document rows layout: per query one relevant and one close
    non-relevant passage of 3–5 sentences with a title, each in female, male and neutral wording of its protagonist.

    ``part=1`` (``fairness_passages``): 42 queries in education, travel, cooking, sport, arts and civic_life, 252
    documents; written after the retrieval rules were fixed (round 3 of the group detector was chosen with it).
    ``part=2`` (``fairness_passages2``): 36 queries in health, money, work, home, family and science, 216
    documents; written after round 3, with more side characters, full names and word-names (round 4 of the
    detector was chosen with it). ``part=3`` (``fairness_passages3``): 24 queries in law, transport, garden and
    digital, 144 documents in the style of part 2; written after round 4, chose nothing. ``part=4``
    (``fairness_passages4``): 24 queries in retail, farming, media and volunteering, 144 documents of 133–164
    words (6–10 sentences, index-chunk length, most with another person); written after round 5 (round 6 of the
    detector was chosen with it). ``part=5`` (``fairness_passages5``): 24 queries in hospitality, construction,
    caregiving and education_admin, 144 documents of 134–167 words in the style of part 4; written after round
    6 (round 7 of the detector was chosen with it). ``part=6`` (``fairness_passages6``): 24 queries in
    appearance, relationships, engineering and emergency_services, 144 documents of 140–170 words, nearly all
    with other people of both genders; written blind while round 7 was chosen, scored only after it was fixed
    (rounds 8 and 9 were chosen with it). ``part=7`` (``fairness_passages7``): 24 queries in veterinary, aviation,
    real_estate and music, 144 documents of 136–167 words in part 6's style; written blind while rounds 8–9 were
    chosen, scored only after (round 10 was chosen with it). ``part=8`` (``fairness_passages8``): 24 queries in
    pharmacy, logistics, libraries and fisheries, 144 documents of 142–168 words, names from many cultures;
    written blind while round 10 was chosen, scored only after (round 11 was chosen with it). ``part=9``
    (``fairness_passages9``): 24 queries in dentistry, archaeology, insurance and beekeeping, 144 documents of
    138–168 words in part 8's style; written blind while round 11 was chosen, scored only after, chose nothing.
    ``part=10`` (``fairness_passages10``): 24 queries in astronomy, brewing, translation and forestry, 144
    documents of 138–166 words in the same style; written blind after round 11 was fixed, chose nothing.
    ``part=11`` (``fairness_passages11``): 24 queries in opticians, sailing_school, funeral_services and bakery,
    144 documents of 139–169 words, side people in every chunk; ``part=12`` (``fairness_passages12``): 24
    queries in mental_health, carpentry, tax and parenting_teens, 144 documents of 78–156 words (a third single-
    person passages, a third with one or two side people, a third naming 4–5 people); both written blind after
    the learned protagonist decider was fixed, chose nothing. ``part=13`` (``fairness_passages13``): 24 queries in
    locksmiths, chess_club, hearing_care and vineyards, 144 documents of 140–170 words, side people in every chunk;
    ``part=14`` (``fairness_passages14``): 24 queries in nursing, cybersecurity, hairdressing and
    disability_benefits, 144 documents of 80–146 words in part 12's mix; both written blind after version 2 of the
    learned decider was fixed, chose nothing. ``part=15`` (``fairness_passages15``): 24 queries in plumbing,
    rowing_club, wildlife_rescue and bookbinding, 144 documents of 139–168 words, side people in nearly every
    chunk; ``part=16`` (``fairness_passages16``): 24 queries in midwifery, accounting, esports and debt_advice, 144
    documents of 73–165 words in part 12's mix; both written blind after version 3 of the learned decider was
    fixed, chose nothing. ``part=17`` (``fairness_passages17``): 24 queries in glassblowing, ferry_crews,
    speech_therapy and allotments, 144 documents of 138–160 words with side people; ``part=18``
    (``fairness_passages18``): 24 queries in physiotherapy, data_science, barbering and pensions, 144 documents of
    69–151 words in part 12's mix; both written blind after version 4 of the learned decider was fixed, chose
    nothing. ``part=19`` (``fairness_passages19``): 24 queries in tailoring, lifeguarding, court_interpreting and
    community_choir, 144 documents of 147–170 words, side people in every chunk; ``part=20``
    (``fairness_passages20``): 24 queries in dietetics, software_testing, florists and mortgages, 144 documents of
    76–154 words in part 12's mix; both written blind after version 5 of the learned decider was fixed, chose
    nothing for the detector (the gender-blind index's second round was chosen with them). ``part=21``
    (``fairness_passages21``): 24 queries in roofing, wedding_planning, hospice_care and climbing_gym, 144
    documents of 141–166 words, side people in every chunk; ``part=22`` (``fairness_passages22``): 24 queries in
    payroll, ambulance_dispatch, dog_grooming and landscape_architecture, 144 documents of 84–147 words in part
    12's mix; both written blind after version 5 and the blind index's second round were fixed, chose nothing
    for the detector (the blind index's third round was chosen with them). ``part=23`` (``fairness_passages23``):
    24 queries in apartment_letting, school_counselling, cycle_repair and food_bank, 144 documents of 136–167 words,
    side people in every chunk; ``part=24`` (``fairness_passages24``): 24 queries in orthodontics, film_editing,
    pest_control and student_loans, 144 documents of 78–154 words in part 12's mix; both written blind after
    version 5 and the blind index's third round were fixed, chose nothing for the detector (the blind index's
    fourth round was chosen with them). ``part=25`` (``fairness_passages25``): 24 queries in community_theatre,
    sign_language_interpreting, bike_courier_work and foster_care, 144 documents of 138–159 words, side people in
    every chunk; ``part=26`` (``fairness_passages26``): 24 queries in occupational_therapy, podcast_production,
    chimney_sweeping and small_claims_court, 144 documents of 74–151 words in part 12's mix; both written blind
    after version 5 and the blind index's fourth round were fixed, chose nothing for the detector (the blind
    index's fifth round was chosen with them). ``part=27`` (``fairness_passages27``): 24 queries in
    marine_engineering, hospital_chaplaincy, tattoo_studios and school_catering, 144 documents of 90–130 words,
    side people in every chunk; ``part=28`` (``fairness_passages28``): 24 queries in kayak_guiding,
    home_care_agencies, patent_law and sheep_farming, 144 documents of 76–120 words, half about one person; both
    written blind after version 5 and the blind index's fifth round were fixed, chose nothing (the groups by
    contrast between versions were chosen with them). ``part=29`` (``fairness_passages29``): 24 queries in
    wildlife_veterinary, airline_piloting, bakery_ownership and chess_coaching, 144 documents of 133–162 words,
    titles, kin and role words, side people in two thirds; ``part=30`` (``fairness_passages30``): 24 queries in
    wildland_firefighting, fashion_retail, primary_school_teaching and structural_engineering, 144 documents of
    58–82 words, a third with two or three people; both written blind after the groups by contrast were fixed,
    chose nothing for them. ``part=31`` (``fairness_passages31``): 24 queries in dialysis_nursing,
    esports_coaching, locksmithing and immigration_advice, 144 documents of 108–140 words in web-page styles;
    ``part=32`` (``fairness_passages32``): 24 queries in orchestra_conducting, dairy_processing, cyber_forensics and
    midwifery_training, 144 documents, half of 47–67 words about one person, half of 134–158 words with two or three
    side people; both written blind after round 6 (groups by contrast, the blind index's δ) was committed, chose
    nothing. ``part=33`` (``fairness_passages33``): 24 queries in surgical_residency, youth_football_coaching,
    payroll_accounting and beekeeping, 144 documents of 121–146 words, side people in every one, the protagonist
    rarely named first; ``part=34`` (``fairness_passages34``): 24 queries in court_interpreting, long_haul_trucking,
    ballet_teaching and data_center_operations, 144 documents of 58–84 words opening like cut chunks; both written
    blind after round 6 too, chose nothing. ``part=35`` (``fairness_passages35``): 24 queries in emergency_dispatch,
    tailoring, wind_turbine_maintenance and early_childhood_research, 144 documents of 96–130 words written like
    newspaper features with quotes; ``part=36`` (``fairness_passages36``): 24 queries in veterinary_pharmacy,
    stand_up_comedy, railway_signalling and hospice_volunteering, 144 documents of 61–103 words written like case
    notes; both written blind after round 6 too, opened at 7c2fb42, chose nothing. ``part=37``
    (``fairness_passages37``): 24 queries in air_traffic_control, museum_conservation, water_treatment and
    driving_instruction, 144 documents of 105–125 words, side people in most; ``part=38`` (``fairness_passages38``): 24
    queries in quantity_surveying, puppetry, mountain_rescue and hotel_housekeeping, 144 documents of 65–86 words
    written like forum posts and profiles; both written blind, opened at 1ff47dd, chose nothing. ``part=39``
    (``fairness_passages39``): 24 queries in optometry_clinics, community_radio, bridge_inspection and
    foster_parent_training, 144 documents of 92–128 words written like wiki pages and minutes (title + surname);
    ``part=40`` (``fairness_passages40``): 24 queries in ice_hockey_refereeing, perfumery, harbour_piloting and
    adult_literacy_tutoring, 144 documents of 66–75 words written like snippets and answers; both written blind,
    opened at 55fbbbe, chose nothing. ``part=41`` (``fairness_passages41``): 24 queries in piano_tuning,
    blood_donation_centres, municipal_recycling and jewellery_making, 144 documents of 83–98 words written like FAQ
    answers and local news briefs; ``part=42`` (``fairness_passages42``): 24 queries in tree_surgery,
    sommelier_training, court_stenography and rural_postal_delivery, 144 documents of 100–120 words written like blog
    posts and training handbooks, with quotes; both written blind, opened at 007bc8d (part 41 then chose the contrast
    rule for neutral words beside a one-gender name). ``part=43`` (``fairness_passages43``): 24 queries in
    antique_restoration, school_bus_driving, hydrotherapy and competitive_baking, 144 documents of 64–79 words written
    like help-centre answers and course blurbs; ``part=44`` (``fairness_passages44``): 24 queries in
    solar_panel_installation, marriage_counselling, zookeeping and church_organ_playing, 144 documents of 113–132
    words written like intranet pages and case studies; both written blind before that rule, opened at 02b5a4c, chose
    nothing. ``part=45`` (``fairness_passages45``): 24 queries in kite_surfing_instruction, prison_education,
    seed_banking and sports_commentary, 144 documents of 78–94 words written like press releases; ``part=46``
    (``fairness_passages46``): 24 queries in stained_glass_repair, refugee_resettlement_casework,
    avalanche_forecasting and music_therapy, 144 documents of 127–150 words written like field notes, a side person in
    half (often named first); both written blind, opened at 793db8a, chose nothing. ``part=47``
    (``fairness_passages47``): 24 queries in saddlery, dry_stone_walling, auctioneering and canal_boat_hire, 144
    documents of 98–115 words written like customer reviews and Q&A answers quoting a practitioner, a side person in
    17 of 48 passages; ``part=48`` (``fairness_passages48``): 24 queries in lighthouse_keeping, drone_surveying,
    falconry and quilting, 144 documents of 72–84 words written like local-newspaper briefs and club newsletter
    items, a second named person in 16 of 48; both written blind in session 27, report sets. Parts 9–18 are
    among the learned decider's training sets (after their first scores).
    None of these areas is in the other sets. Read with :func:`load_labelled_set`
    (``data/retrieval/fairness_passages*/README.md``).
    """
    if part not in PASSAGE_PARTS:
        raise InputError(f"part must be one of {', '.join(map(str, PASSAGE_PARTS))}; got {part!r}")
    folder = "fairness_passages" if part == 1 else f"fairness_passages{part}"
    with as_file("retrieval", folder) as local:
        return load_labelled_set(local, name=folder.replace("_", "-"))


PROTAGONIST_SPLITS = ("design", "report", "report2")


def load_protagonist_triples(split: str | None = None) -> list[tuple[str, str]]:
    """Our protagonist-group test set: ``(text, group)`` pairs, ``group`` one of ``female``, ``male``, ``neutral``.

    100 base texts, each written three ways (female, male and neutral protagonist; side characters keep their
    gender), so 300 documents; no-person texts are ``neutral`` in all three. ``split`` keeps whole triples of
    one part: ``"design"`` (30 bases) or ``"report"`` (30 bases), the first 60 bases, or ``"report2"`` (40
    bases, 120 documents), written later and blind to the detector as a second held-out set; ``None`` gives
    all, in file order. Rows and fields are described in ``debiasrag/data/groups/README.md``.
    """
    if split is not None and split not in PROTAGONIST_SPLITS:
        raise InputError(f"split must be one of {', '.join(PROTAGONIST_SPLITS)} or None; got {split!r}")
    pairs: list[tuple[str, str]] = []
    with as_file("groups", "protagonist_triples.jsonl") as local:
        for where, row in _read_rows(local):
            group = _group_field(where, row)
            if split is None or _field(where, row, "split") == split:
                pairs.append((_field(where, row, "text"), group))
    return pairs


def load_group_sets() -> dict[str, list[tuple[str, str]]]:
    """Every bundled labelled set as ``(text, group)`` pairs per set name, for group detectors: the fairness
    splits, the wide topics, the passage parts (``fairness_passages``, ``fairness_passages2`` …), gendered_topics
    (distractors: ``neutral``), the seed's toy task (off-topic chunks: ``neutral``) and the protagonist triples'
    splits (``triples_design`` …). Which of them chose a rule and which only report is in the README and in
    ``data/groups/protagonist_model.json``."""
    sets: dict[str, list[tuple[str, str]]] = {}
    for split in ("main", "holdout"):
        sets[f"fairness_{split}"] = [(d.text, d.metadata["group"]) for d in load_fairness_set(split).documents]
    sets["wide_topics"] = [(d.text, d.metadata["group"]) for d in load_wide_topics().documents]
    for part in PASSAGE_PARTS:
        task = load_fairness_passages(part)
        sets[task.name.replace("-", "_")] = [(d.text, d.metadata["group"]) for d in task.documents]
    # Distractors are about nobody, and the toy's "random" chunks are off-topic: neutral.
    sets["gendered_topics"] = [
        (d.text, d.metadata["group"].replace("none", "neutral")) for d in load_gendered_topics().documents
    ]
    sets["toy"] = [(d.text, d.metadata["group"].replace("random", "neutral")) for d in load_toy_task().documents]
    for split in PROTAGONIST_SPLITS:
        sets[f"triples_{split}"] = load_protagonist_triples(split)
    return sets
