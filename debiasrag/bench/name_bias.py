"""Name bias (seed 002 §3, Algorithm 1, Tables 3, 4, 10-15): how far embeddings move when only names change.

For every text we build K=20 perturbations with Algorithm 1 (each distinct person / country name replaced by a
name drawn without replacement from the seed's Table 9 / Table 12 universes, the same name always getting the
same replacement within a text), embed them, and average the K(K-1)/2 pairwise cosines over all texts. A model
that reads the story rather than the names would score 1.0; the seed reports 0.69-0.78 for MiniLM.

Corpus: the CMU Movie / CMU Book summaries when the user has them (set ``DEBIASRAG_CMU_MOVIES`` to the folder
holding ``plot_summaries.txt`` + ``movie.metadata.tsv``, or ``DEBIASRAG_CMU_BOOKS`` to ``booksummaries.txt``;
names are then found with spaCy NER), otherwise the shipped ``data/bench/narratives.jsonl`` (31 short stories we
wrote, names marked in the file so no NER is needed). The result says which corpus was used.

With ``ctx.anonymize`` ("ner"/"llm") every perturbation is also anonymized before embedding (names removed),
which pushes the similarity towards 1.0; on the built-in corpus the marked names are also removed directly
("gold" removal), which makes the perturbations identical texts and the similarity exactly 1.0.
"""

from __future__ import annotations

import os
import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from debiasrag.bench._common import (
    SEED_HEADERS,
    add_seed_figures,
    md_table,
    model_short_name,
    seed002_figures,
    seed_columns,
)
from debiasrag.bench._corpora import (
    NameUniverses,
    NarrativeText,
    load_builtin_narratives,
    load_cmu_books,
    load_cmu_movies,
    load_universes,
)
from debiasrag.bench.base import BenchContext, BenchResult
from debiasrag.embedders import Embedder
from debiasrag.errors import InputError
from debiasrag.names import remove_names, replace_names

NAME = "name-bias"
K_PERTURBATIONS = 20  # seed 002 §3.1
MAX_WORDS = 250  # seed 002 §3.3: plots shorter than 250 words
MAX_CMU_TEXTS = 200  # CMU files hold thousands of plots; a seeded sample keeps a run within minutes
ENV_CMU_MOVIES = "DEBIASRAG_CMU_MOVIES"  # folder with plot_summaries.txt and movie.metadata.tsv (or the .txt)
ENV_CMU_BOOKS = "DEBIASRAG_CMU_BOOKS"  # booksummaries.txt

# Seed 002 figures (mean pairwise cosine per perturbation pair): setting -> corpus -> model short name -> value.
SEED_FIGURES: dict[str, dict[str, dict[str, float]]] = seed002_figures()["name_bias"]

# ------------------------------------------------------------------------------------- Algorithm 1


def perturb_text(
    text: str,
    persons: Sequence[str],
    countries: Sequence[str],
    person_pool: Sequence[str],
    country_pool: Sequence[str],
    rng: random.Random,
) -> tuple[str, dict[str, str]]:
    """Algorithm 1: one perturbation of ``text`` and the ``{original: replacement}`` mapping used.

    Each distinct person gets a name drawn without replacement from ``person_pool`` (so two characters never
    merge into one), each distinct country one from ``country_pool``; pass an empty pool to keep that kind.
    """
    persons = list(dict.fromkeys(persons))
    countries = list(dict.fromkeys(countries))
    mapping: dict[str, str] = {}
    for originals, pool in ((persons, person_pool), (countries, country_pool)):
        if not originals or not pool:
            continue
        if len(pool) < len(originals):
            raise InputError(f"need {len(originals)} distinct replacement names, the pool has {len(pool)}")
        mapping.update(zip(originals, rng.sample(list(pool), len(originals)), strict=True))
    return replace_names(text, mapping), mapping


def perturbations(
    item: NarrativeText,
    person_pool: Sequence[str],
    country_pool: Sequence[str],
    k: int = K_PERTURBATIONS,
    seed: int = 0,
    salt: str = "",
) -> list[str]:
    """K perturbations of one text; the RNG is seeded from ``seed``, the text id and ``salt`` (stable per text)."""
    rng = random.Random(f"{seed}:{salt}:{item.id}")
    return [perturb_text(item.text, item.persons or [], item.countries or [], person_pool, country_pool, rng)[0]
            for _ in range(k)]  # fmt: skip


# --------------------------------------------------------------------------------------- the metric


def pairwise_cosines(vectors: np.ndarray) -> np.ndarray:
    """The K(K-1)/2 cosine similarities between distinct rows (i < j); rows need not be normalised."""
    vectors = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    unit = vectors / norms
    upper = np.triu_indices(len(unit), k=1)
    return (unit @ unit.T)[upper]


@dataclass(frozen=True)
class SimilaritySummary:
    """Mean and standard error over all pair similarities of all texts (the seed's single figure)."""

    mean: float
    se: float
    texts: int
    pairs: int
    per_text: tuple[float, ...]  # mean pair similarity of each text (for distributions)


def summarize(per_text_pairs: Sequence[np.ndarray]) -> SimilaritySummary:
    """Seed 002 §3.1: average of the N·K(K-1)/2 similarities; SE = sample std (ddof=1) / sqrt(count).

    Like the seed, the SE treats every pair as an independent sample (pairs of one text are not), so it is small.
    """
    per_text_pairs = [np.asarray(p, dtype=np.float64) for p in per_text_pairs if len(p)]
    if not per_text_pairs:
        raise InputError("no text produced any perturbation pair")
    scores = np.concatenate(per_text_pairs)
    se = float(scores.std(ddof=1) / np.sqrt(scores.size)) if scores.size > 1 else 0.0
    return SimilaritySummary(
        float(scores.mean()), se, len(per_text_pairs), int(scores.size), tuple(float(p.mean()) for p in per_text_pairs)
    )


ENCODE_CHUNK_TEXTS = 16  # texts (x K perturbations) per encode call: big batches are much faster on CPU


def per_text_similarities(
    embedder: Embedder,
    texts: Sequence[NarrativeText],
    person_pool: Sequence[str],
    country_pool: Sequence[str],
    k: int = K_PERTURBATIONS,
    seed: int = 0,
    salt: str = "",
    transform: Callable[[list[str]], list[str]] | None = None,
    advance: Callable[..., None] | None = None,
) -> list[np.ndarray]:
    """The K(K-1)/2 pair similarities of each text's perturbations (optionally ``transform``-ed, e.g. anonymized)."""
    out: list[np.ndarray] = []
    for start in range(0, len(texts), ENCODE_CHUNK_TEXTS):
        chunk = texts[start : start + ENCODE_CHUNK_TEXTS]
        flat = [v for item in chunk for v in perturbations(item, person_pool, country_pool, k=k, seed=seed, salt=salt)]
        if transform is not None:
            flat = transform(flat)
        vectors = embedder.encode(flat)
        out.extend(pairwise_cosines(vectors[i * k : (i + 1) * k]) for i in range(len(chunk)))
        if advance is not None:
            advance(len(chunk))
    return out


def name_bias(
    embedder: Embedder,
    texts: Sequence[NarrativeText],
    person_pool: Sequence[str],
    country_pool: Sequence[str],
    k: int = K_PERTURBATIONS,
    seed: int = 0,
    salt: str = "",
    transform: Callable[[list[str]], list[str]] | None = None,
    advance: Callable[..., None] | None = None,
) -> SimilaritySummary:
    """Perturb every text K times, optionally ``transform`` the perturbations (anonymize), embed, summarise."""
    return summarize(
        per_text_similarities(embedder, texts, person_pool, country_pool, k, seed, salt, transform, advance)
    )


# ------------------------------------------------------------------------------------ NER for CMU


def mark_names_with_ner(texts: Sequence[NarrativeText], countries: Iterable[str]) -> list[NarrativeText]:
    """Fill ``persons`` / ``countries`` of unmarked texts with the anonymizers' NER detector.

    Person entities are split into capitalised tokens so "John Smith" and a later "John" map consistently;
    countries are the detected places found in the country universe; other places and nationalities are counted
    in ``metadata["other_places"]`` so settings that need location-free texts can skip those texts.
    """
    from debiasrag.anonymize import NerAnonymizer

    detector = NerAnonymizer(entities=("person", "location", "nationality"))
    country_set = set(countries)
    todo = [t for t in texts if t.persons is None]
    found = dict(zip((t.id for t in todo), detector.detect_batch([t.text for t in todo]), strict=True))
    out = []
    for item in texts:
        if item.persons is not None:
            out.append(item)
            continue
        entities = found[item.id]
        persons = [
            token
            for e in entities
            if e.label == "PERSON"
            for token in e.text.split()
            if re.fullmatch(r"[^\W\d_][\w'-]*", token) and token[0].isupper()
        ]
        places = [e.text for e in entities if e.label != "PERSON"]
        in_universe = [p for p in places if p in country_set]
        meta = dict(item.metadata, other_places=str(len(places) - len(in_universe)))
        out.append(
            NarrativeText(
                item.id, item.text, list(dict.fromkeys(persons)), list(dict.fromkeys(in_universe)), item.title, meta
            )
        )
    return out


# ---------------------------------------------------------------------------------------- benchmark


@dataclass(frozen=True)
class Setting:
    """One row of the benchmark: which names are replaced, from which pool, on which texts."""

    key: str
    label: str
    persons: str | None  # "all" (Table 9) or a country of Table 12, None = keep persons
    countries: bool
    needs_countries: bool  # only texts with at least one country name
    location_free: bool  # only texts without any place name
    salt_key: str = ""  # RNG salt; settings with the same salt and pools draw the same perturbations

    @property
    def salt(self) -> str:
        """The RNG salt: ``salt_key`` when set, else the setting's key."""
        return self.salt_key or self.key

    def person_pool(self, universes: NameUniverses) -> tuple[str, ...]:
        """Replacement person names: Table 9's list, one country's Table 12 list, or none (persons kept)."""
        if self.persons is None:
            return ()
        return universes.person_names if self.persons == "all" else universes.by_country[self.persons]


SETTINGS = (
    Setting("persons_countries", "persons + countries (Tables 3/4)", "all", True, True, False),
    Setting("persons", "persons only (Table 10)", "all", False, False, False),
    Setting(
        "persons_no_location", "persons only, location-free texts (Table 11)", "all", False, False, True, "persons"
    ),
    Setting("spain", "persons from Spain, location-free texts (Table 13)", "Spain", False, False, True),
    Setting("france", "persons from France, location-free texts (Table 14)", "France", False, False, True),
    Setting("india", "persons from India, location-free texts (Table 15)", "India", False, False, True),
)


def _select(texts: Sequence[NarrativeText], setting: Setting) -> list[NarrativeText]:
    chosen = []
    for t in texts:
        if not t.persons or len(t.text.split()) >= MAX_WORDS:
            continue
        if setting.needs_countries and (not t.countries or t.metadata.get("other_places", "0") != "0"):
            continue  # Table 3: country names present, no city/town/nationality mentions
        if setting.location_free and (t.countries or t.metadata.get("other_places", "0") != "0"):
            continue
        chosen.append(t)
    return chosen


def _corpus_from_env(seed: int) -> tuple[str, str, list[NarrativeText]]:
    """``(corpus_kind, description, texts)``: CMU files if an env var points at them, else the built-in stories."""
    for env, kind, loader in ((ENV_CMU_MOVIES, "movies", load_cmu_movies), (ENV_CMU_BOOKS, "books", load_cmu_books)):
        value = os.environ.get(env)
        if value:
            try:
                loaded = loader(value)
            except InputError as exc:  # name the variable: the user may not know which path the bench read
                raise InputError(f"{env}={value}: {exc.message}") from None
            texts = [t for t in loaded if len(t.text.split()) < MAX_WORDS]
            if len(texts) > MAX_CMU_TEXTS:  # seeded sample, same texts on every run
                texts = random.Random(seed).sample(texts, MAX_CMU_TEXTS)
            return kind, f"CMU {kind} ({value}, {len(texts)} plots < {MAX_WORDS} words, seeded sample)", texts
    texts = load_builtin_narratives()
    return "builtin", f"built-in narratives (data/bench/narratives.jsonl, {len(texts)} texts)", texts


def _anonymize_transform(method: str, options: dict[str, Any]) -> tuple[Callable[[list[str]], list[str]], str]:
    from debiasrag.anonymize import get_anonymizer

    anonymizer = get_anonymizer(method, strategy="remove", **options)
    return (lambda texts: [a.text for a in anonymizer.anonymize_batch(texts)]), f"{method} anonymizer"


# ------------------------------------------------------------------------------------------- measure


@dataclass
class NameBiasMeasurement:
    """Per-setting summaries, the name-removal rows of the main setting, and notes on what was skipped."""

    settings: dict[str, SimilaritySummary]
    removal: dict[str, SimilaritySummary]
    notes: list[str]


def measure_settings(
    ctx: BenchContext, embedder: Embedder, universes: NameUniverses, selections: dict[str, list[NarrativeText]]
) -> tuple[dict[str, SimilaritySummary], list[str]]:
    """Every setting's similarity summary (settings without a qualifying text are skipped with a note)."""
    summaries: dict[str, SimilaritySummary] = {}
    notes: list[str] = []
    # Settings that perturb the same texts the same way share their similarities (persons_no_location is the
    # location-free subset of persons), so each perturbed text is embedded once.
    memo: dict[tuple[str, str], np.ndarray] = {}
    with ctx.progress("name-bias: perturb + embed", sum(len(v) for v in selections.values())) as advance:
        for setting in SETTINGS:
            chosen = selections[setting.key]
            if not chosen:
                notes.append(f"{setting.key}: no text qualifies, skipped")
                continue
            person_pool = setting.person_pool(universes)
            country_pool = universes.country_names if setting.countries else ()
            todo = [t for t in chosen if (setting.salt, t.id) not in memo]
            advance(len(chosen) - len(todo))
            pairs = per_text_similarities(
                embedder, todo, person_pool, country_pool, seed=ctx.seed, salt=setting.salt, advance=advance
            )
            memo.update(zip(((setting.salt, t.id) for t in todo), pairs, strict=True))
            summaries[setting.key] = summarize([memo[setting.salt, t.id] for t in chosen])
    return summaries, notes


def measure_removal(
    ctx: BenchContext, embedder: Embedder, universes: NameUniverses, chosen: list[NarrativeText], builtin: bool
) -> tuple[dict[str, SimilaritySummary], list[str]]:
    """The main setting with names removed: gold removal of the marked names (built-in corpus), anonymized."""
    main, removal, notes = SETTINGS[0], {}, []
    if chosen and builtin:
        # Gold removal of the marked names: every perturbation becomes the same text, so similarity is 1.0.
        every_name = universes.every_name()
        removal["gold_removed"] = name_bias(embedder, chosen, universes.person_names, universes.country_names,
                                            seed=ctx.seed, salt=main.key,
                                            transform=lambda vs: [remove_names(v, every_name) for v in vs])  # fmt: skip
    if ctx.anonymize and chosen:
        try:
            transform, label = _anonymize_transform(ctx.anonymize, ctx.anonymize_options)
        except Exception as exc:  # noqa: BLE001 - an unavailable anonymizer skips one row, not the benchmark
            notes.append(f"anonymized row skipped: {ctx.anonymize} anonymizer unavailable ({exc})".splitlines()[0])
        else:
            with ctx.progress(f"name-bias: {label}", len(chosen)) as advance:
                removal["anonymized"] = name_bias(embedder, chosen, universes.person_names, universes.country_names,
                                                  seed=ctx.seed, salt=main.key, transform=transform,
                                                  advance=advance)  # fmt: skip
    return removal, notes


# ------------------------------------------------------------------------------------------- compare


def seed_figures(model: str, corpus_kind: str, summaries: dict[str, SimilaritySummary]) -> dict[str, float | None]:
    """The seed's mean similarity for each measured setting (CMU Movies for a movie corpus, else CMU Books)."""
    seed_corpus = "movies" if corpus_kind == "movies" else "books"
    return {f"{key}.mean": SEED_FIGURES[key].get(seed_corpus, {}).get(model) for key in summaries}


# -------------------------------------------------------------------------------------------- render


def _store(result: BenchResult, key: str, summary: SimilaritySummary) -> None:
    result.metrics[f"{key}.mean"] = round(summary.mean, 6)
    result.metrics[f"{key}.se"] = round(summary.se, 6)
    result.metrics[f"{key}.texts"] = summary.texts
    result.metrics[f"{key}.pairs"] = summary.pairs


def _table(measured: NameBiasMeasurement, figures: dict[str, float | None], model: str) -> str:
    labels = {s.key: s.label for s in SETTINGS}
    rows = [
        [labels[key], s.texts, s.pairs, f"{s.mean:.3f} ± {s.se:.4f}", *seed_columns(s.mean, figures[f"{key}.mean"])]
        for key, s in measured.settings.items()
    ]
    for key, label in (("gold_removed", "marked names removed"), ("anonymized", "anonymized")):
        if key in measured.removal:
            s = measured.removal[key]
            rows.append([f"persons + countries, {label}", s.texts, s.pairs, f"{s.mean:.3f} ± {s.se:.4f}",
                         "1.0 (ideal)", "—"])  # fmt: skip
    headers = ["setting", "texts", "pairs", f"mean ± SE ({model})", *SEED_HEADERS]
    return md_table(headers, rows, align="lrrrrr")


def run(ctx: BenchContext) -> BenchResult:
    """Seed 002 name bias: mean pairwise cosine of K name perturbations per setting, beside the seed's figures."""
    if ctx.embedder is None:
        raise InputError("name-bias needs an embedder")
    universes = load_universes()
    kind, corpus_note, texts = _corpus_from_env(ctx.seed)
    if kind != "builtin":
        texts = mark_names_with_ner(texts, universes.country_names)
    model = model_short_name(ctx.embedder.name)
    result = BenchResult(NAME, metrics={"corpus": corpus_note, "k": K_PERTURBATIONS})
    result.notes.append(f"corpus: {corpus_note}")
    result.notes.append(f"names: {len(universes.person_names)} persons, {len(universes.country_names)} countries "
                        "(seed 002 Table 9), per-country lists from Table 12")  # fmt: skip
    if kind == "builtin":
        result.notes.append("seed figures are for the CMU Book corpus (Tables 4, 10-15), not our stories: "
                            "compare the size of the drop, not the third decimal")  # fmt: skip

    selections = {s.key: _select(texts, s) for s in SETTINGS}
    settings, notes = measure_settings(ctx, ctx.embedder, universes, selections)
    chosen = selections[SETTINGS[0].key]
    removal, removal_notes = measure_removal(ctx, ctx.embedder, universes, chosen, kind == "builtin")
    measured = NameBiasMeasurement(settings, removal, notes + removal_notes)
    result.notes += measured.notes
    if not settings:  # nothing measured (e.g. a CMU file with no plot short enough): not an 'ok' run
        result.skipped = f"no text of the corpus qualifies for any setting, corpus: {corpus_note}"

    for key, summary in settings.items():
        _store(result, key, summary)
        result.series[key] = list(summary.per_text)
    for key, summary in removal.items():
        _store(result, f"{SETTINGS[0].key}.{key}", summary)
    if "anonymized" in removal:
        result.metrics[f"{SETTINGS[0].key}.anonymized.method"] = str(ctx.anonymize)
        result.series[f"{SETTINGS[0].key} ({ctx.anonymize}-anonymized)"] = list(removal["anonymized"].per_text)
    figures = seed_figures(model, kind, settings)
    add_seed_figures(result, figures)
    result.tables.append(_table(measured, figures, model))
    return result
