"""Gender-swap augmentation with the real spaCy pipeline (seed 001 §4.2.2)."""

from __future__ import annotations

import json
import re

import pytest

from debiasrag.augment import GenderSwapper, load_gender_words, load_swap_names, match_case
from debiasrag.errors import InputError


@pytest.fixture(scope="module")
def swapper() -> GenderSwapper:
    return GenderSwapper()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # the seed's own examples (§4.2.2)
        ("he is a young boy", "she is a young girl"),
        ("my father is a singer", "my mother is a singer"),
        # case preserved
        ("She said HE was here.", "He said SHE was here."),
        ("SHE SAID HE WAS HER FATHER.", "HE SAID SHE WAS HIS MOTHER."),
        # plurals and possessives
        ("The waitresses thanked the waiters.", "The waiters thanked the waitresses."),
        ("The woman's hat and the girls' bikes.", "The man's hat and the boys' bikes."),
        ("The women's team met the men's team.", "The men's team met the women's team."),
        ("The Queen\u2019s speech.", "The King\u2019s speech."),
        ("She is my mother-in-law.", "He is my father-in-law."),
        (
            "Mr. Smith and his wife, Mrs. Smith, met the chairman.",
            "Mrs. Smith and her husband, Mr. Smith, met the chairwoman.",
        ),
        # her: possessive determiner -> his, object -> him; his: determiner -> her, standalone -> hers
        ("I saw her car.", "I saw his car."),
        ("I saw her.", "I saw him."),
        ("I gave her the book.", "I gave him the book."),
        ("He told her his name.", "She told him her name."),
        ("Her dog bit him.", "His dog bit her."),
        ("His car is red and the red one is his.", "Her car is red and the red one is hers."),
        ("Hers is better than his.", "His is better than hers."),
        # a "his" the tagger calls PRP$ but that determines no noun stands alone (was "her")
        ("She said the bag was hers, not his.", "He said the bag was his, not hers."),
        ("Is that car his or yours?", "Is that car hers or yours?"),
        ("He sold his well-known bakery.", "She sold her well-known bakery."),
        ("He and his two dogs left.", "She and her two dogs left."),
        # a naming verb and a bare office make "her" the object, though the tagger reads a possessive
        ("We elected her president.", "We elected him president."),
        ("They crowned her queen.", "They crowned him king."),
        ("They appointed her head of research.", "They appointed him head of research."),
        ("They named her son after him.", "They named his daughter after her."),
        ("It made her head spin.", "It made his head spin."),
        # a plural's possessive ending follows the new word ("gentlemen' lounge", "ladies's club" before)
        ("The ladies' room is upstairs.", "The gentlemen's room is upstairs."),
        ("The gentlemen's club is closed.", "The ladies' club is closed."),
        ("The girls' school.", "The boys' school."),
        ("He hurt himself.", "She hurt herself."),
        # given names, to the equally ranked name of the other gender (names-dataset US ranks)
        ("Patrick is going to the supermarket.", "Hannah is going to the supermarket."),
        ("Mary's sister met John's brother.", "David's brother met Jessica's sister."),
        # forms the pre-filter must still let through to spaCy
        ("Yes, ma'am.", "Yes, sir."),
        ("MRS. JONES AND MR. JONES", "MR. JONES AND MRS. JONES"),
        ("she's here with 3 grandmas", "he's here with 3 grandpas"),
        # not gendered here: modal "Will", verb "man"
        ("Will you come?", "Will you come?"),
        ("They had to man the desk.", "They had to man the desk."),
        ("The table is made of wood.", "The table is made of wood."),
    ],
)
def test_swap(swapper: GenderSwapper, text: str, expected: str) -> None:
    assert swapper.swap(text) == expected


def test_names_pair_equal_ranks(swapper: GenderSwapper) -> None:
    pairs = load_swap_names()["pairs"]
    female, male = pairs[40]
    assert swapper.swap(f"{female} called {male}.") == f"{male} called {female}."
    assert swapper.swap(f"{male.upper()} left.").split()[0] in (female.upper(), male.upper())


def test_swap_twice_restores_unambiguous_text(swapper: GenderSwapper) -> None:
    texts = [
        "The actress thanked her grandfather and the king.",
        "My aunts and uncles visited the bride.",
        "Patrick told Rachel that she was the chairwoman.",
    ]
    assert swapper.swap_batch(swapper.swap_batch(texts)) == texts


def test_batch_keeps_count_order_and_whitespace(swapper: GenderSwapper) -> None:
    texts = ["She  left.\n\tHe stayed.", "", "   ", "no gender here", "Her 🙂 emoji 👩\u200d⚕️ ok"]
    texts.append("\u00e9l\u00e8ve \u5973 she")  # mixed scripts
    expected = ["He  left.\n\tShe stayed.", "", "   ", "no gender here", "His 🙂 emoji 👩\u200d⚕️ ok"]
    expected.append("\u00e9l\u00e8ve \u5973 he")
    assert swapper.swap_batch(texts) == expected


def test_replacements_point_into_original(swapper: GenderSwapper) -> None:
    text = "Yesterday her brother Patrick met the Queen."
    result = swapper.counterfactuals([text])[0]
    assert [(text[r.start : r.end], r.replacement, r.direction, r.kind) for r in result.replacements] == [
        ("her", "his", "f2m", "pronoun"),
        ("brother", "sister", "m2f", "word"),
        ("Patrick", "Hannah", "m2f", "name"),
        ("Queen", "King", "f2m", "word"),
    ]
    assert (result.female_to_male, result.male_to_female, result.changed) == (2, 2, True)


def test_long_text_is_chunked_not_refused(swapper: GenderSwapper) -> None:
    text = "She met her brother. " * 300  # 6300 characters
    old = swapper.nlp.max_length
    swapper.nlp.max_length = 1000  # force 7 chunks through the same code path as a > 1M character document
    try:
        out = swapper.swap(text)
    finally:
        swapper.nlp.max_length = old
    assert out == "He met his sister. " * 300
    assert len(swapper.counterfactuals([text])[0].replacements) == 900


def test_names_can_be_kept(swapper: GenderSwapper) -> None:
    keep_names = GenderSwapper(swapper.nlp, swap_names=False)
    assert keep_names.swap("Patrick thanked his mother.") == "Patrick thanked her father."


def test_non_string_is_an_input_error(swapper: GenderSwapper) -> None:
    with pytest.raises(InputError, match="text 1 is int"):
        swapper.swap_batch(["fine", 3])  # type: ignore[list-item]


def test_match_case() -> None:
    assert [match_case(s, "he") for s in ("she", "She", "SHE")] == ["he", "He", "HE"]
    assert match_case("patrick", "Hannah") == "Hannah"


def test_gender_words_data() -> None:
    data = load_gender_words()
    pairs = {tuple(p) for p in data["pairs"]}
    for pair in [
        ("woman", "man"),
        ("women", "men"),
        ("woman's", "man's"),
        ("women's", "men's"),
        ("girls'", "boys'"),
        ("aunt", "uncle"),
        ("chairwoman", "chairman"),
        ("chairwomen", "chairmen"),
    ]:
        assert pair in pairs
    assert all(w == w.lower() for p in data["pairs"] for w in p)
    assert len(data["pairs"]) == 547  # 371 before session 40 (kin, compound and role words)
    assert len(data["direction_sentences"]) == 104


def test_swap_names_data(swapper: GenderSwapper) -> None:
    data = load_swap_names()
    female = [f for f, _ in data["pairs"]]
    male = [m for _, m in data["pairs"]]
    assert len(data["pairs"]) == 2500
    assert len(set(female)) == len(set(male)) == 2500
    assert not set(female) & set(male)
    assert not {n.lower() for n in female + male} & swapper.vocabulary  # Guy, Prince are words, not names here
    assert "names-dataset" in data["source"]
    assert json.loads(json.dumps(data)) == data


def test_a_title_before_a_name_swaps_with_it_and_generic_compounds_stay(swapper):
    """'Miss Scarlet' became 'Miss Pierce' (a female title on a male name), 'Sir Elton John' 'Madam ...', 'Lady Gaga'
    'Gentleman Gaga'; 'the mother board' became 'the father board' (red-team round 3)."""
    # the word after a title with nothing capitalised after it is a surname, kept; so is one after a first name
    # (session 35: "Mr. James" became "Mrs. Karen", "Martin Luther King" "Norma Alia Queen"), as the detector reads them
    # (session 37: a listed first name of the title's gender that is no common surname is her first name: "Miss
    # Scarlet" -> "Mr Pierce", was "Mr Scarlet")
    assert swapper.swap("Miss Scarlet met Sir Elton John.") == "Mr Pierce met Dame Jayla John."
    assert swapper.swap("On Sunday she met Mr. James in April.") == "On Sunday he met Mrs. James in April."
    assert swapper.swap("Nurse Grace Kelly met Mrs. Karen Doyle.") == "Nurse Armando Kelly met Mr. James Doyle."
    assert swapper.swap("Martin Luther King spoke.") == "Norma Luther King spoke."  # King: his surname, no king
    # session 36's review: a name kept beside a swapped pronoun is worse than both swapped
    assert swapper.swap("April said she would come.") == "Kenneth said he would come."  # a name, not the month
    assert swapper.swap("Dr. Sarah said she was tired.") == "Dr. Luis said he was tired."  # a first name follows Dr
    assert swapper.swap("Sir Elton said he would sing.") == "Dame Jayla said she would sing."
    assert swapper.swap("Her Majesty Queen Elizabeth visited.") == "His Majesty King Chris visited."
    assert (
        swapper.swap("Lady Gaga sang.") == "Lord Gaga sang." and swapper.swap("The lady sang.") == "The gentleman sang."
    )
    assert swapper.swap("Miss Oyelaran-Ekpo arrived.") == "Mr Oyelaran-Ekpo arrived."  # no listed name: still swapped
    for unchanged in ("I miss Paris.", "Miss, your ticket!", "The mother board failed.", "The queen bee died."):
        assert swapper.swap(unchanged) == unchanged


def test_a_words_file_with_a_bad_object_complement_is_refused_naming_it(tmp_path):
    data = load_gender_words()
    for bad in (["elect"], {"verbs": "elect"}, {"verbs": ["elect"], "roles": ["president"]}, {"offices": [3]}):
        path = tmp_path / "words.json"
        path.write_text(json.dumps({**data, "object_complement": bad}), encoding="utf-8")
        with pytest.raises(InputError, match=r"words.json: 'object_complement' must map 'verbs' and 'offices'"):
            load_gender_words(path)


def test_a_words_file_with_a_bad_title_map_is_refused_naming_it(tmp_path):
    from debiasrag.counterfactual.gender_swap import load_gender_words
    from debiasrag.errors import InputError

    data = load_gender_words()
    for bad in ({"miss": "mr"}, {"female_to_male": {"miss": 3}}, ["miss"]):
        path = tmp_path / "words.json"
        path.write_text(json.dumps({**data, "titles_before_names": bad}), encoding="utf-8")
        with pytest.raises(InputError, match=r"words.json: 'titles_before_names' must map 'female_to_male'"):
            load_gender_words(path)


def test_a_lone_first_name_after_an_honorific_swaps_unless_it_is_a_common_surname(swapper):
    """'Mrs. Mary said she' gave 'Mr. Mary said he' (session 36's red-team round): a lone word after an honorific was
    always read as a surname. A listed first name of the honorific's gender that names-dataset does not rank among
    the 1,000 most common US / UK surnames is the first name; James, Rose stay surnames; a man's honorific on a
    woman's name keeps the name (his surname)."""
    assert swapper.swap("Mrs. Mary said she would come.") == "Mr. David said he would come."
    assert swapper.swap("Miss Mary said she would come.") == "Mr David said he would come."
    assert swapper.swap("MRS. MARY SAID SHE WOULD COME.") == "MR. DAVID SAID HE WOULD COME."
    assert swapper.swap("Mr. James said he would come.") == "Mrs. James said she would come."  # a common surname
    assert swapper.swap("Mrs. Rose said she would come.") == "Mr. Rose said he would come."
    assert swapper.swap("Mr. Mary said he would come.") == "Mrs. Mary said she would come."  # his surname
    assert swapper.swap("Mrs. Karen Doyle said.") == "Mr. James Doyle said."  # unchanged: a surname follows


def test_coordinated_possessives_both_determine_the_noun(swapper):
    """'his or her badge' gave 'hers or his badge' (a 'his' before 'or' stood alone), 'her or his badge' 'him or her
    badge' (the tagger reads that 'her' as an object)."""
    assert swapper.swap("Each employee must bring his or her badge.") == "Each employee must bring her or his badge."
    assert swapper.swap("Each employee must bring her or his badge.") == "Each employee must bring his or her badge."
    assert swapper.swap("Bring his/her badge.") == "Bring her/his badge."
    assert swapper.swap("He thanked his and her parents.") == "She thanked her and his parents."
    assert swapper.swap("Is it his or hers?") == "Is it hers or his?"  # still standing alone


def test_her_taken_home_is_the_object(swapper):
    """'drove her home' gave 'drove his home': the tagger reads a possessive before the noun 'home'."""
    assert swapper.swap("He drove her home.") == "She drove him home."
    assert swapper.swap("He walked her home after the party.") == "She walked him home after the party."
    assert swapper.swap("They drove her home yesterday.") == "They drove him home yesterday."
    assert swapper.swap("He sold her home.") == "She sold his home."  # her house
    assert swapper.swap("Her home was robbed.") == "His home was robbed."
    assert swapper.swap("He drove her home address to the court.") == "She drove his home address to the court."


def test_units_symbols_and_fixed_phrases_are_no_gendered_words(swapper):
    """'45 ms' gave '45 mr', helium '(He)' '(She)', 'Isle of Man' 'Isle of Woman', 'man-in-the-middle'
    'woman-in-the-middle'; every generic phrase of the group detector is kept whole ('man-made' was 'woman-made':
    only its phrases of two words were kept)."""
    assert swapper.swap("He said it took 45 ms.") == "She said it took 45 ms."
    assert swapper.swap("Helium (He) is light and he knew it.") == "Helium (He) is light and she knew it."
    assert swapper.swap("He lives on the Isle of Man.") == "She lives on the Isle of Man."
    assert swapper.swap("She stopped a man-in-the-middle attack.") == "He stopped a man-in-the-middle attack."
    assert swapper.swap("A man-made lake, said the man.") == "A man-made lake, said the woman."
    assert swapper.swap("Oh, man, she was late.") == "Oh, man, he was late."
    assert swapper.swap("Ms Jones said she would.") == "Mr Jones said he would."  # the title is still swapped


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The <b>mother</b> took her daughter to ballet.", "The <b>father</b> took his son to ballet."),
        ("<i>She</i> gave him <em>his</em> book.", "<i>He</i> gave her <em>her</em> book."),
        ("<p>She</p>", "<p>He</p>"),
        ("She<br>He", "He<br>She"),
        ("[She](http://example.com/she) wrote it.", "[He](http://example.com/she) wrote it."),
        ("See https://example.com/her-page for her notes.", "See https://example.com/her-page for his notes."),
        ("<!-- she --> He left.", "<!-- she --> She left."),
    ],
)
def test_markup_is_kept_and_the_words_it_wraps_are_swapped(swapper: GenderSwapper, text: str, expected: str) -> None:
    """A word glued to a tag was one unknown token, so "<b>mother</b> took her daughter" came back "<b>mother</b> took
    his son", and a link's path was edited while its visible word was not (red team, session 44)."""
    assert swapper.swap(text) == expected
    assert swapper.swap(expected) == text or "<!--" in text  # a comment's words are kept both ways


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Emily and her brother Tom went to the store.", "Anthony and his sister Danielle went to the store."),
        ("Emily and her dog went home.", "Anthony and his dog went home."),
        ("Will you come?", "Will you come?"),
        ("Rose petals fell on the path.", "Rose petals fell on the path."),
    ],
)
def test_a_listed_name_the_tagger_calls_an_adjective_is_swapped(
    swapper: GenderSwapper, text: str, expected: str
) -> None:
    """The small pipeline tags "Emily" in "Emily and her brother Tom" an adjective: the name stayed while her pronoun,
    kin word and brother's name were swapped. A capitalised listed name no dictionary holds is a name whatever its tag;
    a dictionary word ("Will", "Rose") still needs the tagger's proper noun."""
    assert swapper.swap(text) == expected


@pytest.mark.parametrize(
    ("marked", "plain"),
    [
        ("Miss <b>Scarlet</b> left.", "Miss Scarlet left."),
        ("Mr. <b>James</b> said hello.", "Mr. James said hello."),
        ("<b>Grace</b> <i>Kelly</i> sang.", "Grace Kelly sang."),
        ("on <b>April</b> 3 she left", "on April 3 she left"),
        ("Stephen <b>King</b> wrote it.", "Stephen King wrote it."),
        ("He drove <b>her</b> home.", "He drove her home."),
        ("They elected <i>her</i> president.", "They elected her president."),
        ("Show <b>his</b> or <b>her</b> badge.", "Show his or her badge."),
    ],
)
def test_markup_swaps_as_the_plain_text_does(swapper: GenderSwapper, marked: str, plain: str) -> None:
    """Titles, surnames and months read their neighbours past blanked tags: "Miss <b>Scarlet</b>" became "Miss
    <b>Pierce</b>" and "on <b>April</b> 3" "on <b>Kenneth</b> 3" while the plain text kept them right."""
    strip = re.compile(r"<[^>]+>")
    assert strip.sub("", swapper.swap(marked)) == swapper.swap(plain)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Triage: 19F, panic attack. Nurse Amanda calmed her down.", "Triage: 19M, panic attack."),
        ("45M, smoker, chest pain.", "45F, smoker, chest pain."),
        ("(F, 58) presents with cough.", "(M, 58) presents with cough."),
        ("A 54-year-old F with asthma.", "A 54-year-old M with asthma."),
        ("The firm raised a 45M budget.", "The firm raised a 45M budget."),  # money, not a patient
    ],
)
def test_clinical_sex_letters_are_swapped_as_the_detector_reads_them(
    swapper: GenderSwapper, text: str, expected: str
) -> None:
    """A counterpart kept "19F" beside "him" (a new user's walkthrough, session 46): the sex letter of a clinical
    note is swapped wherever the group detector reads it as the patient's sex, and its replacement recorded."""
    counterpart = swapper.counterfactuals([text])[0]
    assert counterpart.text.startswith(expected)
    clinical = [r for r in counterpart.replacements if r.kind == "clinical"]
    assert len(clinical) == (0 if text == expected else 1)
    for r in clinical:
        assert text[r.start : r.end] == r.original and r.replacement == {"M": "F", "F": "M"}[r.original]
    assert swapper.swap(counterpart.text) == text or "Amanda" in text  # a name's swap need not come back
