"""Expand the wide-topic set's template source into the shipped JSONL files.

``debiasrag/data/retrieval/source/wide_topics.txt`` holds, per topic (``## name``), one query (``Q:``) and any
number of relevant (``R:``) and non-relevant (``N:``) templates; ``{female|male|neutral}`` picks the wording per
group, as in ``fairness_<split>.txt``. Writes ``debiasrag/data/retrieval/wide_topics/queries.jsonl`` and
``documents.jsonl`` (the documented user format; document ids ``<topic>-rel<i>-<group>`` / ``<topic>-non<i>-<group>``)
with the same checks as ``build_fairness_set.py``.

Run: ``.venv/bin/python scripts/build_wide_topics.py``
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_fairness_set import ROOT, document_rows, write_jsonl  # noqa: E402


def parse(path: Path) -> tuple[list[dict], list[dict]]:
    """Queries and documents (rows of the documented format) from the template source ``path``."""
    queries: list[dict] = []
    documents: list[dict] = []
    topic = None
    counts = {"R": 0, "N": 0}
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("# "):
            continue
        if line.startswith("## "):
            topic, counts = line[3:].strip(), {"R": 0, "N": 0}
            continue
        tag, _, text = line.partition(": ")
        if topic is None or tag not in ("Q", "R", "N"):
            sys.exit(f"{path}:{number}: expected 'Q:', 'R:' or 'N:' inside a topic")
        if tag == "Q":
            if queries and queries[-1]["id"] == topic:
                sys.exit(f"{path}:{number}: a second query for topic {topic!r}")
            queries.append({"id": topic, "text": text, "area": topic})
            continue
        if not queries or queries[-1]["id"] != topic:
            sys.exit(f"{path}:{number}: document before the topic's query")
        counts[tag] += 1
        kind = f"{'rel' if tag == 'R' else 'non'}{counts[tag]}"
        documents += document_rows(text, f"{topic}-{kind}", [topic] if tag == "R" else [], f"{path}:{number}")
    return queries, documents


def main() -> None:
    queries, documents = parse(ROOT / "source" / "wide_topics.txt")
    out = ROOT / "wide_topics"
    out.mkdir(exist_ok=True)
    write_jsonl(queries, out / "queries.jsonl")
    write_jsonl(documents, out / "documents.jsonl")
    widths = sorted(sum(q["id"] in d["relevant_to"] for d in documents) for q in queries)
    print(f"wide_topics: {len(queries)} topics, {len(documents)} documents, relevant per topic {widths}")


if __name__ == "__main__":
    main()
