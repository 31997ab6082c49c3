"""The main job of ``debiasrag demo``: index the bundled sample corpus, ask neutral queries under every
strategy and compare recall, unrelated hits and group counts side by side."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from debiasrag.corpus import write_jsonl_atomic
from debiasrag.datasets import RetrievalTask, load_gendered_topics, load_toy_task
from debiasrag.embedders import Embedder
from debiasrag.fileio import atomic_write_text
from debiasrag.index import FaissIndex
from debiasrag.markdown import md_table
from debiasrag.retriever import DebiasedRetriever, DynamicCutoff
from debiasrag.strategies import STRATEGIES

GROUPS = ("female", "male", "neutral")


@dataclass
class StrategyRow:
    """Totals of one strategy over a task's queries."""

    strategy: str
    returned: int = 0
    relevant_found: int = 0
    relevant_total: int = 0
    unrelated: int = 0
    groups: dict[str, int] = field(default_factory=lambda: dict.fromkeys(GROUPS, 0))

    @property
    def recall(self) -> float:
        """Relevant documents found / relevant documents (0.0 without any)."""
        return self.relevant_found / self.relevant_total if self.relevant_total else 0.0

    @property
    def precision(self) -> float:
        """Relevant documents found / documents returned (0.0 when nothing was returned)."""
        return self.relevant_found / self.returned if self.returned else 0.0


def evaluate(
    task: RetrievalTask, index: FaissIndex, embedder: Embedder, k: int = 10, on_query: Callable[[], None] | None = None
) -> list[StrategyRow]:
    """Run every strategy on every query of ``task`` (k for all but dynamic, which is uncapped)."""
    retriever = DebiasedRetriever(index, embedder, concept=task.concept or "gender")
    rows = {name: StrategyRow(name) for name in STRATEGIES}
    for name, query in task.queries.items():
        relevant = task.relevant[name]
        for strategy, row in rows.items():
            result = retriever.retrieve(
                query, strategy=strategy, k=DynamicCutoff().max_k if strategy == "dynamic" else k
            )
            row.returned += result.m
            row.relevant_total += len(relevant)
            for hit in result:
                if hit.id in relevant:
                    row.relevant_found += 1
                    row.groups[hit.metadata.get("group", "neutral")] += 1
                else:
                    row.unrelated += 1
        if on_query is not None:
            on_query()
    return list(rows.values())


TABLE_HEADERS = (
    "strategy",
    "returned",
    "relevant found",
    "recall",
    "precision",
    "unrelated",
    "female",
    "male",
    "neutral",
)


def table_cells(row: StrategyRow) -> list[str | int | float]:
    """One strategy's cells in :data:`TABLE_HEADERS` order (numbers left as numbers for the caller to format)."""
    groups = row.groups
    return [
        row.strategy, row.returned, f"{row.relevant_found}/{row.relevant_total}", row.recall, row.precision,
        row.unrelated, groups["female"], groups["male"], groups["neutral"],
    ]  # fmt: skip


def markdown_table(rows: list[StrategyRow]) -> str:
    """One row per strategy: results returned, relevant found, recall, precision, unrelated, per-group counts."""
    return md_table(list(TABLE_HEADERS), [table_cells(r) for r in rows], digits=2, align="lrrrrrrrr")


def run_demo(
    embedder: Embedder, out_dir: Path, k: int = 10, on_query: Callable[[], None] | None = None
) -> tuple[dict[str, list[StrategyRow]], Path]:
    """Index the sample corpus into ``out_dir/index``, evaluate, write ``out_dir/report.md``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    tasks = {
        "sample corpus (12 occupations, mixed)": load_gendered_topics(),
        "seed 000 toy task (Appendix E)": load_toy_task(),
    }
    sample = tasks["sample corpus (12 occupations, mixed)"]
    write_jsonl_atomic((d.to_row() for d in sample.documents), out_dir / "sample_corpus.jsonl")
    results: dict[str, list[StrategyRow]] = {}
    for title, task in tasks.items():
        index = FaissIndex.from_documents(task.documents, embedder)
        if task is sample:
            index.save(out_dir / "index")
        results[title] = evaluate(task, index, embedder, k, on_query)
    report = out_dir / "report.md"
    parts = [
        "# debiasrag demo",
        "",
        f"Model: `{embedder.name}`. Every query is neutral (no gender). k = {k} for topk, context, paper (its first "
        "step) and balanced; dynamic picks its own k. Group columns count the *relevant* chunks found per "
        "gendered form; a strategy that finds all of them finds each form equally often.",
        "",
        f"The sample corpus is written to `{out_dir / 'sample_corpus.jsonl'}` and indexed in "
        f"`{out_dir / 'index'}`; try "
        f'`debiasrag query {out_dir / "index"} "I want to find information about a nurse." --strategy dynamic`.',
    ]
    for title, rows in results.items():
        parts += ["", f"## {title}", "", markdown_table(rows)]
    atomic_write_text(report, "\n".join(parts) + "\n")  # on failure the old report stays, no temp file left
    return results, report
