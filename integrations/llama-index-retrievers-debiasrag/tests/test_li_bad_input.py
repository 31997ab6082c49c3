"""Bad input and misbehaving retrievers: one-line errors or documented behaviour, never a hang."""

from __future__ import annotations

import asyncio
import time

import pytest
from li_support import toy
from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode
from llama_index.retrievers.debiasrag import DebiasedRetriever

from debiasrag import DebiasragError, InputError


class Scripted(BaseRetriever):
    def __init__(self, result=None, error: Exception | None = None, hang: bool = False) -> None:
        super().__init__()
        self.result, self.error, self.hang = result, error, hang
        self.cancelled: list[str] = []

    def _retrieve(self, query_bundle: QueryBundle):
        if self.error is not None:
            raise self.error
        return self.result

    async def _aretrieve(self, query_bundle: QueryBundle):
        if self.error is not None and (not self.hang or "woman" in query_bundle.query_str):
            await asyncio.sleep(0.05)
            raise self.error
        if self.hang:
            try:
                await asyncio.Event().wait()
            except asyncio.CancelledError:
                self.cancelled.append(query_bundle.query_str)
                raise
        return self.result


def test_retriever_raising() -> None:
    retriever = DebiasedRetriever(Scripted(error=ConnectionError("index shard offline\nmore")), strategy="paper")
    with pytest.raises(DebiasragError) as err:
        retriever.retrieve("who leads the army?")
    assert str(err.value) == "Scripted retrieval failed for the 'female' variant: ConnectionError: index shard offline"
    assert isinstance(err.value.__cause__, ConnectionError)


@pytest.mark.asyncio
async def test_retriever_raising_async() -> None:
    retriever = DebiasedRetriever(Scripted(error=RuntimeError("boom")), strategy="topk")
    with pytest.raises(DebiasragError, match="'neutral' variant: RuntimeError: boom"):
        await retriever.aretrieve("who leads the army?")


def test_nodes_without_scores() -> None:
    unscored = [NodeWithScore(node=TextNode(id_="a", text="an officer"), score=None)]
    with pytest.raises(DebiasragError, match="returned a node without a score \\(None\\) for the 'neutral' variant"):
        DebiasedRetriever(Scripted(unscored), strategy="topk").retrieve("who leads?")
    # LlamaIndex's own retrieve() already trips over bare nodes; the error still names the source and variant
    with pytest.raises(DebiasragError, match="Scripted retrieval failed for the 'neutral' variant: AttributeError"):
        DebiasedRetriever(Scripted([TextNode(text="x")]), strategy="topk").retrieve("who leads?")


@pytest.mark.parametrize("strategy", ["topk", "balanced", "paper", "dynamic"])
def test_fewer_nodes_than_k_returns_what_exists(strategy: str) -> None:
    """Documented: an index with fewer nodes than k gives all it has (20 here), without error or loop."""
    task, index = toy()
    nodes = DebiasedRetriever(index, strategy=strategy, similarity_top_k=50).retrieve(task.queries["army"])
    assert len(nodes) <= 20
    if strategy != "dynamic":
        assert len({n.node.node_id for n in nodes}) == len(nodes) == 20


def test_empty_results_give_no_nodes() -> None:
    for strategy in ("topk", "paper", "balanced", "dynamic"):
        assert DebiasedRetriever(Scripted([]), strategy=strategy).retrieve("who leads?") == []


@pytest.mark.parametrize("query", ["", "  \t"])
def test_empty_query(query: str) -> None:
    _, index = toy()
    with pytest.raises(InputError, match="query is empty"):
        DebiasedRetriever(index).retrieve(query)


@pytest.mark.asyncio
async def test_empty_query_async() -> None:
    _, index = toy()
    with pytest.raises(InputError, match="query is empty"):
        await DebiasedRetriever(index).aretrieve(QueryBundle(query_str=" "))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"similarity_top_k": 0}, "^similarity_top_k must be a positive integer, got 0"),
        ({"strategy": "mmr"}, "unknown strategy 'mmr'"),
        ({"concept": "height"}, "unknown concept 'height'"),
        ({"score_direction": "down"}, "score_direction must be 'higher' or 'lower'"),
    ],
)
def test_bad_arguments(kwargs: dict, message: str) -> None:
    _, index = toy()
    with pytest.raises(InputError, match=message):
        DebiasedRetriever(index, **kwargs)


def test_bad_source() -> None:
    with pytest.raises(InputError, match="source must be a VectorStoreIndex or a LlamaIndex retriever, not str"):
        DebiasedRetriever("my index")
    with pytest.raises(InputError, match="retriever_kwargs only apply to a VectorStoreIndex"):
        DebiasedRetriever(Scripted([]), retriever_kwargs={"filters": None})
    with pytest.raises(InputError, match="retriever_kwargs must not set 'similarity_top_k'"):
        DebiasedRetriever(toy()[1], retriever_kwargs={"similarity_top_k": 50})
    with pytest.raises(InputError, match=r"unknown argument\(s\) top_k .*similarity_top_k="):
        DebiasedRetriever(toy()[1], top_k=3)  # unknown arguments are refused, never ignored


@pytest.mark.asyncio
async def test_cancellation_stops_every_variant() -> None:
    source = Scripted([], hang=True)
    start = time.monotonic()
    with pytest.raises(asyncio.TimeoutError):
        await asyncio.wait_for(DebiasedRetriever(source, strategy="paper").aretrieve("who leads?"), timeout=0.3)
    assert time.monotonic() - start < 3
    assert len(source.cancelled) == 2


@pytest.mark.asyncio
async def test_failure_cancels_the_sibling_variant() -> None:
    source = Scripted([], error=TimeoutError("slow shard"), hang=True)
    with pytest.raises(DebiasragError, match="'female' variant: TimeoutError: slow shard"):
        await asyncio.wait_for(DebiasedRetriever(source, strategy="paper").aretrieve("who leads?"), timeout=5)
    assert len(source.cancelled) == 1 and source.cancelled[0].endswith("is a man.")


def test_unknown_constructor_arguments_are_refused_with_our_error() -> None:
    with pytest.raises(InputError, match=r"unknown argument\(s\) k .*similarity_top_k="):
        DebiasedRetriever(toy()[1], k=3)


def test_embedding_refuses_what_pydantic_would_keep_and_ignore() -> None:
    """model= and a misspelt neutralise= were accepted: the packaged MiniLM embedded, nothing neutralized."""
    from llama_index.retrievers.debiasrag import DebiasragEmbedding

    for kwargs in ({"model": "all-mpnet-base-v2"}, {"neutralise": "ner"}):
        with pytest.raises(InputError, match=r"unknown argument\(s\).*the model is embedder="):
            DebiasragEmbedding(**kwargs)
    with pytest.raises(InputError, match="neutralize must be None or how first names go"):
        DebiasragEmbedding(neutralize="bogus")
    assert DebiasragEmbedding(embed_batch_size=8).embed_batch_size == 8  # LlamaIndex's own settings still pass
    with pytest.raises(InputError, match="got embedder .* and model_name 'x'; give one"):
        DebiasragEmbedding("all-MiniLM-L6-v2", model_name="x")


def test_embedding_settings_round_trip_and_key_the_ingestion_cache() -> None:
    """to_dict() left neutralize out, so an IngestionCache shared with a plain run handed a gender-blind pipeline the
    plain vectors; and from_dict(to_dict()) refused its own model_name."""
    from llama_index.core.ingestion.pipeline import get_transformation_hash
    from llama_index.core.schema import TextNode
    from llama_index.retrievers.debiasrag import DebiasragEmbedding

    plain, blind = DebiasragEmbedding(), DebiasragEmbedding(neutralize="table")
    nodes = [TextNode(text="She fixed the bike before her shift.")]
    assert get_transformation_hash(nodes, plain) != get_transformation_hash(nodes, blind)
    again = DebiasragEmbedding.from_dict(blind.to_dict())
    assert (again.neutralize, again.model_name) == ("table", blind.model_name)
    assert again.get_text_embedding(nodes[0].text) == blind.get_text_embedding(nodes[0].text)
