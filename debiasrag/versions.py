"""Versions of one text in a corpus: documents that share most of their words.

A counterfactual test set holds each passage in a female, a male and a neutral wording; a corpus augmented with
gender-swapped copies (:mod:`debiasrag.augment`) holds each text twice. The words in which two versions differ are
exactly the ones that carry the concept's group — the side people and the topic are the same in both — which is how
:meth:`~debiasrag.groups.GroupDetector.contrast_groups` reads a document's group where versions exist. A corpus
without versions is left as the detector reads it.

Versions are looked for among candidates (the texts sharing most of a text's rarest words, :func:`word_candidates`,
as :meth:`~debiasrag.index.FaissIndex.store_groups` does; or a document's nearest stored vectors at query time) and
confirmed by their words: two texts are versions when the tokens they have in common (multiset intersection) are at
least :data:`MIN_OVERLAP` of the longer one's tokens, neither's tail is the other's head (neighbouring chunks of
a sliding window, :func:`overlapping_windows`), and they differ in the concept's words, not in content
(:func:`content_apart`): texts filled in from one template (staff profiles, product pages) share most of their
words too, but differ in what they are about.

English only: the concept words are English, so texts in another language are no versions of each other (two
wordings must differ in a word of a group, :func:`_differ_in_concept`), however alike — a red team's Chinese label
pair differing in a dose and a negation, Hindi "safe" / "unsafe" (whose vowel signs a word pattern does not match)
and Russian "Она" / "Он" wordings all read as different texts (session 39). Their groups stay as the detector reads
each.
"""

from __future__ import annotations

import gzip
import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, NamedTuple

from debiasrag.errors import check_int, check_texts
from debiasrag.resources import data_path, read_json

MIN_OVERLAP = 0.6
"""Least token overlap of two versions. On our design sets (main, holdout, passages 1–28) every pair of versions of a
passage shares at least 0.797 of its tokens and any other pair at most 0.429; 0.6 is the middle of that gap, fixed
before the report sets were read (``.venv/bin/python benchmarks/version_groups.py``). Since session 39 it is measured
with every word for a person read as one (:func:`_masked_bag`): a red team's short and role-dense wordings ("Ask
her." / "Ask him.", 0.5; the neutralizer's "police officer … flight attendant", 0.56) pass, and on the labelled sets
no pair of different texts does (``benchmarks/version_rule.py``: 11,993 pairs pass, all versions)."""

MAX_APART = 1
"""Most content words (:func:`content_apart`) *each* of two versions may have that the other lacks. Versions of a
text differ in names, pronouns, gendered and role words and the grammar these force, where one wording may also
name a role the other gives by name ("Maria" / "the club secretary"): one side's content words. Template siblings
differ on both sides ("pediatric nurse in the children's ward" / "cafeteria cook in the staff kitchen").
``.venv/bin/python benchmarks/version_rule.py --report`` (session 39): on our labelled sets (all but the unread
``fairness_report10`` / ``11``) 11,645 of 11,989 version pairs have at most 1 on the side with fewer (11,739 at most
2); on a red team's staff directory none of the 66 pairs of different jobs passing :data:`MIN_OVERLAP` has fewer
than 3. Chosen on those; then ten template corpora written blind (``data/versions/template_corpora.jsonl``), read
once: 69 of 71 version pairs kept, other-topic siblings taken 118 → 33 (job adverts one word apart, "nurse" /
"midwife"). A second red team then added the checks of :func:`_differ_in_concept` (other facts, a word of a group):
11,628 labelled pairs kept, 6 of the 118 taken (the corpora read a second time), and :data:`SWAP_APART`. Since
session 40 a word matches the other wording's word of the same stem (:func:`_stem`: "he leaves" / "before leaving",
"signs" / "signed", the red team's editor rewrites 11 → 13 of 13): 11,744 labelled pairs kept, no template sibling
more (``version_rule.py --report --no-retrieval``)."""

MAX_VERSIONS = 3
"""Most versions a text may have among the texts compared and still join a family (:func:`families`): one text has a
female, a male and a neutral wording, perhaps one more. On every labelled set no text has more than 2 and no family
more than 3 members, and on the template corpora (session 39's rule) at most 3 and 4; a red team's 5,000 profiles
from one template, one word apart, made one family (session 39), whose members ``dynamic``'s cut over texts returned
as wordings of one kept text."""

SWAP_APART = 0
""":data:`MAX_APART` for the versions a strategy swaps in at any score (``balanced``; ``dynamic`` at small caps): only
texts whose sides differ in the concept's words alone, since a template sibling one word apart ("dermatologist" /
"radiologist" in one clinic page template) would replace the answer (a red team, session 39, at k = 2). Families
(``dynamic``'s cut over texts) and groups read by contrast keep :data:`MAX_APART`: there a sibling costs a document
returned, not the answer."""

CANDIDATES = 8
"""Candidates examined per document for its versions (its versions come first: the same words, the same topic)."""

COMMON_WORD = 1000
"""A signature word held by more texts than this gives no candidates (:func:`word_candidates`): versions share their
rarer words, and a red team's corpus of 20,000 identical chunks took 119 s through such words (session 39)."""

_TOKEN = re.compile(r"\w[\w'’-]*")


_APOSTROPHES = str.maketrans({"\u2019": "'", "\u02bc": "'"})


def tokens(text: str) -> list[str]:
    """The word tokens versions are compared by (case kept: "Rose" the name is not "rose"; curly apostrophes read as
    straight ones, as the word lists write them: "girls’" is "girls'")."""
    return _TOKEN.findall(text.translate(_APOSTROPHES))


@lru_cache(maxsize=8192)
def _bag(text: str) -> tuple[Counter[str], int]:
    """The text's tokens as a multiset, and how many (memoized: a query's candidates are compared pairwise)."""
    words = tokens(text)
    return Counter(words), len(words)


_PERSON = "\x00"  # what every word naming or referring to a person reads as in the overlap of two versions


def _masked_counts(text: str, concept_words: frozenset[str] | None) -> tuple[Counter[str], int]:
    """The tokens :data:`MIN_OVERLAP` is measured on: the concept's words (also possessive or compounded), generic
    and neutral words for a person all read as one token, verb forms a change of subject forces as one ("is" /
    "are") — so a short or role-dense text and its other wording share what they share ("Ask her." / "Ask him.": 0.5
    of the tokens, 1.0 here; "the policewoman … the stewardess" / "the police officer … the flight attendant")."""
    concept = bundled_concept_words() if concept_words is None else concept_words
    rules = _rule_words()
    words = []
    for word in tokens(text):
        low = word.lower()
        if _of_concept(low, concept) or low.removesuffix("'s") in rules.person_words:
            words.append(_PERSON)
        else:
            words.append(rules.agreement.get(low, word))
    return Counter(words), len(words)


_masked_bag = lru_cache(maxsize=8192)(_masked_counts)
""":func:`_masked_counts`, memoized for a query's candidates (a corpus, which passes once, is not)."""


def _of_concept(low: str, concept: frozenset[str]) -> bool:
    """Whether a lower-case token is one of the concept's words, also as a possessive or in a compound ("ex-wife")."""
    return low in concept or low.removesuffix("'s") in concept or any(part in concept for part in low.split("-"))


def token_overlap(first: str, second: str) -> float:
    """Tokens the two texts have in common (multiset), as a share of the longer text's tokens; 0 for empty texts."""
    (a, size_a), (b, size_b) = _bag(first), _bag(second)
    longer = max(size_a, size_b)
    return sum((a & b).values()) / longer if longer else 0.0


def _share_enough(first: tuple[Counter[str], int], second: tuple[Counter[str], int], min_overlap: float) -> bool:
    """The version rule on two token bags with their sizes: the shared tokens are ``min_overlap`` of the longer."""
    (a, size_a), (b, size_b) = first, second
    longer = max(size_a, size_b)
    if not longer or min(size_a, size_b) < min_overlap * longer:  # too different in length to share enough
        return False
    return sum((a & b).values()) >= min_overlap * longer


def overlapping_windows(first: str, second: str) -> bool:
    """Whether one text's tail is the other's head — neighbouring chunks of a sliding window ("s1 s2 s3 s4" and
    "s2 s3 s4 s5"), which share most of their tokens without being versions of one text: from at least 3 tokens into
    one text to its end (its last token may differ, for windows cut mid-word) the other text's tokens follow from its
    first or second token, and the other goes on for at least 3 more. Texts that start alike are never windows. None
    of the 11,824 version pairs of our labelled sets has that shape (session 36, a one-off check; a red-team round
    found `balanced` swapping an answer chunk for its neighbour, and `dynamic` returning a whole document's chunks);
    an edited copy with its first words cut and a footer added has it too. Linear in the texts' length: at most
    :data:`_WINDOW_STARTS` places where the other's head recurs are tried."""
    return _windows(tokens(first), tokens(second))


def _windows(a: list[str], b: list[str]) -> bool:
    """:func:`overlapping_windows` on the two texts' tokens."""
    if a[:3] == b[:3]:
        return False
    return _tail_is_head(a, b) or _tail_is_head(b, a)


_WINDOW_STARTS = 8


def _tail_is_head(a: list[str], b: list[str]) -> bool:
    """Whether ``a`` from some token ≥ 3 to its last-but-one is ``b`` from its first or second token, ``b`` going on
    for at least 3 tokens after the shared part."""
    for j in (0, 1):
        head = b[j : j + 3]
        if len(head) < 3:
            return False
        i, tried = 2, 0
        while tried < _WINDOW_STARTS:
            try:
                i = a.index(head[0], i + 1)  # a C-level scan: most pairs are versions, whose heads never recur
            except ValueError:
                break
            tried += 1
            shared = len(a) - 1 - i  # a's last token may be cut mid-word
            if shared >= 3 and len(b) - (j + shared) >= 4 and a[i : i + shared] == b[j : j + shared]:
                return True
    return False


class _RuleWords(NamedTuple):
    never: frozenset[str]  # function words and generic words for a person: never content
    agreement: dict[str, str]  # verb forms a change of subject forces -> one key
    counterparts: dict[str, frozenset[str]]  # gendered word -> its neutral counterparts
    negations: frozenset[str]
    affixes: frozenset[str]  # what a concept word is compounded with ("ex-wife", "chairwoman-elect")
    person_words: frozenset[str]  # generic words for a person and every neutral counterpart ("they", "parent")


@lru_cache(maxsize=1)
def _rule_words() -> _RuleWords:
    """``data/version_words.json``'s word lists, and each gendered word's neutral counterparts
    (``data/neutral_words.json``)."""
    data = read_json("version_words.json")
    neutral = read_json("neutral_words.json")
    counterparts: dict[str, set[str]] = {}
    for table in ("pronouns", "words"):
        for gendered, plain in neutral[table].items():
            counterparts.setdefault(gendered.lower(), set()).update(plain.lower().split())
    return _RuleWords(
        frozenset(data["function_words"]) | frozenset(data["generic_people"]),
        dict(data["agreement"]),
        {w: frozenset(c) for w, c in counterparts.items()},
        frozenset(data["negations"]),
        frozenset(data["compound_affixes"]),
        frozenset(data["generic_people"]).union(*counterparts.values()),
    )


@lru_cache(maxsize=1)
def bundled_concept_words() -> frozenset[str]:
    """The words of every bundled concept's group evidence (:attr:`GroupDetector.concept_words`): where versions
    are looked for without a concept (a strategy's candidates), two texts may differ in any of them."""
    from debiasrag.groups import _bundled_concepts, detector

    return frozenset().union(*(detector(concept.name).concept_words for concept in _bundled_concepts()))


def _forms(word: str, agreement: dict[str, str]) -> list[str]:
    """The keys a word matches a word of the other text by: its agreement key, and its forms with and without -s."""
    forms = [agreement.get(word, word), word + "s", word + "es"]
    for suffix, base in (("ies", "y"), ("es", ""), ("s", "")):
        if word.endswith(suffix):
            forms.append(word[: -len(suffix)] + base)
    if word.endswith("y"):
        forms.append(word[:-1] + "ies")
    return forms


def _stem(word: str) -> str:
    """A word without its inflection (-s, -es, -ies, -ed, -ing, a final e), for matching a word of the other
    wording: "leaves" / "leaving", "signs" / "signed", "parties" / "party"; a stem keeps at least 3 letters."""
    for suffix, base in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) + len(base) >= 3:
            word = word[: -len(suffix)] + base
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def _content_words(mine: list[str], own: Counter[str], others: Counter[str], concept: frozenset[str]) -> list[str]:
    """The content words of a text (tokens ``mine``, bag ``own``) that the other text (bag ``others``) lacks."""
    never, agreement, counterparts, _, affixes, _ = _rule_words()
    extra = own - others
    theirs = [w.lower() for w in (others - own).elements()]
    # a word the other text's gendered word turns into in a neutral wording ("actress" -> "actor")
    neutral_of_theirs = frozenset().union(*(counterparts.get(w, frozenset()) for w in theirs))
    unmatched = Counter(agreement.get(w, w) for w in theirs)
    unmatched_stems = Counter(_stem(w) for w in unmatched.elements())
    found: list[str] = []
    for word in mine:
        if extra[word] <= 0:
            continue
        extra[word] -= 1
        low = word.lower()
        if word[:1].isupper() or any(c.isdigit() for c in word):  # names and sentence starts; numbers, dates
            continue
        if low in never or low in concept or low in neutral_of_theirs:
            continue
        if low.endswith("'s") and (low[:-2] in concept or low[:-2] in never):
            continue
        if "-" in low and _concept_compound(low, concept, never | affixes):  # "ex-wife", "chairwoman-elect"
            continue
        match = next((form for form in _forms(low, agreement) if unmatched[form] > 0), None)
        if match is not None:  # "she says" / "they say": one word
            unmatched[match] -= 1
            unmatched_stems[_stem(match)] -= 1
            continue
        stem = _stem(agreement.get(low, low))
        if unmatched_stems[stem] > 0:  # "he leaves" / "before leaving": an editor's rewrite of the verb
            unmatched_stems[stem] -= 1
            continue
        found.append(word)
    return found


def content_apart(first: str, second: str, concept_words: frozenset[str] | None = None) -> tuple[list[str], list[str]]:
    """The content words each text has that the other lacks: not a capitalised word (names, sentence starts), a
    number, a function word or a generic word for a person (``data/version_words.json``), a word of the concept's
    evidence (``concept_words``, default :func:`bundled_concept_words`), the neutral counterpart of a gendered word
    the other text has ("actor" for "actress", ``data/neutral_words.json``), or a verb form the other text has in
    another person ("says" / "say", "is" / "are")."""
    concept_words = _checked_words(concept_words)
    concept = bundled_concept_words() if concept_words is None else concept_words
    a, b = tokens(first), tokens(second)
    bag_a, bag_b = Counter(a), Counter(b)
    return _content_words(a, bag_a, bag_b, concept), _content_words(b, bag_b, bag_a, concept)


def _concept_compound(word: str, concept: frozenset[str], affixes: frozenset[str]) -> bool:
    """Whether a hyphenated word is a concept word compounded with function words or affixes."""
    parts = [part.removesuffix("'s") for part in word.split("-") if part]
    return any(part in concept for part in parts) and all(part in concept or part in affixes for part in parts)


def _says_otherwise(a: Counter[str], b: Counter[str]) -> bool:
    """Whether two texts (token bags) state different facts, which wordings of one text never do: each has a number
    the other lacks (5 ml / 15 ml; one side alone may name "number 12" where the other names a person), or they
    hold different counts of negations ("is safe" / "is not safe"; "wasn't" / "weren't" stay one)."""
    negations = _rule_words().negations

    def has_number(bag: Counter[str]) -> bool:
        return any(any(c.isdigit() for c in word) for word in bag)

    def negated(bag: Counter[str]) -> int:
        return sum(n for word, n in bag.items() if word.lower() in negations or word.lower().endswith("n't"))

    return (has_number(a - b) and has_number(b - a)) or negated(a) != negated(b)


@lru_cache(maxsize=1)
def _given_names() -> frozenset[str]:
    """Given names of 105 countries (``data/names/given_names.txt.gz``, lower case), less the capitalised words that
    are no names (weekdays, months: ``data/names/non_names.json``)."""
    with gzip.open(data_path("names", "given_names.txt.gz"), "rt", encoding="utf-8") as lines:
        given = {line.strip().casefold() for line in lines if line.strip() and not line.startswith("#")}
    non = read_json("names", "non_names.json")
    return frozenset(given - {w.casefold() for key in ("weekdays", "months", "other") for w in non[key]})


def _names_a_group(words: Counter[str], concept: frozenset[str]) -> bool:
    """Whether any of ``words`` (the tokens two texts do not share) is evidence of a group: a concept word (also as a
    possessive or in a compound) or a capitalised given name. Two wordings of one text differ in at least one."""
    for word in words:
        low = word.lower()
        if _of_concept(low, concept) or (word[:1].isupper() and low.removesuffix("'s") in _given_names()):
            return True
    return False


def _wordings_apart(first: str, second: str, concept_words: frozenset[str] | None) -> float:
    """How far apart the two texts are as wordings of one text: the content words on the side with fewer
    (:func:`content_apart`), or infinite where they state different facts (:func:`_says_otherwise`) or differ in no
    word of a group (:func:`_names_a_group`). Each text is tokenized once here (no memo: see :func:`_masked_bag`)."""
    concept = bundled_concept_words() if concept_words is None else concept_words
    a, b = tokens(first), tokens(second)
    bag_a, bag_b = Counter(a), Counter(b)
    if _says_otherwise(bag_a, bag_b) or not _names_a_group((bag_a - bag_b) + (bag_b - bag_a), concept):
        return float("inf")
    return min(len(_content_words(a, bag_a, bag_b, concept)), len(_content_words(b, bag_b, bag_a, concept)))


def _differ_in_concept(
    first: str, second: str, concept_words: frozenset[str] | None, max_apart: int | None = None
) -> bool:
    """Whether the two texts differ the way wordings of one text do: :func:`_wordings_apart` at most ``max_apart``
    (default :data:`MAX_APART`)."""
    return _wordings_apart(first, second, concept_words) <= (MAX_APART if max_apart is None else max_apart)


def is_version(
    first: str,
    second: str,
    min_overlap: float = MIN_OVERLAP,
    concept_words: frozenset[str] | None = None,
    max_apart: int | None = None,
) -> bool:
    """Whether the two texts are versions of one text: :func:`token_overlap` at least ``min_overlap``, not
    :func:`overlapping_windows`, and differing as wordings do (no other facts, a word of a group, at most
    ``max_apart`` — default :data:`MAX_APART`, :data:`SWAP_APART` for a swap — content words apart on the side with
    fewer: :func:`content_apart`; ``concept_words``: the concept's evidence words, default every bundled concept's)."""
    return _is_version(first, second, min_overlap, _checked_words(concept_words), _checked_apart(max_apart))


def _checked_words(concept_words: Any) -> frozenset[str] | None:
    """``concept_words`` as a frozenset of strings (None: every bundled concept's); one string, which would be read
    letter by letter, or an item that is not a string is an InputError."""
    if concept_words is None or isinstance(concept_words, frozenset):  # a detector's: checked where it was made
        return concept_words
    items = list(concept_words) if isinstance(concept_words, set) else concept_words
    return frozenset(check_texts(items, "concept word"))


def _checked_apart(max_apart: Any) -> int | None:
    """``max_apart`` as a count of words (None: :data:`MAX_APART`)."""
    return None if max_apart is None else check_int("max_apart", max_apart, low=0)


def _is_version(
    first: str, second: str, min_overlap: float, concept_words: frozenset[str] | None, max_apart: int | None
) -> bool:
    """:func:`is_version` on checked arguments."""
    return (
        _share_enough(_masked_bag(first, concept_words), _masked_bag(second, concept_words), min_overlap)
        and not overlapping_windows(first, second)
        and _differ_in_concept(first, second, concept_words, max_apart)
    )


@lru_cache(maxsize=65536)
def _pair_shares_enough(
    first: str, second: str, min_overlap: float, concept_words: frozenset[str] | None, max_apart: int | None
) -> bool:
    """:func:`is_version`, memoized: a retriever compares the same candidates on query after query."""
    return _is_version(first, second, min_overlap, concept_words, max_apart)


def find_versions(
    texts: Sequence[str],
    candidates: Sequence[Sequence[int]] | None = None,
    min_overlap: float = MIN_OVERLAP,
    *,
    memo: bool = False,
    concept_words: frozenset[str] | None = None,
    max_apart: int | None = None,
) -> list[list[int]]:
    """Each text's versions (positions, ascending) among its ``candidates`` (positions into ``texts``; itself and
    out-of-range positions such as FAISS's -1 are ignored; default :func:`word_candidates`). Symmetric: if j is a
    version of i, i is one of j. ``memo``: for a query's candidates, seen again on later queries — token bags and
    pair verdicts are memoized (a corpus, which passes once, is not). ``concept_words``, ``max_apart``: see
    :func:`is_version`."""
    concept_words, max_apart = _checked_words(concept_words), _checked_apart(max_apart)
    if candidates is None:
        candidates = word_candidates(texts, memo=memo)
    found: list[set[int]] = [set() for _ in texts]
    words = [] if memo else [tokens(text) for text in texts]
    bags = [] if memo else [_masked_counts(text, concept_words) for text in texts]

    def shares(i: int, j: int) -> bool:
        if memo:
            return _pair_shares_enough(texts[i], texts[j], min_overlap, concept_words, max_apart)
        return (
            _share_enough(bags[i], bags[j], min_overlap)
            and not _windows(words[i], words[j])
            and _differ_in_concept(texts[i], texts[j], concept_words, max_apart)
        )

    for i, row in enumerate(candidates):
        for j in row:
            j = int(j)
            if j == i or not 0 <= j < len(texts) or j in found[i]:
                continue
            if shares(i, j):
                found[i].add(j)
                found[j].add(i)
    return [sorted(versions) for versions in found]


def word_candidates(
    texts: Sequence[str], candidates: int = CANDIDATES, *, signature: int = 8, memo: bool = False
) -> list[list[int]]:
    """Each text's likely versions without vectors: the ``candidates`` texts that share most of its ``signature``
    rarest words among those at least two texts have (a version's own words, such as a first name, are in no other
    text, so they do not split versions apart); :func:`find_versions` confirms them (``memo``: see there)."""
    bags = [_bag(text)[0].keys() if memo else set(tokens(text)) for text in texts]
    frequency = Counter(word for bag in bags for word in bag)
    signatures = [
        sorted((w for w in bag if frequency[w] > 1), key=lambda w: (frequency[w], w))[:signature] for bag in bags
    ]
    postings: dict[str, list[int]] = {}
    for i, words in enumerate(signatures):
        for word in words:
            postings.setdefault(word, []).append(i)
    found: list[list[int]] = []
    for i, words in enumerate(signatures):
        # a word in more than COMMON_WORD texts tells no text's versions apart (boilerplate, a template's words), and
        # reading its postings for every text made duplicated corpora quadratic (20,000 identical chunks: 119 s)
        shared = Counter(j for word in words if len(postings[word]) <= COMMON_WORD for j in postings[word] if j != i)
        found.append([j for j, _ in shared.most_common(candidates)])
    return found


def query_tells_apart(first: str, second: str, query: str, concept_words: frozenset[str] | None = None) -> bool:
    """Whether ``query`` asks for a word in which two versions differ that says whose text it is: a word of the
    concept's evidence that is no generic word for a person (``concept_words``, default :func:`bundled_concept_words`;
    "mother", "she", not "parent", "they") or a given name one text has, capitalised ("Linda"), matched without
    case (a surname only where the given-name list holds it). Versions are equally relevant to a query that names
    neither, so swapping one for another trades no relevance; not to "Linda Okafor promotion" or "which employee is
    a mother of two?", where the version the query names is the answer (session 45: a user's red team saw it
    swapped out for the other, 0.53 lower)."""
    asked = {word.casefold().removesuffix("'s") for word in tokens(query)}
    if not asked:
        return False
    concept = bundled_concept_words() if concept_words is None else _checked_words(concept_words) or frozenset()
    rules = _rule_words()
    a, b = (Counter(word.casefold().removesuffix("'s") for word in tokens(text)) for text in (first, second))
    names = {w.casefold().removesuffix("'s") for w in tokens(first) + tokens(second) if w[:1].isupper()}
    for low in (a - b) | (b - a):  # case aside: "School" / "school", a sentence start, tells nothing
        if low not in asked or low in rules.person_words or low in rules.never:  # "they", "parent"; "my", "the"
            continue
        if _of_concept(low, concept) or (low in names and low in _given_names()):
            return True
    return False


def untold_versions(
    texts: Sequence[str], versions: list[list[int]], query: str | None, concept_words: frozenset[str] | None = None
) -> list[list[int]]:
    """``versions`` (:func:`find_versions` of ``texts``) less the pairs ``query`` tells apart
    (:func:`query_tells_apart`, with ``concept_words``); ``versions`` itself when ``query`` is None."""
    if query is None:
        return versions
    return [
        [j for j in mine if not query_tells_apart(texts[i], texts[j], query, concept_words)]
        for i, mine in enumerate(versions)
    ]


def families(
    texts: Sequence[str],
    *,
    memo: bool = False,
    concept_words: frozenset[str] | None = None,
    query: str | None = None,
) -> list[int]:
    """For each text, the position of the first text of its family — the texts joined by being versions of one
    another (:func:`find_versions`, transitively; ``memo``, ``concept_words``: see there). A text without versions
    is its own family, and so is one with more than :data:`MAX_VERSIONS`. ``query``: versions it tells apart
    (:func:`query_tells_apart`) are no family for it."""
    head = list(range(len(texts)))
    found = find_versions(texts, memo=memo, concept_words=concept_words)
    found = untold_versions(texts, found, query, concept_words=concept_words)

    def first(i: int) -> int:
        while head[i] != i:
            head[i] = head[head[i]]
            i = head[i]
        return i

    for i, versions in enumerate(found):
        if len(versions) > MAX_VERSIONS:
            continue  # one of a template's many fillings, not a wording: no chain through it
        for j in versions:
            if len(found[j]) > MAX_VERSIONS:
                continue
            a, b = first(i), first(j)
            if a != b:
                head[max(a, b)] = min(a, b)
    return [first(i) for i in range(len(texts))]


def own_words(text: str, others: Sequence[str]) -> str:
    """The words of ``text`` that its versions ``others`` lack, in the text's order (each word as many times as the
    text has it more often than the version that has it least often)."""
    words = tokens(text)
    bag = Counter(words)
    extra: Counter[str] = Counter()
    for other in others:
        extra |= bag - Counter(tokens(other))
    return _in_order(words, extra)


def shared_words(text: str, others: Sequence[str]) -> str:
    """The words of ``text`` that every one of ``others`` has too, in the text's order (each word as many times as
    the version that has it least often): what :func:`own_words` leaves."""
    words = tokens(text)
    common = Counter(words)
    for other in others:
        common &= Counter(tokens(other))
    return _in_order(words, common)


def _in_order(words: list[str], counts: Counter[str]) -> str:
    """The ``words`` that ``counts`` holds, in their order, each as many times as counted (``counts`` is used up)."""
    kept: list[str] = []
    for word in words:
        if counts[word] > 0:
            kept.append(word)
            counts[word] -= 1
    return " ".join(kept)


__all__ = [
    "CANDIDATES",
    "COMMON_WORD",
    "MAX_APART",
    "MAX_VERSIONS",
    "MIN_OVERLAP",
    "SWAP_APART",
    "bundled_concept_words",
    "content_apart",
    "families",
    "find_versions",
    "is_version",
    "overlapping_windows",
    "own_words",
    "query_tells_apart",
    "shared_words",
    "token_overlap",
    "tokens",
    "untold_versions",
    "word_candidates",
]
