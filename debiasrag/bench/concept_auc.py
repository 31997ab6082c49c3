"""``concept-auc``: geometric bias identification (seed 000 §2.1.1, eq. 1-3, Tables 5, 6, 9).

For gender, age and wealth (or the concepts in ``BenchContext.concepts``, e.g. a concept file of your own with
``pairs``, three or more ``attributes`` and a template per context): the concept direction is the best-AUC singular
vector of the pair differences (Table 5 pairs, embedded as plain words); attributes (Table 6, with human labels) are
embedded inside each scenario template (neutral / debiasing / positive / negative, Tables 2, 7, 8) and
ρ = corr(labels, projections) with p̂ from 10⁴ seeded random projections. AUC < 0.8 is flagged "concept not
captured" as in the seed; ``auc_chance_p`` (not in the seed) is the share of 1,000 seeded relabellings of the pairs
whose best AUC reaches the concept's, and a note flags an AUC that passes 0.8 with auc_chance_p ≥ 0.05.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from debiasrag.bench._common import (
    add_seed_figures,
    bench_concepts,
    compared_with_seed,
    context_embedder,
    md_table,
    seed000_figures,
)
from debiasrag.bench.base import BenchContext, BenchResult
from debiasrag.concepts import Concept, load_concept
from debiasrag.embedders import Embedder
from debiasrag.errors import InputError
from debiasrag.metrics import (
    AUC_CAPTURED,
    concept_auc_pvalue,
    concept_direction,
    projection_correlation,
    random_projection_pvalue,
)
from debiasrag.metrics.geometry import significance_stars

NAME = "concept-auc"
CONTEXTS = ("neutral", "debiasing", "positive", "negative")
N_RANDOM = 10_000
N_RELABEL = 1000  # relabellings of the pairs behind auc_chance_p (metrics.concept_auc_pvalue)
CHANCE_P = 0.05  # at or above it, the AUC is within what pairs with no concept reach


def check_concept(concept: Concept) -> None:
    """:class:`InputError` unless ``concept`` holds what this benchmark measures: two or more ``pairs`` (the
    direction), three or more ``attributes`` (the correlation) and a template with ``{attribute}`` per context."""
    needs = [] if len(concept.pairs) >= 2 else ["at least 2 'pairs'"]
    needs += [] if len(concept.attributes) >= 3 else ["at least 3 'attributes'"]
    missing = [c for c in CONTEXTS if "{attribute}" not in concept.templates.get(c, "")]
    needs += [f"a 'templates' sentence with {{attribute}} for {', '.join(missing)}"] if missing else []
    if needs:
        raise InputError(f"concept {concept.name!r}: the {NAME} benchmark needs {'; '.join(needs)}")


def measured_concepts(ctx: BenchContext) -> list[Concept]:
    """The concepts to measure (``ctx.concepts``, else gender, age and wealth), each checked by
    :func:`check_concept`."""
    return bench_concepts(ctx, check_concept)


def _measure_concept(
    ctx: BenchContext,
    embedder: Embedder,
    concept: Concept | str,
    seed: dict[str, Any] | None,
    result: BenchResult,
    advance: Callable[[], None],
) -> tuple[float, dict[str, float], list[list[object]]]:
    """One concept (or a bundled one's name): its direction's AUC, then ρ and p̂ per context; metrics and notes go
    into ``result``."""
    concept = load_concept(concept)
    concept_name = concept.name
    seed = seed if compared_with_seed(concept, seed, result) else None
    words1 = [a for a, _ in concept.pairs]
    words2 = [b for _, b in concept.pairs]
    vectors = embedder.encode(words1 + words2)
    direction = concept_direction(vectors[: len(words1)], vectors[len(words1) :])
    prefix = f"{concept_name}."
    result.metrics[prefix + "auc"] = round(direction.auc, 6)
    result.metrics[prefix + "first_auc"] = round(direction.first_auc, 6)
    result.metrics[prefix + "component"] = direction.component
    result.metrics[prefix + "captured"] = "yes" if direction.captured else "no"
    # the AUC is the best of several components on the pairs it was fitted on: how often relabelled pairs (no
    # concept) reach it says whether it is the concept or the fitting (session 46)
    chance = concept_auc_pvalue(
        vectors[: len(words1)], vectors[len(words1) :], direction.auc, n=N_RELABEL, seed=ctx.seed
    )
    result.metrics[prefix + "auc_chance_p"] = round(chance, 6)
    rho_by_context: dict[str, float] = {}
    rows: list[list[object]] = []
    if not direction.captured:
        result.notes.append(
            f"{concept_name}: concept not captured (AUC {direction.auc:.3f} < {AUC_CAPTURED}); "
            "its ρ values are unreliable (seed 000 §2.1.1)"
        )
    elif chance >= CHANCE_P:
        result.notes.append(
            f"{concept_name}: AUC {direction.auc:.3f} passes {AUC_CAPTURED}, but {chance:.0%} of random relabellings "
            f"of its pairs reach it too (auc_chance_p ≥ {CHANCE_P}): the direction may fit the pairs, not a concept"
        )
    names = list(concept.attributes)
    labels = np.array([concept.attributes[n] for n in names])
    for context in CONTEXTS:
        texts = [concept.templates[context].format(attribute=n) for n in names]
        attributes = embedder.encode(texts)
        rho = projection_correlation(attributes, labels, direction.direction)
        p_hat = random_projection_pvalue(attributes, labels, rho, n=N_RANDOM, seed=ctx.seed)
        key = f"{prefix}{context}."
        result.metrics[key + "rho"] = round(rho, 6)
        result.metrics[key + "abs_rho"] = round(abs(rho), 6)
        result.metrics[key + "p_hat"] = p_hat
        rho_by_context[context] = rho
        figure = seed.get("table9_abs_rho", {}).get(concept_name, {}).get(context) if seed else None
        add_seed_figures(result, {key + "abs_rho": figure})
        rows.append(
            [
                concept_name,
                context,
                direction.auc,
                direction.component + 1,
                f"{abs(rho):.2f}{significance_stars(p_hat)}",
                shown_p_hat(p_hat),
                "" if figure is None else f"{figure:.2f}",
            ]
        )
        advance()
    return direction.auc, rho_by_context, rows


def shown_p_hat(p_hat: float, n: int = N_RANDOM) -> str:
    """p̂ as the table shows it: no projection of ``n`` reaching |ρ| is p̂ < 1/n, not a p-value of 0."""
    return f"< {1 / n:g}" if p_hat == 0 else f"{p_hat:g}"


def run(ctx: BenchContext) -> BenchResult:
    """Seed 000 Table 9: how well each concept direction separates its labels (AUC, |rho|), beside the seed."""
    embedder = context_embedder(ctx)
    seed = seed000_figures(embedder.name)
    result = BenchResult(NAME)
    rows: list[list[object]] = []
    auc_by_concept: dict[str, float] = {}
    rho_by_concept: dict[str, dict[str, float]] = {}
    concepts = measured_concepts(ctx)
    with ctx.progress("concept-auc", len(concepts) * len(CONTEXTS)) as advance:
        for concept in concepts:
            auc, rhos, concept_rows = _measure_concept(ctx, embedder, concept, seed, result, advance)
            auc_by_concept[concept.name] = auc
            rho_by_concept[concept.name] = rhos
            rows += concept_rows
    result.tables.append(
        md_table(
            ["concept", "context", "AUC", "component (1 = first)", "|ρ| (stars: p̂)", "p̂", "seed |ρ|"],
            rows,
        )
    )
    result.notes.append(
        f"p̂ from {N_RANDOM} Gaussian random projections (seed {ctx.seed}), one-sided as in eq. 3: "
        "share with corr ≥ |ρ|; stars: * p̂<0.10, ** <0.05, *** <0.01."
    )
    if seed is None:
        result.notes.append(f"seed 000 reports no Table 9 row for {embedder.name}; no seed comparison.")
    path = ctx.plot_path("concept_auc.png")
    if path is not None:
        from debiasrag.bench._plots import concept_bars

        title = f"Concept AUC and |ρ| — {embedder.name}"
        result.plots.append(concept_bars(path, auc_by_concept, rho_by_concept, title))
    return result
