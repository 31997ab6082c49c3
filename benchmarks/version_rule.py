"""Versions differ in the concept's words, template siblings in content: ``MAX_APART`` (issue 10; session 39).

    .venv/bin/python benchmarks/version_rule.py [--report] [--no-retrieval]

Two texts sharing most of their words (``MIN_OVERLAP``) were taken for versions of one text; a red team (session 38)
found texts filled in from one template — a staff directory — taken for versions too, and ``balanced``'s version swaps
(at any score) bringing in a cafeteria cook's profile for a nurse query. ``debiasrag.versions.content_apart`` now
counts the content words each text has that the other lacks (not names, numbers, function words, the concept's
words and their neutral counterparts, verb agreement); a pair is a version when the side with fewer has at most
``MAX_APART``. This prints, for thresholds 0–3 and "any" (the rule before):

* on every labelled retrieval set but the unread ``fairness_report10`` (their versions: ids ``<text>-<wording>``),
  the share of version pairs passing the overlap that the threshold keeps;
* on the template corpora (``data/versions/``: ``template_design.jsonl``, the red team's staff directory, design;
  with ``--report`` also ``template_corpora.jsonl``, ten corpora written blind by a helper in session 39 after the
  threshold was fixed), the pairs passing the overlap: true versions kept, and siblings of one topic and of different
  topics taken;
* unless ``--no-retrieval``: each template corpus indexed with the packaged MiniLM, its queries run with ``topk``,
  ``balanced`` and ``dynamic`` at k = 1, 2, 3, 4, 5, 10 under the rule before and the shipped one — documents of
  another topic returned, mean |#F − #M|, the topic's documents returned over min(k, their number) (recall@k), and
  per-query F1 against all of the topic's documents.

The threshold (1) was chosen on the labelled sets and the red team's directory before ``template_corpora.jsonl`` was
written or read.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections import Counter
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from study_sets import study_set  # noqa: E402

import debiasrag.versions as versions  # noqa: E402
from debiasrag.bench._common import md_table  # noqa: E402
from debiasrag.resources import read_jsonl  # noqa: E402

THRESHOLDS = (0, 1, 2, 3)
WORDING = re.compile(r"-(female|male|neutral|F|M|N|f|m|n)(?=-|$)")
LABELLED = [
    "main",
    "holdout",
    *(f"report{i}" for i in range(1, 10)),
    *(f"passages{i}" for i in range(1, 49)),
    "topics",
    "wide",
    "wide_report",
    "wide_report2",
    "wide_report3",
    "wide_report4",
    "wide_design2",
]
KS = (1, 2, 3, 4, 5, 10)


def fewer_apart(first: str, second: str) -> float:
    """Content words on the side with fewer (:func:`debiasrag.versions.content_apart`); infinite where the texts
    state different facts or differ in no word of a group (no threshold takes them)."""
    return versions._wordings_apart(first, second, None)


def overlap_pairs(texts: list[str]) -> list[tuple[int, int]]:
    """Pairs passing the overlap and window tests (the rule before session 39)."""
    shipped = versions._differ_in_concept
    versions._differ_in_concept = lambda *args: True  # type: ignore[assignment]
    try:
        found = versions.find_versions(texts)
    finally:
        versions._differ_in_concept = shipped  # type: ignore[assignment]
    return [(i, j) for i, row in enumerate(found) for j in row if j > i]


def labelled_table() -> list[list[str]]:
    kept = Counter()
    total = 0
    for name in LABELLED:
        task = study_set(name)()
        texts, ids = [d.text for d in task.documents], [str(d.id) for d in task.documents]
        for i, j in overlap_pairs(texts):
            if WORDING.sub("", ids[i]) != WORDING.sub("", ids[j]):
                continue  # none on these sets: a pair of different texts
            total += 1
            apart = fewer_apart(texts[i], texts[j])
            for t in THRESHOLDS:
                kept[t] += apart <= t
    rows = [[f"≤ {t}", f"{kept[t]} / {total}", f"{kept[t] / total:.4f}"] for t in THRESHOLDS]
    return [*rows, ["any", f"{total} / {total}", "1.0000"]]


def corpora(file: str) -> dict[str, list[dict]]:
    by: dict[str, list[dict]] = {}
    for row in read_jsonl("versions", file):
        by.setdefault(row["corpus"], []).append(row)
    return by


def template_table(files: list[str]) -> list[list[str]]:
    rows = []
    for file in files:
        for name, docs in corpora(file).items():
            texts = [d["text"] for d in docs]
            kinds: dict[str, list[int]] = {"versions": [], "siblings, one topic": [], "siblings, other topics": []}
            for i, j in overlap_pairs(texts):
                a, b = docs[i], docs[j]
                kind = (
                    "versions"
                    if a["family"] == b["family"]
                    else "siblings, one topic"
                    if a["topic"] == b["topic"]
                    else "siblings, other topics"
                )
                kinds[kind].append(fewer_apart(texts[i], texts[j]))
            for kind, aparts in kinds.items():
                rows.append(
                    [name, kind, str(len(aparts))]
                    + [str(sum(a <= t for a in aparts)) for t in THRESHOLDS]
                    + [str(len(aparts))]
                )
    return rows


def retrieval_table(files: list[str]) -> list[list[str]]:
    from debiasrag import DebiasedRetriever, Document, FaissIndex, SentenceTransformerEmbedder

    embedder = SentenceTransformerEmbedder()
    queries: dict[str, list[dict]] = {}
    for file in files:
        for row in read_jsonl("versions", file.replace(".jsonl", "_queries.jsonl").replace("corpora_", "")):
            queries.setdefault(row["corpus"], []).append(row)
    totals: dict[tuple[str, str, int], list[float]] = {}
    for file in files:
        for name, docs in corpora(file).items():
            index = FaissIndex.from_documents([Document(d["id"], d["text"]) for d in docs], embedder)
            topic = {d["id"]: d["topic"] for d in docs}
            group = {d["id"]: d["group"] for d in docs}
            shipped = versions._differ_in_concept
            for rule in ("before", "shipped"):
                if rule == "before":  # overlap and windows only
                    versions._differ_in_concept = lambda *args: True  # type: ignore[assignment]
                versions._pair_shares_enough.cache_clear()
                retriever = DebiasedRetriever(index, embedder)  # groups read again under this rule
                for q in queries[name]:
                    on_topic = sum(t == q["topic"] for t in topic.values())
                    for strategy in ("topk", "balanced", "dynamic"):
                        for k in KS:
                            ids = retriever.retrieve(q["query"], k=k, strategy=strategy).ids
                            off = sum(topic[i] != q["topic"] for i in ids)
                            gap = abs(sum(group[i] == "female" for i in ids) - sum(group[i] == "male" for i in ids))
                            hits = len(ids) - off
                            found = hits / min(on_topic, k)
                            f1 = 2 * hits / (len(ids) + on_topic)  # against every document of the topic
                            t = totals.setdefault((strategy, rule, k), [0, 0, 0, 0, 0])
                            t[0] += off
                            t[1] += gap
                            t[2] += found
                            t[3] += 1
                            t[4] += f1
                versions._differ_in_concept = shipped  # type: ignore[assignment]
            versions._pair_shares_enough.cache_clear()
    rows = []
    for (strategy, rule, k), (off, gap, found, n, f1) in sorted(
        totals.items(), key=lambda x: (x[0][0], x[0][2], x[0][1])
    ):
        if strategy == "topk" and rule == "shipped":
            continue  # topk reads no versions
        rows.append(
            [strategy, rule, str(k), str(int(off)), f"{gap / n:.2f}", f"{found / n:.3f}", f"{f1 / n:.3f}", str(n)]
        )
    return rows


SHIPPED = versions.MAX_APART


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--report", action="store_true", help="also the template corpora written blind")
    parser.add_argument("--no-retrieval", action="store_true")
    args = parser.parse_args()
    files = ["template_design.jsonl", *(["template_corpora.jsonl"] if args.report else [])]
    print(f"MIN_OVERLAP {versions.MIN_OVERLAP}, MAX_APART shipped {SHIPPED}\n")
    print("Version pairs of the labelled sets (all but fairness_report10 and 11) kept, by content words apart:\n")
    print(md_table(["content words apart", "kept", "share"], labelled_table()))
    for file in files:
        print(f"\n{file}: pairs passing the overlap, and how many each threshold takes for versions:\n")
        head = ["corpus", "pairs", "passing overlap", *(f"≤ {t}" for t in THRESHOLDS), "any"]
        print(md_table(head, template_table([file])))
        if not args.no_retrieval:
            print(f"\n{file}: retrieval with the packaged MiniLM (sums / means over queries):\n")
            head = [
                "strategy",
                "version rule",
                "k",
                "other-topic docs returned",
                "mean |#F−#M|",
                "recall@k",
                "F1",
                "queries",
            ]
            print(md_table(head, retrieval_table([file])))


if __name__ == "__main__":
    main()
