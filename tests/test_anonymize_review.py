"""Session 30's red-team review of the anonymizer rules (verb trim, role titles, e-mail addresses, option values),
on the real spaCy pipeline and the real Remove operator."""

from __future__ import annotations

import pytest

from debiasrag.anonymize import Entity, NerAnonymizer
from debiasrag.anonymize.operators import Remove


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
