"""Chroma (local, in memory) behind a LlamaIndex VectorStoreIndex: anonymized nodes in, debiased retrieval out.

Chroma refuses nested metadata, which is why AnonymizeTransform's default metadata is flat and holds no names.
LlamaIndex's Chroma store reports ``exp(-distance)``, not the cosine; ``relevance_fn`` turns it back (README).
"""

from __future__ import annotations

import itertools
import json
import math

import numpy as np
import pytest
from li_support import minilm
from llama_index.core import StorageContext, VectorStoreIndex
from llama_index.core.ingestion import IngestionPipeline
from llama_index.core.schema import MetadataMode, TextNode
from llama_index.retrievers.debiasrag import AnonymizeTransform, DebiasedRetriever
from test_li_transform import DOCS, ner

chromadb = pytest.importorskip("chromadb")
chroma_store = pytest.importorskip("llama_index.vector_stores.chroma")
_names = itertools.count()


def chroma_index(nodes: list) -> tuple[VectorStoreIndex, object]:
    client = chromadb.EphemeralClient(settings=chromadb.config.Settings(anonymized_telemetry=False))
    collection = client.create_collection(f"nodes-{next(_names)}", metadata={"hnsw:space": "cosine"})
    storage = StorageContext.from_defaults(vector_store=chroma_store.ChromaVectorStore(chroma_collection=collection))
    return VectorStoreIndex(nodes, storage_context=storage, embed_model=minilm()), collection


def test_chroma_refuses_nested_metadata_that_our_default_avoids() -> None:
    with pytest.raises(ValueError):
        chroma_index([TextNode(id_="n", text="x", metadata={"entities": [[0, 5, "PERSON"]]})])


@pytest.mark.parametrize("strategy", ["topk", "balanced", "dynamic", "paper"])
def test_anonymized_ingestion_into_chroma_then_debiased_retrieval(strategy: str) -> None:
    nodes = IngestionPipeline(transformations=[AnonymizeTransform(ner())]).run(documents=DOCS)
    index, collection = chroma_index(nodes)
    stored = collection.get(include=["metadatas", "documents"])
    assert not any("Maria" in text for text in stored["documents"])
    assert not any("Maria" in json.dumps(meta) for meta in stored["metadatas"])  # no names next to the vectors
    to_cosine = lambda score: 1 + math.log(score)  # noqa: E731  (cosine space: distance = 1 - cosine)
    retriever = DebiasedRetriever(index, strategy=strategy, similarity_top_k=1, relevance_fn=to_cosine)
    hits = retriever.retrieve("Who fixed the payment service?")
    top = hits[0]
    text = top.node.get_content(MetadataMode.NONE)
    assert top.node.node_id == "a" and "fixed the payment service" in text and "Maria" not in text
    if strategy == "paper":  # scored by the female / male variant query, not the plain one
        assert top.node.metadata["variant"] in ("female", "male")
        return
    query = np.asarray(minilm().get_query_embedding("Who fixed the payment service?"))
    doc = np.asarray(minilm().get_text_embedding(top.node.get_content(MetadataMode.EMBED)))
    assert top.score == pytest.approx(float(query @ doc / np.linalg.norm(query) / np.linalg.norm(doc)), abs=1e-4)
