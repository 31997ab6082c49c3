"""Session 30's red-team review of the anonymizer rules (verb trim, role titles, e-mail addresses, option values),
on the real spaCy pipeline and the real Remove operator."""

from __future__ import annotations

import pytest

from debiasrag.anonymize import Entity, LlmAnonymizer, NerAnonymizer, get_anonymizer
from debiasrag.anonymize.operators import Remove
from debiasrag.errors import InputError


@pytest.fixture(scope="module")
def ner() -> NerAnonymizer:
    return NerAnonymizer()


def removed(text: str, names: list[str], label: str = "PERSON") -> str:
    """``text`` through the Remove operator with ``names`` (in order) as entities of ``label``."""
    entities, position = [], 0
    for name in names:
        position = text.index(name, position)
        entities.append(Entity(name, label, position, position + len(name)))
        position += len(name)
    return Remove().apply(text, entities)[0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A "verb" before a name that a verb follows is the person's given name: the full name goes.
        ("Spike Lee directed the film.", "directed the film."),
        ("Skip James was a blues singer.", "was a blues singer."),
        ("Rip Taylor threw confetti.", "threw confetti."),
        ("Contact Maria today.", "Contact today."),
        ("Thank Priya Sharma for the slides.", "Thank for the slides."),
    ],
)
def test_the_verb_trim_never_splits_a_full_name(ner, text, expected):
    assert ner.anonymize(text).text == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # Brands and products named after a titled person: no role noun is injected.
        ("I drank a Dr Pepper with lunch.", "I drank a with lunch."),
        ("She wore her Dr. Martens boots.", "She wore her boots."),
        ("He bought Dr. Oetker pizza.", "He bought pizza."),
        ("She read Dr. Seuss books to the kids.", "She read books to the kids."),
        ("Captain Morgan rum is popular.", "rum is popular."),
        ("We ate Captain Crunch for breakfast.", "We ate for breakfast."),
        # ...while a titled person keeps the role, listed name or not.
        ("Kashvi met Dr. Yerusha in Northampton.", "met the doctor."),
        ("Dr. Lee works at the clinic.", "The doctor works at the clinic."),
    ],
)
def test_role_titles_do_not_turn_brands_into_roles(ner, text, expected):
    assert ner.anonymize(text).text == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Associate Professor Chen published.", "The associate professor published."),
        ("Prime Minister Ardern resigned.", "The prime minister resigned."),
    ],
)
def test_a_word_qualifying_a_title_is_no_name(ner, text, expected):
    assert ner.anonymize(text).text == expected


def test_a_role_title_before_a_name_that_is_no_person_is_dropped():
    # An organisation ("Private Equity" typed ORG), a place, or an unlisted English word is no titled person.
    assert removed("Private Equity firms bought the company.", ["Equity"], "ORG") == "firms bought the company."
    assert removed("I drank a Dr Pepper with lunch.", ["Pepper"]) == "I drank a with lunch."
    # The LLM's unlabelled names (label NAME) still keep their role.
    assert removed("Dr. Yerusha examined Reyan's heart.", ["Yerusha", "Reyan"], "NAME") == "The doctor examined heart."


@pytest.mark.parametrize(
    ("text", "names", "expected"),
    [
        ("Chief Justice Roberts wrote the opinion.", ["Roberts"], "The chief justice wrote the opinion."),
        ("Vice President Harris visited Ohio.", ["Harris", "Ohio"], "The vice president visited."),
        ("Former President Obama spoke today.", ["Obama"], "The former president spoke today."),
        ("US Senator Warren proposed a bill.", ["Warren"], "The US senator proposed a bill."),
        ("Head Coach Reid called a timeout.", ["Reid"], "The head coach called a timeout."),
        ("They met former President Obama.", ["Obama"], "They met the former president."),
        ("The hospital's Dr. Lee is great.", ["Lee"], "The hospital's doctor is great."),
        ("Ask (Dr. Lee) first.", ["Lee"], "Ask (the doctor) first."),
        ("Lieutenant Governor Smith resigned.", ["Smith"], "The lieutenant governor resigned."),
        ("Detective Inspector Lewis solved it.", ["Lewis"], "The detective inspector solved it."),
        ("e.g. Dr. Lee said so.", ["Lee"], "e.g. the doctor said so."),
        # A verb or a greeting before the title is no modifier; after a greeting the role takes no article.
        ("Ask Dr. Lee about it.", ["Lee"], "Ask the doctor about it."),
        ("Dear Dr. Lee, thank you.", ["Lee"], "Dear doctor, thank you."),
        ("Thanks, Dr. Lee!", ["Lee"], "Thanks, doctor!"),
        # A full stop after a title-like word ends the sentence: no role, nothing dropped.
        ("He is Chief Financial Officer. Lee left.", ["Lee"], "He is Chief Financial Officer. left."),
        ("Our Dr. Lee and Mr. Dr. Okafor met.", ["Lee", "Okafor"], "Our doctor and the doctor met."),
    ],
)
def test_role_phrases_after_modifiers_possessives_and_brackets(text, names, expected):
    assert removed(text, names) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Contact sales@acme.com for a quote.",
        "Email hr@example.com with questions.",
        "Say hello@startup.io or write to dev@project.org.",
        "git clone git@github.com:john/repo.git",
        "brew install ruby@3.1",
        "npm install winston@3.8.2 morgan@1.10.0 express@4.18.2",
        "Install jasmine@3.5.0 and ruby@2.7 first.",
        "Visit https://john.smith@example.com/page for details.",
        "See https://example.com/users/maria.garcia@gmail.com/profile",
        "ssh maria@192.168.1.10",
    ],
)
def test_role_addresses_versions_ips_and_urls_are_no_personal_addresses(ner, text):
    assert ner.anonymize(text).text == text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Contact me at jane.doe@example.com for more.", "Contact me for more."),  # no dangling "at for"
        ("Email jane.doe@example.com today.", "Email today."),  # the verb stays
        ("Write to jane.doe@example.com.", "Write."),
        ("Jane Doe <jane.doe@example.com> wrote:", "wrote:"),  # no "<>" left
    ],
)
def test_a_removed_address_leaves_no_stub_and_keeps_the_verb(ner, text, expected):
    assert ner.anonymize(text).text == expected


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"deny_list": "bob"}, "deny_list must be a list of names, got a string"),
        ({"allow_list": "Maria"}, "allow_list must be a list of names, got a string"),
        ({"exclude_names": "Maria"}, "exclude_names must be a list of names, got a string"),
        ({"deny_list": ["bob", 3]}, "deny_list must be a list of names"),
        ({"n_process": "2"}, "n_process must be an integer"),
        ({"chunk_chars": "5000"}, "chunk_chars must be an integer"),
        ({"batch_size": 0}, "batch_size must be an integer >= 1"),
        ({"batch_size": 2.5}, "batch_size must be an integer"),
        ({"n_process": True}, "n_process must be an integer"),
        ({"lower_case_names": "yes"}, "lower_case_names must be True or False"),
    ],
)
def test_ner_option_values_are_checked_in_one_line(options, message):
    with pytest.raises(InputError, match=message):
        get_anonymizer("ner", **options)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"deny_list": "bob"}, "deny_list must be a list of names, got a string"),
        ({"allow_list": "Maria"}, "allow_list must be a list of names, got a string"),
        ({"max_concurrency": "4"}, "max_concurrency must be an integer"),
        ({"max_retries": -1}, "max_retries must be an integer >= 0"),
        ({"max_chars": "12000"}, "max_chars must be an integer"),
        ({"max_tokens": 0}, "max_tokens must be an integer >= 1"),
    ],
)
def test_llm_option_values_are_checked_in_one_line(tmp_path, options, message):
    with pytest.raises(InputError, match=message):
        LlmAnonymizer(api_key="sk-test-not-a-real-key", cache_dir=tmp_path, **options)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Drs. Lee and Kim examined the patient.", "The doctors and examined the patient."),
        ("dr. smith said the results were fine.", "The doctor said the results were fine."),
        ("DR. LEE examined the patient.", "The doctor examined the patient."),
        ("Dr.Lee examined the patient.", "The doctor examined the patient."),
        ("Profs. Okafor and Lee taught it.", "The professors and taught it."),
    ],
)
def test_plural_lower_and_upper_case_titles_leave_no_stub(ner, text, expected):
    assert ner.anonymize(text).text == expected


def test_a_lower_case_word_that_is_also_a_title_is_no_title():
    assert removed("I miss Maria so much.", ["Maria"]) == "I miss so much."
    assert removed("MRS. JONES called.", ["JONES"]) == "called."


def test_stub_words_are_found_at_the_end_of_any_long_text():
    """The title / preposition before a name is looked for only near the end of the text so far (scanning all of it
    before every name made one long document quadratic); the matches are those of the whole-text search."""
    from debiasrag.anonymize.operators import _end_search, _stub_patterns, _stub_reach

    title, preposition = _stub_patterns()
    filler = "Dr. Lee met them in town. " * 400  # a title and a preposition far before the end: not matched
    for ending in ("met Dr. ", "met DR.\t \t", "asked Lieutenant   ", "xDr. ", "Dr.", "went in  ", "went in\n", "in "):
        for pattern, reach in ((title, _stub_reach()[0]), (preposition, _stub_reach()[1])):
            text = filler + ending
            whole, near = pattern.search(text), _end_search(pattern, text, reach)
            assert (whole and whole.span()) == (near and near.span()), (ending, pattern.pattern[:20])
            assert (pattern.search(ending) and pattern.search(ending).span()) == (  # at the start of a text
                _end_search(pattern, ending, reach) and _end_search(pattern, ending, reach).span()
            )
