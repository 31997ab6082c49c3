"""What the anonymizer tests share: whether a marked word of a text is removed."""

from __future__ import annotations

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
