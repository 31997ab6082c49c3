"""What `balanced` and `dynamic` cost in relevance on small mixed corpora, against `topk` at the same k.

    HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false \\
        .venv/bin/python benchmarks/relevance_cost.py [--models default PATH ...] [--sets NAME ...] [--report]

The sets are the mixed corpora (:func:`debiasrag.datasets.load_mixed_corpora`; ``data/retrieval/README.md``): small
hand-written corpora of mostly neutral documents with a few gendered ones, relevance and groups labelled by hand. By
default the design sets; ``--report`` the two report sets instead (written in session 42 and registered before their
first run: read them once, choose nothing on them). ``--models``: ``default`` (the packaged all-MiniLM-L6-v2) and/or
model folders (``.cache/models/paraphrase-MiniLM-L3-v2``, ``.cache/models/all-mpnet-base-v2`` from ``make models``).

For each model, set, strategy (``topk``, ``balanced``, ``dynamic``) and k in 1, 2, 3, 5, 6, 10 (a cap for
``dynamic``), one markdown row of means over the set's queries of
:func:`debiasrag.metrics.fairness.query_report`: returned, recall, precision, F1 and |#F − #M| counted with the
hand labels (the strategies themselves balance the groups they infer from the text, as shipped); then against
``topk`` at the same k, summed over queries: the queries whose returned set differs from ``topk``'s (order aside;
a shorter ``dynamic`` list counts), relevant documents ``topk`` returns and the strategy does not (**dropped**),
relevant documents the strategy returns and ``topk`` does not (**added**), off-topic documents the strategy returns
and ``topk`` does not (**off-topic added**), and the worst of those: its rank and score in the plain query's full
ranking. A pooled table sums the sets (means over all their queries), and every dropped relevant document is listed
with its group, rank and score.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from debiasrag.bench._common import md_table, model_short_name
from debiasrag.bench.report import make_context
from debiasrag.bench.retrieval import build_retriever
from debiasrag.datasets import RetrievalTask, load_mixed_corpora
from debiasrag.metrics.fairness import mean_report, query_report
from debiasrag.retriever import DebiasedRetriever

sys.path.insert(0, str(Path(__file__).resolve().parent))
from study_sets import missing_model_folders, run_commit  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
STRATEGIES = ("topk", "balanced", "dynamic")
KS = (1, 2, 3, 5, 6, 10)
HEADERS = (
    "strategy",
    "k",
    "returned",
    "recall",
    "precision",
    "F1",
    "|#F−#M|",
    "changed vs topk",
    "rel. dropped",
    "rel. added",
    "off-topic added",
    "worst off-topic added (rank, score)",
)
COUNTS = ("changed", "dropped", "added", "offtopic_added")
ALIGN = "lrrrrrrrrrrl"


def measure(task: RetrievalTask, retriever: DebiasedRetriever) -> tuple[dict[tuple[str, int], dict], list[tuple]]:
    """``{(strategy, k): row}`` for one set and the list of dropped relevant documents.

    A row holds the mean :func:`query_report` metrics (``means``), the per-query reports (``reports``), the counts of
    :data:`COUNTS` summed over queries, ``queries`` and ``worst`` = (rank, score) of the lowest-ranked off-topic
    document added against ``topk`` (None if none).
    """
    groups = {str(d.id): d.metadata["group"] for d in task.documents}
    rows: dict[tuple[str, int], dict] = {
        (s, k): {"reports": [], **dict.fromkeys(COUNTS, 0), "worst": None} for s in STRATEGIES for k in KS
    }
    drops: list[tuple] = []
    for qid, query in task.queries.items():
        relevant = {str(d) for d in task.relevant[qid]}
        full = retriever.retrieve(query, k=len(task.documents), strategy="topk")
        place = {str(h.id): (rank, h.score) for rank, h in enumerate(full, start=1)}
        for k in KS:
            lists = {s: [str(i) for i in retriever.retrieve(query, k=k, strategy=s).ids] for s in STRATEGIES}
            top = set(lists["topk"])
            for s in STRATEGIES:
                row, got = rows[s, k], lists[s]
                row["reports"].append(query_report(got, groups, relevant, cutoff=k))
                new = [d for d in got if d not in top]
                dropped = sorted(top & relevant - set(got))
                row["changed"] += set(got) != top
                row["dropped"] += len(dropped)
                row["added"] += sum(d in relevant for d in new)
                offtopic = [d for d in new if d not in relevant]
                row["offtopic_added"] += len(offtopic)
                for d in offtopic:
                    if row["worst"] is None or place[d][0] > row["worst"][0]:
                        row["worst"] = place[d]
                drops += [(task.name, qid, s, k, d, groups[d], *place[d], query) for d in dropped]
    for row in rows.values():
        row["means"] = mean_report(row["reports"])
        row["queries"] = len(row["reports"])
    return rows, drops


def table_rows(rows: dict[tuple[str, int], dict]) -> list[list]:
    """The markdown rows of :data:`HEADERS` for ``{(strategy, k): row}``."""
    out = []
    for (strategy, k), row in rows.items():
        m = row["means"]
        worst = f"{row['worst'][0]}, {row['worst'][1]:.3f}" if row["worst"] else "-"
        counts = [row["dropped"], row["added"], row["offtopic_added"]] if strategy != "topk" else ["-", "-", "-"]
        changed = f"{row['changed']}/{row['queries']}" if strategy != "topk" else "-"
        out.append(
            [
                strategy,
                k,
                m["returned"],
                m["recall"],
                m["precision"],
                m["f1"],
                m["abs_female_minus_male"],
                changed,
                *counts,
                worst if strategy != "topk" else "-",
            ]
        )
    return out


def pool(per_set: list[dict[tuple[str, int], dict]]) -> dict[tuple[str, int], dict]:
    """The sets' rows joined: counts summed, means over all their queries, the worst added off-topic document."""
    pooled = {}
    for key in per_set[0]:
        parts = [rows[key] for rows in per_set]
        reports = [r for part in parts for r in part["reports"]]
        worsts = [p["worst"] for p in parts if p["worst"] is not None]
        pooled[key] = {
            "means": mean_report(reports),
            "queries": len(reports),
            **{c: sum(p[c] for p in parts) for c in COUNTS},
            "worst": max(worsts, key=lambda w: w[0]) if worsts else None,
        }
    return pooled


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=["default"], help="'default' = packaged all-MiniLM-L6-v2")
    parser.add_argument("--sets", nargs="+", default=None, help="some sets of the split (default: all)")
    parser.add_argument("--report", action="store_true", help="the report sets (read once) instead of the design sets")
    parser.add_argument("--cache-dir", type=Path, default=None, help="embedding cache (default ~/.cache/debiasrag)")
    args = parser.parse_args()
    if missing_model_folders(args.models):
        return 2
    tasks = load_mixed_corpora(args.sets, report=args.report)
    commit = run_commit()
    split = "report sets (read once)" if args.report else "design sets"
    print(
        f"debiasrag at {commit}; mixed corpora, {split}; groups: hand labels for the metrics, inferred "
        "from the text by the strategies; means over queries, counts summed; for 'dynamic' k is a cap.\n"
    )
    for model in args.models:
        ctx = make_context(None if model == "default" else model, cache_dir=args.cache_dir, load_now=True)
        name = model_short_name(ctx.embedder.name)
        per_set, all_drops = [], []
        for task in tasks.values():
            start = time.perf_counter()
            retriever = build_retriever(task, ctx.embedder)
            rows, drops = measure(task, retriever)
            per_set.append(rows)
            all_drops += drops
            print(f"{name} on {task.name}: {time.perf_counter() - start:.0f} s", file=sys.stderr)
            n_groups = {g: sum(d.metadata["group"] == g for d in task.documents) for g in ("female", "male", "neutral")}
            print(
                f"**{name} — {task.name}: {len(task.queries)} queries, {len(task.documents)} documents "
                f"(F {n_groups['female']} / M {n_groups['male']} / N {n_groups['neutral']})**\n"
            )
            print(md_table(HEADERS, table_rows(rows), digits=3, align=ALIGN) + "\n")
        if len(per_set) > 1:
            queries = sum(len(t.queries) for t in tasks.values())
            print(f"**{name} — all {len(per_set)} sets pooled: {queries} queries**\n")
            print(md_table(HEADERS, table_rows(pool(per_set)), digits=3, align=ALIGN) + "\n")
        print(f"**{name} — relevant documents `topk` returns and the strategy does not**\n")
        if all_drops:
            drop_rows = [
                [s, strat, k, qid, f"«{q}»", d, g, rank, score] for s, qid, strat, k, d, g, rank, score, q in all_drops
            ]
            drop_headers = ["set", "strategy", "k", "query", "text", "dropped", "group", "rank", "score"]
            print(md_table(drop_headers, drop_rows, digits=3, align="llrllllrr") + "\n")
        else:
            print("none\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
