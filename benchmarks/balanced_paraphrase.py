"""``balanced``'s gap of one where the neutral wording is a paraphrase, not a version (issue 10, session 40).

    .venv/bin/python benchmarks/balanced_paraphrase.py [--models default PATH ...] [--blind]

Since session 39 two texts are versions only when they differ in the concept's words alone
(:data:`debiasrag.versions.SWAP_APART`), so ``balanced`` no longer swaps a female document for a neutral wording
that is rewritten rather than re-gendered ("When Ama, a mother of two, … she crouched down" / "Crouch down to the
toddler's eye level"). A gap of one is then closed only by a neutral document scoring exactly as high
(``odd_delta`` = 0), and on the wide-topic sets whose neutral wordings are paraphrases ``balanced`` broke issue 10's
k = 6 target (``wide_topics_design2``, ``wide_topics_report2``). The other lever is the score bound of that last
swap. Rules, fixed before any run: ``Balanced(odd_delta=x)`` for x ∈ {0 (as shipped then), 0.25, 0.5, 1} σ, every
one run through the real retriever (:func:`debiasrag.bench.retrieval.build_retriever`: the index's stored groups, the
store's texts for versions, the detector's concept words).

Protocol, fixed before any run: |#F−#M| by the gold labels, recall against each query's relevant set, k = 6 and
10, the three models. Choose on the design sets — main, holdout, passages 1–36, gendered topics, wide_topics and
wide_topics_design2 — by issue 10's targets read per set: count the set × model × k cells with recall below `topk`'s
− 0.01 or |#F−#M| above 0.15 (k = 6) / 0.25 (k = 10); fewest wins (ties: the rule shipped before, 0, then the
smaller bound). Then score, with nothing chosen on them, the sets read before (passages 37–48, report1–10,
wide_topics_report … report5) and, with ``--blind``, ``fairness_report11`` (written blind in session 39, never read
before this run).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from study_sets import query_reports, run_commit, study_set, target_columns, targets_broken  # noqa: E402

from debiasrag.bench._common import md_table  # noqa: E402
from debiasrag.bench.report import make_context  # noqa: E402
from debiasrag.bench.retrieval import build_retriever  # noqa: E402
from debiasrag.strategies import Balanced, Strategy, TopK  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
MODELS = ["default", str(ROOT / ".cache/models/paraphrase-MiniLM-L3-v2"), str(ROOT / ".cache/models/all-mpnet-base-v2")]
KS = (6, 10)
RECALL_BOUND, FM_TARGET = 0.01, {6: 0.15, 10: 0.25}  # issue 10's targets
ODD_DELTAS = (0.0, 0.25, 0.5, 1.0)  # 0.0: shipped before this study (it chose 0.25, now the default)
DESIGN = ["main", "holdout", *(f"passages{p}" for p in range(1, 37)), "topics", "wide", "wide_design2"]
READ = [
    *(f"passages{p}" for p in range(37, 49)),
    *(f"report{i}" for i in range(1, 11)),
    "wide_report",
    "wide_report2",
    "wide_report3",
    "wide_report4",
    "wide_report5",
]
BLIND = ["report11"]


def rules() -> dict[str, Strategy]:
    """Label -> strategy; ``topk`` first (the recall every rule is held to)."""
    return {"topk": TopK(), **{f"odd_delta={x:g}": Balanced(odd_delta=x) for x in ODD_DELTAS}}


def measure(task, embedder) -> dict[tuple[str, int], tuple[float, float]]:  # noqa: ANN001
    """(rule, k) -> (mean |#F−#M| by the gold labels, mean recall) over the task's queries."""
    retriever = build_retriever(task, embedder)
    out = {}
    for label, strategy in rules().items():
        for k in KS:
            rows = query_reports(task, retriever, strategy, k)
            out[label, k] = (
                float(np.mean([r["abs_female_minus_male"] for r in rows])),
                float(np.mean([r["recall"] for r in rows])),
            )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=MODELS, help="'default' = packaged all-MiniLM-L6-v2")
    parser.add_argument("--blind", action="store_true", help="also score fairness_report11 (run once)")
    args = parser.parse_args(argv)
    roles = {"design": DESIGN, "read": READ, **({"blind": BLIND} if args.blind else {})}
    scores: dict[tuple[str, str, str, int], tuple[float, float]] = {}  # (model, set, rule, k)
    models = []
    for model in args.models:
        embedder = make_context(None if model == "default" else model, load_now=True).embedder
        models.append(Path(embedder.name).name)
        for name in (s for sets in roles.values() for s in sets):
            for (rule, k), value in measure(study_set(name)(), embedder).items():
                scores[models[-1], name, rule, k] = value
        print(f"{embedder.name} done", file=sys.stderr, flush=True)
    labels = list(rules())[1:]

    def broken(rule: str, sets: list[str]) -> tuple[int, int, int]:
        return targets_broken(scores, models, sets, rule, KS, RECALL_BOUND, FM_TARGET)

    pick = min(labels, key=lambda r: (sum(broken(r, DESIGN)[:2]), r != labels[0]))
    commit = run_commit()
    print(f"debiasrag at {commit}; cells {' / '.join(models)}\n")
    print(f"chosen on the design sets: **{pick}** (shipped before session 40: {labels[0]})\n")
    rows = []
    wide = [s for s in (*DESIGN, *READ) if s.startswith("wide")]
    groups = {**{role: sets for role, sets in roles.items()}, **{s: [s] for s in wide}}
    for label, sets in groups.items():
        for rule in labels:
            recall, fm, cells = broken(rule, sets)
            cols = target_columns(scores, models, sets, rule, KS)
            rows.append([label, rule, f"{recall} / {fm} of {cells}", *cols])
    head = ["sets", "rule", "cells breaking recall / |#F−#M|", "k=6: |#F−#M| | recall − topk's", "k=10: same"]
    print(md_table(head, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
