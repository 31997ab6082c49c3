"""The async strategy driver makes exactly the synchronous decisions, searching each depth once."""

from __future__ import annotations

import asyncio
import gc

import pytest

from debiasrag.aio import arun_strategy, gather_cancelling
from debiasrag.strategies import Ranking, get_strategy, run_strategy

FEMALE = [("a", 0.9), ("b", 0.8), ("c", 0.7), ("d", 0.6), ("e", 0.5), ("f", 0.1)]
MALE = [("b", 0.95), ("x", 0.7), ("y", 0.65), ("a", 0.4), ("c", 0.3), ("f", 0.2)]


def rankings(depth: int) -> list[Ranking]:
    return [
        Ranking(label, [key for key, _ in rows[:depth]], [s for _, s in rows[:depth]], complete=depth >= len(rows))
        for label, rows in (("female", FEMALE), ("male", MALE))
    ]


@pytest.mark.parametrize("strategy", ["paper", "balanced", "dynamic"])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_async_matches_sync_and_searches_each_depth_once(strategy, k):
    sync = run_strategy(get_strategy(strategy), rankings, k, corpus_size=6)
    depths: list[int] = []

    async def asearch(depth: int) -> list[Ranking]:
        depths.append(depth)
        await asyncio.sleep(0)
        return rankings(depth)

    picks = asyncio.run(arun_strategy(get_strategy(strategy), asearch, k, corpus_size=6))
    assert picks == sync
    assert len(depths) == len(set(depths))


def test_paper_deepens_until_the_threshold_is_known():
    depths: list[int] = []

    async def asearch(depth: int) -> list[Ranking]:
        depths.append(depth)
        return rankings(depth)

    picks = asyncio.run(arun_strategy(get_strategy("paper"), asearch, 2, corpus_size=6))
    # S̃ = {a, b}; male scores 0.4 (a) and 0.95 (b): everything the male variant scores >= 0.4.
    assert [p.key for p in picks] == ["b", "x", "y", "a"]
    assert depths == [2, 4, 6]  # "a" missing at 2; at 4 the cut may continue past the ranking; 6 = all


def test_gather_cancelling_cancels_siblings_on_failure():
    cancelled = []

    async def slow():
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    async def failing():
        raise RuntimeError("store down")

    async def main():
        await gather_cancelling([slow(), failing()])

    with pytest.raises(RuntimeError, match="store down"):
        asyncio.run(main())
    assert cancelled == [True]


def test_gather_cancelling_reads_every_failure():
    """Only the first failure was read: asyncio then logged "Task exception was never retrieved" with a traceback
    for every other variant whose search failed too (a store that is down)."""
    unread = []

    async def failing(name):
        raise RuntimeError(f"store down ({name})")

    async def main():
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: unread.append(context["message"]))
        try:
            await gather_cancelling([failing("female"), failing("male")])
        except RuntimeError as exc:
            message = str(exc)
        gc.collect()  # the tasks are gone: an unread exception is reported now
        return message

    assert asyncio.run(main()) == "store down (female)"
    assert unread == []


def test_gather_cancelling_returns_results_in_order():
    async def value(v, delay):
        await asyncio.sleep(delay)
        return v

    assert asyncio.run(gather_cancelling([value(1, 0.02), value(2, 0.0)])) == [1, 2]
