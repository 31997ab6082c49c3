"""Async driving of the strategies, shared by the LangChain and LlamaIndex integrations.

:func:`arun_strategy` replays the synchronous :func:`~debiasrag.strategies.run_strategy` loop over the
rankings fetched so far; whenever it asks for a depth not fetched yet, that search is awaited and the loop
replays. Selection is cheap and searches are not, so every depth is searched once and the decisions are
exactly the synchronous ones.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

from debiasrag.strategies import GroupOf, Pick, Ranking, Strategy, run_strategy

T = TypeVar("T")


class _NeedDepth(Exception):
    def __init__(self, depth: int) -> None:
        super().__init__(depth)
        self.depth = depth


def _copy(rankings: list[Ranking]) -> list[Ranking]:
    # run_strategy marks rankings complete in place on its last round; replays must start clean.
    return [Ranking(r.variant, list(r.keys), list(r.scores), r.complete) for r in rankings]


async def arun_strategy(
    strategy: Strategy,
    asearch: Callable[[int], Awaitable[list[Ranking]]],
    k: int,
    corpus_size: int | None = None,
    group_of: GroupOf | None = None,
) -> list[Pick]:
    """:func:`debiasrag.strategies.run_strategy` with an async ``asearch(depth)``."""
    fetched: dict[int, list[Ranking]] = {}

    def search(depth: int) -> list[Ranking]:
        if depth not in fetched:
            raise _NeedDepth(depth)
        return _copy(fetched[depth])

    while True:
        try:
            return run_strategy(strategy, search, k, corpus_size, group_of)
        except _NeedDepth as need:
            fetched[need.depth] = await asearch(need.depth)


async def gather_cancelling(awaitables: Sequence[Awaitable[T]]) -> list[T]:
    """Run concurrently and return results in order; the first failure cancels the others and is raised.

    (``asyncio.gather`` leaves the other searches running after a failure; ``TaskGroup`` needs 3.11.)
    """
    tasks = [asyncio.ensure_future(a) for a in awaitables]
    try:
        done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    except asyncio.CancelledError:  # the caller was cancelled (e.g. a timeout): stop every search
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        raise
    if pending:
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
    # Every finished task's exception is read, not only the first: asyncio logs "Task exception was never
    # retrieved" with a traceback for each one left unread (a store that is down fails every variant).
    failures = [task.exception() for task in tasks if task.done() and not task.cancelled()]
    first = next((failure for failure in failures if failure is not None), None)
    if first is not None:  # the first failure in variant order
        raise first
    return [task.result() for task in tasks]
