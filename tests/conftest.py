"""Shared fixtures. Real models only: the packaged all-MiniLM-L6-v2 is loaded once per session."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import json  # noqa: E402
from importlib import resources  # noqa: E402

import pytest  # noqa: E402

from debiasrag import Document, FaissIndex, SentenceTransformerEmbedder  # noqa: E402


@pytest.fixture(scope="session")
def embedder() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder()


@pytest.fixture(scope="session")
def toy() -> dict:
    return json.loads((resources.files("debiasrag") / "data" / "toy" / "appendix_e.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def toy_index(embedder, toy) -> FaissIndex:
    docs = [Document(c["id"], c["text"], {"group": c["group"]}) for c in toy["chunks"]]
    return FaissIndex.from_documents(docs, embedder)
