"""Expand the passage set's templates into the shipped query–document rows (CSV) files.

``debiasrag/data/retrieval/source/fairness_passages.json`` holds, per category, seven queries, each with one
relevant and one non-relevant passage template; ``[female|male|neutral]`` picks the protagonist's wording and the
``tokens`` (``{sub}``, ``{pos}``, ``{is}`` …) expand to such choices. Writes
``debiasrag/data/retrieval/fairness_passages/queries.csv`` and one ``queries-documents_<category>.csv`` per
category (``q_id, d_id, relevant, query, doc_title, document, content_gender``; d_id ``<q_id>-rel-F`` …).

Run: ``.venv/bin/python scripts/build_fairness_passages.py``
"""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "debiasrag/data/retrieval/source/fairness_passages.json"
OUT = ROOT / "debiasrag/data/retrieval/fairness_passages"
CHOICE = re.compile(r"\[([^\[\]|]*)\|([^\[\]|]*)\|([^\[\]|]*)\]")
HEADER = ["q_id", "d_id", "relevant", "query", "doc_title", "document", "content_gender"]


def render(template: str, tokens: dict[str, str], wording: int) -> str:
    """The template in one wording (0 female, 1 male, 2 neutral)."""
    for token, choice in tokens.items():
        template = template.replace(token, choice)
    text = CHOICE.sub(lambda m: m.group(wording + 1), template)
    if any(c in text for c in "[]{}|"):
        sys.exit(f"unexpanded template: {text[:80]}")
    return text


def main() -> None:
    data = json.loads(SOURCE.read_text(encoding="utf-8"))
    queries = []
    for category in data["categories"]:
        rows = []
        for n, item in enumerate(category["queries"], start=1):
            q_id = f"P-{category['prefix']}-{n:02d}"
            queries.append([q_id, category["name"], item["query"]])
            for kind, relevant in (("rel", 1), ("non", 0)):
                passage = item["relevant" if relevant else "non_relevant"]
                for wording, gender in enumerate("FMN"):
                    text = render(passage["template"], data["tokens"], wording)
                    rows.append(
                        [q_id, f"{q_id}-{kind}-{gender}", relevant, item["query"], passage["title"], text, gender]
                    )
        write(OUT / f"queries-documents_{category['name']}.csv", HEADER, rows)
    write(OUT / "queries.csv", ["q_id", "category", "query"], queries)


def write(path: Path, header: list[str], rows: list[list]) -> None:
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)


if __name__ == "__main__":
    main()
