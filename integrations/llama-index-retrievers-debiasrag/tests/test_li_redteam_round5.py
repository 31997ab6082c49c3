"""Red-team round 5 over the LlamaIndex package: node_ids in retriever_kwargs, a user's own group label in the
returned copies, raising user functions, and DebiasragEmbedding's model_name, batch size and copies."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from li_support import minilm
from llama_index.core import VectorStoreIndex
from llama_index.core.schema import TextNode
from llama_index.retrievers.debiasrag import DebiasedRetriever, DebiasragEmbedding, GroupAnnotateTransform

from debiasrag.concepts import load_concept
from debiasrag.errors import InputError

QUERY = "Who builds the backend systems?"


def _index() -> VectorStoreIndex:
    nodes = [
        TextNode(id_="f1", text="She builds backend systems.", metadata={"debiasrag_group": "F"}),
        TextNode(id_="w1", text="He builds backend systems for banks.", metadata={"debiasrag_group": "wealthy"}),
        TextNode(id_="n1", text="The engineer builds backend systems."),
    ]
    return VectorStoreIndex(nodes, embed_model=minilm())


def test_node_ids_in_retriever_kwargs_are_refused_at_construction() -> None:
    with pytest.raises(InputError, match="must not set 'node_ids'"):
        DebiasedRetriever(_index(), retriever_kwargs={"node_ids": ["f1"]})


def test_a_users_own_group_label_is_kept_in_the_returned_copies() -> None:
    hits = {
        hit.node.node_id: hit.node.metadata
        for hit in DebiasedRetriever(_index(), strategy="balanced", similarity_top_k=3).retrieve(QUERY)
    }
    assert hits["f1"]["debiasrag_group"] == "F" and hits["f1"]["debiasrag_balanced_group"] == "female"
    assert hits["w1"]["debiasrag_group"] == "wealthy" and hits["w1"]["debiasrag_balanced_group"] == "male"
    assert hits["n1"]["debiasrag_group"] == "neutral"
    from llama_index.core.schema import MetadataMode

    for hit in DebiasedRetriever(_index(), strategy="balanced", similarity_top_k=3).retrieve(QUERY):
        assert "debiasrag" not in hit.node.get_content(metadata_mode=MetadataMode.LLM)  # "debiasrag_group: F" was


def test_a_raising_relevance_fn_is_one_input_error_sync_and_async() -> None:
    retriever = DebiasedRetriever(_index(), strategy="topk", relevance_fn=lambda s: 1 / 0)
    with pytest.raises(InputError, match="relevance_fn .*raised ZeroDivisionError"):
        retriever.retrieve(QUERY)
    with pytest.raises(InputError, match="relevance_fn .*raised ZeroDivisionError"):
        asyncio.run(retriever.aretrieve(QUERY))


def test_embedding_model_name_batch_size_and_copies() -> None:
    assert DebiasragEmbedding(model_name="all-MiniLM-L6-v2").model_name == DebiasragEmbedding().model_name
    for size in (0, 4096):  # 4096: pydantic's multi-line error above its 2048 bound
        with pytest.raises(InputError, match="embed_batch_size"):
            DebiasragEmbedding(embed_batch_size=size)
    blind = DebiasragEmbedding(neutralize="table")
    plain = blind.model_copy(update={"neutralize": None})
    assert plain.neutralize is None and plain.get_query_embedding("She sings.") != blind.get_query_embedding(
        "She sings."
    )
    blind.neutralize = None
    assert blind.get_query_embedding("She sings.") == plain.get_query_embedding("She sings.")


def test_the_transform_takes_a_path() -> None:
    path = Path(__file__).resolve().parents[3] / "debiasrag" / "data" / "concepts" / "age.json"
    assert GroupAnnotateTransform(concept=path).concept == str(path)
    with pytest.raises(InputError, match="pass the concept's file path"):
        GroupAnnotateTransform(concept=load_concept(path))
