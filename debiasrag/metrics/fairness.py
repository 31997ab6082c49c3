"""Retrieval quality and fairness of ranked results: pure numpy functions returning flat dicts.

Every function takes one query's result (documents in rank order, best first) and returns ``{name: float}``;
:func:`query_report` bundles them and :func:`mean_report` averages per-query dicts over queries.

Group labels are ``"female"``, ``"male"`` and ``"neutral"``. Where a metric needs gender *magnitudes*
(how strongly a document is about women / about men), a labelled document has magnitude 1 for its own group and
0 for the other (:func:`label_magnitudes`); a neutral document has 0 for both.

* **Set quality** — :func:`set_quality`: recall, precision and F1 of the returned set;
  :func:`oracle_cut`: the best F1 any per-query cut of a ranking reaches (the ceiling for a dynamic cut rule).
* **Counts** — :func:`group_counts`: #female, #male, #neutral returned, signed #F − #M and |#F − #M|.
* **Rank bias** — :func:`rank_bias`: RaB and ARaB of Rekabsaz & Schedl (2020), "Do Neural Ranking Models
  Intensify Gender Bias?", SIGIR 2020 (arXiv:2005.00372), as in their code (github navid-rekabsaz/GenderBias_IR,
  ``step2_calculate_bias_runs.ipynb`` / ``step3_bias_metrics.ipynb``): RaB@t is the mean male magnitude of the
  top t minus the mean female magnitude; ARaB@t averages RaB@1 … RaB@t. Positive = leaning male.
* **Neutrality** — :func:`document_neutrality` and :func:`nfairr`: FaiRR / NFaiRR of Rekabsaz, Kopeinik &
  Schedl (2021), "Societal Biases in Retrieved Contents: Measurement Framework and Adversarial Mitigation of
  BERT Rankers", SIGIR 2021 (code github CPJKU/FairnessRetrievalResults, ``measurement/metrics_fairness.py``):
  each document's neutrality ω(d) ∈ [0, 1], FaiRR@t = Σ_{i≤t} ω(d_i) / log2(i + 1), normalised by the FaiRR of
  the ideal (most neutral first) ordering of a background set of documents. 1 = as neutral as possible.
* **Exposure** — :func:`group_exposure`: attention-weighted exposure of Singh & Joachims (2018), "Fairness of
  Exposure in Rankings", KDD 2018: a document at rank j gets attention v_j = 1 / log2(1 + j), 0 when not returned;
  a group's exposure is the mean attention of its documents in a pool (e.g. the query's relevant documents);
  parity means equal exposure, the disparity is exposure(female) − exposure(male).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import TypeVar

import numpy as np

from debiasrag.errors import InputError, check_int, shown

NAN = float("nan")

GROUPS = ("female", "male", "neutral")
# A document id: any hashable (str, int, ...), the same type throughout one call.
DocId = TypeVar("DocId", bound=Hashable)


def attention(n: int) -> np.ndarray:
    """Position attention 1 / log2(1 + rank) for ranks 1 … n (Singh & Joachims 2018; the DCG discount).

    The paper writes v_j = 1 / log(1 + j); base 2 (as in DCG and in NFaiRR's discount) gives 1 at rank 1 and only
    rescales every exposure by the same factor, so parity and the sign of a disparity do not depend on it.
    """
    return 1.0 / np.log2(np.arange(1, n + 1) + 1.0)


def _check_groups(groups: Sequence[str]) -> None:
    unknown = sorted({g for g in groups if g not in GROUPS})
    if unknown:
        raise InputError(f"unknown group label(s) {', '.join(map(repr, unknown))}; expected {', '.join(GROUPS)}")


def label_magnitudes(groups: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """``(female, male)`` magnitudes from group labels: female → (1, 0), male → (0, 1), neutral → (0, 0)."""
    _check_groups(groups)
    female = np.array([g == "female" for g in groups], dtype=float)
    male = np.array([g == "male" for g in groups], dtype=float)
    return female, male


def set_quality(returned_relevant: Sequence[bool], n_relevant: int) -> dict[str, float]:
    """Recall, precision and F1 of a returned set.

    ``returned_relevant[i]`` says whether the i-th returned document is relevant; ``n_relevant`` is how many
    relevant documents the query has. Empty result: precision 0. F1 is the harmonic mean (0 when both are 0).
    """
    if n_relevant <= 0:
        raise InputError("n_relevant must be positive (a query without relevant documents cannot be scored)")
    hits = float(np.sum(np.asarray(returned_relevant, dtype=bool)))
    if hits > n_relevant:
        raise InputError(
            f"{int(hits)} relevant documents returned but the query has {n_relevant}: a document returned twice?"
        )
    recall = hits / n_relevant
    precision = hits / len(returned_relevant) if len(returned_relevant) else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0
    return {"recall": recall, "precision": precision, "f1": f1, "returned": float(len(returned_relevant))}


def oracle_cut(ranking_relevant: Sequence[bool], n_relevant: int) -> dict[str, float]:
    """The best per-query cut of a ranking: the prefix length k ≥ 1 with the highest F1 (ties: the shortest).

    This is the ceiling of any rule that only decides *where to cut* that ranking; a dynamic-k strategy's F1 is
    read against it. Returns ``oracle_f1``, ``oracle_k``, ``oracle_recall``, ``oracle_precision``.
    """
    if n_relevant <= 0:
        raise InputError("n_relevant must be positive")
    rel = np.asarray(ranking_relevant, dtype=float)
    if rel.size == 0:
        return {"oracle_f1": 0.0, "oracle_k": 0.0, "oracle_recall": 0.0, "oracle_precision": 0.0}
    hits = np.cumsum(rel)
    k = np.arange(1, rel.size + 1)
    f1 = 2 * hits / (k + n_relevant)  # = 2PR / (P + R) with P = hits/k, R = hits/n
    best = int(np.argmax(f1))
    return {
        "oracle_f1": float(f1[best]),
        "oracle_k": float(best + 1),
        "oracle_recall": float(hits[best] / n_relevant),
        "oracle_precision": float(hits[best] / (best + 1)),
    }


def group_counts(groups: Sequence[str]) -> dict[str, float]:
    """How many returned documents per group, ``female_minus_male`` (#F − #M) and ``abs_female_minus_male``."""
    _check_groups(groups)
    counts = {f"count_{g}": float(sum(1 for x in groups if x == g)) for g in GROUPS}
    diff = counts["count_female"] - counts["count_male"]
    return {**counts, "female_minus_male": diff, "abs_female_minus_male": abs(diff)}


def _magnitudes(female: Sequence[float] | np.ndarray, male: Sequence[float] | np.ndarray) -> tuple[np.ndarray, ...]:
    """Female and male magnitudes as float arrays of one length, finite and ≥ 0."""
    try:
        f, m = np.asarray(female, dtype=float), np.asarray(male, dtype=float)
    except (TypeError, ValueError):
        raise InputError("gender magnitudes must be numbers") from None
    if f.ndim != 1 or f.shape != m.shape:
        raise InputError(f"female and male magnitudes must be lists of one length, got {f.shape} and {m.shape}")
    if not (np.isfinite(f).all() and np.isfinite(m).all()) or (f < 0).any() or (m < 0).any():
        raise InputError("gender magnitudes must be finite numbers >= 0")
    return f, m


def _neutralities(values: Sequence[float] | np.ndarray, label: str) -> np.ndarray:
    """Neutralities ω as a float array, each in [-1, 1] (eq. 1 gives [0, 1] at portion 0.5, down to -1 at others)."""
    try:
        omega = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{label}: neutralities must be numbers") from None
    if omega.ndim != 1 or not (np.isfinite(omega).all() and ((omega >= -1) & (omega <= 1)).all()):
        raise InputError(f"{label}: neutralities must be a list of numbers in [-1, 1]")
    return omega


def _no_repeats(ranked_ids: Sequence[DocId]) -> None:
    seen: set[DocId] = set()
    for doc in ranked_ids:
        if doc in seen:
            raise InputError(f"the ranking returns document {shown(doc)} twice")
        seen.add(doc)


def rank_bias(
    female: Sequence[float] | np.ndarray, male: Sequence[float] | np.ndarray, cutoff: int
) -> dict[str, float]:
    """RaB@t and ARaB@t (Rekabsaz & Schedl 2020) of one ranked list; positive = more male than female.

    ``female[i]`` / ``male[i]`` are the gender magnitudes of the document at rank i + 1 (e.g. from
    :func:`label_magnitudes`, or term-frequency magnitudes such as log(1 + #female words)). With t = cutoff:

    * RaB@t = mean(male[:t]) − mean(female[:t]);
    * ARaB@t = mean over x = 1 … t of RaB@x, over the x the list is long enough for (as in the authors' code).

    Also returns the female/male parts of each (``arab_female``, ``arab_male``). An empty list has no bias (0).
    """
    cutoff = check_int("cutoff", cutoff)
    f, m = _magnitudes(female, male)
    f, m = f[:cutoff], m[:cutoff]
    if f.size == 0:
        return {"rab": 0.0, "arab": 0.0, "arab_female": 0.0, "arab_male": 0.0}
    depth = np.arange(1, f.size + 1)
    rab_f = np.cumsum(f) / depth  # RaB@x parts for x = 1 … len
    rab_m = np.cumsum(m) / depth
    return {
        "rab": float(rab_m[-1] - rab_f[-1]),
        "arab": float(np.mean(rab_m) - np.mean(rab_f)),
        "arab_female": float(np.mean(rab_f)),
        "arab_male": float(np.mean(rab_m)),
    }


def document_neutrality(
    female: Sequence[float] | np.ndarray,
    male: Sequence[float] | np.ndarray,
    *,
    threshold: float = 0.0,
    portion: float = 0.5,
) -> np.ndarray:
    """Neutrality ω(d) of each document (Rekabsaz, Kopeinik & Schedl 2021, eq. 1).

    With magnitudes m_f, m_m and their sum s: ω = 1 when s ≤ ``threshold`` (too little gender evidence), otherwise
    ω = 1 − |m_f / s − J_f| − |m_m / s − J_m| with target portions J_f = ``portion``, J_m = 1 − ``portion``.
    So a document about women only or men only has ω = 0 and one mentioning both equally ω = 1. The authors'
    word-count code uses threshold 1 (a single gendered word is ignored); with group labels (magnitude 1) use the
    default 0, otherwise every labelled document would count as neutral.
    """
    f, m = _magnitudes(female, male)
    total = f + m
    with np.errstate(invalid="ignore", divide="ignore"):
        omega = 1.0 - np.abs(f / total - portion) - np.abs(m / total - (1.0 - portion))
    return np.where(total > threshold, omega, 1.0)


def nfairr(
    neutrality: Sequence[float] | np.ndarray, background: Sequence[float] | np.ndarray, cutoff: int
) -> dict[str, float]:
    """FaiRR@t and NFaiRR@t (Rekabsaz, Kopeinik & Schedl 2021) of one ranked list.

    ``neutrality`` holds ω of the returned documents in rank order; ``background`` holds ω of the documents the
    ideal ranking may choose from (the authors use each query's top documents of a background run; we use the
    query's candidate pool or the whole collection). FaiRR@t = Σ_{i ≤ min(t, len)} ω_i / log2(i + 1); IFaiRR@t is
    the same over the background sorted by ω descending; NFaiRR = FaiRR / IFaiRR (0 when IFaiRR is 0).
    A short list (fewer than t documents) scores lower than a full one, as in the authors' code.
    """
    cutoff = check_int("cutoff", cutoff)
    omega = _neutralities(neutrality, "neutrality")[:cutoff]
    ideal = np.sort(_neutralities(background, "background"))[::-1][:cutoff]
    fairr = float(np.sum(omega * attention(omega.size)))
    ideal_fairr = float(np.sum(ideal * attention(ideal.size)))
    return {"fairr": fairr, "ideal_fairr": ideal_fairr, "nfairr": fairr / ideal_fairr if ideal_fairr > 0 else 0.0}


def group_exposure(ranked_ids: Sequence[DocId], pool_groups: Mapping[DocId, str]) -> dict[str, float]:
    """Attention-weighted exposure per group (Singh & Joachims 2018) over a pool of documents.

    ``ranked_ids`` are the returned documents, best first; ``pool_groups`` maps each document of the pool (e.g.
    the query's relevant documents) to its group. A pool document at rank j gets attention 1 / log2(1 + j), 0 if it
    was not returned; ``exposure_<group>`` is the mean over the group's pool documents, NaN (undefined) for a group
    with no pool document. ``exposure_disparity`` = exposure_female − exposure_male, ``abs_exposure_disparity`` its
    size, NaN unless the pool holds both groups: a group with nothing to expose has no exposure to compare (counting
    it as 0 reported a disparity for a fair ranking). With a pool of equally relevant documents, parity (disparity
    0) is Singh & Joachims' "equal exposure for equal merit". :func:`mean_report` averages each over the queries
    where it is defined.
    """
    _check_groups(list(pool_groups.values()))
    _no_repeats(ranked_ids)
    weights = attention(len(ranked_ids))
    rank_attention = {doc: float(w) for doc, w in zip(ranked_ids, weights, strict=True)}
    result = {}
    for group in GROUPS:
        members = [doc for doc, g in pool_groups.items() if g == group]
        result[f"exposure_{group}"] = float(np.mean([rank_attention.get(d, 0.0) for d in members])) if members else NAN
    disparity = result["exposure_female"] - result["exposure_male"]
    return {**result, "exposure_disparity": disparity, "abs_exposure_disparity": abs(disparity)}


def query_report(
    ranked_ids: Sequence[DocId],
    groups: Mapping[DocId, str],
    relevant: AbstractSet[DocId],
    *,
    cutoff: int,
    background: Sequence[DocId] | None = None,
) -> dict[str, float]:
    """Every metric of this module for one query's returned list, as one flat dict.

    ``groups`` maps every document id (returned, relevant and background) to its group; ``relevant`` is the
    query's relevant ids; ``cutoff`` is the t of ARaB@t and NFaiRR@t (the strategy's k); ``background`` is the
    NFaiRR background set (default: every id in ``groups``); the returned documents always belong to it, so the
    ideal ordering can be as neutral as the list itself (NFaiRR stays in [0, 1]). Exposure is measured over the
    relevant documents. A document returned twice, or an id ``groups`` does not label, is an InputError.
    """
    ranked = list(ranked_ids)
    _no_repeats(ranked)
    unlabelled = [d for d in (*ranked, *relevant, *(() if background is None else background)) if d not in groups]
    if unlabelled:
        raise InputError(f"no group for document {shown(unlabelled[0])}: groups must label every id used")
    ranked_groups = [groups[d] for d in ranked]
    female, male = label_magnitudes(ranked_groups)
    background_ids = list(groups) if background is None else list(dict.fromkeys([*background, *ranked]))
    bg_female, bg_male = label_magnitudes([groups[d] for d in background_ids])
    return {
        **set_quality([d in relevant for d in ranked], len(relevant)),
        **group_counts(ranked_groups),
        **rank_bias(female, male, cutoff),
        **nfairr(document_neutrality(female, male), document_neutrality(bg_female, bg_male), cutoff),
        **group_exposure(ranked, {d: groups[d] for d in relevant}),
    }


def mean_report(rows: Sequence[Mapping[str, float]]) -> dict[str, float]:
    """Mean of each key over per-query dicts, plus ``abs_arab`` (mean |ARaB|) when rows carry ``arab``.

    A NaN value (a metric undefined for that query: the exposure of a group with no relevant document) is left out
    of its key's mean; a key undefined for every query stays NaN.
    """
    if not rows:
        raise InputError("no per-query results to average")
    keys = list(rows[0])
    if any(set(row) != set(keys) for row in rows):
        raise InputError("per-query results hold different metrics: average rows of one kind")
    result = {key: _defined_mean([row[key] for row in rows]) for key in keys}
    if "arab" in keys:
        result["abs_arab"] = float(np.mean([abs(row["arab"]) for row in rows]))
    return result


def _defined_mean(values: Sequence[float]) -> float:
    defined = [v for v in values if not math.isnan(v)]
    return float(np.mean(defined)) if defined else NAN
