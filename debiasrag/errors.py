"""Errors that carry a one-line message meant for the user (the CLI prints it and exits 2).

A library error states the problem and may carry a hint: what to do, and which parameter to change.
The library names the parameter as a Python caller writes it (``on_error='skip'``); only the command
line turns it into its flag (``--on-error skip``), so library messages never mention CLI flags.
"""

from __future__ import annotations

import sys
import unicodedata
import warnings
from typing import Any


class DebiasragError(Exception):
    """Bad input or state the user can fix; ``str(err)`` is a complete one-line explanation.

    ``message`` is the problem; ``hint`` says what would fix it (``"to skip bad lines"``) and, when a
    parameter is the fix, ``option`` names it as the library spells it (``"on_error"``) with the
    suggested ``value``. ``str(err)`` renders the hint for Python callers; the CLI renders it with
    the flag of the same option instead.
    """

    def __init__(self, message: str, *, hint: str | None = None, option: str | None = None, value: Any = None):
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.option = option
        self.value = value

    def hint_text(self, option_text: str | None = None) -> str:
        """The hint as a sentence: ``option_text`` (e.g. ``--on-error skip``) replaces the library spelling."""
        if self.option is None:
            return self.hint or ""
        how = option_text if option_text is not None else f"{self.option}={self.value!r}"
        verb = "use" if option_text is not None else "pass"
        return f"{verb} {how} {self.hint}".strip() if self.hint else f"{verb} {how}"

    def __str__(self) -> str:
        hint = self.hint_text()
        return f"{self.message} ({hint})" if hint else self.message


class InputError(DebiasragError, ValueError):
    """Invalid arguments or input data."""


class IndexLoadError(DebiasragError):
    """An index directory is missing, corrupted or was built with another model."""


class OutputError(DebiasragError):
    """A file could not be written (missing folder, disk full, permissions); any previous file is unchanged."""


class DebiasragWarning(UserWarning):
    """A note the user should see: the command line prints it as a ``warning:`` line (it silences other warnings)."""


def warn_caller(message: str) -> None:
    """Warn with a :class:`DebiasragWarning` attributed to the first caller outside debiasrag (a fixed
    ``stacklevel`` points into the package when the call depth differs by algorithm or entry point)."""
    level, frame = 1, sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] == "debiasrag":
        level, frame = level + 1, frame.f_back  # type: ignore[assignment]
    warnings.warn(message, DebiasragWarning, stacklevel=level + 1)


class IndexWriteError(OutputError):
    """An index could not be written (disk full, file too big, permissions); the previous index is unchanged."""


def shown(value: Any, limit: int = 60) -> str:
    """``repr(value)`` for a one-line error message, or ``a <type>`` when that is longer than ``limit`` or spans
    lines (a long or multi-line value would break the message's one line)."""
    text = repr(value)
    return text if len(text) <= limit and "\n" not in text else f"a {type(value).__name__}"


def check_seed(seed: Any) -> int:
    """``seed`` as a random seed every generator accepts (numpy, scikit-learn): an integer in [0, 2**32)."""
    if isinstance(seed, bool) or not hasattr(seed, "__index__") or not 0 <= seed < 2**32:
        raise InputError(f"seed must be an integer from 0 to {2**32 - 1}, got {seed!r}")
    return int(seed)


def check_bool(name: str, value: Any) -> bool:
    """``value`` as a switch: ``True`` or ``False`` only ("yes", ``None`` or 1 would read as a choice not made)."""
    if not isinstance(value, bool):
        raise InputError(f"{name} must be True or False, got {shown(value)}")
    return value


def check_int(name: str, value: Any, low: int = 1, high: int | None = None) -> int:
    """``value`` as an integer from ``low`` (to ``high``); anything else (a bool, a float, text) is an InputError."""
    if isinstance(value, bool) or not hasattr(value, "__index__") or value < low or (high is not None and value > high):
        span = f"from {low} to {high}" if high is not None else f">= {low}"
        raise InputError(f"{name} must be an integer {span}, got {value!r}")
    return int(value)


def check_number(name: str, value: Any, low: float = 0.0) -> float:
    """``value`` as a finite number >= ``low``; NaN, infinity, bools and text are an InputError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) and not hasattr(value, "__float__"):
        raise InputError(f"{name} must be a number >= {low:g}, got {value!r}")
    try:
        number = float(value)
    except (OverflowError, ValueError, TypeError):
        number = float("nan")
    if not low <= number < float("inf"):
        raise InputError(f"{name} must be a finite number >= {low:g}, got {value!r}")
    return number


def as_list(value: Any, *, one_string: str, not_a_collection: str) -> list[Any]:
    """``value``'s items as a list; a string or bytes (which would be read item by item, letter by letter) is an
    :class:`InputError` saying ``one_string``, a value that is no collection one saying ``not_a_collection``."""
    if isinstance(value, (str, bytes)):
        raise InputError(one_string)
    try:
        return list(value)
    except TypeError:
        raise InputError(not_a_collection) from None


def check_names(option: str, names: Any) -> list[str]:
    """``names`` (an anonymizer's ``allow_list``, ``deny_list``, ...) as a list of strings; a string (which would
    read as its letters), a number or a list holding a non-string is a one-line :class:`InputError`."""
    items = as_list(
        names,
        one_string=f"{option} must be a list of names, got a string: write [{shown(names)}]",
        not_a_collection=f"{option} must be a list of names, got {shown(names)}",
    )
    for item in items:
        if not isinstance(item, str):
            raise InputError(f"{option} must be a list of names, got {shown(item)} among them")
    return items


def check_search_left(query: str, how: str) -> str:
    """``query`` after a rewrite that removed its names, as ``how`` says the index's documents lost theirs: an
    :class:`InputError` when nothing but punctuation is left ("Maria?" -> "?"): that would search by nothing, and the
    names as typed would match documents by their gender or origin."""
    if not any(c.isalnum() for c in query):
        raise InputError(
            f"the query holds only names, and {how}: nothing is left to search; add what you are looking for"
        )
    return query


def is_blank(text: str) -> bool:
    """Whether ``text`` holds nothing to read: only spaces, controls and invisible marks (U+200B, U+FEFF, NUL)."""
    return not any(unicodedata.category(c)[0] not in "CZ" for c in text)


def check_texts(texts: Any, what: str = "text") -> list[str]:
    """``texts`` as a list of strings; one string (which would be read character by character), a value that is not
    a collection, or an item that is not a string is an InputError naming its position."""
    items = as_list(
        texts,
        one_string=f"expected a list of {what}s, got one {type(texts).__name__} (wrap it in a list)",
        not_a_collection=f"expected a list of {what}s, got {type(texts).__name__}",
    )
    for position, item in enumerate(items):
        if not isinstance(item, str):
            raise InputError(f"{what} {position} is {type(item).__name__}, not a string")
    return items
