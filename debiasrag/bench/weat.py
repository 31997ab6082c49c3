"""``weat``: WEAT binomial tests per context scenario (seed 000 §2.1.2, eq. 4-6, Tables 1 and 4, Appendix A.3).

Targets T1/T2 are embedded as plain words, attributes A1/A2 inside each scenario template. p̂ = k/n with the
k of Table 1 (k1 for neutral, max(k1, k2) for debiasing, k2 for positive and negative); the
"over-compensating" column shows whether k2 (everything pulled towards group 1) beat k1 under debiasing.
"""

from __future__ import annotations

from debiasrag.bench._common import add_seed_figures, context_embedder, md_table, seed000_figures
from debiasrag.bench.base import BenchContext, BenchResult
from debiasrag.concepts import load_concept
from debiasrag.metrics import SCENARIOS, scenario_test, significance_stars, weat_counts

NAME = "weat"
CONCEPTS = ("gender", "age", "wealth")


def run(ctx: BenchContext) -> BenchResult:
    """Seed 000 Table 4: WEAT p-hat per concept and query context, beside the seed's figures."""
    embedder = context_embedder(ctx)
    seed = seed000_figures(embedder.name)
    result = BenchResult(NAME)
    rows = []
    with ctx.progress("weat", len(CONCEPTS) * len(SCENARIOS)) as advance:
        for concept_name in CONCEPTS:
            concept = load_concept(concept_name)
            sets = concept.weat
            targets = embedder.encode(list(sets["T1"]) + list(sets["T2"]))
            t1, t2 = targets[: len(sets["T1"])], targets[len(sets["T1"]) :]
            cells = {}
            for scenario in SCENARIOS:
                template = concept.templates[scenario]
                a1 = embedder.encode([template.format(attribute=a) for a in sets["A1"]])
                a2 = embedder.encode([template.format(attribute=a) for a in sets["A2"]])
                test = scenario_test(scenario, weat_counts(t1, t2, a1, a2))
                key = f"{concept_name}.{scenario}."
                for field in ("k1", "k2", "n", "k", "p_hat", "p_value"):
                    result.metrics[key + field] = test[field]
                if scenario == "debiasing":
                    result.metrics[key + "p_value_k1_two_sided"] = test["p_value_k1_two_sided"]
                    result.metrics[key + "p_value_k2_greater"] = test["p_value_k2_greater"]
                    result.metrics[key + "over_compensating"] = test["over_compensating"]
                figure = seed["table4_p_hat"].get(concept_name, {}).get(scenario) if seed else None
                add_seed_figures(result, {key + "p_hat": figure})
                cells[scenario] = (test, figure)
                advance()
            deb = cells["debiasing"][0]
            seed_stars = seed["table4_stars"].get(concept_name, {}) if seed else {}
            rows.append(
                [concept_name]
                + [
                    f"{cells[s][0]['p_hat']:.2f}{significance_stars(float(cells[s][0]['p_value']))}"
                    + ("" if cells[s][1] is None else f" (seed {cells[s][1]:.2f}{seed_stars.get(s, '')})")
                    for s in SCENARIOS
                ]
                + [f"k1={deb['k1']}, k2={deb['k2']}, max={deb['k']}/{deb['n']}"]
                + ["yes" if deb["over_compensating"] else "no"]
            )
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
