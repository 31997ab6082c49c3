"""``retrieval``: quality and fairness of every strategy at several k, on bundled or your own labelled data.

Fairness sets (:func:`debiasrag.datasets.load_fairness_set`: ``fairness`` = main split, ``holdout`` = the held-out
areas; or your set with ``--data PATH``, format in ``debiasrag/data/retrieval/README.md``): for every strategy of
:data:`debiasrag.STRATEGIES` at k = 3, 6, 10 (for ``dynamic`` k is a cap), the mean over queries of
:func:`debiasrag.metrics.fairness.query_report` — recall, precision, F1, #F − #M and |#F − #M| returned, ARaB@k
(positive = leaning male), NFaiRR@k and the exposure of the relevant documents per group (Singh & Joachims
attention) with its female − male disparity. Groups are the documents' labels. An ``oracle`` row cuts the plain
query's ranking where each query's F1 is best: the ceiling for any rule that only chooses where to cut. A
``dynamic-versions`` row scores the option ``Dynamic(versions=True)`` (``debiasrag query --versions``) beside them:
for sets that hold versions of their texts and one answer text per query.

Without ``--data`` it also runs seed 000's toy task (Appendix E; compared with the seed's figures) and the
gendered multi-topic set, reporting ``exposure_<group>`` = the share of the relevant chunks returned per group.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from debiasrag.bench._common import add_seed_figures, context_embedder, md_table
from debiasrag.bench.base import BenchContext, BenchResult
from debiasrag.datasets import (
    RetrievalTask,
    load_fairness_set,
    load_gendered_topics,
    load_labelled_set,
    load_toy_task,
    toy_data,
)
from debiasrag.embedders import Embedder, embed_queries
from debiasrag.fileio import printable
from debiasrag.index import FaissIndex
from debiasrag.metrics.fairness import mean_report, oracle_cut, query_report
from debiasrag.retriever import DebiasedRetriever
from debiasrag.strategies import STRATEGIES, Dynamic, Strategy, get_strategy

NAME = "retrieval"
OPTIONS: dict[str, Callable[[], Strategy]] = {"dynamic-versions": lambda: Dynamic(versions=True)}
"""Options scored beside the named strategies (label -> strategy)."""
GROUPS = ("female", "male", "neutral")
K_VALUES = {"toy": (5, 10, 15), "topics": (5, 10, 15, 30)}
FAIRNESS_K = (3, 6, 10)
ORACLE_DEPTH = 50  # the plain ranking the oracle may cut: deeper than any relevant set we ship
PAPER_MODEL = "WhereIsAI/UAE-Large-V1"
# (header, metric key) of the fairness table, in print order
FAIRNESS_COLUMNS = (
    ("returned", "returned"),
    ("recall", "recall"),
    ("precision", "precision"),
    ("F1", "f1"),
    ("F1 / oracle", "f1_vs_oracle"),
    ("#F−#M", "female_minus_male"),
    ("|#F−#M|", "abs_female_minus_male"),
    ("ARaB", "arab"),
    ("NFaiRR", "nfairr"),
    ("exp. F", "exposure_female"),
    ("exp. M", "exposure_male"),
    ("exp. F−M", "exposure_disparity"),
)


def build_retriever(task: RetrievalTask, embedder: Embedder, neutralize: str | None = None) -> DebiasedRetriever:
    """An index over the task's documents (gender-blind with ``neutralize``, the names mode of
    :class:`~debiasrag.counterfactual.GenderNeutralizer`), with every query variant embedded in one batch."""
    if neutralize is not None:
        from debiasrag.counterfactual.neutralize import GenderNeutralizer, blind_index

        index = blind_index(task.documents, embedder, GenderNeutralizer(names=neutralize))
    else:
        index = FaissIndex.from_documents(task.documents, embedder)
    index.store_groups(task.concept or "gender")  # as `debiasrag index` does: once, versions read by contrast
    retriever = DebiasedRetriever(index, embedder, concept=task.concept or "gender")
    variants = {
        text
        for q in task.queries.values()
        for s in STRATEGIES
        for _, text in get_strategy(s).variants(q, retriever.concept)
    }
    embed_queries(embedder, sorted(variants))  # as retrieve() embeds them: the cache keys queries apart
    return retriever


def evaluate(task: RetrievalTask, retriever: DebiasedRetriever, strategy: str, k: int) -> dict[str, float]:
    """Legacy toy/topics scores: recall, precision, counts and the share of relevant chunks returned per group."""
    rows = []
    for name, query in task.queries.items():
        relevant = task.relevant[name]
        hits = retriever.retrieve(query, k=k, strategy=strategy).hits
        found = [hit for hit in hits if hit.id in relevant]
        groups = [(hit.metadata or {}).get("group") for hit in found]
        share = {g: (groups.count(g) / len(found) if found else 0.0) for g in GROUPS}
        rows.append(
            {
                "recall": len(found) / len(relevant),
                "precision": len(found) / len(hits) if hits else 0.0,
                "returned": float(len(hits)),
                "relevant_found": float(len(found)),
                "irrelevant_found": float(len(hits) - len(found)),
                **{f"exposure_{g}": share[g] for g in GROUPS},
                "exposure_gap": abs(share["female"] - share["male"]),
            }
        )
    return {key: float(np.mean([r[key] for r in rows])) for key in rows[0]}


# --- measure -------------------------------------------------------------------------------------------------


def measure_fairness(
    task: RetrievalTask, retriever: DebiasedRetriever, advance: Callable[..., None] = lambda n=1: None
) -> dict[tuple[str, str], dict[str, float]]:
    """``{(strategy, k): mean metrics}`` over the task's queries, plus ``("oracle", "best")`` (see module doc)."""
    groups = {str(doc.id): doc.metadata["group"] for doc in task.documents}
    per_query: dict[tuple[str, str], list[dict[str, float]]] = {}
    scored: list[tuple[str, str | Strategy]] = [*((s, s) for s in STRATEGIES), *((n, f()) for n, f in OPTIONS.items())]
    for name, query in task.queries.items():
        relevant = {str(d) for d in task.relevant[name]}
        plain = [str(h.id) for h in retriever.retrieve(query, k=min(ORACLE_DEPTH, len(groups)), strategy="topk")]
        best = oracle_cut([d in relevant for d in plain], len(relevant))
        cut = int(best["oracle_k"])
        oracle_row = query_report(plain[:cut], groups, relevant, cutoff=cut)
        per_query.setdefault(("oracle", "best"), []).append({**oracle_row, "oracle_f1": best["oracle_f1"]})
        for label, strategy in scored:
            for k in FAIRNESS_K:
                ranked = [str(h.id) for h in retriever.retrieve(query, k=k, strategy=strategy)]
                row = query_report(ranked, groups, relevant, cutoff=k)
                per_query.setdefault((label, str(k)), []).append({**row, "oracle_f1": best["oracle_f1"]})
        advance()
    return {key: mean_report(rows) for key, rows in per_query.items()}


def group_agreement(task: RetrievalTask, used: Sequence[str] | None = None) -> dict[str, float]:
    """How often the groups ``balanced`` and ``dynamic`` use agree with the set's labels.

    ``used``: the groups the index stored (:meth:`FaissIndex.store_groups`, versions read by contrast), in document
    order; without it, the detector's reading of each document alone. ``accuracy`` over the documents,
    ``documents``, ``<label>_as_<inferred>`` counts of the disagreements, and with ``used`` also
    ``accuracy_per_document`` (the detector alone). A document whose metadata already holds ``debiasrag_group``
    counts as that group (the strategies use it too).
    """
    from debiasrag.groups import GroupDetector

    found = GroupDetector(task.concept or "gender")
    gold = [doc.metadata["group"] for doc in task.documents]
    alone = [found.group(doc.text, doc.metadata, doc_id=doc.id) for doc in task.documents]
    inferred = alone if used is None else list(used)

    def accuracy(groups: list[str]) -> float:
        return sum(g == x for g, x in zip(gold, groups, strict=True)) / len(gold) if gold else 0.0

    out: dict[str, float] = {"accuracy": accuracy(inferred), "documents": len(gold)}
    if used is not None:
        out["accuracy_per_document"] = accuracy(alone)
    for label, group in zip(gold, inferred):
        if label != group:
            out[f"{label}_as_{group}"] = out.get(f"{label}_as_{group}", 0) + 1
    return out


def agreement_note(task: RetrievalTask, agreement: dict[str, float], used: Sequence[str]) -> str:
    """The report's line on :func:`group_agreement` (with ``used``, the stored groups): the disagreements by label
    and the first five documents' ids (as ``debiasrag index`` names documents to label), and whether the groups
    were inferred or taken from the documents' ``debiasrag_group`` labels."""
    from debiasrag.groups import user_labelled

    n_docs = len(task.documents)
    misses = ", ".join(f"{m.replace('_as_', ' as ')} {v:.0f}" for m, v in agreement.items() if "_as_" in m)
    ids = [str(d.id) for d, group in zip(task.documents, used, strict=True) if d.metadata["group"] != group]
    if ids:
        shown = ", ".join(printable(repr(i)) for i in ids[:5])
        misses += f": {'id' if len(ids) == 1 else 'ids'} {shown}" + (
            f" and {len(ids) - 5} more" if len(ids) > 5 else ""
        )
    labelled = sum(user_labelled(d.metadata) for d in task.documents)
    line = f"{task.name}: the stored groups agree with the set's labels on {agreement['accuracy']:.3f} of {n_docs} "
    if labelled == n_docs:
        line += (
            f"documents ({misses or 'no disagreement'}); all {n_docs} documents carry a debiasrag_group label (the "
            "group taken from the label, not inferred), and `balanced` and `dynamic` balance those labels"
        )
        return line + ("; each disagreement is a debiasrag_group that differs from the set's `group`." if ids else ".")
    kept = ", labels kept" if labelled else ""
    line += (
        f"documents ({misses or 'no disagreement'}; the detector on each document alone "
        f"{agreement['accuracy_per_document']:.3f}{kept})"
    )
    if labelled:
        verb = "carries" if labelled == 1 else "carry"
        line += (
            f"; {labelled} of {n_docs} documents {verb} a debiasrag_group label (the group taken from the "
            "label, not inferred); `balanced` and `dynamic` balance those labels and the inferred groups of the rest"
        )
    else:
        line += "; `balanced` and `dynamic` balance the inferred groups"
    return line + (
        ", so each disagreement can unbalance the lists that hold it — label documents with `debiasrag_group` "
        "metadata to balance the true groups."
    )


# --- compare -------------------------------------------------------------------------------------------------


def compare(scores: dict[tuple[str, str], dict[str, float]]) -> None:
    """Add ``f1_vs_oracle`` (mean F1 / mean oracle F1) and ``recall_vs_topk`` (recall − topk's at the same k; not
    for the oracle row, which has no top-k to compare with)."""
    for (_, k), row in scores.items():
        row["f1_vs_oracle"] = row["f1"] / row["oracle_f1"] if row["oracle_f1"] > 0 else 0.0
        topk = scores.get(("topk", k))
        if topk is not None:  # the oracle row ("best") has no top-k at its k: no value, not a made-up 0
            row["recall_vs_topk"] = row["recall"] - topk["recall"]


# --- render --------------------------------------------------------------------------------------------------


def render(title: str, scores: dict[tuple[str, str], dict[str, float]]) -> str:
    """One markdown table: a row per (strategy, k), the fairness columns."""
    rows = [[s, k, *[row[key] for _, key in FAIRNESS_COLUMNS]] for (s, k), row in scores.items()]
    return f"**{title}**\n\n" + md_table(["strategy", "k", *[h for h, _ in FAIRNESS_COLUMNS]], rows, digits=2)


def legacy_tables(result: BenchResult, embedder: Embedder, advance: Callable[..., None]) -> None:
    """Seed 000's toy task and the gendered topics set: metrics ``toy.*`` / ``topics.*``, tables, seed figures."""
    for task_key, task in {"toy": load_toy_task(), "topics": load_gendered_topics()}.items():
        retriever = build_retriever(task, embedder)
        rows = []
        for strategy in STRATEGIES:
            for k in K_VALUES[task_key]:
                scores = evaluate(task, retriever, strategy, k)
                for key, value in scores.items():
                    result.metrics[f"{task_key}.{strategy}.k{k}.{key}"] = round(value, 6)
                shares = [scores[f"exposure_{g}"] for g in GROUPS]
                rows.append(
                    [
                        strategy,
                        k,
                        scores["returned"],
                        scores["recall"],
                        scores["precision"],
                        *shares,
                        scores["exposure_gap"],
                    ]
                )
            advance()
        title = "seed 000 toy task (1 query)" if task_key == "toy" else f"gendered topics ({len(task.queries)})"
        headers = [
            "strategy",
            "k",
            "returned",
            "recall",
            "precision",
            "share female",
            "share male",
            "share neutral",
            "share gap",
        ]
        result.tables.append(f"**{title}**\n\n" + md_table(headers, rows))
    paper = toy_data()["paper_results"]
    if embedder.name == PAPER_MODEL:
        figures = {
            "toy.topk.k10.relevant_found": paper["topk_neutral_k10_relevant"],
            "toy.paper.k10.relevant_found": paper["algorithm1_k10_relevant"],
            "toy.paper.k10.irrelevant_found": paper["algorithm1_k10_random"],
        }
        add_seed_figures(result, figures)
    else:
        m = result.metrics
        result.notes.append(
            f"Seed 000 reports the toy task only for {PAPER_MODEL}: top-10 with the neutral query finds "
            f"{paper['topk_neutral_k10_relevant']}/15 relevant chunks, Algorithm 1 (k=10) finds "
            f"{paper['algorithm1_k10_relevant']}/15 and {paper['algorithm1_k10_random']}/5 random; ours for "
            f"{embedder.name}: top-10 {m['toy.topk.k10.relevant_found']:.0f}/15, paper strategy "
            f"{m['toy.paper.k10.relevant_found']:.0f}/15 and {m['toy.paper.k10.irrelevant_found']:.0f}/5 random."
        )


def toy_similarity(embedder: Embedder, out_path: Path) -> tuple[Path, np.ndarray]:
    """Seed 000 Fig. 2: cosine of the four toy queries against the 20 chunks (rows = queries)."""
    from debiasrag.bench._plots import similarity_heatmap

    data = toy_data()
    query_names = ["neutral", "female", "male", "debiasing"]
    chunks = sorted(data["chunks"], key=lambda c: (["neutral", "male", "female", "random"].index(c["group"]), c["id"]))
    q = embedder.encode([data["queries"][n] for n in query_names])
    c = embedder.encode([chunk["text"] for chunk in chunks])
    matrix = q @ c.T
    title = f"Query × chunk cosine similarity (seed 000 Fig. 2 layout) — {embedder.name}"
    return similarity_heatmap(out_path, matrix, query_names, [chunk["id"] for chunk in chunks], title), matrix


def add_toy_plot(result: BenchResult, ctx: BenchContext, embedder: Embedder) -> None:
    """The Fig. 2 heatmap and its row means by chunk group (neutral > male > female, etc. in the seed's text)."""
    path = ctx.plot_path("toy_similarity_heatmap.png")
    if path is None:
        return
    plot, matrix = toy_similarity(embedder, path)
    result.plots.append(plot)
    for qi, query in enumerate(["neutral", "female", "male", "debiasing"]):
        for gi, group in enumerate(["neutral", "male", "female"]):
            value = float(matrix[qi, gi * 5 : gi * 5 + 5].mean())
            result.metrics[f"toy.similarity.{query}_query.{group}_chunks"] = round(value, 6)


def shape_notes(task: RetrievalTask) -> list[str]:
    """Notes on a set whose shape makes some numbers say nothing: a missing group, k that reaches the corpus."""
    notes = []
    missing = [g for g in ("female", "male") if not any(d.metadata.get("group") == g for d in task.documents)]
    if missing:  # every fairness column compares female with male documents
        sides = "one side only" if len(missing) == 1 else "neither side"
        notes.append(
            f"{task.name}: no {' and no '.join(missing)} documents in the set: #F−#M, ARaB, NFaiRR and "
            f"exposure count {sides} here, so they say nothing about balance"
        )
    if not any(d.metadata.get("group") == "neutral" for d in task.documents):  # NFaiRR's ideal list: no neutral one
        notes.append(
            f"{task.name}: no neutral documents in the set: every list is as neutral as the set allows, and NFaiRR "
            "(0/0 there) is shown as 0"
        )
    groups = {str(d.id): d.metadata.get("group") for d in task.documents}
    one_sided = [q for q, ids in task.relevant.items() if not {"female", "male"} <= {groups.get(str(d)) for d in ids}]
    if one_sided:  # a group with no relevant document has no exposure (0 there reported bias for a fair ranking)
        both = len(task.relevant) - len(one_sided)
        notes.append(
            f"{task.name}: {len(one_sided)} of {len(task.relevant)} queries have no relevant female or no relevant "
            f"male document: exp. F and exp. M average the queries where that group has one, exp. F−M the {both} "
            "with both (n/a if none)"
        )
    texts = [" ".join(doc.text.split()) for doc in task.documents]  # spacing aside
    by_text: dict[str, set[Any]] = {}
    for text, doc in zip(texts, task.documents, strict=True):
        by_text.setdefault(text, set()).add(doc.metadata.get("group"))
    mixed = sum(len(by_text[text]) > 1 for text in texts)
    if mixed:  # equal texts score equally: the store's order decides, so ARaB and exposure can follow the file
        notes.append(
            f"{task.name}: {mixed} documents share their exact text with a document of another group; equal scores "
            "are ordered as the store returns them (not by group), so ARaB and exposure can depend on that order"
        )
    whole = [k for k in FAIRNESS_K if k >= len(task.documents)]
    if whole:  # the rows for those k all return the whole corpus: equal, not a finding
        ks = " and ".join(f"k = {k}" for k in whole)
        notes.append(
            f"{task.name}: {ks} {'is' if len(whole) == 1 else 'are'} at least the corpus's {len(task.documents)} "
            "documents, so those rows return every document and say nothing about the strategies"
        )
    return notes


def cut_note(task: RetrievalTask, embedder: Embedder) -> list[str]:
    """The documents the model reads only in part, counted over the whole set on every run (the embedder's own
    warning counts only the texts it embeds, none on a re-run from the embedding cache)."""
    inner = getattr(embedder, "inner", embedder)
    count_cut = getattr(inner, "count_cut", None)
    cut = count_cut([d.text for d in task.documents]) if count_cut is not None else None
    if not cut:
        return []
    limit = getattr(getattr(inner, "model", None), "max_seq_length", "?")
    return [
        f"{task.name}: {cut} of {len(task.documents)} documents are longer than {embedder.name} reads ({limit} "
        "tokens): only their beginning is embedded, so a relevant part further on cannot be found"
    ]


def run(ctx: BenchContext) -> BenchResult:
    """Measure every strategy at every k on the fairness sets (or ``ctx.data``), compare, render tables.

    Metric keys: ``<set>.<strategy>.k<k>.<metric>`` (``<set>`` = ``fairness`` / ``holdout`` / ``data``; the oracle
    row is ``<set>.oracle.best.<metric>``), plus ``toy.*`` and ``topics.*`` without ``--data``.
    """
    embedder = context_embedder(ctx)
    result = BenchResult(NAME)
    data = ctx.data
    if isinstance(data, RetrievalTask):  # read once by the CLI, which checks it before any model loads
        tasks = {"data": data}
    elif data is not None:
        tasks = {"data": load_labelled_set(data, unknown_groups=ctx.unknown_groups)}
    else:
        tasks = {"fairness": load_fairness_set("main"), "holdout": load_fairness_set("holdout")}
    total = sum(len(t.queries) for t in tasks.values()) + (0 if data is not None else 2 * len(STRATEGIES))
    with ctx.progress("retrieval", total) as advance:
        for key, task in tasks.items():
            retriever = build_retriever(task, embedder, ctx.neutralize)
            scores = measure_fairness(task, retriever, advance)
            compare(scores)
            for (strategy, k), row in scores.items():
                k_label = k if k == "best" else f"k{k}"
                result.metrics.update({f"{key}.{strategy}.{k_label}.{m}": round(v, 6) for m, v in row.items()})
            n_docs = len(task.documents)
            result.notes += [f"{task.name}: {note}" for note in task.notes]
            result.notes += shape_notes(task)
            result.notes += cut_note(task, embedder)
            blind = f", gender-blind index (names: {ctx.neutralize})" if ctx.neutralize else ""
            queries = f"{len(task.queries)} quer{'y' if len(task.queries) == 1 else 'ies'}"
            result.tables.append(render(f"{task.name}: {queries}, {n_docs} documents{blind}", scores))
            stored = retriever.index.groups[retriever.concept.name].groups
            agreement = group_agreement(task, stored)
            result.metrics.update({f"{key}.groups.{m}": round(v, 6) for m, v in agreement.items()})
            result.notes.append(agreement_note(task, agreement, stored))
        if data is None:
            legacy_tables(result, embedder, advance)
    result.notes.append(
        "Fairness tables: means over queries; #F−#M counts every returned document; ARaB > 0 leans male; "
        "NFaiRR 1 = most neutral; exp. = attention 1/log2(1+rank) of the relevant documents per group; "
        "oracle = best per-query cut of the plain ranking; for 'dynamic' k is a cap."
    )
    if ctx.anonymize:
        result.notes.append("--anonymize does not apply to the retrieval benchmark.")
    if ctx.neutralize and data is None:
        result.notes.append(
            "--neutralize: the fairness sets use a gender-blind index; the toy and topics tables do not."
        )
    if data is None:
        add_toy_plot(result, ctx, embedder)
    return result
