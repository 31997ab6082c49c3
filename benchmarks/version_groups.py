"""Groups read by contrast between versions of a text, against the detector on each document alone (issue 10).

Where a corpus holds versions of one text (our fairness sets hold every passage in a female, a male and a neutral
wording), the words in which the versions differ carry the group (``GroupDetector.contrast_groups``). For each
labelled set this prints:

* the token overlap (``debiasrag.versions.token_overlap``) of the least similar pair of versions of one passage
  (ids ``<passage>-<wording>``) and of the most similar pair of different passages — ``MIN_OVERLAP`` must separate
  them; it was set to the middle of the design sets' gap before the report sets were read;
* the share of version pairs :func:`~debiasrag.versions.find_versions` finds (its candidates: the texts sharing most
  of a text's rarest words, ``CANDIDATES`` of them), as ``FaissIndex.versions`` looks for them;
* the detector's accuracy against the labels on each document alone and with versions read by contrast, by
  :func:`~debiasrag.groups.group_census` — the groups ``debiasrag index`` stores (``FaissIndex.store_groups`` and
  ``ShardWriter`` read them the same way). Nothing is embedded: versions are found by their words.

Design sets (round 6 of the group evidence): main, holdout, passages 1–28; report sets: passages 29–40, written blind
by helpers while this was built (29–30) or after it was committed (31–40), opened only after the commit.

    .venv/bin/python benchmarks/version_groups.py [--sets main holdout 1 ... 40]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from itertools import combinations
from pathlib import Path

import numpy as np
from study_sets import run_commit

from debiasrag.bench._common import md_table
from debiasrag.corpus import Document
from debiasrag.datasets import RetrievalTask, load_fairness_passages, load_fairness_set
from debiasrag.groups import group_census
from debiasrag.versions import CANDIDATES, MIN_OVERLAP, find_versions, token_overlap

ROOT = Path(__file__).resolve().parents[1]
DESIGN = ["main", "holdout", *map(str, range(1, 29))]
REPORT = [str(part) for part in range(29, 47)]  # 31-46 written after round 6 was committed


def load(name: str) -> RetrievalTask:
    return load_fairness_set(name) if name in ("main", "holdout") else load_fairness_passages(int(name))


def passage_of(doc_id: object) -> str:
    """The passage a wording belongs to: the id without its last ``-<wording>`` part."""
    return str(doc_id).rsplit("-", 1)[0]


def measure(task: RetrievalTask) -> dict[str, float]:
    docs = task.documents
    same: list[float] = []
    other: list[float] = []
    for a, b in combinations(range(len(docs)), 2):
        overlap = token_overlap(docs[a].text, docs[b].text)
        (same if passage_of(docs[a].id) == passage_of(docs[b].id) else other).append(overlap)
    found = find_versions([doc.text for doc in docs])
    pairs = [(a, b) for a, b in combinations(range(len(docs)), 2) if passage_of(docs[a].id) == passage_of(docs[b].id)]
    gold = [doc.metadata["group"] for doc in docs]
    unlabelled = [Document(doc.id, doc.text) for doc in docs]  # the set's labels must not reach the detector
    alone = group_census(unlabelled, versions=False)[0]
    contrast = group_census(unlabelled)[0]
    return {
        "least overlap, versions": min(same) if same else float("nan"),
        "most overlap, other passages": max(other) if other else float("nan"),
        "version pairs found": sum(b in found[a] for a, b in pairs) / len(pairs) if pairs else float("nan"),
        "accuracy alone": float(np.mean([g == x for g, x in zip(gold, alone)])),
        "accuracy with versions": float(np.mean([g == x for g, x in zip(gold, contrast)])),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", default=DESIGN + REPORT, help="main, holdout, passage parts")
    args = parser.parse_args()
    rows, results, pooled = [], {}, []
    for name in args.sets:
        task = load(name)
        pooled += [(f"{name}:{passage_of(doc.id)}", doc.text) for doc in task.documents]
        results[name] = measure(task)
        rows.append([name, *results[name].values()])
        print(f"{name} done", file=sys.stderr)
    commit = run_commit()
    print(f"debiasrag at {commit}; MIN_OVERLAP {MIN_OVERLAP}, CANDIDATES {CANDIDATES}\n")
    columns = list(next(iter(results.values())))
    print(md_table(["set", *columns], rows, digits=3) + "\n")
    for label, sets in (("design", DESIGN), ("report", REPORT)):
        chosen = [s for s in sets if s in results]
        if not chosen:
            continue
        low = min(results[s]["least overlap, versions"] for s in chosen)
        high = max(results[s]["most overlap, other passages"] for s in chosen)
        alone = np.mean([results[s]["accuracy alone"] for s in chosen])
        contrast = np.mean([results[s]["accuracy with versions"] for s in chosen])
        print(
            f"{label} sets ({len(chosen)}): versions overlap ≥ {low:.3f}, other passages ≤ {high:.3f} "
            f"(middle {(low + high) / 2:.3f}); mean accuracy alone {alone:.3f}, with versions {contrast:.3f}"
        )
    # every set's documents in one batch, as annotate_groups would get a corpus: versions found by words alone
    start = time.perf_counter()
    found = find_versions([text for _, text in pooled])
    seconds = time.perf_counter() - start
    pairs = [(a, b) for a, row in enumerate(found) for b in row if a < b]
    right = sum(pooled[a][0] == pooled[b][0] for a, b in pairs)
    total = sum(n * (n - 1) // 2 for n in Counter(passage for passage, _ in pooled).values())
    print(
        f"all {len(pooled)} documents pooled: {right} of {total} version pairs found, {len(pairs) - right} other "
        f"pairs taken for versions, {seconds:.2f} s (word_candidates + find_versions, one core)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
