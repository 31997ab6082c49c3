"""Person-name recall by name origin on the design half of ``debiasrag/data/names/origin_probe.json`` (sessions 44-45).

An anonymizer that removes some peoples' names less reliably than others is itself biased (documents about them are
still retrieved by name). The probe fills 8 design templates (news, HR review, clinical note, forum post, e-mail
sign-off, minutes, lower-case chat, citation) with 12 design names of each of 11 origins; see
``benchmarks/anonymize_by_origin.py``. The names added to the lists in session 44 (``origin_names.json``) were written
from this half's misses and hold some of its names, so these figures flatter the anonymizer: the report half, whose
names no list was given, is the measure (docs/anonymization.md, "Recall by name origin"). Measured after session 45's
rule (a listed given name that is also an English word joined to the listed surname after it, in lower-case chat) with

    .venv/bin/python benchmarks/anonymize_by_origin.py --split design

recall of every name slot ("all" column), default / fast:
english 0.976 / 0.970, hispanic 0.976 / 0.976, west_african 0.994 / 0.994, east_african 0.988 / 0.982,
south_asian 0.994 / 1.000, chinese 0.976 / 0.976, korean_japanese 0.964 / 0.964, southeast_asian 0.976 / 0.982,
arabic_persian_turkish 0.982 / 0.946, slavic 0.988 / 0.994, indigenous_pacific 0.982 / 0.988;
gap between the best and the worst origin 0.030 / 0.054 (session 44's fixes made it 0.036 / 0.054, from 0.149 / 0.161,
worst origin indigenous_pacific 0.839 / 0.827). The floors below are those values minus ``MARGIN``, the gap ceilings
those values plus ``MARGIN``. Each slot still missed is a strict xfail with its cause, so a newly missed slot fails
``test_slot_removed`` and a fixed one fails its xfail. The report half is never tested here: it only reports.
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

from anonymize_by_origin import (  # noqa: E402
    MODES,
    Filled,
    OriginScore,
    gap,
    load_probe,
    measure,
    probe_texts,
)

from tests.anonymize_support import anonymizer_for  # noqa: E402

MARGIN = 0.02
MEASURED = {  # recall of all name slots per origin on the design split after session 45 (see the docstring)
    "default": {
        "english": 0.976,
        "hispanic": 0.976,
        "west_african": 0.994,
        "east_african": 0.988,
        "south_asian": 0.994,
        "chinese": 0.976,
        "korean_japanese": 0.964,
        "southeast_asian": 0.976,
        "arabic_persian_turkish": 0.982,
        "slavic": 0.988,
        "indigenous_pacific": 0.982,
    },
    "fast": {
        "english": 0.970,
        "hispanic": 0.976,
        "west_african": 0.994,
        "east_african": 0.982,
        "south_asian": 1.000,
        "chinese": 0.976,
        "korean_japanese": 0.964,
        "southeast_asian": 0.982,
        "arabic_persian_turkish": 0.946,
        "slavic": 0.994,
        "indigenous_pacific": 0.988,
    },
}
MEASURED_GAP = {"default": 0.030, "fast": 0.054}

# Why the slots still missed are missed (read from the design split's misses only).
WORD_PART = (
    "lower-case chat: a name part that is also an English word (thomas, li, lin, tan, han, sheridan, blackwood, "
    "obi) is neither found alone nor joined to its neighbour, which keeps 'son', 'skill'; a listed given name is "
    "joined only before a listed surname that is no given name (session 45: 'oliver rushworth', 'ruth simanjuntak')"
)
WORD_SURNAME_HYPHEN = (
    "lower-case chat: a hyphenated Korean given name is joined only to a sure name, and the surname here is an "
    "English word (park, lee, jung)"
)
TE = "lower-case chat: 'te' of a Maori family name ('te huia') is no particle, so the name is found in two pieces"
UNLISTED = "lower-case chat: a surname no list holds ('otieno' is a part of a report-half name, so never listed)"
CITATION = (
    "a reference-list author opening the text ('Sokolov, D. (2019).') is found only when a list holds the surname, "
    "and a lower-case particle before it ('de la Cruz, V.') is joined only when the full name occurs in the text"
)
SIGNOFF_PARTICLE = "after a sign-off the tagger reads 'dos Santos' as verbs, so only 'Joao Pedro' is found"
FAST_AL = "fast mode: the tagger splits 'Fatima al-Zahrani' and 'Fatima' is then not taken as a name"
NOT_PERSON_FULL = (
    "'Present: <full name> (chair)' is typed ORG or MISC, so the family name alone ('Action: X to ...') is not "
    "propagated from it"
)
UNDIAGNOSED = "'Action: Nguyen to ...' keeps the family name although the full name is a PERSON; cause not found"

NOT_FIXED: dict[tuple[str, str, str], tuple[tuple[str, ...], str]] = {  # (name, template style, slot) -> modes, why
    ("Achieng Otieno", "chat_lower", "full"): (("default", "fast"), UNLISTED),
    ("Chukwuemeka Obi", "chat_lower", "full"): (("default", "fast"), WORD_PART),
    ("Declan Sheridan", "chat_lower", "full"): (("default", "fast"), WORD_PART),
    ("Fatima al-Zahrani", "chat_lower", "full"): (("default", "fast"), WORD_PART),
    ("Fatima al-Zahrani", "chat_lower", "given"): (("default", "fast"), WORD_PART),
    ("Harriet Blackwood", "chat_lower", "full"): (("default", "fast"), WORD_PART),
    ("Jung Tae-min", "chat_lower", "full"): (("default", "fast"), WORD_SURNAME_HYPHEN),
    ("Jung Tae-min", "chat_lower", "given"): (("default", "fast"), WORD_SURNAME_HYPHEN),
    ("Lee Dong-hyun", "chat_lower", "full"): (("default", "fast"), WORD_SURNAME_HYPHEN),
    ("Lee Dong-hyun", "chat_lower", "given"): (("default", "fast"), WORD_SURNAME_HYPHEN),
    ("Li Jianguo", "chat_lower", "full"): (("default", "fast"), WORD_PART),
    ("Lin Ruoxi", "chat_lower", "full"): (("default", "fast"), WORD_PART),
    ("Mereana Te Huia", "chat_lower", "full"): (("default", "fast"), TE),
    ("Park Ji-hyun", "chat_lower", "full"): (("default", "fast"), WORD_SURNAME_HYPHEN),
    ("Park Ji-hyun", "chat_lower", "given"): (("default", "fast"), WORD_SURNAME_HYPHEN),
    ("Tama Te Rangi", "chat_lower", "full"): (("default", "fast"), TE),
    ("Tan Wei Jie", "chat_lower", "full"): (("default", "fast"), WORD_PART),
    ("Tan Wei Jie", "chat_lower", "given"): (("default", "fast"), WORD_PART),
    ("Thomas O'Donnell", "chat_lower", "full"): (("default", "fast"), WORD_PART),
    ("Thomas O'Donnell", "chat_lower", "given"): (("default", "fast"), WORD_PART),
    ("Tran Ngoc Han", "chat_lower", "full"): (("default", "fast"), WORD_PART),
    ("Tran Ngoc Han", "chat_lower", "given"): (("default", "fast"), WORD_PART),
    ("Achieng Otieno", "citation", "family"): (("default", "fast"), CITATION),
    ("Arjun Subramanian", "citation", "family"): (("default",), CITATION),
    ("Dmitri Sokolov", "citation", "family"): (("default", "fast"), CITATION),
    ("Fatima al-Zahrani", "citation", "family"): (("default", "fast"), CITATION),
    ("João Pedro dos Santos", "citation", "family"): (("default", "fast"), CITATION),
    ("Rodrigo del Valle", "citation", "family"): (("default", "fast"), CITATION),
    ("Valentina de la Cruz", "citation", "family"): (("default", "fast"), CITATION),
    ("Fatima al-Zahrani", "clinical_note", "full"): (("fast",), FAST_AL),
    ("Fatima al-Zahrani", "clinical_note", "given"): (("fast",), FAST_AL),
    ("João Pedro dos Santos", "email_signoff", "full"): (("default", "fast"), SIGNOFF_PARTICLE),
    ("Fatima al-Zahrani", "meeting_minutes", "full"): (("fast",), FAST_AL),
    ("Fatima al-Zahrani", "meeting_minutes", "family"): (("fast",), FAST_AL),
    ("Ngaire Parata-Walker", "meeting_minutes", "full"): (("default",), NOT_PERSON_FULL),
    ("Nguyễn Thị Mai Anh", "meeting_minutes", "family"): (("default", "fast"), UNDIAGNOSED),
    ("Fatima al-Zahrani", "news", "full"): (("fast",), FAST_AL),
    ("Fatima al-Zahrani", "news", "family"): (("fast",), FAST_AL),
}


@cache
def scores(mode: str) -> tuple[list[Filled], dict[str, OriginScore]]:
    """The design split's texts and per-origin scores for ``mode``, measured once per module."""
    texts = probe_texts(load_probe(), "design")
    return texts, measure(anonymizer_for("ner" if mode == "default" else "fast"), texts)


def _slot_params() -> list[object]:
    params: list[object] = []
    for filled in probe_texts(load_probe(), "design"):
        for start, end, slot in filled.spans:
            for mode in MODES:
                modes, why = NOT_FIXED.get((filled.name, filled.style, slot), ((), ""))
                marks = [pytest.mark.xfail(strict=True, reason=why)] if mode in modes else []
                case = f"{mode}-{filled.origin}-{filled.style}-{slot}-{filled.name}"
                params.append(pytest.param(mode, filled.name, filled.style, start, end, id=case, marks=marks))
    return params


def test_probe_well_formed() -> None:
    """Every origin has 12 design and 12 report names (6 women, 6 men each), no name in both halves, and every
    NOT_FIXED key is a slot of the design split."""
    probe = load_probe()
    for data in probe["origins"].values():
        for split in ("design", "report"):
            assert len(data[split]) == 12 and sum(n["gender"] == "f" for n in data[split]) == 6
        assert not {n["full"] for n in data["design"]} & {n["full"] for n in data["report"]}
    slots = {(f.name, f.style, s) for f in probe_texts(probe, "design") for _, _, s in f.spans}
    assert set(NOT_FIXED) <= slots


@pytest.mark.parametrize("mode", MODES)
def test_recall_per_origin(mode: str) -> None:
    """No origin's recall falls below what session 45 measured minus the margin."""
    _, by_origin = scores(mode)
    assert set(by_origin) == set(MEASURED[mode])
    low = {o: s.all for o, s in by_origin.items() if s.all < MEASURED[mode][o] - MARGIN}
    assert not low, low


@pytest.mark.parametrize("mode", MODES)
def test_origin_gap(mode: str) -> None:
    """The best origin's recall exceeds the worst's by no more than session 45 measured plus the margin."""
    _, by_origin = scores(mode)
    assert gap(by_origin, "all") <= MEASURED_GAP[mode] + MARGIN


@pytest.mark.parametrize(("mode", "name", "style", "start", "end"), _slot_params())
def test_slot_removed(mode: str, name: str, style: str, start: int, end: int) -> None:
    """Each name slot of the design split is removed (every character inside a detected entity)."""
    texts, by_origin = scores(mode)
    missed = {(f.name, f.style, s, e) for o in by_origin.values() for f, s, e, _, _ in o.misses}
    assert (name, style, start, end) not in missed
    assert any(f.name == name and f.style == style for f in texts)


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("anyone seen oliver rushworth today? oliver was supposed to send the slides", ["oliver rushworth", "oliver"]),
        ("i gave grace rushworth the keys, ask her", ["grace rushworth"]),
        # after a determiner the word stays a word: only the surname goes
        ("the bill rushworth sent was paid, so we are done", ["rushworth"]),
        # before a given name (or a name that is both) nothing is joined: "frank" here is no part of a full name
        ("to be frank priya was right about the budget", ["priya"]),
    ],
)
def test_given_name_that_is_a_word_joins_a_listed_surname(text: str, names: list[str]) -> None:
    """Session 45: in lower-case chat a listed given name that English also has as a word ("oliver", "grace") is the
    given name of the listed surname right after it, unless a determiner comes before it."""
    found = [e.text for e in anonymizer_for("ner").detect(text) if e.label == "PERSON"]
    assert found == names
