"""The backend adapter shared by the framework integrations (LangChain, LlamaIndex).

An integration searches someone else's store once per concept variant and hands debiasrag's strategies the
results. Everything about that except the framework's own types lives here, so the LangChain and LlamaIndex
packages (and their sync and async paths) keep only framework glue:

* :func:`prepare_query`: check the query, apply the user's transform, check again;
* :func:`call_variant` / :func:`acall_variant`: call the backend for one variant and turn any failure into one
  :class:`~debiasrag.errors.DebiasragError` line naming the backend, the variant and the cause
  (:func:`backend_error`);
* :func:`usable_score` and :func:`detect_score_direction`: check the scores a backend returns and tell
  similarities from distances; :func:`checked_relevance` checks what a user's ``relevance_fn`` makes of them;
* :func:`to_rankings`: ``(key, score)`` pairs per variant → :class:`~debiasrag.strategies.Ranking` (best score
  per key, highest first);
* :func:`retrieve_picks` / :func:`aretrieve_picks`: run a strategy over a variant search, with "every variant came
  back empty" (:class:`NoResults`) meaning no picks;
* :func:`anonymize_items` / :func:`aanonymize_items`: check a batch of the framework's documents, anonymize their
  texts in one batch (async: the anonymizer's own async batch, else a worker thread) and pair each with its
  result, for the integrations' anonymizing transformers.
"""

from __future__ import annotations

import asyncio
import math
import numbers
from collections.abc import Awaitable, Callable, Hashable, Sequence
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Literal, TypeVar

import numpy as np

from debiasrag.aio import arun_strategy
from debiasrag.errors import DebiasragError, InputError, shown
from debiasrag.retriever import validate_query
from debiasrag.strategies import GroupOf, Pick, Ranking, Strategy, run_strategy

if TYPE_CHECKING:  # the anonymizers need the nlp / llm extras; this module must not
    from debiasrag.anonymize import AnonymizedText, Anonymizer

T = TypeVar("T")
Direction = Literal["higher", "lower"]


class NoResults(Exception):
    """Every variant search came back empty (an empty store, or a filter matching nothing)."""


def prepare_query(query: object, transform: Callable[[str], str] | None = None) -> str:
    """The checked query, passed through ``transform`` (e.g. an anonymizer) and checked again."""
    text = validate_query(query)
    if transform is not None:
        text = validate_query(_users_function(transform, text, "query_transform"))
    return text


def _users_function(function: Callable[[Any], Any], value: Any, name: str) -> Any:
    """``function(value)``; an exception it raises (the user's code) is one InputError naming ``name``, the
    original kept as its cause. Our own errors (an anonymizer refusing a names-only query) pass unchanged."""
    try:
        return function(value)
    except DebiasragError:
        raise
    except Exception as exc:
        detail = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        raise InputError(f"{name} raised {type(exc).__name__}{': ' + detail if detail else ''}") from exc


def backend_error(
    backend: str, label: str, exc: BaseException, *, action: str = "search", method: str | None = None
) -> DebiasragError:
    """One line naming the backend, the variant and the cause (raise it ``from exc`` to keep the original).

    Our own errors pass through unchanged. With ``method``, a ``NotImplementedError`` says the backend lacks that
    scored-search method.
    """
    if isinstance(exc, DebiasragError):
        return exc
    if method is not None and isinstance(exc, NotImplementedError):
        return DebiasragError(f"{backend} does not implement {method}; debiasrag needs a store with scored search")
    detail = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return DebiasragError(
        f"{backend} {action} failed for the {label!r} variant: {type(exc).__name__}" + (f": {detail}" if detail else "")
    )


def call_variant(
    backend: str, label: str, search: Callable[[], T], *, action: str = "search", method: str | None = None
) -> T:
    """``search()`` for one variant; any failure becomes :func:`backend_error`."""
    try:
        return search()
    except Exception as exc:
        raise backend_error(backend, label, exc, action=action, method=method) from exc


async def acall_variant(
    backend: str, label: str, search: Callable[[], Awaitable[T]], *, action: str = "search", method: str | None = None
) -> T:
    """``await search()`` for one variant; any failure becomes :func:`backend_error`."""
    try:
        return await search()
    except Exception as exc:
        raise backend_error(backend, label, exc, action=action, method=method) from exc


def usable_score(score: object, *, lenient: bool = False) -> float | None:
    """The score as a finite float, or ``None`` when it is missing, not a number or not finite.

    Strict (default): any real number counts: ``int``, ``float``, numpy numbers (``np.float32`` from
    langchain-community's FAISS, ``np.int64``) and ``Decimal``; a ``bool`` (numpy's too), text, NaN and infinity
    do not. ``lenient``: also anything else ``float()`` accepts (e.g. ``"0.5"``), for frameworks whose score field
    is already validated as a float (LlamaIndex's ``NodeWithScore``); what ``float()`` refuses (``"high"``,
    ``[1]``) is ``None`` too, never a raw ``ValueError`` / ``TypeError``.
    """
    if score is None or isinstance(score, bool | np.bool_):
        return None
    if not lenient and not isinstance(score, numbers.Real | Decimal):
        return None
    try:
        value = float(score)  # type: ignore[arg-type]  # anything else raises, and is refused below
    except (TypeError, ValueError, OverflowError, ArithmeticError):  # Decimal("sNaN"), 10**400, "high", [1]
        return None
    return value if math.isfinite(value) else None


def checked_relevance(convert: Callable[[float], object], raw: float, *, name: str = "relevance_fn") -> float:
    """``convert(raw)`` (a relevance function mapping a raw score to higher-is-better) as a finite float.

    A result that is not a finite real number (NaN, infinity, text, ``None``) is an :class:`InputError` naming
    ``name`` (the user's ``relevance_fn``, or the store's own relevance function), the value and the raw score,
    so no NaN ever reaches a strategy or a returned score.
    """
    value = _users_function(convert, raw, f"{name} (for the score {raw!r})")
    score = usable_score(value)
    if score is None:
        raise InputError(f"{name} returned {shown(value)} for the score {raw!r}; it must return a finite number")
    return score


def detect_score_direction(backend: str, score_lists: Sequence[Sequence[float]]) -> Direction | None:
    """Similarities or distances, from the order a backend returns results in (best first).

    Descending scores are similarities (``"higher"``), ascending ones distances (``"lower"``); ``None`` when
    every list is tied (the order within each variant is the same either way). Unsorted or mixed lists raise.
    """
    votes: set[Direction] = set()
    for scores in score_lists:
        steps = [b - a for a, b in zip(scores, scores[1:]) if b != a]
        if not steps:
            continue
        if all(step < 0 for step in steps):
            votes.add("higher")
        elif all(step > 0 for step in steps):
            votes.add("lower")
        else:
            raise DebiasragError(
                f"{backend} returned unsorted scores; cannot tell similarities from "
                "distances: set score_direction='higher' or 'lower'"
            )
    if len(votes) > 1:
        raise DebiasragError(
            f"{backend} returned both ascending and descending scores; set score_direction='higher' or 'lower'"
        )
    return votes.pop() if votes else None


def to_rankings(
    labels: Sequence[str], scored: Sequence[Sequence[tuple[str, float]]], complete: Sequence[bool]
) -> list[Ranking]:
    """One :class:`Ranking` per variant: each key once with its best (higher = better) score, highest first.

    ``complete[i]`` says the backend gave all it has for variant ``i`` (fewer results than asked, or a backend
    that cannot search deeper), so the strategy will not ask for more. Raises :class:`NoResults` when every
    variant is empty.
    """
    if all(not pairs for pairs in scored):
        raise NoResults
    rankings = []
    for label, pairs, done in zip(labels, scored, complete, strict=True):
        best: dict[Hashable, float] = {}
        for key, score in pairs:
            if key not in best or score > best[key]:
                best[key] = score
        keys = sorted(best, key=lambda key: -best[key])
        rankings.append(Ranking(label, keys, [best[key] for key in keys], complete=done))
    return rankings


def retrieve_picks(
    strategy: Strategy, search: Callable[[int], list[Ranking]], k: int, group_of: GroupOf | None = None
) -> list[Pick]:
    """Run ``strategy`` over ``search(depth)``; no picks when every variant came back empty.

    ``group_of`` (see :func:`debiasrag.groups.group_lookup`) lets ``balanced`` / ``dynamic`` balance groups.
    """
    try:
        return run_strategy(strategy, search, k, group_of=group_of)
    except NoResults:
        return []


async def aretrieve_picks(
    strategy: Strategy, search: Callable[[int], Awaitable[list[Ranking]]], k: int, group_of: GroupOf | None = None
) -> list[Pick]:
    """Async :func:`retrieve_picks`."""
    try:
        return await arun_strategy(strategy, search, k, group_of=group_of)
    except NoResults:
        return []


def _checked_items(items: Sequence[object], kind: type, expected: str) -> list[Any]:
    checked = list(items)
    for position, item in enumerate(checked):
        if not isinstance(item, kind):
            raise InputError(f"expected {expected}, got {type(item).__name__} at position {position}")
    return checked


def _paired(items: list[T], results: Sequence[AnonymizedText], noun: str) -> list[tuple[T, AnonymizedText]]:
    if len(results) != len(items):
        raise InputError(f"the anonymizer returned {len(results)} results for {len(items)} {noun}")
    return list(zip(items, results))


def anonymize_items(
    anonymizer: Anonymizer, items: Sequence[object], kind: type, text_of: Callable[[T], str], *, expected: str,
    noun: str,
) -> list[tuple[T, AnonymizedText]]:  # fmt: skip
    """Each item of ``items`` (all of type ``kind``, else :class:`InputError` naming ``expected`` and the
    position) with the anonymization of ``text_of(item)``, in order; one ``anonymize_batch`` call."""
    checked = _checked_items(items, kind, expected)
    if not checked:
        return []
    return _paired(checked, anonymizer.anonymize_batch([text_of(item) for item in checked]), noun)


async def aanonymize_items(
    anonymizer: Anonymizer, items: Sequence[object], kind: type, text_of: Callable[[T], str], *, expected: str,
    noun: str,
) -> list[tuple[T, AnonymizedText]]:  # fmt: skip
    """Async :func:`anonymize_items`: the anonymizer's ``aanonymize_batch`` when it has one, else its sync batch in
    a worker thread (spaCy is CPU-bound and the LLM client blocks, so the event loop stays free)."""
    checked = _checked_items(items, kind, expected)
    if not checked:
        return []
    texts = [text_of(item) for item in checked]
    native = getattr(anonymizer, "aanonymize_batch", None)
    if native is not None:
        results = await native(texts)
    else:
        results = await asyncio.to_thread(anonymizer.anonymize_batch, texts)
    return _paired(checked, results, noun)


__all__ = [
    "NoResults",
    "aanonymize_items",
    "anonymize_items",
    "acall_variant",
    "aretrieve_picks",
    "backend_error",
    "call_variant",
    "checked_relevance",
    "detect_score_direction",
    "prepare_query",
    "retrieve_picks",
    "to_rankings",
    "usable_score",
]
