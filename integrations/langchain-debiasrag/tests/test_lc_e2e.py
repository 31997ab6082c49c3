"""End to end with the real packaged MiniLM: a neutral query whose plain top-k leans male, debiased.

Corpus (tests/data/gendered_corpus.json): five backend-engineering sentences, each in a "she" and a "he"
version, plus five unrelated distractors. Numbers measured with all-MiniLM-L6-v2 (the packaged copy).
"""

from __future__ import annotations

import functools
import tempfile
from collections import Counter

import pytest
from langchain_debiasrag import DebiasedRetriever
from lc_support import faiss_index, gendered_corpus, in_memory_store, minilm

# Embedding cache of this test process, removed when it exits (mkdtemp folders piled up in /tmp).
_CACHE_DIR = tempfile.TemporaryDirectory(prefix="debiasrag-test-cache-")

QUERY, DOCS = gendered_corpus()


@functools.cache
def store(kind: str):
    return in_memory_store(DOCS) if kind == "memory" else faiss_index(DOCS)


def retriever(kind: str, **kwargs) -> DebiasedRetriever:
    extra = {"embedder": minilm()} if kind == "faiss" else {}
    return DebiasedRetriever(store(kind), **extra, **kwargs)


def genders(docs) -> list[str]:
    return [d.metadata["gender"] for d in docs]


@pytest.mark.parametrize("kind", ["memory", "faiss"])
def test_plain_results_are_skewed_and_debiased_ones_are_not(kind: str) -> None:
    plain = genders(retriever(kind, strategy="topk", k=5).invoke(QUERY))
    assert plain[:4] == ["male"] * 4  # the neutral query's four best matches are all "he" versions
    assert Counter(plain) == {"male": 4, "female": 1}

    # balanced: the plain query's ranking, documents' groups (inferred from the text) equalised.
    assert genders(retriever(kind, strategy="topk", k=4).invoke(QUERY)) == ["male"] * 4
    balanced = retriever(kind, strategy="balanced", k=4).invoke(QUERY)
    assert Counter(genders(balanced)) == {"female": 2, "male": 2}
    assert [d.metadata["debiasrag_group"] for d in balanced] == genders(balanced)
    assert {d.metadata["topic"] for d in balanced} == {"eng"}  # balanced among relevant chunks
    assert {d.metadata["variant"] for d in balanced} == {"neutral"}  # one search, the plain query

    dynamic = retriever(kind, strategy="dynamic", k=100).invoke(QUERY)
    assert Counter(genders(dynamic)) == {"female": 5, "male": 5}  # every engineering chunk, both versions
    assert {d.metadata["topic"] for d in dynamic} == {"eng"}  # and none of the distractors


@pytest.mark.asyncio
async def test_debiased_async_matches() -> None:
    dynamic = await retriever("memory", strategy="dynamic", k=100).ainvoke(QUERY)
    assert Counter(genders(dynamic)) == {"female": 5, "male": 5}


def test_a_gender_blind_store_ties_the_wordings_and_returns_the_originals() -> None:
    """``DebiasragEmbeddings(neutralize=...)`` embeds the neutral wording; the store keeps the original text."""
    from langchain_core.vectorstores import InMemoryVectorStore
    from langchain_debiasrag import DebiasragEmbeddings

    import debiasrag
    from debiasrag.embedding_cache import CachedEmbedder

    inner = CachedEmbedder.wrap(debiasrag.SentenceTransformerEmbedder(), _CACHE_DIR.name)
    blind = InMemoryVectorStore(DebiasragEmbeddings(inner, neutralize="table"))
    blind.add_documents(list(DOCS))
    assert Counter(genders(retriever("memory", strategy="topk", k=6).invoke(QUERY))) == {"male": 4, "female": 2}
    found = DebiasedRetriever(blind, strategy="topk", k=6).invoke(QUERY)
    assert Counter(genders(found)) == {"male": 3, "female": 3}  # each "she" / "he" pair now ties
    assert {d.page_content for d in found} <= {d.page_content for d in DOCS}  # the originals, "She …" / "He …"
    assert any(d.page_content.startswith("She ") for d in found)
