"""Bundled retrieval test sets: seed 000's Appendix E toy task and our gendered multi-topic set."""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from typing import Any

from debiasrag.concepts import Concept
from debiasrag.corpus import Document


def _load(*parts: str) -> dict[str, Any]:
    return json.loads(resources.files("debiasrag").joinpath("data", *parts).read_text(encoding="utf-8"))


@dataclass
class RetrievalTask:
    """Documents, neutral queries and, per query, the ids of the relevant documents."""

    name: str
    documents: list[Document]
    queries: dict[str, str]  # query name -> neutral query text
    relevant: dict[str, set[str]]  # query name -> relevant document ids
    concept: Concept | None = None


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
