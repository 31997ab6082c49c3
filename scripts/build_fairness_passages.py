"""Expand the passage sets' templates into the shipped query–document rows (CSV) files.

``debiasrag/data/retrieval/source/fairness_passages.json`` (part 1) holds, per category, seven queries, each with
one relevant and one non-relevant passage template; ``[female|male|neutral]`` picks the protagonist's wording and
the ``tokens`` (``{sub}``, ``{pos}``, ``{is}`` …) expand to such choices. ``fairness_passages2.json``,
``fairness_passages3.json`` … ``fairness_passages48.json`` list their queries with ``{female|male|neutral}``
choices (``normalise``: see :func:`render_braces`). Writes
``debiasrag/data/retrieval/fairness_passages{,2,…,48}/queries.csv`` and one ``queries-documents_<category>.csv``
per category (``q_id, d_id, relevant, query, doc_title, document, content_gender``; d_id ``<q_id>-rel-F`` …).

Run: ``.venv/bin/python scripts/build_fairness_passages.py``
"""

from __future__ import annotations

import csv
import io
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path

from debiasrag.fileio import atomic_write_text

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "debiasrag/data/retrieval"
CHOICE = re.compile(r"\[([^\[\]|]*)\|([^\[\]|]*)\|([^\[\]|]*)\]")
BRACES = re.compile(r"\{([^{}|]*)\|([^{}|]*)\|([^{}|]*)\}")
HEADER = ["q_id", "d_id", "relevant", "query", "doc_title", "document", "content_gender"]


def render(template: str, tokens: dict[str, str], wording: int) -> str:
    """The template in one wording (0 female, 1 male, 2 neutral)."""
    for token, choice in tokens.items():
        template = template.replace(token, choice)
    text = CHOICE.sub(lambda m: m.group(wording + 1), template)
    if any(c in text for c in "[]{}|"):
        sys.exit(f"unexpanded template: {text[:80]}")
    return text


def render_braces(template: str, wording: int, normalise: bool | str = True) -> str:
    """A part 2–5 template in one wording: ``{female|male|neutral}``; with ``normalise`` whitespace collapsed and
    the first letter capitalised (parts 2 and 3), ``"collapse"`` whitespace only (part 5), ``false`` as written."""
    text = BRACES.sub(lambda m: m.group(wording + 1), template)
    if any(c in text for c in "{}|"):
        sys.exit(f"unexpanded template: {text[:80]}")
    if not normalise:
        return text
    if normalise == "collapse":
        return " ".join(text.split())
    text = re.sub(r"\s+", " ", text).strip().replace(" ,", ",")
    return text[0].upper() + text[1:]


Rows = tuple[list[list], dict[str, list[list]]]  # queries.csv rows, and each category's document rows


def passage_rows(q_id: str, item: dict, render_one: Callable[[str, int], str]) -> list[list]:
    """The six document rows of one query: relevant and non-relevant passage × F / M / N wording."""
    rows = []
    for kind, relevant in (("rel", 1), ("non", 0)):
        passage = item["relevant" if relevant else "non_relevant"]
        for wording, gender in enumerate("FMN"):
            text = render_one(passage["template"], wording)
            rows.append([q_id, f"{q_id}-{kind}-{gender}", relevant, item["query"], passage["title"], text, gender])
    return rows


def part_rows(part: int) -> Rows:
    """The rows of part ``part`` (1–48) rendered from its source, without writing them."""
    data = json.loads((DATA / f"source/fairness_passages{part if part > 1 else ''}.json").read_text(encoding="utf-8"))
    queries: list[list] = []
    documents: dict[str, list[list]] = {}
    if part == 1:  # categories with seven queries each; ids from the category prefix; tokens + [a|b|c]
        for category in data["categories"]:
            documents[category["name"]] = []
            for n, item in enumerate(category["queries"], start=1):
                q_id = f"P-{category['prefix']}-{n:02d}"
                queries.append([q_id, category["name"], item["query"]])
                documents[category["name"]] += passage_rows(
                    q_id, item, lambda template, wording: render(template, data["tokens"], wording)
                )
        return queries, documents
    documents = {category: [] for category in data["categories"]}
    normalise = data.get("normalise", True)
    for item in data["queries"]:
        queries.append([item["q_id"], item["category"], item["query"]])
        documents[item["category"]] += passage_rows(
            item["q_id"], item, lambda template, wording: render_braces(template, wording, normalise)
        )
    return queries, documents


def build(part: int) -> None:
    """Write part ``part``'s ``queries.csv`` and ``queries-documents_<category>.csv`` files."""
    out = DATA / f"fairness_passages{part if part > 1 else ''}"
    queries, documents = part_rows(part)
    out.mkdir(exist_ok=True)  # a new part's folder
    for category, rows in documents.items():
        write(out / f"queries-documents_{category}.csv", HEADER, rows)
    write(out / "queries.csv", ["q_id", "category", "query"], queries)


def main() -> None:
    for part in range(1, 49):  # debiasrag.datasets.PASSAGE_PARTS
        build(part)


def write(path: Path, header: list[str], rows: list[list]) -> None:
    text = io.StringIO(newline="")
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    atomic_write_text(path, text.getvalue())  # a failed write leaves the shipped file as it was


if __name__ == "__main__":
    main()
