"""End to end on a real in-memory VectorStoreIndex with the packaged MiniLM (via DebiasragEmbedding).

Data: debiasrag's bundled gendered set (12 occupations x 5 chunks in female, male and neutral versions,
plus 20 distractors) and seed 000's Appendix E toy task. Counts measured with all-MiniLM-L6-v2.
"""

from __future__ import annotations

from collections import Counter

import pytest
from li_support import topics, toy
from llama_index.retrievers.debiasrag import DebiasedRetriever


def groups(nodes) -> Counter:
    return Counter(n.node.metadata["group"] for n in nodes)


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

    debiased = DebiasedRetriever(index, strategy="dynamic", similarity_top_k=100).retrieve(query)
    counts = groups(debiased)
    assert counts["female"] == counts["male"] == 4
    assert all(n.node.node_id in task.relevant[topic] for n in debiased)  # no other topic, no distractor


def test_toy_task_dynamic_finds_all_fifteen_relevant_and_no_random() -> None:
    """Seed 000 Appendix E reports 15 relevant / 0 random for Algorithm 1 (UAE-Large); dynamic on MiniLM: same."""
    task, index = toy()
    nodes = DebiasedRetriever(index, strategy="dynamic", similarity_top_k=100).retrieve(task.queries["army"])
    assert {n.node.node_id for n in nodes} == task.relevant["army"]
    assert groups(nodes) == {"female": 5, "male": 5, "neutral": 5}


@pytest.mark.asyncio
async def test_async_end_to_end() -> None:
    task, index = topics()
    nodes = await DebiasedRetriever(index, strategy="dynamic", similarity_top_k=100).aretrieve(task.queries["nurse"])
    assert groups(nodes) == {"female": 4, "neutral": 4, "male": 4}
