"""Write the mixed-corpora sets (hand-written small corpora, mostly neutral documents) from their JSON source.

``debiasrag/data/retrieval/source/mixed_corpora.json`` (the design sets, written by a red-team session in session
41) and ``source/mixed_corpora_report.json`` (the report sets, written in session 42) hold, per set, its documents
(``id``, hand-labelled ``group`` ``f`` / ``m`` / ``n``, ``text``) and its queries (``id``, ``text``, ``area``,
``relevant`` document ids). This script checks them (unique ids, known groups, every query with a relevant document
that exists, no empty text) and writes ``debiasrag/data/retrieval/mixed_corpora/<name>/queries.jsonl`` and
``documents.jsonl`` in the documented user format (``group`` female / male / neutral, ``relevant_to``). It prints
the sha256 of each source: the report source must keep the one registered in ``data/retrieval/README.md``.

Run: ``.venv/bin/python scripts/build_mixed_corpora.py``
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_fairness_set import ROOT, write_jsonl  # noqa: E402

SOURCES = ("mixed_corpora.json", "mixed_corpora_report.json")
GROUPS = {"f": "female", "m": "male", "n": "neutral"}
SPLITS = ("design", "report")


def rows(entry: dict, where: str) -> tuple[list[dict], list[dict]]:
    """The queries and documents rows of one set of the source; exits on a bad set."""
    name = entry["name"]
    if entry.get("split") not in SPLITS:
        sys.exit(f"{where}: set {name!r}: split must be one of {SPLITS}")
    doc_ids = [d["id"] for d in entry["documents"]]
    query_ids = [q["id"] for q in entry["queries"]]
    for kind, ids in (("document", doc_ids), ("query", query_ids)):
        repeated = sorted({i for i in ids if ids.count(i) > 1})
        if repeated:
            sys.exit(f"{where}: set {name!r}: {kind} id {repeated[0]!r} repeated")
    relevant_to: dict[str, list[str]] = {i: [] for i in doc_ids}
    for query in entry["queries"]:
        if not query["relevant"] or not query["text"].strip():
            sys.exit(f"{where}: set {name!r}: query {query['id']!r} has no relevant document or no text")
        for doc_id in query["relevant"]:
            if doc_id not in relevant_to:
                sys.exit(f"{where}: set {name!r}: query {query['id']!r} names unknown document {doc_id!r}")
            relevant_to[doc_id].append(query["id"])
    documents = []
    for doc in entry["documents"]:
        if doc["group"] not in GROUPS or not doc["text"].strip():
            sys.exit(f"{where}: set {name!r}: document {doc['id']!r} has group {doc['group']!r} or no text")
        row = {
            "id": doc["id"],
            "text": doc["text"],
            "group": GROUPS[doc["group"]],
            "relevant_to": relevant_to[doc["id"]],
        }
        documents.append(row)
    queries = [{"id": q["id"], "text": q["text"], "area": q["area"]} for q in entry["queries"]]
    return queries, documents


def main() -> None:
    out_root = ROOT / "mixed_corpora"
    seen: set[str] = set()
    for source in SOURCES:
        path = ROOT / "source" / source
        raw = path.read_bytes()
        print(f"{source}: sha256 {hashlib.sha256(raw).hexdigest()}")
        for entry in json.loads(raw.decode("utf-8"))["sets"]:
            if entry["name"] in seen:
                sys.exit(f"{path}: set {entry['name']!r} defined twice")
            seen.add(entry["name"])
            queries, documents = rows(entry, str(path))
            out = out_root / entry["name"]
            out.mkdir(parents=True, exist_ok=True)
            write_jsonl(queries, out / "queries.jsonl")
            write_jsonl(documents, out / "documents.jsonl")
            counts = {g: sum(d["group"] == g for d in documents) for g in GROUPS.values()}
            widths = sorted(len(q["relevant"]) for q in entry["queries"])
            print(
                f"  {entry['name']} ({entry['split']}): {len(queries)} queries, {len(documents)} documents "
                f"{counts}, relevant per query {widths}"
            )


if __name__ == "__main__":
    main()
