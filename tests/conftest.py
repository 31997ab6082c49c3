"""Shared fixtures. Real models only: the packaged all-MiniLM-L6-v2 is loaded once per session."""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import importlib.util  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
from importlib import resources  # noqa: E402

import pytest  # noqa: E402

from debiasrag import Document, FaissIndex, SentenceTransformerEmbedder  # noqa: E402
from tests.cli_support import ROOT, cli, cli_process  # noqa: E402


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


# -- the real CLI, and its error contract (used across the suite) ------------------------------------------------


def assert_one_line_error(result: subprocess.CompletedProcess, *fragments: str) -> None:
    """Exit 2, exactly one stderr line ``debiasrag: error: …`` naming the problem, no traceback."""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 2, (result.returncode, result.stderr[-2000:])
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    errors = [line for line in lines if line.startswith("debiasrag: error: ")]
    assert len(errors) == 1, lines
    for fragment in fragments:
        assert fragment in errors[0], errors[0]


@pytest.fixture
def run_cli():
    """``run_cli(*args, env=None, input=None, cwd=None)``: the real CLI's ``main`` in this process (:func:`cli`)."""
    return cli


@pytest.fixture
def run_cli_process():
    """``run_cli_process(*args, env=None, **subprocess_kwargs)``: the CLI in a fresh interpreter."""
    return cli_process


@pytest.fixture
def one_line_error():
    """``one_line_error(result, *fragments)``: assert the CLI's error contract on a finished run."""
    return assert_one_line_error


def load_script(name: str):
    """The maintainer script ``scripts/<name>.py`` as a module (its functions and constants; ``main`` not run)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def maintainer_script():
    """``maintainer_script(name)``: a script under scripts/ as a module, for tests of the data it builds."""
    return load_script
