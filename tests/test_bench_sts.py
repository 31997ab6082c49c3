"""sts benchmark: AUC by hand, the identical-names and gold-removal variants, and the seed 002 MiniLM figures."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from debiasrag.bench import sts
from debiasrag.bench.base import BenchContext
from debiasrag.errors import InputError
from debiasrag.metrics.geometry import auc_score


def test_auc_by_hand_matches_sklearn():
    positives, negatives = [0.9, 0.4, 0.6], [0.5, 0.1, 0.6]
    # 9 (pos, neg) pairs: 0.9 beats all 3; 0.4 beats 0.1; 0.6 beats 0.5 and 0.1 and ties 0.6 (half) -> 6.5 / 9
    assert auc_score(negatives, positives) == pytest.approx(6.5 / 9)
    labels = [1, 1, 1, 0, 0, 0]
    assert roc_auc_score(labels, positives + negatives) == pytest.approx(6.5 / 9)
    # every negative pair scored above every positive one, as names make MiniLM do: AUC 0
    assert auc_score([0.8, 0.9], [0.1, 0.2]) == 0.0


def test_triplets_file_has_the_ten_appendix_d_triplets():
    triplets = sts.load_triplets()
    assert len(triplets) == 10
    assert triplets[1].query.startswith("Alejandro quickly ran to the store")
    assert triplets[9].names == {"query": ("Martinez",), "positive": ("Yohan",), "negative": ("Martinez",)}


def test_identical_names_substitutes_role_counterparts():
    t = sts.load_triplets()[0]
    same = sts.identical_names(t)
    assert same.query == t.query
    assert same.positive.startswith("Deborah and Nikolai met on a rainy Tuesday in New York.")
    assert "Kashvi" not in same.positive and "Oluwafemi" not in same.positive
    assert "New Jersey" not in same.negative and same.negative.startswith("Nikolai and Deborah staying in New York")
    # fewer names than the query: Yangtze -> Ganga
    assert sts.identical_names(sts.load_triplets()[4]).positive.startswith("Ganga is a mighty river.")


def test_gold_removed_deletes_every_listed_name():
    t = sts.gold_removed(sts.load_triplets()[1])
    assert t.query == "quickly ran to the store to buy a cold drink. He was eager to have a glass of cold drink."
    assert t.positive.startswith("Quickly, dashed to the local market")


def test_load_triplets_rejects_incomplete_rows(tmp_path):
    bad = tmp_path / "t.json"
    bad.write_text('{"triplets": [{"query": "a", "positive": "b", "names": {}}]}', encoding="utf-8")
    with pytest.raises(InputError, match="STS triplet 1: missing negative"):
        sts.load_triplets(bad)


def test_minilm_reproduces_seed_original_auc(embedder):
    scores = sts.sts_scores(embedder, sts.load_triplets())
    # seed 002 Table 6, all-MiniLM-L6-v2, original: AUC 0.09 = 9 of 100 (positive, negative) pairs ordered right
    assert scores.auc == pytest.approx(0.09, abs=0.01)
    labels = [1] * 10 + [0] * 10
    assert roc_auc_score(labels, list(scores.positive) + list(scores.negative)) == pytest.approx(scores.auc)


def test_minilm_identical_names_and_gold_removal(embedder):
    triplets = sts.load_triplets()
    identical = sts.sts_scores(embedder, [sts.identical_names(t) for t in triplets])
    assert identical.auc == pytest.approx(0.94, abs=0.01)  # seed 002 Table 6, identical names
    removed = sts.sts_scores(embedder, [sts.gold_removed(t) for t in triplets])
    assert removed.auc >= 0.95  # seed (LLM-anonymized): 0.99 ± 0.007


def test_minilm_reproduces_table1_story_example(embedder):
    story = sts.load_story_example()
    s12, s13 = sts.story_similarities(embedder, story["stories"])
    assert story["seed_figures"]["all-MiniLM-L6-v2"] == {"story1_story2": 0.660, "story1_story3": 0.853}
    assert s12 == pytest.approx(0.660, abs=0.01)
    assert s13 == pytest.approx(0.853, abs=0.01)
    assert s13 > s12  # the seed's point: the same name outweighs the same plot


def test_run_reports_seed_figures_beside_ours(embedder):
    result = sts.run(BenchContext(embedder=embedder))
    assert result.metrics["original.auc"] == pytest.approx(0.09, abs=0.01)
    assert result.seed_figures["original.auc"] == 0.09
    assert result.seed_figures["identical_names.auc"] == 0.94
    rows = {key: (seed, ours, diff) for key, seed, ours, diff in result.seed_comparison()}
    seed, ours, diff = rows["story.story1_story3"]
    assert seed == 0.853 and diff == pytest.approx(float(ours) - 0.853)
    assert result.metrics["anonymized.method"] == "ner"  # default anonymizer when ctx.anonymize is None
    assert float(result.metrics["anonymized.auc"]) > float(result.metrics["original.auc"]) + 0.5
    assert float(result.metrics["anonymized_replace.auc"]) > float(result.metrics["original.auc"]) + 0.5
    assert result.seed_figures["anonymized_replace.auc"] == 0.97  # Table 18, placeholders instead of removal
    assert any("| original | 0.090 | 0.090 |" in table for table in result.tables)
    assert np.isfinite(float(result.metrics["gold_removed.auc"]))
