"""Session 40: the reader of lower-case names in casual text leaves source code alone (``code_lines.py``).

Code opens its lines in lower case, as chat does, so before this round a source file, a stack trace or a README's
code block read as casual text lost "obj", "elif", "param" and "pydantic" as names (21,375 matches in 6,000 package
files: ``benchmarks/anonymize_code_probe.py --rule casual_names``). Names in the comments, author fields and chat
around the code are still removed. On the real spaCy pipeline."""

from __future__ import annotations

import pytest

from debiasrag.anonymize import NerAnonymizer
from debiasrag.anonymize.code_lines import blank, code_spans


@pytest.fixture(scope="module", params=[True, False], ids=["ner", "fast"])
def anonymizer(request: pytest.FixtureRequest) -> NerAnonymizer:
    return NerAnonymizer(use_ner=request.param)


def removed_words(anonymizer: NerAnonymizer, text: str) -> set[str]:
    """The words of ``text`` any character of which is inside a detected entity."""
    entities = anonymizer.detect(text)
    return {e.text for e in entities} | {
        w for e in entities for w in text[e.start : e.end].replace("(", " ").replace('"', " ").split()
    }


PYTHON = '''"""Loaders."""
__author__ = "Priya Sharma"
# Author: kwame mensah

from pydantic import BaseModel


def load(obj, arg):
    """Load it, the way pydantic's loaders do.

    :param obj: what to load
    """
    # thanks tariq for the fix
    # TODO(sven): move this into the catalog
    if not obj:
        return arg
    elif arg:
        del obj[arg]
    # del obj[val]
    return obj
'''

CASES = [
    # (text, words that must stay, names that must go)
    (
        PYTHON,
        ["obj", "arg", "elif", "del", "param", "pydantic", "val"],
        ["Priya", "Sharma", "kwame", "mensah", "tariq"],
    ),
    (
        "hey priya, can u run this?\n```python\nobj = load(arg)\nif obj:\n    print(obj.val)\n```\nthx kwame, lmk",
        ["obj", "arg", "val"],
        ["priya", "kwame"],
    ),
    (
        'Traceback (most recent call last):\n  File "main.py", line 4, in <module>\n    obj = load(arg)\n'
        "KeyError: 'obj'\nany idea priya? it broke after tariq's change",
        ["obj", "arg"],
        ["priya", "tariq"],
    ),
    (
        "// thanks priya\nconst obj = require('obj');\nfunction f(arg) {\n  let val = obj[arg];\n  return val;\n}\n",
        ["obj", "arg", "val"],
        ["priya"],
    ),
    (
        "[09:02] maria_k: getting a KeyError, any idea?\n[09:03] dave_r: try `obj.get(arg)`, tariq had the same\n"
        "[09:04] maria_k: ok thx dave, works now",
        ["obj", "arg"],
        ["maria_k", "dave_r", "tariq", "dave"],
    ),
]


@pytest.mark.parametrize(("text", "kept", "names"), CASES, ids=["python", "markdown-chat", "trace", "js", "slack"])
def test_code_words_stay_and_names_around_the_code_go(
    anonymizer: NerAnonymizer, text: str, kept: list[str], names: list[str]
) -> None:
    gone = removed_words(anonymizer, text)
    assert not gone & set(kept), gone & set(kept)
    assert set(names) <= gone, set(names) - gone


def test_casual_text_with_keyword_openers_is_no_code(anonymizer: NerAnonymizer) -> None:
    # guard: chat lines opening with "if", "for", "with" and ending in "," are no code without a line that is
    text = "if u see priya, tell her to call me,\nfor real\nwith luck kwame is there too\nthanks sanjay"
    assert code_spans(text) == []
    assert {"priya", "kwame", "sanjay"} <= removed_words(anonymizer, text)


def test_code_spans_leave_comments_and_prose() -> None:
    text = "x = f(obj)  # per priya\n# thanks kwame\n#del obj[arg]\nsee `obj.val` here\n"
    view = blank(text, code_spans(text))
    assert "obj" not in view and "arg" not in view
    assert "per priya" in view and "thanks kwame" in view and "see " in view and " here" in view
    assert code_spans("hey priya, how are u?\nok see u at 5") == []  # no code, nothing left out
