"""Scores the framework integrations accept from a backend (debiasrag.backends.usable_score) and what a user's
relevance function may make of them (checked_relevance)."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import numpy as np
import pytest

from debiasrag.backends import checked_relevance, usable_score
from debiasrag.errors import InputError


@pytest.mark.parametrize(
    ("score", "expected"),
    [
        (np.float32(0.5), 0.5),  # what langchain-community's FAISS returns
        (np.float64(-1.25), -1.25),
        (np.int64(3), 3.0),
        (np.int32(-2), -2.0),
        (Decimal("0.25"), 0.25),
        (7, 7.0),
        (0.75, 0.75),
    ],
)
@pytest.mark.parametrize("lenient", [False, True])
def test_any_real_number_is_a_score(score: Any, expected: float, lenient: bool) -> None:
    value = usable_score(score, lenient=lenient)
    assert value == pytest.approx(expected) and type(value) is float


@pytest.mark.parametrize(
    "score",
    [
        None,
        True,
        False,
        np.bool_(True),
        float("nan"),
        float("inf"),
        -float("inf"),
        np.float32("nan"),
        np.float64("inf"),
        Decimal("NaN"),
        Decimal("sNaN"),
        Decimal("Infinity"),
        10**400,  # too big for a float
        "0.5",
        "high",
        b"1",
        [1],
        {"score": 1},
        complex(1, 0),
    ],
)
def test_strict_mode_refuses_everything_else(score: Any) -> None:
    assert usable_score(score) is None


@pytest.mark.parametrize("score", ["high", [1], {"a": 1}, object(), "nan", True, Decimal("sNaN"), 10**400])
def test_lenient_mode_never_raises(score: Any) -> None:
    """A LlamaIndex node whose score was set to text or a list after construction: ``None`` (the integration
    turns it into its one-line error), never a raw ValueError / TypeError from ``float()``."""
    assert usable_score(score, lenient=True) is None


def test_lenient_mode_still_reads_numeric_text() -> None:
    assert usable_score("0.5", lenient=True) == 0.5


class MultiLine:
    def __repr__(self) -> str:
        return "first line\nsecond line"


@pytest.mark.parametrize("returned", [0.5, np.float32(0.5), Decimal("0.5"), 1])
def test_checked_relevance_returns_a_float(returned: Any) -> None:
    value = checked_relevance(lambda raw: returned, 0.9)
    assert value == pytest.approx(float(returned)) and type(value) is float and math.isfinite(value)


@pytest.mark.parametrize(
    ("returned", "shown"),
    [
        (float("nan"), "nan"),
        (float("inf"), "inf"),
        (-float("inf"), "-inf"),
        ("x", "'x'"),
        (None, "None"),
        (True, "True"),
        ("line one\nline two", "'line one\\nline two'"),
        (MultiLine(), "a MultiLine"),
        ("x" * 100, "a str"),
    ],
)
def test_checked_relevance_refuses_non_finite_or_non_numbers(returned: Any, shown: str) -> None:
    with pytest.raises(InputError) as err:
        checked_relevance(lambda raw: returned, 0.5)
    message = str(err.value)
    assert message == f"relevance_fn returned {shown} for the score 0.5; it must return a finite number"
    assert "\n" not in message


def test_checked_relevance_names_the_function() -> None:
    with pytest.raises(InputError, match=r"^Store._select_relevance_score_fn\(\) returned nan"):
        checked_relevance(lambda raw: float("nan"), 0.5, name="Store._select_relevance_score_fn()")
