"""Round R14: logins in an account change ("from jdoe to mgarcia"), e-mail headers and form fields whose value is a
given name that is also a word ("To: Grace", "Applicant: Joy"), a lower-case given name as the subject of a question
in chat ("did rose text you back?"), thing-naming fields ("title: Summer Sale") and identifiers before "called"
("classmethod called").

Each case marks one word or name in braces. ``NAME``: a person's name (or a login that embeds one) that must be
removed. ``WORD``: a capitalised or lower-case look-alike (a title, a month, a status, a code identifier) that must
stay. ``NOT_PERSON``: a place, a product or a club that the default removal may drop as a place or a misc name, but
never as a person. ``CASES`` were written before this round's rules, as its probe (62 names, 32 look-alikes);
``EDGES`` after them, to test where they stop. On the real spaCy pipeline, with and without the entity recognizer."""

from __future__ import annotations

import pytest

from debiasrag.anonymize.ner import _line_end, _line_start
from tests.anonymize_support import (
    BOTH,
    NAME,
    NOT_PERSON,
    WORD,
    NotFixed,
    anonymizer_for,
    check_probe,
    print_probe,
    probe_params,
    wrong,
)

CHAT, EMAIL, LOG, CODE, FORM, LOOKALIKE = "chat", "email", "log", "code", "form", "lookalike"
# (kind, text, where the marked part is, what it is)
CASES: list[tuple[str, str, str, str]] = [
    # 1. chat: lower-case given names, many of them also English words
    (CHAT, "did rose text you back?", "did {rose} text", NAME),
    (CHAT, "did mark call you about the car?", "did {mark} call", NAME),
    (CHAT, "has grace seen the new photos yet?", "has {grace} seen", NAME),
    (CHAT, "is bill coming to the bbq or not", "is {bill} coming", NAME),
    (CHAT, "omg does dawn know about this??", "does {dawn} know", NAME),
    (CHAT, "can hope pick up the kids today?", "can {hope} pick", NAME),
    (CHAT, "lol jack just sent the worst meme", "{jack} just", NAME),
    (CHAT, "where is kwame, he said 7pm", "is {kwame}", NAME),
    (CHAT, "ok so priya and joy are driving", "and {joy} are", NAME),
    (CHAT, "will faith be at the party?", "will {faith} be", NAME),
    (CHAT, "was frank at practice yesterday?", "was {frank} at", NAME),
    (CHAT, "did ray ever pay you back", "did {ray} ever", NAME),
    (CHAT, "haha ananya wins again", "haha {ananya}", NAME),
    (CHAT, "i think summer already left", "think {summer} already", NAME),
    (CHAT, "[10:02] <tomek> did rose push the fix?", "did {rose} push", NAME),
    (CHAT, "just talked to mateo, he's in", "to {mateo}", NAME),
    # 2. e-mail headers and salutations
    (EMAIL, "To: Mark", "To: {Mark}", NAME),
    (EMAIL, "To: Grace", "To: {Grace}", NAME),
    (EMAIL, "From: Will\nSubject: notes from today", "From: {Will}", NAME),
    (EMAIL, "Cc: Rose", "Cc: {Rose}", NAME),
    (EMAIL, "From: Priya Sharma <priya.sharma@example.com>\nTo: Tom\nSubject: Q3 numbers", "To: {Tom}", NAME),
    (EMAIL, "To: Dawn\nSubject: Re: keys", "To: {Dawn}", NAME),
    (EMAIL, "To: Hope Mwangi\nCc: Frank", "Cc: {Frank}", NAME),
    (EMAIL, "Sent: Monday, 3 June 2024\nTo: Faith", "To: {Faith}", NAME),
    (EMAIL, "Reply-To: Joy", "Reply-To: {Joy}", NAME),
    (EMAIL, "Attn: Bill", "Attn: {Bill}", NAME),
    (EMAIL, "To: Mark, Grace\nSubject: lunch", "Mark, {Grace}", NAME),
    (EMAIL, "Dear Joy,\n\nThanks for the update.", "Dear {Joy}", NAME),
    (EMAIL, "Hi Frank,\nplease see attached.", "Hi {Frank}", NAME),
    (EMAIL, "To: Carmen\nFrom: Sunil", "From: {Sunil}", NAME),
    # 3. logs and issue-tracker histories
    (LOG, "Field assignee changed from jdoe to mgarcia.", "from {jdoe} to", NAME),
    (LOG, "Field assignee changed from jdoe to mgarcia.", "to {mgarcia}", NAME),
    (LOG, "Account owner changed from rpatel to kchen", "from {rpatel}", NAME),
    (LOG, "Account owner changed from rpatel to kchen", "to {kchen}", NAME),
    (LOG, "Login name changed from asmith to bjones", "from {asmith}", NAME),
    (LOG, "Reassigned from tnguyen to lwong", "from {tnguyen}", NAME),
    (LOG, "Reassigned from tnguyen to lwong", "to {lwong}", NAME),
    (LOG, "2024-03-02 10:14:07 INFO user jdoe logged in", "user {jdoe}", NAME),
    (LOG, "[WARN] failed login for user=hkim from 10.0.0.4", "user={hkim}", NAME),
    (LOG, "Accepted publickey for dkowalski from 10.1.2.3 port 22", "for {dkowalski}", NAME),
    (LOG, "assignee: jdoe -> mgarcia", "-> {mgarcia}", NAME),
    (LOG, "Reporter changed from sbaker to jlopez by admin", "to {jlopez}", NAME),
    (LOG, "Session for r.patel expired", "for {r.patel}", NAME),
    # 4. code: comments, author fields, trailers
    (CODE, "# TODO(priya): remove this hack", "TODO({priya})", NAME),
    (CODE, '__author__ = "Kwame Mensah"', "{Kwame Mensah}", NAME),
    (CODE, "# Written by Grace Hopper in 1952", "{Grace Hopper}", NAME),
    (CODE, "Co-authored-by: Lars Eriksen <lars@example.org>", "{Lars Eriksen}", NAME),
    (CODE, "Signed-off-by: Aiko Tanaka <aiko@example.com>", "{Aiko Tanaka}", NAME),
    (CODE, "# thanks mark for the fix", "thanks {mark}", NAME),
    (CODE, "// FIXME(jdoe): handle the None case", "FIXME({jdoe})", NAME),
    (CODE, 'maintainer = "Rose Tremaine <rose@example.com>"', "{Rose Tremaine}", NAME),
    # 5. forms
    (FORM, "Name: Mark Evans\nDate of birth: 1990-04-02", "{Mark Evans}", NAME),
    (FORM, "First name: Grace\nLast name: Okafor", "First name: {Grace}", NAME),
    (FORM, "First name: Grace\nLast name: Okafor", "Last name: {Okafor}", NAME),
    (FORM, "Patient: Rose Williams, 54F", "{Rose Williams}", NAME),
    (FORM, "Emergency contact: Hope (sister)", "contact: {Hope}", NAME),
    (FORM, "Requested by: Will", "by: {Will}", NAME),
    (FORM, "Signature: Dawn Patel", "{Dawn Patel}", NAME),
    (FORM, "Guardian: Bill Turner\nRelationship: father", "{Bill Turner}", NAME),
    (FORM, "Applicant: Joy\nPosition: cashier", "Applicant: {Joy}", NAME),
    (FORM, "Witness: Frank Osei", "{Frank Osei}", NAME),
    (FORM, "Preferred name: Summer", "name: {Summer}", NAME),
    # 6. look-alikes: capitalised words, months, titles, statuses, products, places and identifiers
    (LOOKALIKE, "title: Summer Sale", "title: {Summer} Sale", WORD),
    (LOOKALIKE, "headline: Summer Reading List", "headline: {Summer} Reading", WORD),
    (LOOKALIKE, "Subject: Spring Cleaning Checklist", "{Spring} Cleaning", WORD),
    (LOOKALIKE, "Subject: Grace Period Extended", "{Grace} Period", WORD),
    (LOOKALIKE, "campaign: Black Friday Deals", "{Black} Friday", WORD),
    (LOOKALIKE, "classmethod called", "{classmethod} called", WORD),
    (LOOKALIKE, "staticmethod called twice", "{staticmethod} called", WORD),
    (LOOKALIKE, "DEBUG classmethod called with cls=Foo", "{classmethod} called", WORD),
    (LOOKALIKE, "warning: ctor called before init", "{ctor} called", WORD),
    (LOOKALIKE, "Meeting moved to March", "to {March}", WORD),
    (LOOKALIKE, "See you in May!", "in {May}", WORD),
    (LOOKALIKE, "Released in August 2023", "in {August}", WORD),
    (LOOKALIKE, "To: All Staff", "All {Staff}", WORD),
    (LOOKALIKE, "From: Sales Team", "From: {Sales}", WORD),
    (LOOKALIKE, "To: Marketing", "To: {Marketing}", WORD),
    (LOOKALIKE, "From: Helpdesk <support@example.com>", "From: {Helpdesk}", WORD),
    (LOOKALIKE, "Cc: Finance", "Cc: {Finance}", WORD),
    (LOOKALIKE, "Job title: Senior Engineer", "{Senior} Engineer", WORD),
    (LOOKALIKE, "Status changed from Open to Closed", "from {Open}", WORD),
    (LOOKALIKE, "Priority changed from Low to High", "to {High}", WORD),
    (LOOKALIKE, "State changed from pending to active", "from {pending}", WORD),
    (LOOKALIKE, "Default branch changed from master to trunk", "to {trunk}", WORD),
    (LOOKALIKE, "did rain stop yet?", "did {rain} stop", WORD),
    (LOOKALIKE, "does grace period apply here?", "does {grace} period", WORD),
    (LOOKALIKE, "is summer over already?", "is {summer} over", WORD),
    (LOOKALIKE, "Mark as read", "{Mark} as", WORD),
    (LOOKALIKE, "Order summary: Rose Gold phone case", "{Rose} Gold", WORD),
    (LOOKALIKE, "raise ValueError('bad mode')", "{ValueError}", WORD),
    (LOOKALIKE, "See the README for Setup Instructions", "{Setup} Instructions", WORD),
    (LOOKALIKE, "I bought a Kindle Paperwhite", "{Kindle}", NOT_PERSON),
    (LOOKALIKE, "We flew to Lisbon in June", "{Lisbon}", NOT_PERSON),
    (LOOKALIKE, "Chelsea won 2-0 at home", "{Chelsea}", NOT_PERSON),
]

# Written after the rules, at their edges: what they must still leave alone, and what they must still find.
EDGES: list[tuple[str, str, str, str]] = [
    (LOG, "Status changed by admin from todo to jira", "from {todo}", WORD),
    (LOG, "User moved from staging to prod", "to {prod}", WORD),
    (LOG, "Field status changed from open to jdoe", "from {open}", WORD),
    (LOG, "Assignee: jdoe \u2192 mgarcia", "\u2192 {mgarcia}", NAME),
    (LOG, "user renamed from mike to mike2", "from {mike}", NAME),
    (EMAIL, "Valid from: May", "from: {May}", WORD),
    (EMAIL, "Available from: June", "from: {June}", WORD),
    (EMAIL, "Subject: Call Mark", "Call {Mark}", NAME),
    (EMAIL, "title: Grace Okafor", "{Grace Okafor}", NAME),
    (EMAIL, "title: Grace Hopper", "{Grace Hopper}", NAME),
    (FORM, "First name: Amber", "name: {Amber}", NAME),
    (FORM, "to: grace", "to: {grace}", NAME),
    (LOOKALIKE, "headline: Summer Olympics Recap", "{Summer} Olympics", WORD),
    (CHAT, "will mark complete later", "will {mark} complete", WORD),
    (CHAT, "did mark it as spam", "did {mark} it", WORD),
    (CHAT, "will bill you later", "will {bill} you", WORD),
    (CHAT, "did gold drop today?", "did {gold} drop", WORD),
    (CHAT, "does bill include tax?", "does {bill} include", WORD),
    (CHAT, "has joy returned the car?", "has {joy} returned", NAME),
    (LOOKALIKE, "callback called", "{callback} called", WORD),
    (LOOKALIKE, "helper called me", "{helper} called", WORD),
    (CHAT, "aroha called me back", "{aroha} called", NAME),
    (CHAT, "ok so kofi called", "so {kofi} called", NAME),
]

# Cases this round did not fix: (text, where) -> (the configurations that miss them, why). Round 15 fixed seven
# (tests/test_anonymize_round15.py): "jack just sent", "was frank at", the one-line IRC log, "for r.patel", "# thanks
# mark", "Rose Gold", "does bill include tax?".
NOT_FIXED: NotFixed = {
    ("i think summer already left", "think {summer} already"): (
        BOTH,
        "'left' is no cue after a name, and 'summer' is a season's word ('bare_subject_nouns')",
    ),
    ("From: Helpdesk <support@example.com>", "From: {Helpdesk}"): (
        BOTH,
        "the tagger calls it a proper noun and the default removal drops misc names (not as a person)",
    ),
    ("Status changed from Open to Closed", "from {Open}"): (
        BOTH,
        "the tagger calls the capitalised statuses proper nouns; removed as misc names, not as persons",
    ),
    ("raise ValueError('bad mode')", "{ValueError}"): (
        BOTH,
        'the tokenizer glues "ValueError(\'bad" into one proper noun; removed as a misc name, not as a person',
    ),
    ("See the README for Setup Instructions", "{Setup} Instructions"): (
        BOTH,
        "the tagger calls 'Setup' a proper noun; removed as a misc name, not as a person",
    ),
    ("Chelsea won 2-0 at home", "{Chelsea}"): (
        BOTH,
        "a club named after a place, and a listed given name: only world knowledge tells",
    ),
    ("See you in May!", "in {May}"): (
        ("fast",),
        "without the entity recognizer 'May' after 'in' is a proper noun no list types: a misc name",
    ),
    ("title: Grace Hopper", "{Grace Hopper}"): (
        ("fast",),
        "a title key's value of English words no list says text uses as names is a thing's name; the entity "
        "recognizer, which reads it as a person, overrules that",
    ),
}


def test_probe_is_sized() -> None:
    assert sum(what == NAME for *_, what in CASES) >= 60
    assert sum(what != NAME for *_, what in CASES) >= 30
    check_probe(CASES, EDGES, NOT_FIXED, {CHAT, EMAIL, LOG, CODE, FORM, LOOKALIKE})


@pytest.mark.parametrize(
    ("mode", "text", "where", "what"), probe_params(CASES, "probe", NOT_FIXED) + probe_params(EDGES, "edge", NOT_FIXED)
)
def test_round14_case(mode: str, text: str, where: str, what: str) -> None:
    assert not wrong(anonymizer_for(mode), text, where, what)


@pytest.mark.parametrize("mode", BOTH)
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Field assignee changed from jdoe to mgarcia.", "Field assignee changed from."),
        ("assignee: jdoe -> mgarcia", "assignee: ->"),
        ("Status changed from todo to done", "changed from todo to done"),
        ("To: Mark, Grace\nSubject: lunch", "To:\nSubject: lunch"),
        ("Emergency contact: Hope (sister)", "Emergency contact: (sister)"),
        ("title: Summer Sale", "title: Summer Sale"),
        ("did rose text you back?", "did text you back?"),
        ("classmethod called", "classmethod called"),
    ],
)
def test_round14_outputs(mode: str, text: str, expected: str) -> None:
    assert anonymizer_for(mode).anonymize(text).text == expected


@pytest.mark.parametrize(
    ("text", "pos", "start", "end"),
    [("", 0, 0, 0), ("abc", 2, 0, 3), ("ab\ncd\nef", 4, 3, 5), ("ab\ncd", 3, 3, 5), ("ab\n", 2, 0, 2)],
)
def test_line_helpers(text: str, pos: int, start: int, end: int) -> None:
    assert (_line_start(text, pos), _line_end(text, pos)) == (start, end)


def main() -> None:
    """Count the probe's misses and false positives: ``.venv/bin/python -m tests.test_anonymize_round14``."""
    print_probe(CASES, EDGES)


if __name__ == "__main__":
    main()
