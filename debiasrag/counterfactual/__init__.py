"""Counterfactual preprocessing (seed 001): gender-swapped counterparts and the sentence bias score.

* :mod:`~debiasrag.counterfactual.gender_swap`: :class:`GenderSwapper` ("She is a nurse" -> "He is a nurse",
  names and possessives included) and augmentation chosen by bias score (:func:`augment_by_bias_score`);
* :mod:`~debiasrag.counterfactual.neutralize`: :class:`GenderNeutralizer` (the neutral wording of a text, for
  gender-blind embeddings: "She called her mother" -> "They called their parent");
* :mod:`~debiasrag.counterfactual.bias_score`: :class:`BiasScorer` (transformer token bias along a gender
  direction fitted from swapped sentence pairs) and :class:`GloveBiasScorer` (GloVe word vectors), with
  :func:`rank_scores` / :func:`most_stereotyped`.

These change or rank the corpus before it is indexed; the retrieval core (:mod:`debiasrag.retriever`) does not
need them. spaCy (``nlp`` extra) and the models (``embed`` extra) load only when a swapper or scorer is used.
"""

from debiasrag.counterfactual.bias_score import (
    BiasRanking,
    BiasScorer,
    GloveBiasScorer,
    SentenceBias,
    TokenBias,
    most_stereotyped,
    rank_scores,
)
from debiasrag.counterfactual.gender_swap import (
    Counterfactual,
    GenderSwapper,
    Replacement,
    augment_by_bias_score,
    load_gender_words,
    load_swap_names,
    select_by_bias_score,
)
from debiasrag.counterfactual.neutralize import GenderNeutralizer, blind_index

__all__ = [
    "BiasRanking",
    "BiasScorer",
    "Counterfactual",
    "GenderNeutralizer",
    "GenderSwapper",
    "GloveBiasScorer",
    "Replacement",
    "SentenceBias",
    "TokenBias",
    "augment_by_bias_score",
    "blind_index",
    "load_gender_words",
    "load_swap_names",
    "most_stereotyped",
    "rank_scores",
    "select_by_bias_score",
]
