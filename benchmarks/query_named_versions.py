"""How often a labelled set's query names a word its candidates' versions differ in (session 45).

    .venv/bin/python benchmarks/query_named_versions.py [--sets NAME ...]

Since session 45 two versions of a text (:func:`debiasrag.versions.find_versions`) are two texts for a query that
names a word in which they differ — a name one of them has, a gendered word — (``query_tells_apart``), so
`balanced` / `dynamic` neither swap one for the other nor return them as one text's wordings. The labelled sets'
queries are gender-neutral by design; this counts, per set, the queries for which any pair of versions among the
top 50 (MiniLM; the gender concept's words, as the retriever uses them) is told apart, and prints each such query
with the pair: where there is none, every measured cell of the retrieval studies is unchanged by the rule.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import numpy as np

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))
from study_sets import run_commit, study_set  # noqa: E402

from debiasrag.bench.report import make_context  # noqa: E402
from debiasrag.embedders import embed_documents, embed_queries  # noqa: E402
from debiasrag.groups import detector  # noqa: E402
from debiasrag.versions import find_versions, query_tells_apart  # noqa: E402

READ = [
    "main",
    "holdout",
    "topics",
    "wide",
    "wide_design2",
    *(f"report{i}" for i in range(1, 13)),
    "wide_report",
    *(f"wide_report{i}" for i in range(2, 6)),
    *(f"passages{i}" for i in range(1, 49)),
]
POOL = 50


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=READ)
    args = parser.parse_args()
    embedder = make_context(None, load_now=True).embedder
    words = detector("gender").concept_words  # as the retriever passes them (GroupOf.concept_words)
    print(f"debiasrag at {run_commit()}; top {POOL} of the plain query (MiniLM-L6)\n")
    total = told = 0
    for name in args.sets:
        task = study_set(name)()
        texts = [d.text for d in task.documents]
        scores = embed_queries(embedder, list(task.queries.values())) @ embed_documents(embedder, texts).T
        for row, (query_id, query) in zip(scores, task.queries.items()):
            top = [texts[i] for i in np.argsort(-row, kind="stable")[:POOL]]
            pairs = [
                (i, j)
                for i, mine in enumerate(find_versions(top, memo=True, concept_words=words))
                for j in mine
                if i < j and query_tells_apart(top[i], top[j], query, words)
            ]
            total += 1
            if pairs:
                told += 1
                i, j = pairs[0]
                print(f"{name} {query_id} {query!r}: {top[i][:60]!r} / {top[j][:60]!r}", flush=True)
    print(f"\nqueries {total}, with versions told apart {told}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
