"""Seed 003's experiment: six WEFE metrics before/after four mitigations under controlled settings (Tables 4-6).

A :class:`Setting` fixes, for every algorithm, the word sets it learns from and ignores, whether vector lengths
are restored (``normalization="reverse"``) and whether the model is normalised first; and fixes the metric's
target pairs. :func:`run_setting` fits and applies HD, DHD, HSR and RAN and measures the six headline metrics
before and after. :func:`summarise` adds per-metric σ across algorithms, ranks, σ̄ and the two-sided two-sample
t-test p-value against the baseline's σ values (seed 003 Table 5 caption).

Headline metrics (each one number, as seed 003 prints them): ``weat`` and ``weat_es`` are the mean |value| over
the three WEAT queries (career/family, math/arts, science/arts; effect size with ddof=0 as WEFE), ``rnd`` the
|WEFE mean| over occupations, ``rnsb`` the KL divergence over the target words from a classifier trained on the
sentiment words, ``ripa`` the |mean| RIPA over occupations and ``ect`` the ECT Spearman ρ over occupations.
Attribute sets come from ``debiasrag/data/bench/wefe_gender.json`` (WEFE's gender queries, not the full 6,894-word
union in ``debiasrag/data/wordsets/seed003_attributes.json``), so numbers are comparable in direction and ranking,
not in value, to the paper's.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.stats import ttest_ind

from debiasrag.metrics import ect, ripa, rnd, rnsb, weat
from debiasrag.mitigate.base import BaseDebias, WordEmbeddings
from debiasrag.mitigate.double_hard_debias import DoubleHardDebias
from debiasrag.mitigate.half_sibling_regression import HalfSiblingRegression
from debiasrag.mitigate.hard_debias import HardDebias
from debiasrag.mitigate.repulsion_attraction_neutralization import RepulsionAttractionNeutralization
from debiasrag.mitigate.wordsets import bolukbasi_gender_specific, check_overlap, flatten, seed003_wordsets
from debiasrag.resources import data_file

METRICS = ("weat", "weat_es", "rnd", "rnsb", "ripa", "ect")
GOAL = {"weat": "↓", "weat_es": "↓", "rnd": "↓", "rnsb": "↓", "ripa": "↓", "ect": "↑"}
ALGORITHMS = ("HD", "DHD", "HSR", "RAN")
Pairs = list[list[str]]


@dataclass(frozen=True)
class Attributes:
    """The metric attribute sets (WEFE gender queries)."""

    weat: dict[str, tuple[list[str], list[str]]]
    occupations: list[str]
    positive: list[str]
    negative: list[str]

    @classmethod
    def bundled(cls) -> Attributes:
        """The packaged WEFE gender attribute sets, occupations and sentiment words."""
        path = data_file("bench", "wefe_gender.json")
        data = json.loads(path.read_text(encoding="utf-8"))
        weat_sets = {k: (q["attributes"][0], q["attributes"][1]) for k, q in data["weat_queries"].items()}
        sentiment = data["sentiment"]
        return cls(weat_sets, data["occupations"], sentiment["positive"], sentiment["negative"])

    def words(self) -> list[str]:
        """Every attribute, occupation and sentiment word, first occurrence order."""
        groups = [w for pair in self.weat.values() for group in pair for w in group]
        return list(dict.fromkeys([*groups, *self.occupations, *self.positive, *self.negative]))


@dataclass(frozen=True)
class AlgorithmSets:
    """What one algorithm learns from (``definition``) and leaves alone (``gender_specific``)."""

    definition: Pairs
    gender_specific: frozenset[str]
    normalization: str = "keep"
    # HSR regresses on a flat word list: the definition pairs' words unless given (the baseline's stand-in list)
    hsr_words: frozenset[str] | None = None


@dataclass(frozen=True)
class Setting:
    """One seed 003 comparison setting: the target pairs and each algorithm's word sets."""

    name: str
    title: str
    targets: Pairs
    algorithms: dict[str, AlgorithmSets]
    normalize_first: bool = False
    # standardised word sets: DHD debiases the whole objective set (target = the objective words; WEFE gets the same
    # words from n_words = |target| // 2) like the other algorithms, instead of its original 1,000 most biased words
    # per side (seed 003 §5.3)
    dhd_on_objective: bool = False
    notes: tuple[str, ...] = field(default_factory=tuple)


def _lower(words: Sequence[str]) -> frozenset[str]:
    return frozenset(w.lower() for w in words)


def settings(attributes: Attributes) -> dict[str, Setting]:
    """The seven settings of seed 003 Tables 5 and 6 (``baseline`` shared)."""
    data = seed003_wordsets()
    lower_pairs = lambda pairs: [[a.lower(), b.lower()] for a, b in pairs]  # noqa: E731 - GloVe is lower-case
    bolukbasi = lower_pairs(data["bolukbasi_definitional_pairs"])
    garg = lower_pairs(data["garg_pairs"])
    table2 = lower_pairs(data["table2_pairs"])
    definition, targets = lower_pairs(data["bias_definition_pairs"]), lower_pairs(data["target_pairs"])
    # Bolukbasi's list as published, as WEFE's fetch_debiaswe() gives it and debias() uses it: lower-cased, its
    # word2vec-cased entries ("Handsome", "NeW") kept handsome, new, ... from debiasing, and the list shared 12
    # words with the attributes (seed 003 Table 1: 5) and made 1,290 with Table 2's words (Table 1: 1,449)
    gs_bolukbasi = frozenset(bolukbasi_gender_specific())
    attr = set(attributes.words())
    # baseline (§5.1): each algorithm's original sets; HSR's own 223+223 words are not bundled, so it uses
    # Bolukbasi's gender-specific words as definitional words (the same role: words gendered by definition)
    baseline_gs = gs_bolukbasi | _lower(flatten(bolukbasi))
    baseline_sets = {name: AlgorithmSets(bolukbasi, baseline_gs) for name in ALGORITHMS}
    baseline_sets["HSR"] = AlgorithmSets(bolukbasi, baseline_gs, hsr_words=baseline_gs)
    proposed_gs = (gs_bolukbasi | _lower(flatten(definition)) | _lower(flatten(targets))) - attr
    proposed = {name: AlgorithmSets(definition, proposed_gs) for name in ALGORITHMS}
    reverse = {k: AlgorithmSets(v.definition, v.gender_specific, "reverse") for k, v in proposed.items()}
    target_words = set(flatten(targets))
    overlap_managed = {
        name: AlgorithmSets(
            [p for p in v.definition if not set(p) & target_words],
            (v.gender_specific | target_words) - attr,
            hsr_words=None if v.hsr_words is None else v.hsr_words - target_words - attr,
        )
        for name, v in baseline_sets.items()
    }
    standard = {name: AlgorithmSets(table2, gs_bolukbasi | _lower(flatten(table2))) for name in ALGORITHMS}
    baseline_reverse = {
        k: AlgorithmSets(v.definition, v.gender_specific, "reverse", v.hsr_words) for k, v in baseline_sets.items()
    }
    return {
        "baseline": Setting("baseline", "Baseline methodology", garg, baseline_sets),
        "proposed_reverse": Setting(
            "proposed_reverse", "Proposed methodology reversing normalization", targets, reverse, dhd_on_objective=True
        ),
        "proposed_normalize": Setting(
            "proposed_normalize",
            "Proposed methodology normalizing the model before debias",
            targets,
            proposed,
            normalize_first=True,
            dhd_on_objective=True,
        ),
        "standardize": Setting("standardize", "Standardize word sets", garg, standard, dhd_on_objective=True),
        "overlap": Setting("overlap", "Manage overlap between sets", targets, overlap_managed),
        "reverse_only": Setting("reverse_only", "Reverse vector normalization", garg, baseline_reverse),
    }


def measure(model: WordEmbeddings, targets: Pairs, attributes: Attributes, *, seed: int) -> dict[str, float]:
    """The six headline metrics on ``model`` (see the module docstring)."""

    def rows(words: Sequence[str]) -> np.ndarray:
        return np.asarray(model.vectors[model.rows(words)], dtype=np.float64)

    known = [p for p in targets if p[0] in model and p[1] in model]
    t1, t2 = rows([a for a, _ in known]), rows([b for _, b in known])
    weats = [weat(t1, t2, rows(a1), rows(a2), ddof=0) for a1, a2 in attributes.weat.values()]
    occupations = rows(attributes.occupations)
    return {
        "weat": float(np.mean([abs(w["weat"]) for w in weats])),
        "weat_es": float(np.mean([abs(w["weat_effect_size"]) for w in weats])),
        "rnd": abs(rnd(t1, t2, occupations, reduce="mean")["rnd"]),
        "rnsb": rnsb(t1, t2, rows(attributes.positive), rows(attributes.negative), seed=seed)["rnsb"],
        "ripa": abs(ripa(t1, t2, occupations)["ripa"]),
        "ect": ect(t1, t2, occupations)["ect"],
    }


def build(name: str, sets: AlgorithmSets, *, seed: int) -> tuple[BaseDebias, dict[str, Any]]:
    """The estimator and its ``fit`` arguments for algorithm ``name`` under ``sets``."""
    if name == "HD":
        return HardDebias(normalization=sets.normalization), {"definitional_pairs": sets.definition}
    if name == "DHD":
        return DoubleHardDebias(random_state=seed), {"definitional_pairs": sets.definition}
    if name == "HSR":
        words = sets.hsr_words if sets.hsr_words is not None else frozenset(flatten(sets.definition))
        return HalfSiblingRegression(), {"definitional_words": sorted(words)}
    if name == "RAN":
        return RepulsionAttractionNeutralization(normalization=sets.normalization), {
            "definitional_pairs": sets.definition
        }
    raise ValueError(f"unknown algorithm {name}")


def run_setting(
    model: WordEmbeddings,
    setting: Setting,
    attributes: Attributes,
    *,
    seed: int = 0,
    progress: Callable[[], None] = lambda: None,
    vocabulary_pca: tuple[np.ndarray, np.ndarray] | None = None,
) -> dict[str, dict[str, float]]:
    """``{"before": metrics, "<algorithm>": metrics after it}`` for one setting.

    ``vocabulary_pca``: DHD's vocabulary PCA of the model this setting runs on (after normalisation when the
    setting normalises first), from :meth:`DoubleHardDebias.vocabulary_pca`; ``None`` computes it.
    """
    if setting.normalize_first:
        model = model.normalized()
    out = {"before": measure(model, setting.targets, attributes, seed=seed)}
    # RAN optimises each word on its own, so only the words the metrics read need optimising (its output for
    # them is the same as when the whole vocabulary is optimised, at a fraction of the cost)
    read = set(attributes.words()) | set(flatten(setting.targets))
    for name in ALGORITHMS:
        sets = setting.algorithms[name]
        estimator, fit_args = build(name, sets, seed=seed)
        if name == "DHD" and vocabulary_pca is not None:
            fit_args["vocabulary_components"] = vocabulary_pca
        estimator.fit(model, **fit_args)
        ignore = sorted(w for w in sets.gender_specific if w in model)
        if name == "RAN":
            result = estimator.transform(model, target=sorted(read - sets.gender_specific), ignore=ignore)
        elif name == "DHD" and setting.dhd_on_objective:
            objective = [w for w in model.words if w not in sets.gender_specific]
            result = estimator.transform(model, target=objective, ignore=ignore)
        else:
            result = estimator.transform(model, ignore=ignore)
        out[name] = measure(result, setting.targets, attributes, seed=seed)
        progress()
    return out


def overlap_report(setting: Setting, attributes: Attributes) -> dict[str, list[str]]:
    """Table 3 rule breaks of HD's sets against the setting's metric words (empty for the proposed settings)."""
    sets = setting.algorithms["HD"]
    report = check_overlap(
        target=flatten(setting.targets),
        attributes=attributes.words(),
        bias_definition=flatten(sets.definition),
        gender_specific=sets.gender_specific,
        on_leak="ignore",
    )
    return report.leaks


def summarise(measured: dict[str, dict[str, float]], baseline_sigmas: Sequence[float] | None = None) -> dict[str, Any]:
    """Δ per metric and algorithm, ranks (1 = best in the metric's goal direction), σ per metric, σ̄ and p."""
    deltas = {m: {a: measured[a][m] - measured["before"][m] for a in ALGORITHMS} for m in METRICS}
    ranks = {}
    for m in METRICS:
        order = sorted(ALGORITHMS, key=lambda a: deltas[m][a], reverse=GOAL[m] == "↑")
        ranks[m] = {a: order.index(a) + 1 for a in ALGORITHMS}
    # population σ (ddof=0): it gives the paper's printed σ in 30 of 36 cells (tests/debias/test_comparison.py)
    sigmas = {m: float(np.std([deltas[m][a] for a in ALGORITHMS])) for m in METRICS}
    out: dict[str, Any] = {"deltas": deltas, "ranks": ranks, "sigma": sigmas}
    out["mean_sigma"] = float(np.mean(list(sigmas.values())))
    if baseline_sigmas is not None:
        out["p_value"] = float(ttest_ind(list(sigmas.values()), list(baseline_sigmas)).pvalue)
    return out
