"""End to end on a real in-memory VectorStoreIndex with the packaged MiniLM (via DebiasragEmbedding).

Data: debiasrag's bundled gendered set (12 occupations x 5 chunks in female, male and neutral versions,
plus 20 distractors) and seed 000's Appendix E toy task. Counts measured with all-MiniLM-L6-v2.
"""

from __future__ import annotations

import tempfile
from collections import Counter

import pytest
from li_support import topics, toy
from llama_index.retrievers.debiasrag import DebiasedRetriever

# Embedding cache of this test process, removed when it exits (mkdtemp folders piled up in /tmp).
_CACHE_DIR = tempfile.TemporaryDirectory(prefix="debiasrag-test-cache-")


def groups(nodes) -> Counter:
    """The test data's own group labels (metadata "group"), not what the retriever inferred."""
    return Counter(n.node.metadata["group"] for n in nodes)


def inferred_groups_match_labels(nodes) -> bool:
    """The group the retriever balanced on (metadata "debiasrag_group", inferred from the text) is the label."""
    return all(n.node.metadata["debiasrag_group"] == n.node.metadata["group"] for n in nodes)


@pytest.mark.parametrize(
    ("topic", "plain_counts"),
    [
        ("nurse", {"female": 4, "neutral": 4, "male": 2}),  # stereotypically female: plain leans female
        ("surgeon", {"female": 2, "neutral": 4, "male": 4}),  # stereotypically male: plain leans male
    ],
)
def test_plain_top10_is_skewed_and_dynamic_is_balanced(topic: str, plain_counts: dict) -> None:
    task, index = topics()
    query = task.queries[topic]
    plain = DebiasedRetriever(index, strategy="topk", similarity_top_k=10).retrieve(query)
    assert groups(plain) == plain_counts

    # dynamic v2 searches the plain query only and balances the returned documents' groups; k is a cap.
    debiased = DebiasedRetriever(index, strategy="dynamic", similarity_top_k=100).retrieve(query)
    counts = groups(debiased)
    assert abs(counts["female"] - counts["male"]) <= 1  # measured: nurse 3/3 (of 11), surgeon 4/4 (of 12)
    assert len(debiased) >= 10  # every one relevant, so at least as many relevant chunks as plain top-10
    assert all(n.node.node_id in task.relevant[topic] for n in debiased)  # no other topic, no distractor
    assert {n.node.metadata["variant"] for n in debiased} == {"neutral"}
    assert inferred_groups_match_labels(debiased)

    capped = DebiasedRetriever(index, strategy="dynamic", similarity_top_k=6).retrieve(query)
    assert len(capped) <= 6
    assert abs(groups(capped)["female"] - groups(capped)["male"]) <= 1


def test_toy_task_dynamic_returns_only_relevant_chunks_and_more_than_plain_top10() -> None:
    """Seed 000 Appendix E reports 15 relevant / 0 random for Algorithm 1 (UAE-Large). dynamic v2 on MiniLM:
    11 of the 15 relevant (v1 found 15), no random chunk, groups balanced; plain top-10 finds 10."""
    task, index = toy()
    query = task.queries["army"]
    nodes = DebiasedRetriever(index, strategy="dynamic", similarity_top_k=100).retrieve(query)
    found = {n.node.node_id for n in nodes}
    assert found <= task.relevant["army"]  # no random chunk
    assert len(found) >= 11  # measured 11 (tests/test_core_strategies.py measures the same)
    counts = groups(nodes)
    assert counts["female"] == counts["male"]  # measured 3 / 3, plus 5 neutral
    assert inferred_groups_match_labels(nodes)

    plain = DebiasedRetriever(index, strategy="topk", similarity_top_k=10).retrieve(query)
    assert sum(n.node.node_id in task.relevant["army"] for n in plain) == 10 < len(found)


@pytest.mark.asyncio
async def test_async_end_to_end() -> None:
    task, index = topics()
    retriever = DebiasedRetriever(index, strategy="dynamic", similarity_top_k=100)
    nodes = await retriever.aretrieve(task.queries["nurse"])
    counts = groups(nodes)
    assert abs(counts["female"] - counts["male"]) <= 1 and all(n.node.node_id in task.relevant["nurse"] for n in nodes)
    assert [n.node.node_id for n in nodes] == [n.node.node_id for n in retriever.retrieve(task.queries["nurse"])]


def test_a_gender_blind_index_ties_the_wordings_and_keeps_the_originals() -> None:
    """``DebiasragEmbedding(neutralize=...)`` embeds the neutral wording; nodes keep their original text."""
    from llama_index.core import VectorStoreIndex
    from llama_index.core.schema import TextNode
    from llama_index.retrievers.debiasrag import DebiasragEmbedding

    import debiasrag
    from debiasrag.embedding_cache import CachedEmbedder

    task, plain_index = topics()
    inner = CachedEmbedder.wrap(debiasrag.SentenceTransformerEmbedder(), _CACHE_DIR.name)
    nodes = [
        TextNode(id_=str(d.id), text=d.text, metadata=dict(d.metadata), excluded_embed_metadata_keys=list(d.metadata))
        for d in task.documents
    ]
    blind_index = VectorStoreIndex(nodes, embed_model=DebiasragEmbedding(inner, neutralize="table"))
    query = task.queries["surgeon"]
    plain = DebiasedRetriever(plain_index, strategy="topk", similarity_top_k=10).retrieve(query)
    blind = DebiasedRetriever(blind_index, strategy="topk", similarity_top_k=10).retrieve(query)
    assert groups(plain) == {"female": 2, "neutral": 4, "male": 4}
    # "She" / "He performed …" both read "They performed …" and tie; the set's neutral wording says "This person"
    assert groups(blind)["female"] == groups(blind)["male"]
    assert {n.node.get_content() for n in blind} <= {d.text for d in task.documents}  # the originals
