"""Measuring anonymizers: name recall on a gold set, ordinary-word survival, STS-triplet AUC (seed 002, Sec. 5.1).

Gold set ``debiasrag/data/names/ner_gold.jsonl``: hand-written sentences, one JSON object per line with ``text``
and the ``persons`` / ``locations`` / ``organizations`` it mentions (every whole-word occurrence counts);
30 of them contain no names at all and capitalise ordinary words ("Hunter green", "Will you", "Grace under").
The detector was developed looking at this set (three misses led to the hyphenated-name, FAC-typed-name and
noun-tagged-name rules); ``ner_gold_heldout.jsonl`` was written afterwards and only measured.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from debiasrag.anonymize.base import Entity
from debiasrag.anonymize.operators import stub_spans
from debiasrag.names import Triplet

# The one STS triplet loader and the one "identical names" variant live in debiasrag.names; re-exported here.
from debiasrag.names import identical_names as identical_names
from debiasrag.names import load_sts_triplets as load_sts_triplets
from debiasrag.resources import data_file

KINDS = ("persons", "locations", "organizations")
_WORD = re.compile(r"[^\W_]+(?:['\u2019-][^\W_]+)*")


def load_gold(name: str = "ner_gold.jsonl") -> list[dict[str, Any]]:
    """The gold set (``"ner_gold_heldout.jsonl"``: 40 more sentences written after the detector was finished,
    never used to change it; ``"ner_gold_report.jsonl"``, ``"ner_gold_report2.jsonl"`` (160 texts each) and
    ``"ner_gold_report3.jsonl"`` (200: chat and technical text): written blind in session 28;
    ``"ner_gold_report4.jsonl"`` and ``"ner_gold_report5.jsonl"`` (200 each: formal, workplace, casual, mixed):
    written blind in session 29; ``"ner_gold_report6.jsonl"`` (240, twelve genres): written blind in session 37;
    ``"ner_gold_report7.jsonl"`` and ``"ner_gold_report8.jsonl"`` (240 each, twelve genres, half of them chat and
    transcripts): written blind in session 38; ``"ner_gold_report9.jsonl"`` (240, twelve genres: clinical notes,
    Markdown, tickets, runbooks, news, word names, e-mail, product pages, casual chat, legal, HTML, mixed): written
    blind in session 47; which of them chose a rule is in ``benchmarks/anonymize_report.py``)."""
    path = data_file("names", name)
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def gold_spans(row: dict[str, Any], kinds: Sequence[str] = KINDS) -> list[tuple[int, int]]:
    """Sorted (start, end) spans of every whole-word occurrence of the row's gold names of the given ``kinds``."""
    spans: set[tuple[int, int]] = set()
    for kind in kinds:
        for name in row.get(kind, []):
            for match in re.finditer(r"(?<!\w)" + re.escape(name) + r"(?!\w)", row["text"]):
                spans.add((match.start(), match.end()))
    return sorted(spans)


def name_recall(
    rows: Sequence[dict[str, Any]], found: Sequence[Sequence[Entity]], kinds: Sequence[str] = KINDS
) -> float:
    """Share of gold name occurrences whose every character is covered by some detected entity."""
    total = hit = 0
    for row, entities in zip(rows, found):
        covered = np.zeros(len(row["text"]) + 1, dtype=bool)
        for ent in entities:
            covered[ent.start : ent.end] = True
        for start, end in gold_spans(row, kinds):
            total += 1
            hit += bool(covered[start:end].all())
    return hit / total if total else 1.0


def word_survival(rows: Sequence[dict[str, Any]], outputs: Sequence[str]) -> float:
    """Share of ordinary (non-name) words of the originals still present in the anonymized texts.

    Titles and prepositions that removal drops with a gold name by design ("Dr.", "in" before a final name;
    see :func:`debiasrag.anonymize.operators.stub_spans`) are not counted as ordinary words.
    """
    total = kept = 0
    for row, output in zip(rows, outputs):
        text = row["text"]
        mask = [False] * len(text)
        names = sorted(gold_spans(row))
        stubs = stub_spans(text, [Entity(text[s:e], "NAME", s, e) for s, e in names])
        for start, end in names + stubs:
            mask[start:end] = [True] * (end - start)
        words = Counter(m.group(0) for m in _WORD.finditer(text) if not any(mask[m.start() : m.end()]))
        remaining = Counter(m.group(0) for m in _WORD.finditer(output))
        total += sum(words.values())
        kept += sum(min(count, remaining[word]) for word, count in words.items())
    return kept / total if total else 1.0


def sts_auc(
    triplets: Sequence[Triplet],
    encode: Callable[[list[str]], np.ndarray],
    transform: Callable[[list[str]], list[str]] | None = None,
) -> float:
    """AUC-ROC of cosine(query, positive) = 1 vs cosine(query, negative) = 0 over the triplets (seed Table 6)."""
    from sklearn.metrics import roc_auc_score

    texts = [t[k] for t in triplets for k in ("query", "positive", "negative")]
    if transform is not None:
        texts = transform(texts)
    vectors = np.asarray(encode(texts), dtype=np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    scores, labels = [], []
    for i in range(0, len(texts), 3):
        scores += [float(vectors[i] @ vectors[i + 1]), float(vectors[i] @ vectors[i + 2])]
        labels += [1, 0]
    return float(roc_auc_score(labels, scores))


def triplet_names(triplets: Sequence[Triplet]) -> set[str]:
    """Every name the ``triplets`` mention, over all their name kinds."""
    return {name for t in triplets for names in t["names"].values() for name in names}
