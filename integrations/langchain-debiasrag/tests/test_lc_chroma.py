"""Chroma (local, in memory) end to end: anonymized documents in, every strategy with a filter out.

Chroma refuses nested metadata, which is why the anonymizers' default metadata is flat; its search filters
before ranking and returns distances, so the wrapper turns them into cosine similarity with the store's own
relevance function (``hnsw:space`` = cosine -> ``1 - distance``).
"""

from __future__ import annotations

import itertools
import json

import lc_support  # noqa: F401  (offline environment)
import numpy as np
import pytest
from langchain_core.documents import Document
from langchain_debiasrag import AnonymizingTransformer, DebiasedRetriever
from lc_support import minilm
from test_lc_filters import QUERY, STRATEGIES, corpus, off_topic, stores
from test_lc_transformer import DOCS, ner

chromadb = pytest.importorskip("chromadb")
langchain_chroma = pytest.importorskip("langchain_chroma")
_names = itertools.count()


def chroma_from(docs: list[Document]) -> object:
    client = chromadb.EphemeralClient(settings=chromadb.config.Settings(anonymized_telemetry=False))
    return langchain_chroma.Chroma.from_documents(
        docs,
        minilm(),
        client=client,
        collection_name=f"docs-{next(_names)}",
        collection_metadata={"hnsw:space": "cosine"},
    )


def test_chroma_refuses_nested_metadata_that_our_default_avoids() -> None:
    nested = [Document(page_content="x", metadata={"entities": [[0, 5, "PERSON"]]})]
    with pytest.raises(ValueError, match="metadata"):
        chroma_from(nested)


@pytest.mark.parametrize("include_names", [False, True])
def test_anonymized_documents_are_stored_and_retrieved_without_names(include_names: bool) -> None:
    transformer = AnonymizingTransformer(ner(), include_names=include_names)
    store = chroma_from(transformer.transform_documents(DOCS))
    stored = store.get(include=["metadatas", "documents"])
    by_text = dict(zip(stored["documents"], stored["metadatas"]))
    assert not any("Maria" in text for text in by_text)
    assert any("Maria" in json.dumps(meta) for meta in by_text.values()) is include_names  # names only opted in
    (hit,) = DebiasedRetriever(store, strategy="balanced", k=1).invoke("Who fixed the payment service?")
    assert "fixed the payment service" in hit.page_content and "Maria" not in hit.page_content
    query = np.asarray(minilm().embed_query("Who fixed the payment service?"))
    doc = np.asarray(minilm().embed_documents([hit.page_content])[0])
    cosine = float(query @ doc / np.linalg.norm(query) / np.linalg.norm(doc))
    assert hit.metadata["score"] == pytest.approx(cosine, abs=1e-4)


@pytest.fixture(scope="module")
def chroma_corpus() -> object:
    return chroma_from(corpus())


@pytest.mark.parametrize("strategy", STRATEGIES)
def test_filtered_search_matches_the_in_memory_store(strategy: str, chroma_corpus: object) -> None:
    want = DebiasedRetriever(stores()[1], strategy=strategy, k=4, search_kwargs={"filter": off_topic}).invoke(QUERY)
    retriever = DebiasedRetriever(chroma_corpus, strategy=strategy, k=4, search_kwargs={"filter": {"topic": "other"}})
    docs = retriever.invoke(QUERY)
    assert docs and all(d.metadata["topic"] == "other" for d in docs)
    assert [d.page_content for d in docs] == [d.page_content for d in want]
    assert [d.metadata["score"] for d in docs] == pytest.approx([d.metadata["score"] for d in want], abs=1e-4)


@pytest.mark.parametrize("calls", ["sync", "async"])
def test_a_first_search_whose_results_tie_still_reports_similarities(calls: str) -> None:
    """Chroma returns distances (0.0 for an exact match). A first search that met only duplicate chunks could not
    show the order, and its scores were the raw distances (0.0) where every later call said 1.0 (a new user's
    walkthrough, session 46): the wrapper now reads deeper once to learn the direction."""
    import asyncio

    texts = ["How to negotiate a salary?"] * 3 + ["She negotiated her salary.", "He negotiated his pay.", "A cat."]
    store = chroma_from([Document(page_content=t, id=f"d{i}") for i, t in enumerate(texts)])
    retriever = DebiasedRetriever(store, strategy="topk", k=3)
    query = "How to negotiate a salary?"
    found = retriever.invoke(query) if calls == "sync" else asyncio.run(retriever.ainvoke(query))
    assert [round(d.metadata["score"], 3) for d in found] == [1.0, 1.0, 1.0]
    assert retriever._known_direction() == "lower"  # learnt from the deeper read
