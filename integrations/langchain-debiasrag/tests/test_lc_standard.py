"""LangChain's standard retriever suite, for every strategy, over InMemoryVectorStore and over debiasrag's FaissIndex.

What the suite's ``k`` tests check and why each strategy passes them honestly:
- ``topk``, ``context``, ``balanced``: exactly k documents.
- ``dynamic``: k is a cap. Uncapped, it keeps all ten engineering chunks for the suite's query and stops
  before the distractors (``test_lc_retriever.py::test_dynamic_k_is_a_cap``), so at k = 1 and k = 3 it
  is the cap that decides the count, as it should.
- ``paper``: Algorithm 1 of seed 000 returns m >= k documents by design, so the two k tests are strict
  xfails (they would XPASS, and fail, if ``paper`` started returning exactly k here).
"""

from __future__ import annotations

import functools
from typing import Any

import pytest
from langchain_debiasrag import DebiasedRetriever
from langchain_tests.integration_tests import RetrieversIntegrationTests
from lc_support import faiss_index, gendered_corpus, in_memory_store, minilm

PAPER_XFAIL = pytest.mark.xfail(
    strict=True,
    reason="strategy 'paper' (seed 000 Algorithm 1) returns every chunk the second variant ranks at or above the "
    "first variant's k-th pick, so m >= k by design; k is a floor, not a count",
)


@functools.cache
def _store(kind: str) -> Any:
    _, docs = gendered_corpus()
    return in_memory_store(docs) if kind == "memory" else faiss_index(docs)


class _Standard(RetrieversIntegrationTests):
    store_kind = "memory"
    strategy = "topk"

    @property
    def retriever_constructor(self) -> type[DebiasedRetriever]:
        return DebiasedRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        params = {"vectorstore": _store(self.store_kind), "strategy": self.strategy, "k": 4}
        if self.store_kind == "faiss":
            params["embedder"] = minilm()
        return params

    @property
    def retriever_query_example(self) -> str:
        return gendered_corpus()[0]


# The suite's one async test has no asyncio marker (langchain's own repos run asyncio_mode=auto, ours is
# strict). Overriding it would trip the suite's test_no_overrides_DO_NOT_OVERRIDE, so the marker goes on
# the suite's function itself: same body, same identity.
pytest.mark.asyncio(RetrieversIntegrationTests.test_ainvoke_returns_documents)


def _xfail_copy(test: Any) -> Any:
    @functools.wraps(test)
    def copy(self: Any, *args: Any, **kwargs: Any) -> Any:
        return test(self, *args, **kwargs)

    return PAPER_XFAIL(copy)  # a new function, so the mark stays on this class


def _paper(cls: type[_Standard]) -> type[_Standard]:
    cls.test_k_constructor_param = _xfail_copy(_Standard.test_k_constructor_param)  # type: ignore[method-assign]
    cls.test_invoke_with_k_kwarg = _xfail_copy(_Standard.test_invoke_with_k_kwarg)  # type: ignore[method-assign]
    return cls


class TestInMemoryTopK(_Standard):
    strategy = "topk"


class TestInMemoryContext(_Standard):
    strategy = "context"


class TestInMemoryBalanced(_Standard):
    strategy = "balanced"


class TestInMemoryDynamic(_Standard):
    strategy = "dynamic"


@_paper
class TestInMemoryPaper(_Standard):
    strategy = "paper"


class TestFaissTopK(_Standard):
    store_kind, strategy = "faiss", "topk"


class TestFaissContext(_Standard):
    store_kind, strategy = "faiss", "context"


class TestFaissBalanced(_Standard):
    store_kind, strategy = "faiss", "balanced"


class TestFaissDynamic(_Standard):
    store_kind, strategy = "faiss", "dynamic"


@_paper
class TestFaissPaper(_Standard):
    store_kind, strategy = "faiss", "paper"
