"""name-bias benchmark: Algorithm 1 perturbations, the pairwise-cosine statistic, name universes, CMU loaders."""

from __future__ import annotations

import json
import math
import random
from importlib import resources

import numpy as np
import pytest

from debiasrag.bench import name_bias as nb
from debiasrag.bench.base import BenchContext
from debiasrag.errors import InputError
from debiasrag.names import name_pattern

# ------------------------------------------------------------------------------------- universes


def test_universes_transcribed_from_seed_tables_9_and_12():
    u = nb.load_universes()
    assert len(u.person_names) == 506 and len(set(u.person_names)) == 506  # 587 printed, duplicates kept once
    assert (u.person_names[0], u.person_names[-1]) == ("Aaron", "Esha")
    assert len(u.country_names) == 149
    assert (u.country_names[0], u.country_names[-1]) == ("Afghanistan", "Serbia")
    assert {len(v) for v in u.by_country.values()} == {97, 107, 115}
    assert (len(u.by_country["France"]), len(u.by_country["India"]), len(u.by_country["Spain"])) == (97, 107, 115)
    # OCR fixes are applied and documented
    for fixed, garbled in [("Algeria", "Algaria"), ("Bosnia and Herzegovina", "Rospia and Harzagovina")]:
        assert fixed in u.country_names and garbled not in u.country_names
        assert garbled in u.source
    assert "Poppy" in u.person_names and "Foppy" not in u.person_names
    assert {"Sophie", "Claire", "Charles-Henri"} <= set(u.by_country["France"])


def test_builtin_narratives_mark_every_name_they_contain():
    texts = nb.load_builtin_narratives()
    assert len(texts) == 31
    assert sum(bool(t.countries) for t in texts) == 13
    for t in texts:
        assert t.persons, t.id
        for name in t.persons + t.countries:
            assert name_pattern([name]).search(t.text), (t.id, name)
        assert len(t.text.split()) < nb.MAX_WORDS


# ----------------------------------------------------------------------------------- Algorithm 1


def test_replace_names_is_simultaneous_and_whole_word():
    mapping = {"Mike": "Donald", "Donald": "Shawn", "Anna": "Eva", "New Zealand": "Chad"}
    text = "Mike met Donald and Annabel; Anna's trip to New Zealand. Mike's brother."
    assert nb.replace_names(text, mapping) == "Donald met Shawn and Annabel; Eva's trip to Chad. Donald's brother."


def test_perturbation_replaces_each_name_consistently():
    text = "Mike lives in Belgium. Donald visits Mike, and Mike's sister loves Belgium."
    pool = ["Ava", "Ben", "Cleo", "Dara", "Emil", "Finn"]
    countries = ["Chad", "Peru", "Oman"]
    out, mapping = nb.perturb_text(text, ["Mike", "Donald", "Mike"], ["Belgium"], pool, countries, random.Random(3))
    assert set(mapping) == {"Mike", "Donald", "Belgium"}
    assert mapping["Mike"] != mapping["Donald"]  # drawn without replacement
    assert mapping["Mike"] in pool and mapping["Donald"] in pool and mapping["Belgium"] in countries
    expected = (
        f"{mapping['Mike']} lives in {mapping['Belgium']}. {mapping['Donald']} visits {mapping['Mike']}, and "
        f"{mapping['Mike']}'s sister loves {mapping['Belgium']}."
    )
    assert out == expected
    # persons only: an empty country pool keeps the country
    out2, mapping2 = nb.perturb_text(text, ["Mike", "Donald"], ["Belgium"], pool, (), random.Random(3))
    assert "Belgium" not in mapping2 and out2.count("Belgium") == 2


def test_perturbations_are_seeded_per_text():
    item = nb.NarrativeText("t1", "Anna met Peter in Chile.", ["Anna", "Peter"], ["Chile"])
    u = nb.load_universes()
    a = nb.perturbations(item, u.person_names, u.country_names, k=20, seed=7)
    b = nb.perturbations(item, u.person_names, u.country_names, k=20, seed=7)
    c = nb.perturbations(item, u.person_names, u.country_names, k=20, seed=8)
    assert a == b and a != c and len(a) == 20
    assert len(set(a)) > 15  # 506 x 505 x 149 combinations: repeats are rare
    assert not any("Anna" in p or "Chile" in p for p in a)


def test_pool_smaller_than_names_is_a_clear_error():
    with pytest.raises(InputError, match="3 distinct replacement names"):
        nb.perturb_text("A B C", ["A", "B", "C"], [], ["X", "Y"], [], random.Random(0))


# ------------------------------------------------------------------------------------ statistic


def test_pairwise_cosines_and_summary_by_hand():
    # cos(e1, e2) = 0, cos(e1, e1+e2) = cos(e2, e1+e2) = 1/sqrt(2)
    pairs = nb.pairwise_cosines(np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]]))
    assert pairs == pytest.approx([0.0, 1 / math.sqrt(2), 1 / math.sqrt(2)])
    s = nb.summarize([pairs, np.array([1.0])])  # a second text with K=2 and identical perturbations
    # pooled scores 0, .707107, .707107, 1: mean .603553; squared deviations .364277 + 2 x .010723 + .157170
    # = .542893; sample variance (ddof=1) .542893 / 3 = .180964, std .425399; SE = std / sqrt(4) = .212700
    assert s.mean == pytest.approx((2 / math.sqrt(2) + 1) / 4)
    assert s.se == pytest.approx(0.212700, abs=1e-6)
    assert (s.texts, s.pairs) == (2, 4)
    assert s.per_text == pytest.approx([math.sqrt(2) / 3, 1.0])


def test_summary_of_identical_texts_is_one():
    pairs = nb.pairwise_cosines(np.ones((20, 4)))
    assert len(pairs) == 190
    s = nb.summarize([pairs])
    assert s.mean == pytest.approx(1.0) and s.se == pytest.approx(0.0, abs=1e-12)


def test_remove_names_tidies_the_gap():
    assert nb.remove_names("Then Mike's dog met Anna , in Peru.", ["Mike", "Anna", "Peru"]) == "Then dog met, in."


def test_name_bias_with_minilm(embedder):
    u = nb.load_universes()
    texts = nb.load_builtin_narratives()[:2]
    s = nb.name_bias(embedder, texts, u.person_names, u.country_names, k=5, seed=0, salt="t")
    assert (s.texts, s.pairs) == (2, 20)
    assert 0.3 < s.mean < 0.98 and s.se > 0  # names move MiniLM embeddings noticeably
    again = nb.name_bias(embedder, texts, u.person_names, u.country_names, k=5, seed=0, salt="t")
    assert again == s  # seeded: identical across runs
    names = sorted(set(u.person_names) | set(u.country_names))
    gold = nb.name_bias(
        embedder,
        texts,
        u.person_names,
        u.country_names,
        k=5,
        transform=lambda vs: [nb.remove_names(v, names) for v in vs],
    )
    assert gold.mean == pytest.approx(1.0, abs=1e-5)


# ---------------------------------------------------------------------------------- CMU loaders


def test_cmu_movie_loader_reads_published_tsv(tmp_path):
    (tmp_path / "plot_summaries.txt").write_text(
        '23890098\tShlykov, a hard-working taxi driver, and "Lyosha" go fishing.\n'
        "31186339\tThe nation of Panem consists of a wealthy Capitol.\n",
        encoding="utf-8",
    )
    (tmp_path / "movie.metadata.tsv").write_text(
        '975900\t/m/03vyhn\tGhosts of Mars\t2001-08-24\t14010832\t98.0\t{"/m/02h40lc": "English Language"}\t'
        '{"/m/09c7w0": "United States of America"}\t{"/m/01jfsb": "Thriller"}\n'
        "31186339\t/m/0gkz15s\tThe Hunger Games\t2012-03-12\t686533290\t142.0\t{}\t{}\t{}\n",
        encoding="utf-8",
    )
    movies = nb.load_cmu_movies(tmp_path)
    assert [m.id for m in movies] == ["movie-23890098", "movie-31186339"]
    assert movies[0].text == 'Shlykov, a hard-working taxi driver, and "Lyosha" go fishing.'  # quotes kept verbatim
    assert (movies[0].title, movies[1].title) == ("", "The Hunger Games")
    assert movies[0].persons is None  # unmarked: NER finds the names
    assert [m.id for m in nb.load_cmu_movies(tmp_path / "plot_summaries.txt")] == [m.id for m in movies]


def test_cmu_book_loader_reads_published_tsv(tmp_path):
    path = tmp_path / "booksummaries.txt"
    path.write_text(
        '620\t/m/0hhy\tAnimal Farm\tGeorge Orwell\t1945-08-17\t{"/m/016lj8": "Roman \\u00e0 clef"}\t Old Major, '
        "the old boar on the Manor Farm, calls the animals.\n"
        "843\t/m/0k36\tA Clockwork Orange\tAnthony Burgess\t1962\t\t"
        "Alex, a teenager living in England, leads his gang.\n",
        encoding="utf-8",
    )
    books = nb.load_cmu_books(path)
    assert [(b.id, b.title, b.metadata["author"]) for b in books] == [
        ("book-620", "Animal Farm", "George Orwell"),
        ("book-843", "A Clockwork Orange", "Anthony Burgess"),
    ]
    assert books[1].text == "Alex, a teenager living in England, leads his gang."
    path.write_text("620\t/m/0hhy\tAnimal Farm\n", encoding="utf-8")
    with pytest.raises(InputError, match=r"booksummaries.txt:1: expected 7 tab-separated columns, got 3"):
        nb.load_cmu_books(path)


def test_run_on_cmu_books_names_the_corpus(tmp_path, monkeypatch, embedder):
    path = tmp_path / "booksummaries.txt"
    rows = [
        "1\t/m/1\tT1\tA1\t2000\t\tMaria moved to Canada with her brother Tomas. Tomas found work and Maria studied.",
        "2\t/m/2\tT2\tA2\t2001\t\tDaniel taught Olivia to sail. Olivia later won a race and thanked Daniel.",
    ]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    monkeypatch.setenv(nb.ENV_CMU_BOOKS, str(path))
    monkeypatch.delenv(nb.ENV_CMU_MOVIES, raising=False)
    result = nb.run(BenchContext(embedder=embedder, seed=1, anonymize="ner"))
    assert str(result.metrics["corpus"]).startswith("CMU books")
    assert result.metrics["persons.texts"] == 2 and result.metrics["persons.pairs"] == 2 * 190
    assert result.metrics["persons_countries.texts"] == 1  # only the first plot names a country
    assert 0.3 < float(result.metrics["persons.mean"]) < 1.0
    assert result.seed_figures["persons.mean"] == 0.749  # Table 10, all-MiniLM-L6-v2
    assert "gold_removed" not in " ".join(result.metrics)  # only the marked built-in corpus has gold names
    # NER anonymization removes the perturbed names, so the perturbations move closer together
    assert result.metrics["persons_countries.anonymized.method"] == "ner"
    assert float(result.metrics["persons_countries.anonymized.mean"]) > float(result.metrics["persons_countries.mean"])
    assert float(result.metrics["persons_countries.anonymized.mean"]) > 0.95


def test_run_on_a_corpus_with_no_usable_text_is_skipped(tmp_path, monkeypatch, embedder):
    """A CMU file whose plots all fail the settings' filters measures nothing: the run is skipped, not ok."""
    path = tmp_path / "booksummaries.txt"
    path.write_text("1\t/m/1\tT1\tA1\t2000\t\tThe storm passed over the quiet harbour at night.\n", encoding="utf-8")
    monkeypatch.setenv(nb.ENV_CMU_BOOKS, str(path))
    monkeypatch.delenv(nb.ENV_CMU_MOVIES, raising=False)
    result = nb.run(BenchContext(embedder=embedder))
    assert not any(key.endswith(".mean") for key in result.metrics)
    assert result.skipped.startswith("no text of the corpus qualifies") and "CMU books" in result.skipped


def test_a_mistyped_corpus_variable_is_named_in_the_error(tmp_path, monkeypatch, embedder):
    """The error said "cannot read /path/typo" without the variable that supplied the path (session 46)."""
    monkeypatch.setenv(nb.ENV_CMU_MOVIES, str(tmp_path / "typo"))
    with pytest.raises(InputError, match=rf"^{nb.ENV_CMU_MOVIES}=.*typo: cannot read .*typo"):
        nb.run(BenchContext(embedder=embedder))


def test_data_files_are_valid_json():
    root = resources.files("debiasrag") / "data"
    data = json.loads((root / "names" / "seed002_universes.json").read_text("utf-8"))
    assert set(data) == {"source", "person_names", "country_names", "by_country"}
