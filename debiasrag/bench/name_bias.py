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

import csv
import json
import os
import random
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

import numpy as np

from debiasrag.bench._common import seed002_figures
from debiasrag.bench.base import BenchContext, BenchResult
from debiasrag.embedders import Embedder
from debiasrag.errors import InputError

NAME = "name-bias"
K_PERTURBATIONS = 20  # seed 002 §3.1
MAX_WORDS = 250  # seed 002 §3.3: plots shorter than 250 words
MAX_CMU_TEXTS = 200  # CMU files hold thousands of plots; a seeded sample keeps a run within minutes
ENV_CMU_MOVIES = "DEBIASRAG_CMU_MOVIES"  # folder with plot_summaries.txt and movie.metadata.tsv (or the .txt)
ENV_CMU_BOOKS = "DEBIASRAG_CMU_BOOKS"  # booksummaries.txt

# Seed 002 figures (mean pairwise cosine per perturbation pair): setting -> corpus -> model short name -> value.
SEED_FIGURES: dict[str, dict[str, dict[str, float]]] = seed002_figures()["name_bias"]

# ----------------------------------------------------------------------------------------------- data


@dataclass(frozen=True)
class NameUniverses:
    """Replacement names: seed 002 Table 9 (persons, countries) and Table 12 (persons per country)."""

    person_names: tuple[str, ...]
    country_names: tuple[str, ...]
    by_country: dict[str, tuple[str, ...]]
    source: str = ""


def load_universes(path: str | Path | None = None) -> NameUniverses:
    """Load ``data/names/seed002_universes.json`` (or a file with the same schema)."""
    if path is None:
        text = resources.files("debiasrag").joinpath("data", "names", "seed002_universes.json").read_text("utf-8")
    else:
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot read name universes {path}: {exc.strerror}") from exc
    data = json.loads(text)
    return NameUniverses(
        person_names=tuple(data["person_names"]),
        country_names=tuple(data["country_names"]),
        by_country={k: tuple(v) for k, v in data.get("by_country", {}).items()},
        source=data.get("source", ""),
    )


@dataclass
class NarrativeText:
    """A text and the person / country names in it (``None`` = not marked yet, find them with NER)."""

    id: str
    text: str
    persons: list[str] | None = None
    countries: list[str] | None = None
    title: str = ""
    metadata: dict[str, str] = field(default_factory=dict)


def load_builtin_narratives() -> list[NarrativeText]:
    """The shipped corpus of name-rich stories, names marked in ``persons`` / ``countries``."""
    lines = resources.files("debiasrag").joinpath("data", "bench", "narratives.jsonl").read_text("utf-8")
    rows = [json.loads(line) for line in lines.splitlines() if line.strip()]
    return [NarrativeText(r["id"], r["text"], list(r["persons"]), list(r["countries"])) for r in rows]


def _open_tsv(path: Path) -> Iterable[list[str]]:
    try:
        handle = path.open(encoding="utf-8", newline="")
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from exc
    with handle:
        # The CMU files are tab-separated without quoting (summaries contain quote characters).
        yield from csv.reader(handle, delimiter="\t", quoting=csv.QUOTE_NONE)


def load_cmu_movies(path: str | Path) -> list[NarrativeText]:
    """CMU Movie Summary Corpus (Bamman et al. 2013).

    ``path`` is the corpus folder (``plot_summaries.txt``: ``wikipedia_id<TAB>plot``; ``movie.metadata.tsv``:
    ``wikipedia_id, freebase_id, name, release_date, box_office, runtime, languages, countries, genres``) or the
    ``plot_summaries.txt`` file itself (then titles are left empty). Names are not marked (NER finds them).
    """
    path = Path(path).expanduser()
    plots_path = path / "plot_summaries.txt" if path.is_dir() else path
    meta_path = plots_path.parent / "movie.metadata.tsv"
    titles: dict[str, str] = {}
    if meta_path.exists():
        for row in _open_tsv(meta_path):
            if len(row) >= 3:
                titles[row[0]] = row[2]
    texts = []
    for number, row in enumerate(_open_tsv(plots_path), 1):
        if not row or not row[0].strip():
            continue
        if len(row) < 2:
            raise InputError(f"{plots_path}:{number}: expected 'wikipedia_id<TAB>plot', got {len(row)} column")
        texts.append(NarrativeText(f"movie-{row[0]}", row[1].strip(), title=titles.get(row[0], "")))
    return texts


def load_cmu_books(path: str | Path) -> list[NarrativeText]:
    """CMU Book Summary Dataset (Bamman and Smith 2013): ``booksummaries.txt``, 7 tab-separated columns
    ``wikipedia_id, freebase_id, title, author, publication_date, genres_json, summary``."""
    path = Path(path).expanduser()
    if path.is_dir():
        path = path / "booksummaries.txt"
    texts = []
    for number, row in enumerate(_open_tsv(path), 1):
        if not row or not row[0].strip():
            continue
        if len(row) < 7:
            raise InputError(f"{path}:{number}: expected 7 tab-separated columns, got {len(row)}")
        texts.append(NarrativeText(f"book-{row[0]}", row[6].strip(), title=row[2], metadata={"author": row[3]}))
    return texts


# ------------------------------------------------------------------------------------- Algorithm 1


def _name_pattern(names: Iterable[str]) -> re.Pattern[str] | None:
    names = sorted({n for n in names if n}, key=len, reverse=True)  # longest first: "New Zealand" before "New"
    if not names:
        return None
    return re.compile(r"(?<!\w)(?:" + "|".join(re.escape(n) for n in names) + r")(?!\w)")


def replace_names(text: str, mapping: dict[str, str]) -> str:
    """Replace every whole-word occurrence of each key by its value, all at once.

    Simultaneous replacement matters: with sequential ``str.replace`` a name drawn as a replacement could itself
    be replaced by a later step (Mike -> Donald, then Donald -> Shawn).
    """
    pattern = _name_pattern(mapping)
    if pattern is None:
        return text
    return pattern.sub(lambda m: mapping[m.group(0)], text)


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


def remove_names(text: str, names: Iterable[str]) -> str:
    """Delete the given names (and a following possessive 's) and tidy the spaces left behind."""
    pattern = _name_pattern(names)
    if pattern is None:
        return text
    text = re.sub(pattern.pattern + r"(?:'s)?", "", text)
    text = re.sub(r"[ \t]{2,}", " ", text)
    return re.sub(r" +([,.;:!?])", r"\1", text).strip()


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
        return self.salt_key or self.key


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


def model_short_name(name: str) -> str:
    """``sentence-transformers/all-MiniLM-L6-v2`` -> ``all-MiniLM-L6-v2`` (also for local paths)."""
    return name.rstrip("/").rsplit("/", 1)[-1]


def _corpus_from_env(seed: int) -> tuple[str, str, list[NarrativeText]]:
    """``(corpus_kind, description, texts)``: CMU files if an env var points at them, else the built-in stories."""
    for env, kind, loader in ((ENV_CMU_MOVIES, "movies", load_cmu_movies), (ENV_CMU_BOOKS, "books", load_cmu_books)):
        value = os.environ.get(env)
        if value:
            texts = [t for t in loader(value) if len(t.text.split()) < MAX_WORDS]
            if len(texts) > MAX_CMU_TEXTS:  # seeded sample, same texts on every run
                texts = random.Random(seed).sample(texts, MAX_CMU_TEXTS)
            return kind, f"CMU {kind} ({value}, {len(texts)} plots < {MAX_WORDS} words, seeded sample)", texts
    texts = load_builtin_narratives()
    return "builtin", f"built-in narratives (data/bench/narratives.jsonl, {len(texts)} texts)", texts


def _anonymize_transform(method: str) -> tuple[Callable[[list[str]], list[str]], str]:
    from debiasrag.anonymize import get_anonymizer

    anonymizer = get_anonymizer(method, strategy="remove")
    return (lambda texts: [a.text for a in anonymizer.anonymize_batch(texts)]), f"{method} anonymizer"


def run(ctx: BenchContext) -> BenchResult:
    if ctx.embedder is None:
        raise InputError("name-bias needs an embedder")
    universes = load_universes()
    kind, corpus_note, texts = _corpus_from_env(ctx.seed)
    if kind != "builtin":
        texts = mark_names_with_ner(texts, universes.country_names)
    model = model_short_name(ctx.embedder.name)
    result = BenchResult(NAME)
    result.metrics["corpus"] = corpus_note
    result.metrics["k"] = K_PERTURBATIONS
    result.notes.append(f"corpus: {corpus_note}")
    result.notes.append(f"names: {len(universes.person_names)} persons, {len(universes.country_names)} countries "
                        "(seed 002 Table 9), per-country lists from Table 12")  # fmt: skip
    seed_corpus = "movies" if kind == "movies" else "books"
    if kind == "builtin":
        result.notes.append("seed figures are for the CMU Book corpus (Tables 4, 10-15), not our stories: "
                            "compare the size of the drop, not the third decimal")  # fmt: skip

    rows = []
    selections = {s.key: _select(texts, s) for s in SETTINGS}
    # Settings that perturb the same texts the same way share their similarities (persons_no_location is the
    # location-free subset of persons), so each perturbed text is embedded once.
    memo: dict[tuple[str, str], np.ndarray] = {}
    total = sum(len(v) for v in selections.values())
    with ctx.progress("name-bias: perturb + embed", total) as advance:
        for setting in SETTINGS:
            chosen = selections[setting.key]
            if not chosen:
                result.notes.append(f"{setting.key}: no text qualifies, skipped")
                continue
            person_pool = universes.person_names if setting.persons == "all" else universes.by_country[setting.persons]
            country_pool = universes.country_names if setting.countries else ()
            todo = [t for t in chosen if (setting.salt, t.id) not in memo]
            advance(len(chosen) - len(todo))
            pairs = per_text_similarities(
                ctx.embedder, todo, person_pool, country_pool, seed=ctx.seed, salt=setting.salt, advance=advance
            )
            memo.update(zip(((setting.salt, t.id) for t in todo), pairs, strict=True))
            summary = summarize([memo[setting.salt, t.id] for t in chosen])
            _store(result, setting.key, summary)
            result.series[setting.key] = list(summary.per_text)
            seed_value = SEED_FIGURES[setting.key].get(seed_corpus, {}).get(model)
            if seed_value is not None:
                result.seed_figures[f"{setting.key}.mean"] = seed_value
            rows.append((setting, summary, seed_value))

    main = SETTINGS[0]
    chosen = selections[main.key]
    if chosen and kind == "builtin":
        # Gold removal of the marked names: every perturbation becomes the same text, so similarity is 1.0.
        every_name = _all_universe_names(universes)
        gold = name_bias(ctx.embedder, chosen, universes.person_names, universes.country_names, seed=ctx.seed,
                         salt=main.key, transform=lambda vs: [remove_names(v, every_name) for v in vs])  # fmt: skip
        _store(result, f"{main.key}.gold_removed", gold)
    if ctx.anonymize and chosen:
        try:
            transform, label = _anonymize_transform(ctx.anonymize)
        except Exception as exc:  # noqa: BLE001 - an unavailable anonymizer skips one row, not the benchmark
            result.notes.append(
                f"anonymized row skipped: {ctx.anonymize} anonymizer unavailable ({exc})".splitlines()[0]
            )
        else:
            with ctx.progress(f"name-bias: {label}", len(chosen)) as advance:
                anon = name_bias(ctx.embedder, chosen, universes.person_names, universes.country_names,
                                 seed=ctx.seed, salt=main.key, transform=transform, advance=advance)  # fmt: skip
            _store(result, f"{main.key}.anonymized", anon)
            result.metrics[f"{main.key}.anonymized.method"] = ctx.anonymize
            result.series[f"{main.key} ({ctx.anonymize}-anonymized)"] = list(anon.per_text)
    result.tables.append(_table(rows, model, result))
    return result


def _all_universe_names(universes: NameUniverses) -> list[str]:
    names = set(universes.person_names) | set(universes.country_names)
    for pool in universes.by_country.values():
        names |= set(pool)
    return sorted(names)


def _store(result: BenchResult, key: str, summary: SimilaritySummary) -> None:
    result.metrics[f"{key}.mean"] = round(summary.mean, 6)
    result.metrics[f"{key}.se"] = round(summary.se, 6)
    result.metrics[f"{key}.texts"] = summary.texts
    result.metrics[f"{key}.pairs"] = summary.pairs


def _table(rows: list[tuple[Setting, SimilaritySummary, float | None]], model: str, result: BenchResult) -> str:
    lines = [
        f"| setting | texts | pairs | mean ± SE ({model}) | seed | ours − seed |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for setting, s, seed_value in rows:
        seed_cell = f"{seed_value:.3f}" if seed_value is not None else "—"
        diff = f"{s.mean - seed_value:+.3f}" if seed_value is not None else "—"
        lines.append(f"| {setting.label} | {s.texts} | {s.pairs} | {s.mean:.3f} ± {s.se:.4f} | {seed_cell} | {diff} |")
    for suffix, label in ((".gold_removed", "marked names removed"), (".anonymized", "anonymized")):
        key = f"persons_countries{suffix}.mean"
        if key in result.metrics:
            se = result.metrics[f"persons_countries{suffix}.se"]
            lines.append(f"| persons + countries, {label} | {result.metrics[f'persons_countries{suffix}.texts']} | "
                         f"{result.metrics[f'persons_countries{suffix}.pairs']} | "
                         f"{float(result.metrics[key]):.3f} ± {float(se):.4f} | 1.0 (ideal) | — |")  # fmt: skip
    return "\n".join(lines)
