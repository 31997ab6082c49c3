"""What the anonymizer tests share: whether a marked word of a text is removed, and a round's probe harness."""

from __future__ import annotations

from functools import cache

import pytest

from debiasrag.anonymize import NerAnonymizer


def removed(anonymizer: NerAnonymizer, text: str, where: str) -> bool:
    """Whether the part of ``text`` in braces inside ``where`` ("by {jkowalski}") is removed, every character of it
    inside a detected entity; ``where`` must occur once in ``text``."""
    before, rest = where.split("{", 1)
    word, after = rest.split("}", 1)
    context = before + word + after
    assert text.count(context) == 1, context
    start = text.index(context) + len(before)
    entities = anonymizer.detect(text)
    return all(any(e.start <= k < e.end for e in entities) for k in range(start, start + len(word)))


# A round's probe (rounds 14 and 15): each case marks one word or name in braces and says what it is.
NAME, WORD, NOT_PERSON = "name", "word", "not-person"
BOTH = ("ner", "fast")  # with and without the entity recognizer
Case = tuple[str, str, str, str]  # (kind, text, where the marked part is, what it is)
NotFixed = dict[tuple[str, str], tuple[tuple[str, ...], str]]  # (text, where) -> (modes that miss it, why)


@cache
def anonymizer_for(mode: str) -> NerAnonymizer:
    """The default anonymizer with (``"ner"``) or without (``"fast"``) the entity recognizer, loaded once."""
    return NerAnonymizer(use_ner=mode == "ner")


def as_person(anonymizer: NerAnonymizer, text: str, where: str) -> bool:
    """Whether a PERSON entity covers any character of the part of ``text`` in braces inside ``where``."""
    before, rest = where.split("{", 1)
    word, after = rest.split("}", 1)
    assert text.count(before + word + after) == 1, where
    start = text.index(before + word + after) + len(before)
    return any(e.label == "PERSON" and e.start < start + len(word) and start < e.end for e in anonymizer.detect(text))


def wrong(anonymizer: NerAnonymizer, text: str, where: str, what: str) -> bool:
    """Whether the anonymizer gets a case wrong: a name kept, a word removed, or a non-person removed as a person."""
    if what == NAME:
        return not removed(anonymizer, text, where)
    if what == WORD:
        return removed(anonymizer, text, where)
    return as_person(anonymizer, text, where)


def probe_params(cases: list[Case], group: str, not_fixed: NotFixed) -> list[object]:
    """One pytest param per mode and case, a strict xfail where ``not_fixed`` names that mode."""
    out: list[object] = []
    for mode in BOTH:
        for kind, text, where, what in cases:
            modes, why = not_fixed.get((text, where), ((), ""))
            marks = [pytest.mark.xfail(strict=True, reason=why)] if mode in modes else []
            out.append(pytest.param(mode, text, where, what, id=f"{mode}-{group}-{kind}-{what}-{where}", marks=marks))
    return out


def check_probe(cases: list[Case], edges: list[Case], not_fixed: NotFixed, kinds: set[str]) -> None:
    """A round's probe is well formed: every kind of text in ``kinds`` covered, no case twice, every ``not_fixed`` key
    one of its cases."""
    assert {kind for kind, *_ in cases} == kinds
    every = {(text, where) for _, text, where, _ in cases + edges}
    assert len(every) == len(cases) + len(edges)
    assert all(key in every for key in not_fixed)


def print_probe(cases: list[Case], edges: list[Case]) -> None:
    """Print each mode's misses and false positives on a round's probe and edges (the round files' ``__main__``)."""
    for mode in BOTH:
        anonymizer = anonymizer_for(mode)
        for group, rows in (("probe", cases), ("edges", edges)):
            names = [(t, w, x) for _, t, w, x in rows if x == NAME]
            others = [(t, w, x) for _, t, w, x in rows if x != NAME]
            misses = [w for t, w, x in names if wrong(anonymizer, t, w, x)]
            false = [w for t, w, x in others if wrong(anonymizer, t, w, x)]
            print(f"{mode} {group}: misses {len(misses)}/{len(names)}, false positives {len(false)}/{len(others)}")
            for where in misses + false:
                print("   ", repr(where))
