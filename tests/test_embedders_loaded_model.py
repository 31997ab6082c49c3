"""A loaded ``SentenceTransformer`` (one fine-tuned in memory, say) as the embedder: sentence-transformers users hold
model objects, and passing one gave a raw ``TypeError`` from pathlib (a new user's walkthrough, session 46)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from debiasrag import DebiasedRetriever, Document, FaissIndex, SentenceTransformerEmbedder, load_embedder
from debiasrag.embedders import IN_MEMORY_PREFIX, packaged_default_model_path
from debiasrag.embedding_cache import CachedEmbedder
from debiasrag.errors import InputError

DOCS = [
    Document("a", "The nurse checked on the patient twice during the night shift."),
    Document("b", "Bridges are designed by civil engineers to carry loads across rivers."),
    Document("c", "The recipe needs two cups of flour and a pinch of salt."),
]


@pytest.fixture()
def model():
    sentence_transformers = pytest.importorskip("sentence_transformers")
    return sentence_transformers.SentenceTransformer(str(packaged_default_model_path()), device="cpu")


def test_a_loaded_model_embeds_as_its_folder_does(model) -> None:
    loaded = SentenceTransformerEmbedder(model)
    assert loaded.name.startswith(IN_MEMORY_PREFIX) and loaded.dimension == 384
    assert load_embedder(model).name == loaded.name  # the same weights, the same name
    texts = [d.text for d in DOCS]
    np.testing.assert_allclose(loaded.encode(texts), SentenceTransformerEmbedder().encode(texts), atol=1e-6)
    shipped = pickle.loads(pickle.dumps(loaded))  # to a Ray worker: no files to reload from, so the model travels
    np.testing.assert_allclose(shipped.encode(texts), loaded.encode(texts), atol=1e-6)


def test_a_model_trained_further_in_memory_is_another_model_to_the_cache(model, tmp_path) -> None:
    import torch

    before = SentenceTransformerEmbedder(model)
    with torch.no_grad():
        next(model.parameters()).add_(0.01)  # a training step
    after = SentenceTransformerEmbedder(model)
    assert after.name != before.name
    assert CachedEmbedder.wrap(after, tmp_path).path != CachedEmbedder.wrap(before, tmp_path).path


def test_an_index_built_with_a_loaded_model_opens_with_that_model(model, tmp_path) -> None:
    embedder = SentenceTransformerEmbedder(model)
    FaissIndex.from_documents(DOCS, embedder).save(tmp_path / "ix")
    with pytest.raises(InputError, match=r"^the index was built with a model loaded in memory .*pass that model"):
        DebiasedRetriever(FaissIndex.load(tmp_path / "ix"))
    retriever = DebiasedRetriever(FaissIndex.load(tmp_path / "ix", embedder=embedder), embedder)
    assert retriever.retrieve("night shift at the hospital", k=1, strategy="topk").ids == ["a"]


@pytest.mark.parametrize("bad", [42, object(), ["all-MiniLM-L6-v2"]])
def test_what_is_no_model_is_an_input_error(bad) -> None:
    with pytest.raises(InputError, match="^model must be a name, a path or a loaded SentenceTransformer, not "):
        SentenceTransformerEmbedder(bad)
