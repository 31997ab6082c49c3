"""Gender-blind text and indexes (debiasrag.counterfactual.neutralize): real spaCy, real MiniLM, real CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest

from debiasrag import DebiasedRetriever, Document, FaissIndex
from debiasrag.cli import main
from debiasrag.counterfactual import GenderNeutralizer, blind_index
from debiasrag.errors import InputError
from debiasrag.strategies import BLIND_INDEX_DELTA, Balanced

WORDINGS = (  # one passage in female, male and neutral wording of its protagonist; the side person stays
    "Dr Leila Haddad says she keeps the first week gentle. Her patient, Tom, wanted to run; his sister drove him.",
    "Dr Omar Haddad says he keeps the first week gentle. His patient, Tom, wanted to run; his sister drove him.",
    "Dr Sasha Haddad says they keep the first week gentle. Their patient, Tom, wanted to run; his sister drove him.",
)


@pytest.fixture(scope="module")
def table() -> GenderNeutralizer:
    return GenderNeutralizer(names="table")


def test_pronouns_words_titles_and_first_names_become_neutral(table):
    assert table.neutralize("She called her mother.") == "They called their parent."
    assert table.neutralize("He called his father.") == "They called their parent."
    assert table.neutralize("Mrs Evans met the policewomen's union") == "Mx Evans met the police officers' union"
    assert table.neutralize("Maria Lopez said her son would come") == "Lopez said their child would come"
    assert table.neutralize("Holly Grant planted holly") == "Grant planted holly"  # a word-name before a surname
    assert table.neutralize("You may miss the bus") == "You may miss the bus"  # lower-case: no title, no name


def test_the_female_and_male_wordings_read_alike(table):
    female, male, neutral = table.neutralize_batch(WORDINGS)
    assert female == male == neutral  # "she keeps" / "he keeps" -> "they keep", as the neutral wording reads
    assert "Haddad" in female and "Leila" not in female and "Omar" not in male and "Tom" not in female


def test_the_verb_after_she_or_he_agrees_with_they(table):
    female = table.neutralize("She always teaches the class and she carries the keys; she was late, she is here.")
    neutral = table.neutralize("They always teach the class and they carry the keys; they were late, they are here.")
    assert female == neutral == "They always teach the class and they carry the keys; they were late, they are here."
    assert table.neutralize("She thus has a plan.") == "They thus has a plan."  # not a verb: "thus"; then no more


def test_object_her_conjunct_verbs_and_surnames_after_known_first_names():
    ner = GenderNeutralizer(names="ner")
    female = ner.neutralize("Ingrid Sørensen counts the stock and phones the bank. Sørensen asked her to wait.")
    neutral = ner.neutralize("Robin Sørensen counts the stock and phones the bank. Sørensen asked them to wait.")
    assert female == neutral == "Sørensen counts the stock and phones the bank. Sørensen asked them to wait."
    she = ner.neutralize("She counts the stock and phones the bank; her back hurt, so nobody thanked her.")
    assert she == "They count the stock and phone the bank; their back hurt, so nobody thanked them."


def test_with_spacy_the_parse_decides_verb_agreement_and_object_her(table):
    ner = GenderNeutralizer(names="ner")
    assert ner.neutralize("She packs boots and gloves.") == "They pack boots and gloves."  # "gloves" is a noun
    assert table.neutralize("She packs boots and gloves.") == "They pack boots and gloves."
    female = ner.neutralize("He checks the tyres, refills the bottles, and heads back.")
    assert female == "They check the tyres, refill the bottles, and head back."  # verbs conjoined across commas
    assert ner.neutralize("She says her brother fixes them.") == "They say their sibling fixes them."  # his verb
    assert ner.neutralize("She helped her write it.") == "They helped them write it."  # an object before a verb
    assert ner.neutralize("She remembered her own lesson.") == "They remembered their own lesson."
    assert ner.neutralize("She thus has a plan and doesn't wait.") == "They thus have a plan and don't wait."


def test_a_first_name_found_once_goes_everywhere():
    ner = GenderNeutralizer(names="ner")
    # spaCy finds "Babajide Okafor" as a person; the later lone "Babajide" goes too (not in the name tables)
    text = "Our foreman Babajide Okafor checked the flashing. Babajide says the gutters are next."
    assert "Babajide" not in ner.neutralize(text) and "Okafor" in ner.neutralize(text)


def test_names_modes(table):
    text = "Kelechi Okoro said she would call."  # "Kelechi" is in no name table
    assert GenderNeutralizer(names="keep").neutralize(text) == "Kelechi Okoro said they would call."
    assert table.neutralize(text) == "Kelechi Okoro said they would call."
    # spaCy finds the person; the first name goes, the surname (the same in every wording) stays
    assert GenderNeutralizer(names="ner").neutralize(text) == "Okoro said they would call."
    ner = GenderNeutralizer(names="ner").neutralize(
        "Ingrid Halvorsen met Mrs Evans. Halvorsen said Ingrid's plan works."
    )
    assert ner == "Halvorsen met Mx Evans. Halvorsen said plan works."
    with pytest.raises(InputError, match="names must be one of ner, table, keep"):
        GenderNeutralizer(names="all")
    with pytest.raises(InputError, match="text 1 is int, not a string"):
        table.neutralize_batch(["she", 3])
    assert table.query_transform("she") == "they"
    # the documents were embedded without names: "Maria" as typed would rank by the name's gender, "?" by nothing
    for names_only in ("Maria", "Maria?", "Maria."):
        with pytest.raises(InputError, match="the query holds only names"):
            table.query_transform(names_only)


def test_blind_index_embeds_the_neutral_wording_and_returns_the_original(embedder, table, tmp_path):
    docs = [Document(f"d{i}", text) for i, text in enumerate(WORDINGS)]
    docs.append(Document("other", "The annealer needs a slow ramp down to 370 degrees for thick glass."))
    plain = FaissIndex.from_documents(docs, embedder)
    blind = blind_index(docs, embedder, table)
    assert blind.preprocessing == {"neutralize": {"concept": "gender", "names": "table"}}
    assert [blind.document(i).text for i in range(4)] == [d.text for d in docs]
    query = "how soon can I run after a hamstring injury"
    spread = {}
    for name, index in (("plain", plain), ("blind", blind)):
        hits = DebiasedRetriever(index, embedder).retrieve(query, k=4, strategy="topk").hits
        scores = {hit.id: hit.score for hit in hits}
        spread[name] = abs(scores["d0"] - scores["d1"])
    assert spread["blind"] < 1e-6 < spread["plain"]  # the female and male wordings now score alike
    retriever = DebiasedRetriever(blind, embedder, strategy="balanced")
    assert isinstance(retriever.strategy, Balanced) and retriever.strategy.delta == BLIND_INDEX_DELTA
    assert DebiasedRetriever(plain, embedder, strategy="balanced").strategy.delta == 2.0
    blind.save(tmp_path / "ix")
    loaded = FaissIndex.load(tmp_path / "ix", embedder=embedder)
    assert loaded.preprocessing == blind.preprocessing
    again = DebiasedRetriever(loaded, embedder).retrieve(query, k=4, strategy="topk").hits
    assert np.allclose(sorted(h.score for h in again), sorted(scores.values()), atol=1e-5)


def test_cli_index_neutralize_and_query(tmp_path, capsys):
    corpus = tmp_path / "c.jsonl"
    rows = [{"id": i, "text": text} for i, text in enumerate(WORDINGS)]
    corpus.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    out = tmp_path / "ix"
    assert main(["index", str(corpus), "--out", str(out), "--neutralize", "table"]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["preprocessing"] == {"neutralize": {"concept": "gender", "names": "table"}}
    capsys.readouterr()
    assert main(["query", str(out), "a gentle first week of rehab", "--strategy", "topk", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert {h["text"] for h in hits} == set(WORDINGS)  # the originals come back
    assert abs(hits[0]["score"] - hits[1]["score"]) < 1e-5  # female and male wordings tie


def test_bench_retrieval_on_a_gender_blind_index(tmp_path, capsys, one_line_error, run_cli):
    data = "debiasrag/data/retrieval/fairness_passages20"
    assert main(["bench", "retrieval", "--data", data, "--neutralize", "table", "--json"]) == 0
    blind = json.loads(capsys.readouterr().out)["results"]["sentence-transformers/all-MiniLM-L6-v2"]["retrieval"]
    blind = blind["metrics"]
    assert main(["bench", "retrieval", "--data", data, "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)["results"]["sentence-transformers/all-MiniLM-L6-v2"]["retrieval"]
    plain = plain["metrics"]
    # the wordings of a passage tie on the blind index: top-6 holds whole triplets (measured 0.00 vs 0.21)
    assert blind["data.topk.k6.abs_female_minus_male"] < plain["data.topk.k6.abs_female_minus_male"]
    assert blind["data.topk.k6.recall"] >= plain["data.topk.k6.recall"] - 0.01
    one_line_error(run_cli("bench", "weat", "--neutralize"), "--neutralize applies to the retrieval benchmark only")


def test_neutral_words_file_is_the_builders_output(maintainer_script):
    from pathlib import Path

    build = maintainer_script("build_neutral_words")
    shipped = json.loads((Path(build.OUT)).read_text(encoding="utf-8"))
    pairs = json.loads(Path(build.PAIRS).read_text(encoding="utf-8"))["pairs"]
    assert {w for pair in pairs for w in pair} == set(shipped["words"])  # every gendered word has its neutral form
    assert shipped["pronouns"] == build.PRONOUNS and shipped["titles"] == build.TITLES
    assert shipped["words"]["policewomen"] == shipped["words"]["policemen"] == "police officers"


def test_words_used_of_no_one_are_not_neutralized(table):
    # the detector's generic phrases (data/group_words.json), as the gender swap keeps them (session 40: "to groom the
    # horses" read "to spouse the horses", "a bachelor's degree" "a single person's degree")
    assert table.neutralize("Volunteers learn to groom the horses before riding.") == (
        "Volunteers learn to groom the horses before riding."
    )
    assert table.neutralize("She has a bachelor's degree in nursing.") == "They have a bachelor's degree in nursing."
    assert table.neutralize("Replace the mother board and thank the groom's mother.") == (
        "Replace the mother board and thank the spouse's parent."
    )
