"""Expand the fairness set's template sources into the shipped JSONL files.

``debiasrag/data/retrieval/source/fairness_<split>.txt`` holds each query with one relevant (``R:``) and one
non-relevant (``N:``) document template; ``{female|male|neutral}`` picks the wording per group. This script writes
``debiasrag/data/retrieval/fairness_<split>/queries.jsonl`` and ``documents.jsonl`` (the documented user format)
and refuses templates whose female and male versions are equal or whose neutral version holds a gendered pronoun.

Run: ``.venv/bin/python scripts/build_fairness_set.py``
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "debiasrag" / "data" / "retrieval"
GROUPS = ("female", "male", "neutral")
CHOICE = re.compile(r"\{([^{}|]*)\|([^{}|]*)\|([^{}|]*)\}")
# Neutral wording must not give the group away, nor break singular-they agreement.
NEUTRAL_FORBIDDEN = re.compile(r"\b(she|he|her|hers|him|his|herself|himself)\b|\bthey (is|was|has|does)\b", re.I)


def render(template: str, group: str) -> str:
    index = GROUPS.index(group)
    return CHOICE.sub(lambda m: m.group(index + 1), template)


def parse(path: Path) -> tuple[list[dict], list[dict]]:
    queries: list[dict] = []
    documents: list[dict] = []
    area = None
    counts: dict[str, int] = {}
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("# "):
            continue
        if line.startswith("## "):
            area = line[3:].strip()
            continue
        tag, _, text = line.partition(": ")
        if area is None or tag not in ("Q", "R", "N"):
            sys.exit(f"{path}:{number}: expected 'Q:', 'R:' or 'N:' inside an area")
        if tag == "Q":
            counts[area] = counts.get(area, 0) + 1
            queries.append({"id": f"{area}-{counts[area]:02d}", "text": text, "area": area})
            continue
        query_id = queries[-1]["id"]
        kind = "rel" if tag == "R" else "non"
        documents += document_rows(text, f"{query_id}-{kind}", [query_id] if tag == "R" else [], f"{path}:{number}")
    return queries, documents


def document_rows(template: str, id_prefix: str, relevant_to: list[str], where: str) -> list[dict]:
    """The female, male and neutral rows (``<id_prefix>-<group>``) of one checked template; exits on a bad one."""
    versions = {g: render(template, g) for g in GROUPS}
    if versions["female"] == versions["male"] or CHOICE.search(template) is None:
        sys.exit(f"{where}: female and male versions are identical")
    if NEUTRAL_FORBIDDEN.search(versions["neutral"]) or "{" in versions["neutral"]:
        sys.exit(f"{where}: neutral version is gendered or malformed: {versions['neutral']}")
    return [
        {"id": f"{id_prefix}-{group}", "text": versions[group], "group": group, "relevant_to": list(relevant_to)}
        for group in GROUPS
    ]


def write_jsonl(rows: list[dict], path: Path) -> None:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def main() -> None:
    for split in ("main", "holdout"):
        queries, documents = parse(ROOT / "source" / f"fairness_{split}.txt")
        out = ROOT / f"fairness_{split}"
        out.mkdir(exist_ok=True)
        write_jsonl(queries, out / "queries.jsonl")
        write_jsonl(documents, out / "documents.jsonl")
        areas = sorted({q["area"] for q in queries})
        print(f"{split}: {len(queries)} queries, {len(documents)} documents, areas {', '.join(areas)}")


if __name__ == "__main__":
    main()
