"""``wefe``: the WEFE metric family before and after hard debias (seed 003), on GloVe and on the sentence model.

Word sets come from ``debiasrag/data/bench/wefe_gender.json`` and must obey seed 003's Table 3 rules (checked
before anything is measured; a leaking file is refused). The mitigation is Bolukbasi's hard-debias projection
learnt from the bias-definition pairs and applied to every non-gender-specific word, with vector lengths
restored afterwards (seed 003 §4). The sentence model embeds each word as a one-word text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypedDict

import numpy as np

from debiasrag.bench._common import bench_data, context_embedder, md_table
from debiasrag.bench.base import BenchContext, BenchResult
from debiasrag.metrics import Query, check_word_sets, ect, ripa, rnd, rnsb, weat
from debiasrag.mitigate import HardDebias, WordEmbeddings

NAME = "wefe"
WORD_SETS_FILE = "wefe_gender.json"
# desired direction of change per metric (seed 003 Table 5 arrows); "abs" metrics are judged by magnitude
DIRECTION = {"weat": "↓|x|", "weat_effect_size": "↓|x|", "rnd": "↓|x|", "rnsb": "↓", "ripa_abs": "↓", "ect": "↑"}


class BeforeAfter(TypedDict):
    """One space's metrics before and after hard debias, and the share of variance its bias direction explains."""

    before: dict[str, float]
    after: dict[str, float]
    explained_variance: float


@dataclass(frozen=True)
class WordSets:
    """The gender word sets: definition pairs, target pairs and their names, and the WEAT attribute queries."""

    definition_pairs: tuple[tuple[str, str], ...]
    target_pairs: tuple[tuple[str, str], ...]
    target_names: tuple[str, str]
    gender_specific: frozenset[str]
    weat_queries: dict[str, Query]
    occupations: tuple[str, ...]
    positive: tuple[str, ...]
    negative: tuple[str, ...]

    @property
    def targets(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The two target word lists (first and second word of each target pair)."""
        return tuple(a for a, _ in self.target_pairs), tuple(b for _, b in self.target_pairs)

    def queries(self) -> list[Query]:
        """Every query the benchmark scores (for the leakage check)."""
        t = self.targets
        return [
            *self.weat_queries.values(),
            Query.build(t, [self.occupations], self.target_names, ["occupations"], name="occupations"),
            Query.build(
                t, [self.positive, self.negative], self.target_names, ["positive", "negative"], name="sentiment"
            ),
        ]

    def all_words(self) -> list[str]:
        """Every word of every set, first occurrence order (what must be embedded)."""
        words = [w for pair in self.definition_pairs + self.target_pairs for w in pair]
        for query in self.queries():
            words += [w for group in query.attributes for w in group]
        return list(dict.fromkeys(words))


def load_word_sets(data: dict[str, Any] | None = None, *, on_leak: str = "error") -> WordSets:
    """Parse the word-set file (default: the bundled one) and enforce seed 003's rules."""
    data = bench_data(WORD_SETS_FILE) if data is None else data
    definition = tuple((a, b) for a, b in data["definition_pairs"])
    target_pairs = tuple((a, b) for a, b in data["target_pairs"])
    names = tuple(data.get("target_names", ("T1", "T2")))
    targets = (tuple(a for a, _ in target_pairs), tuple(b for _, b in target_pairs))
    specific = frozenset(
        w.lower() for w in [*(w for p in definition + target_pairs for w in p), *data.get("gender_specific_extra", [])]
    )
    queries = {
        key: Query.build(targets, q["attributes"], names, q.get("attribute_names"), name=key)
        for key, q in data["weat_queries"].items()
    }
    sets = WordSets(
        definition_pairs=definition,
        target_pairs=target_pairs,
        target_names=(names[0], names[1]),
        gender_specific=specific,
        weat_queries=queries,
        occupations=tuple(data["occupations"]),
        positive=tuple(data["sentiment"]["positive"]),
        negative=tuple(data["sentiment"]["negative"]),
    )
    definition_words = [w for pair in definition for w in pair]
    for query in sets.queries():
        check_word_sets(query, definition_words, specific, on_leak=on_leak)
    return sets


def measure(vectors: dict[str, np.ndarray], sets: WordSets, *, seed: int) -> dict[str, float]:
    """Every metric on one embedding space, flat ``{metric: value}``."""

    def rows(words: Sequence[str]) -> np.ndarray:
        return np.stack([vectors[w] for w in words])

    t1, t2 = (rows(group) for group in sets.targets)
    out: dict[str, float] = {}
    for key, query in sets.weat_queries.items():
        a1, a2 = rows(query.attributes[0]), rows(query.attributes[1])
        sample = weat(t1, t2, a1, a2)  # ddof=1, Caliskan
        out[f"{key}.weat"] = sample["weat"]
        out[f"{key}.weat_effect_size"] = sample["weat_effect_size"]
        out[f"{key}.weat_effect_size_ddof0"] = weat(t1, t2, a1, a2, ddof=0)["weat_effect_size"]
    occupations = rows(sets.occupations)
    out["rnd"] = rnd(t1, t2, occupations)["rnd"]
    out["ect"] = ect(t1, t2, occupations)["ect"]
    out.update(ripa(t1, t2, occupations))
    out["rnsb"] = rnsb(t1, t2, rows(sets.positive), rows(sets.negative), seed=seed)["rnsb"]
    return out


def before_after(lookup: Callable[[list[str]], np.ndarray], sets: WordSets, *, seed: int) -> BeforeAfter:
    """Metrics on the original space and after hard debias (lengths restored)."""
    words = sets.all_words()
    matrix = np.asarray(lookup(words), dtype=np.float64)
    index = {w: i for i, w in enumerate(words)}
    model = WordEmbeddings(words, matrix)
    debias = HardDebias(normalization="reverse").fit(model, definitional_pairs=[list(p) for p in sets.definition_pairs])
    ignore = [w for w in words if w.lower() in sets.gender_specific]
    debiased = debias.transform(model, ignore=ignore).vectors
    before = measure({w: matrix[i] for w, i in index.items()}, sets, seed=seed)
    after = measure({w: debiased[i] for w, i in index.items()}, sets, seed=seed)
    return {"before": before, "after": after, "explained_variance": float(debias.explained_variance_ratio_[0])}


def _spaces(
    ctx: BenchContext, encode: Callable[[list[str]], np.ndarray], result: BenchResult
) -> dict[str, Callable[[list[str]], np.ndarray]]:
    """Word lookups to measure: GloVe 6B 50d when installed (a note says why not), then the sentence model."""
    spaces: dict[str, Callable[[list[str]], np.ndarray]] = {}
    try:
        from debiasrag.glove import GloveVectors

        glove = GloveVectors(ctx.cache_dir)
        spaces["glove"] = glove.lookup
    except Exception as exc:  # noqa: BLE001 - GloVe is optional; say why it was skipped
        result.notes.append(f"GloVe 6B 50d skipped: {exc}")
    spaces["sentence"] = encode
    return spaces


def _record_metrics(result: BenchResult, measured: dict[str, BeforeAfter], metric_names: list[str]) -> None:
    """Before, after and delta of every metric per space, plus the hard-debias direction's variance share."""
    for space, values in measured.items():
        for metric in metric_names:
            b, a = values["before"][metric], values["after"][metric]
            result.metrics[f"{space}.before.{metric}"] = round(b, 6)
            result.metrics[f"{space}.after.{metric}"] = round(a, 6)
            result.metrics[f"{space}.delta.{metric}"] = round(a - b, 6)
        result.metrics[f"{space}.hd_direction_explained_variance"] = round(values["explained_variance"], 6)


def _before_after_table(measured: dict[str, BeforeAfter], metric_names: list[str], model_name: str) -> str:
    headers = ["metric", "goal"]
    for space in measured:
        label = "GloVe 6B 50d" if space == "glove" else model_name.split("/")[-1]
        headers += [f"{label} before", f"{label} after HD", f"{label} Δ"]
    rows = []
    for metric in metric_names:
        goal = DIRECTION.get(metric.split(".")[-1], "")
        row: list[object] = [metric, goal]
        for values in measured.values():
            b, a = values["before"][metric], values["after"][metric]
            row += [b, a, a - b]
        rows.append(row)
    return md_table(headers, rows, digits=4)


def _method_notes(sets: WordSets) -> list[str]:
    return [
        f"Word sets: {len(sets.target_pairs)} target pairs and {len(sets.definition_pairs)} bias-definition pairs "
        "(seed 003 Table 2, alternating ranks); seed 003 Table 3 rules checked, no leakage.",
        "WEAT effect size uses the sample standard deviation (ddof=1) as Caliskan et al.; the *_ddof0 rows use "
        "numpy's population std as WEFE does.",
        "RNSB: WEFE's liblinear logistic regression on an 80/20 stratified holdout of the 44 sentiment words "
        "(random_state = seed); RND is WEFE's mean over occupations; RIPA averages over the target pairs; ripa_abs "
        "averages absolute per-word scores.",
        "Hard debias (debiasrag.mitigate.HardDebias, as WEFE 1.0.x): neutralize and equalize; original vector "
        "lengths restored afterwards (seed 003 §4, normalization='reverse').",
        "Seed 003 reports GloVe-wiki-gigaword-300 with WEFE's query sets, so its numbers are not comparable to these "
        "and no seed figure is shown.",
    ]


def _plot(ctx: BenchContext, result: BenchResult, measured: dict[str, BeforeAfter], model_name: str) -> None:
    path = ctx.plot_path("wefe_before_after.png")
    if path is not None:
        from debiasrag.bench._plots import grouped_bars

        summary = {
            m: {f"{s} {state}": measured[s][state][m] for s in measured for state in ("before", "after")}
            for m in ("career_family.weat_effect_size", "math_arts.weat_effect_size", "ect", "ripa_abs", "rnsb")
        }
        title = f"WEFE before/after hard debias — {model_name.split('/')[-1]}"
        result.plots.append(grouped_bars(path, summary, title, "metric value"))


def run(ctx: BenchContext) -> BenchResult:
    """WEFE metrics before and after hard debiasing, on the sentence model and on GloVe 6B 50d when installed."""
    embedder = context_embedder(ctx)
    sets = load_word_sets()
    result = BenchResult(NAME)
    spaces = _spaces(ctx, embedder.encode, result)
    measured: dict[str, BeforeAfter] = {}
    with ctx.progress("wefe", len(spaces)) as advance:
        for space, lookup in spaces.items():
            measured[space] = before_after(lookup, sets, seed=ctx.seed)
            advance()
    metric_names = list(measured["sentence"]["before"])
    _record_metrics(result, measured, metric_names)
    result.tables.append(_before_after_table(measured, metric_names, embedder.name))
    result.notes += _method_notes(sets)
    _plot(ctx, result, measured, embedder.name)
    return result
