"""``weat``: WEAT binomial tests per context scenario (seed 000 §2.1.2, eq. 4-6, Tables 1 and 4, Appendix A.3).

For gender, age and wealth (or the concepts in ``BenchContext.concepts``, e.g. a concept file of your own with
``weat`` sets T1, T2, A1, A2 and a template per scenario). Targets T1/T2 are embedded as plain words, attributes
A1/A2 inside each scenario template. p̂ = k/n with the k of Table 1 (k1 for neutral, max(k1, k2) for debiasing, k2
for positive and negative); the "over-compensating" column shows whether k2 (everything pulled towards group 1)
beat k1 under debiasing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from debiasrag.bench._common import (
    add_seed_figures,
    bench_concepts,
    compared_with_seed,
    context_embedder,
    md_table,
    seed000_figures,
)
from debiasrag.bench.base import BenchContext, BenchResult
from debiasrag.concepts import Concept, is_bundled
from debiasrag.embedders import Embedder
from debiasrag.errors import InputError
from debiasrag.metrics import SCENARIOS, scenario_test, significance_stars, weat_counts

NAME = "weat"
SETS = ("T1", "T2", "A1", "A2")


def check_concept(concept: Concept) -> None:
    """:class:`InputError` unless ``concept`` holds what this benchmark tests: ``weat`` sets T1, T2, A1 and A2, and
    a template with ``{attribute}`` per scenario."""
    missing_sets = [name for name in SETS if name not in concept.weat]
    missing = [s for s in SCENARIOS if "{attribute}" not in concept.templates.get(s, "")]
    needs = [f"'weat' sets {', '.join(missing_sets)}"] if missing_sets else []
    needs += [f"a 'templates' sentence with {{attribute}} for {', '.join(missing)}"] if missing else []
    if needs:
        has = f" (it has {', '.join(map(repr, concept.weat))})" if missing_sets and concept.weat else ""
        raise InputError(f"concept {concept.name!r}: the {NAME} benchmark needs {'; '.join(needs)}{has}")


def _test_concept(
    embedder: Embedder,
    concept: Concept,
    seed: dict[str, Any] | None,
    result: BenchResult,
    advance: Callable[[], None],
) -> list[str]:
    """One concept's four scenario tests: metrics (and the seed's figures) into ``result``; its table row."""
    sets = concept.weat
    targets = embedder.encode(list(sets["T1"]) + list(sets["T2"]))
    t1, t2 = targets[: len(sets["T1"])], targets[len(sets["T1"]) :]
    cells = {}
    for scenario in SCENARIOS:
        template = concept.templates[scenario]
        a1 = embedder.encode([template.format(attribute=a) for a in sets["A1"]])
        a2 = embedder.encode([template.format(attribute=a) for a in sets["A2"]])
        test = scenario_test(scenario, weat_counts(t1, t2, a1, a2))
        key = f"{concept.name}.{scenario}."
        for field in ("k1", "k2", "n", "k", "p_hat", "p_value"):
            result.metrics[key + field] = test[field]
        if scenario == "debiasing":
            result.metrics[key + "p_value_k1_two_sided"] = test["p_value_k1_two_sided"]
            result.metrics[key + "p_value_k2_greater"] = test["p_value_k2_greater"]
            result.metrics[key + "over_compensating"] = test["over_compensating"]
        figure = seed["table4_p_hat"].get(concept.name, {}).get(scenario) if seed else None
        add_seed_figures(result, {key + "p_hat": figure})
        cells[scenario] = (test, figure)
        advance()
    deb = cells["debiasing"][0]
    seed_stars = seed["table4_stars"].get(concept.name, {}) if seed else {}
    return (
        [concept.name]
        + [
            f"{cells[s][0]['p_hat']:.2f}{significance_stars(float(cells[s][0]['p_value']))}"
            + ("" if cells[s][1] is None else f" (seed {cells[s][1]:.2f}{seed_stars.get(s, '')})")
            for s in SCENARIOS
        ]
        + [f"k1={deb['k1']}, k2={deb['k2']}, max={deb['k']}/{deb['n']}"]
        + ["yes" if deb["over_compensating"] else "no"]
    )


def run(ctx: BenchContext) -> BenchResult:
    """Seed 000 Table 4: WEAT p-hat per concept and query context, beside the seed's figures."""
    embedder = context_embedder(ctx)
    seed = seed000_figures(embedder.name)
    result = BenchResult(NAME)
    concepts = bench_concepts(ctx, check_concept)
    rows = []
    with ctx.progress("weat", len(concepts) * len(SCENARIOS)) as advance:
        for concept in concepts:
            compared = compared_with_seed(concept, seed, result)
            bundled = compared or is_bundled(concept)
            repeating = [name for name in SETS if len(set(concept.weat[name])) < len(concept.weat[name])]
            if repeating and bundled:  # a file of one's own was warned about when it loaded
                result.notes.append(
                    f"{concept.name}: WEAT {', '.join(repeating)} repeat words as seed 000 Appendix A.3 lists them; "
                    "kept as listed (a repeated target counts once per listing)."
                )
            rows.append(_test_concept(embedder, concept, seed if compared else None, result, advance))
    result.tables.append(
        md_table(["concept", *(f"p̂ {s}" for s in SCENARIOS), "debiasing k1 / k2", "over-compensating"], rows)
    )
    result.notes.append(
        "Tests as seed 000 Table 1: neutral k1 > n/2; debiasing k1 two-sided at 1/2 and k2 > n·|A1|/n; positive "
        "k2 > n·|A1|/n; negative k2 < n·|A1|/n. Stars: * p<0.10, ** <0.05, *** <0.01 (exact binomial tests)."
    )
    if seed is None:
        result.notes.append(f"seed 000 reports no Table 4 row for {embedder.name}; no seed comparison.")
    return result
