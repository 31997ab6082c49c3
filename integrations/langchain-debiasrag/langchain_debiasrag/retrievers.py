"""``DebiasedRetriever``: every debiasrag strategy over any LangChain ``VectorStore`` or a debiasrag ``FaissIndex``."""

from __future__ import annotations

import asyncio
import difflib
import functools
import hashlib
import inspect
import json
from collections.abc import Callable, Generator, Mapping, Sequence
from typing import Any, Literal

from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from langchain_core.runnables import RunnableLambda
from langchain_core.vectorstores import VectorStore
from pydantic import ConfigDict, Field, PrivateAttr, ValidationError

from debiasrag.aio import gather_cancelling
from debiasrag.backends import (
    NoResults,
    acall_variant,
    aretrieve_picks,
    call_variant,
    checked_relevance,
    detect_score_direction,
    prepare_query,
    retrieve_picks,
    to_rankings,
    usable_score,
)
from debiasrag.concepts import Concept, load_concept
from debiasrag.embedders import load_embedder
from debiasrag.errors import DebiasragError, InputError, shown
from debiasrag.groups import group_lookup, groups_equal, result_group_fields
from debiasrag.index import FaissIndex
from debiasrag.retriever import DebiasedRetriever as CoreRetriever
from debiasrag.retriever import RetrievalResult, validate_k
from debiasrag.strategies import Pick, Ranking, Strategy, get_strategy
from langchain_debiasrag.embeddings import DebiasragEmbeddings

# The settings __init__ resolves; assigning one after construction builds the retriever again.
_SETTINGS = frozenset(
    {
        "vectorstore",
        "embedder",
        "concept",
        "strategy",
        "k",
        "score_direction",
        "relevance_fn",
        "search_kwargs",
        "query_transform",
        "max_fetch",
    }
)
# How other libraries spell the result count; given to invoke they would reach the store, which may ignore them.
_K_SPELLINGS = frozenset({"k", "top_k", "topk", "similarity_top_k", "n", "num_results", "n_results"})

ScoreDirection = Literal["auto", "higher", "lower"]
SCORE_DIRECTIONS = ("auto", "higher", "lower")
Scored = list[tuple[Document, float]]
SCORED_SEARCH = "similarity_search_with_score"
# "auto" reads the score direction from the order of a search's results: until it has, searches ask for at least
# this many, so a search for one result (or a filter leaving one) does not pass a distance off as a similarity
PROBE_DEPTH = 3


def document_key(doc: Document) -> str:
    """The store id when there is one; otherwise a hash of text and metadata (identical chunks merge)."""
    if doc.id:
        return str(doc.id)
    payload = json.dumps([doc.page_content, doc.metadata], sort_keys=True, default=str)
    return "sha1:" + hashlib.sha1(payload.encode("utf-8")).hexdigest()


def _seen_key(doc: Document, seen: dict[str, Document]) -> str:
    """:func:`document_key`, remembered in ``seen``; a document whose id was already seen with a *different*
    text is another document (a store or retriever merging collections whose ids collide), so it gets its own
    key (the id plus a hash of its text) and is kept, never merged into the first one. Exact duplicates (same id,
    same text) keep merging."""
    key = document_key(doc)
    first = seen.setdefault(key, doc)
    if first is not doc and first.page_content != doc.page_content:
        key = f"{key}#sha1:{hashlib.sha1(doc.page_content.encode('utf-8')).hexdigest()}"
        seen.setdefault(key, doc)
    return key


class DebiasedRetriever(BaseRetriever):
    """Counterfactual (debiased) retrieval over a LangChain vector store or a debiasrag ``FaissIndex``.

    A debiasrag strategy searches the store with the query variants it names and picks from the
    rankings: ``topk`` (plain baseline), ``context`` (debiasing sentence injected), ``paper`` (seed 000
    Algorithm 1, one search per concept variant, e.g. "... This person is a woman." / "... a man."),
    ``balanced`` (the plain query's top-k with the returned documents' groups balanced, within a
    relevance bound) or ``dynamic`` (default: the plain query's results close to the best one, groups
    balanced the same way). ``balanced`` and ``dynamic`` search once, with the plain query (variant
    ``"neutral"``); each document's group (e.g. female / male / neutral) is its ``debiasrag_group``
    metadata or is inferred from its text (:mod:`debiasrag.groups`).

    What ``k`` means: exactly ``k`` documents for ``topk``, ``context`` and ``balanced`` (fewer only
    when the store holds fewer); a cap for ``dynamic`` (it stops where relevance drops, so it can return
    fewer than ``k``); a floor for ``paper`` (Algorithm 1 returns every chunk the second variant ranks
    at or above the first variant's k-th pick, m >= k).

    Each returned Document is a copy whose metadata gains ``debiasrag_score`` (higher = more similar),
    ``debiasrag_variant`` (the query variant that found it), ``debiasrag_rank`` (1-based), the same three under
    the plain keys ``score`` / ``variant`` / ``rank`` unless the document already has that key (a user's own value
    is kept), and, for strategies that balance groups, ``debiasrag_balanced_group`` (the document's group they
    balanced on) and ``debiasrag_group`` (the same, unless the document carries the user's own label there, which is
    kept as written) and ``debiasrag_groups_equal`` (whether the result's groups came back in equal numbers: false
    when no swap within the bound closed the gap, or when the store gave fewer than asked). Over a ``FaissIndex``,
    ``debiasrag_id`` keeps the index's id with its type (ids ``1`` and
    ``"1"`` are two documents; LangChain's ``Document.id`` is ``"1"`` for both). A store returning one id for two
    different texts gives two documents (keyed by id and text); only exact duplicates merge.

    Args:
        vectorstore: any LangChain ``VectorStore`` implementing ``similarity_search_with_score`` (and
            ideally ``asimilarity_search_with_score``), or a :class:`debiasrag.FaissIndex`.
        embedder: only for a ``FaissIndex``: a debiasrag embedder, a model name, or a
            :class:`DebiasragEmbeddings` (default: the model the index was built with).
        concept: ``"gender"``, ``"age"``, ``"wealth"``, a path to a concept JSON, or a ``Concept``.
        strategy: strategy name or instance; overridable per call (``invoke(q, strategy="topk")``).
        k: number of results (see above); overridable per call (``invoke(q, k=3)``).
        score_direction: whether the store's scores are similarities (``"higher"`` is better) or
            distances (``"lower"``). ``"auto"`` infers it from the order the store returns results
            (stores return best first: descending scores are similarities, ascending ones distances)
            and remembers it; with only tied scores it assumes similarities.
        relevance_fn: maps a raw store score to higher-is-better. Default: identity for similarities;
            for distances the store's own ``_select_relevance_score_fn()`` when it has one, else
            negation. The ``dynamic`` cut works on cosine-like scales, so give distance stores a
            cosine-like mapping when the store has none (e.g. ``lambda d: 1 - d / 2`` for squared L2
            between unit vectors).
        search_kwargs: passed to every store search (e.g. ``{"filter": ...}``); extra ``invoke``
            keyword arguments are merged in (they win over ``search_kwargs``). The store's ``k`` is never
            taken from here: the strategy sets each search's depth from ``k`` (above), so a ``"k"`` key
            is refused with an error instead of silently changing the strategy's depth.
        max_fetch: with a filter (a ``filter`` / ``where`` / ``expr`` search argument), a store that
            applies it after a shallow search (LanceDB without ``prefilter=True``) returns fewer results
            than asked; the wrapper then asks again 4x deeper, up to ``max_fetch`` results, until enough
            survive the filter. A store whose search has a ``fetch_k`` (langchain-community's ``FAISS``
            filters its ``fetch_k`` nearest, default 20, whatever ``k`` is) gets ``fetch_k`` raised to at
            least each search's ``k`` when filtered. Stores that filter first (Chroma, Qdrant, PGVector,
            in-memory) already return enough; they pay extra calls only when fewer than the depth match.
            ``0`` turns it off.
        query_transform: applied to each query first (e.g. an anonymizer, so queries match an
            anonymized corpus). The default, ``"index"``, is what a ``FaissIndex`` recorded (the anonymization
            its corpus got; see :class:`debiasrag.DebiasedRetriever`) and nothing for a ``VectorStore``;
            ``None`` applies nothing; a function replaces it.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    vectorstore: Any
    embedder: Any = None
    concept: Any = "gender"
    strategy: Any = "dynamic"
    k: int = 10
    score_direction: ScoreDirection = "auto"
    relevance_fn: Callable[[float], float] | None = None
    search_kwargs: dict[str, Any] = Field(default_factory=dict)
    query_transform: Callable[[str], str] | Literal["index"] | None = "index"
    max_fetch: int = 1000

    _concept: Concept = PrivateAttr()
    _strategy: Strategy = PrivateAttr()
    _core: CoreRetriever | None = PrivateAttr(default=None)
    # (store, direction) learnt from that store, one tuple so a thread never pairs one store with another's direction
    _learnt: tuple[Any, str] | None = PrivateAttr(default=None)
    _probed_store: Any = PrivateAttr(default=None)  # the store whose unfiltered order was read (once each)

    def __init__(self, vectorstore: Any = None, **kwargs: Any) -> None:
        unknown = sorted(set(kwargs) - set(type(self).model_fields))
        if unknown:
            raise InputError(f"unknown DebiasedRetriever argument(s): {', '.join(unknown)}")
        if "k" in kwargs:
            validate_k(kwargs["k"])  # before pydantic, which would turn True into 1 and "3" into 3
        # Checked before pydantic, whose ValidationError is several lines with a URL: one-line InputErrors instead.
        direction = kwargs.get("score_direction", "auto")
        if not isinstance(direction, str) or direction not in SCORE_DIRECTIONS:
            raise InputError(f"score_direction must be 'auto', 'higher' or 'lower', got {direction!r}")
        if kwargs.get("search_kwargs", {}) is None:
            kwargs["search_kwargs"] = {}  # None means no extra search arguments, as retriever_kwargs in LlamaIndex
        if not isinstance(kwargs.get("search_kwargs", {}), Mapping):
            got = kwargs["search_kwargs"]
            raise InputError(f"search_kwargs must be a dict of store search arguments, got {got!r}")
        for name in ("relevance_fn", "query_transform"):
            value = kwargs.get(name)
            if value is not None and not callable(value) and not (name == "query_transform" and value == "index"):
                also = " or 'index'" if name == "query_transform" else ""
                raise InputError(f"{name} must be a function (or None{also}), got {value!r}")
        counts = sorted(key for key in (kwargs.get("search_kwargs") or {}) if str(key).lower() in _K_SPELLINGS)
        if counts:  # "top_k" would reach a store taking **kwargs and be ignored there, as "k" would override depth
            raise InputError(
                f"search_kwargs must not set {counts[0]!r}: the strategy sets each search's depth from k; "
                "pass DebiasedRetriever(k=...) or invoke(query, k=...)"
            )
        max_fetch = kwargs.get("max_fetch", 1000)
        if isinstance(max_fetch, bool) or not isinstance(max_fetch, int) or max_fetch < 0:
            raise InputError(f"max_fetch must be a non-negative integer, got {max_fetch!r}")
        try:
            super().__init__(vectorstore=vectorstore, **kwargs)  # type: ignore[call-arg]  # a pydantic field
        except ValidationError as exc:  # anything the checks above missed: still one line naming the field
            raise _input_error(exc) from None
        # Checked here rather than in a pydantic validator so the user sees our one-line InputError.
        self._concept = load_concept(self.concept)
        self._strategy = get_strategy(self.strategy)
        validate_k(self.k)
        if isinstance(self.vectorstore, FaissIndex):
            if self.search_kwargs:
                raise InputError("search_kwargs apply to a VectorStore; a FaissIndex search takes none")
            embedder = self.embedder.embedder if isinstance(self.embedder, DebiasragEmbeddings) else self.embedder
            self._core = CoreRetriever(
                self.vectorstore,
                load_embedder(embedder if embedder is not None else self.vectorstore.model_name),
                concept=self._concept,
                strategy=self.strategy,  # by name: the core picks balanced's bound for a gender-blind index
                k=self.k,
                query_transform=self.query_transform,  # the core applies it: "index", None or the user's
            )
            self._strategy = self._core.strategy
        elif isinstance(self.vectorstore, VectorStore):
            if self.embedder is not None:
                raise InputError("embedder is only used with a FaissIndex; a VectorStore embeds with its own model")
        else:
            kind = type(self.vectorstore).__name__
            raise InputError(f"vectorstore must be a LangChain VectorStore or a debiasrag FaissIndex, not {kind}")

    # -- settings changed after construction --------------------------------------------------------
    def __setattr__(self, name: str, value: Any) -> None:
        # strategy, concept and the store are resolved once in __init__ (and a score direction is learnt per store):
        # an assignment builds the retriever again, so it takes effect or is refused, never silently ignored
        if name in _SETTINGS:
            fresh = self._rebuilt({name: value})
            if name != "vectorstore":  # the same store: its learnt score direction still holds
                fresh._learnt = self._learnt
            self._become(fresh)
        else:
            super().__setattr__(name, value)

    def model_copy(self, *, update: Mapping[str, Any] | None = None, deep: bool = False) -> DebiasedRetriever:
        """A copy; ``update`` builds it again from the merged settings (checked, resolved, direction relearnt)."""
        if not update:
            return super().model_copy(deep=deep)
        return self._rebuilt(update)

    def _settings(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in type(self).model_fields if name in self.model_fields_set}

    def _rebuilt(self, changes: Mapping[str, Any]) -> DebiasedRetriever:
        """This retriever built again with ``changes``. Over the same ``FaissIndex`` with the same ``embedder``
        setting the embedding model already loaded is handed on (each assignment loaded it again, seconds per
        change); the public ``embedder`` field keeps what the caller gave."""
        settings = {**self._settings(), **changes}
        if self._core is None or {"vectorstore", "embedder"} & set(changes):
            return type(self)(**settings)
        fresh = type(self)(**{**settings, "embedder": self._core.embedder})
        fresh.__dict__["embedder"] = settings.get("embedder")
        if "embedder" not in settings:
            fresh.__pydantic_fields_set__.discard("embedder")
        return fresh

    def _become(self, other: DebiasedRetriever) -> None:
        for name in ("__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__"):
            object.__setattr__(self, name, getattr(other, name))

    # -- public helpers ---------------------------------------------------------------------------
    @property
    def store_name(self) -> str:
        """The wrapped store's class name (used in error messages)."""
        return type(self.vectorstore).__name__

    def _plan(self, query: str, k: int | None, strategy: str | Strategy | None) -> tuple[str, int, Strategy]:
        # Over a FaissIndex the core retriever applies query_transform; a VectorStore recorded nothing ("index").
        own = self.query_transform if self._core is None and self.query_transform != "index" else None
        query = prepare_query(query, own)
        if strategy is None:
            chosen = self._strategy
        else:  # over a FaissIndex the core names balanced's bound for a gender-blind index
            chosen = self._core.strategy_for(strategy) if self._core is not None else get_strategy(strategy)
        return query, validate_k(self.k if k is None else k), chosen

    def _search_args(self, extra: dict[str, Any]) -> dict[str, Any]:
        extra.pop("verbose", None)  # BaseRetriever.invoke leaves its own flag in the kwargs
        ours = sorted(set(extra) & (set(type(self).model_fields) - {"k", "strategy"}))
        if ours:  # would reach the store, which ignores what it does not know: the call would change nothing
            raise InputError(
                f"{', '.join(ours)} cannot change per call (invoke takes k, strategy and store search arguments)",
                hint="set it when building the DebiasedRetriever",
            )
        for key in extra:  # a store that takes **kwargs would swallow a misspelt k or strategy without a word
            if key.lower() in _K_SPELLINGS or difflib.get_close_matches(key.lower(), ["strategy"], cutoff=0.75):
                wanted = "k" if key.lower() in _K_SPELLINGS else "strategy"
                raise InputError(f"unexpected argument {key!r} for invoke; did you mean {wanted!r}?")
        if extra and self._core is not None:
            raise InputError(f"unexpected argument(s) for a FaissIndex search: {', '.join(sorted(extra))}")
        return {**self.search_kwargs, **extra}

    # -- sync -------------------------------------------------------------------------------------
    def _get_relevant_documents(
        self,
        query: str,
        *,
        run_manager: CallbackManagerForRetrieverRun,
        k: int | None = None,
        strategy: str | Strategy | None = None,
        **kwargs: Any,
    ) -> list[Document]:
        query, k, chosen = self._plan(query, k, strategy)
        search_args = self._search_args(kwargs)
        if self._core is not None:
            core = self._core
            result = self._faiss_runnable(core).invoke(
                {"query": query, "k": k, "strategy": chosen}, config={"callbacks": run_manager.get_child()}
            )
            return _documents_from_result(result)
        variants = chosen.variants(query, self._concept)
        seen: dict[str, Document] = {}
        store = self.vectorstore  # one store for the whole query, even if another is assigned meanwhile

        def search(depth: int) -> list[Ranking]:
            results = [
                self._variant_runnable(label, store).invoke(
                    {"query": text, "k": depth, **search_args},
                    config={"callbacks": run_manager.get_child(f"variant:{label}")},
                )
                for label, text in variants
            ]
            return self._rankings(store, variants, results, depth, seen)

        groups = group_lookup(self._concept, seen, variants[0][1]) if chosen.uses_groups else None  # debiasrag.groups
        return _documents(
            retrieve_picks(chosen, search, k, groups), seen, self._concept.groups if groups is not None else ()
        )

    # -- async ------------------------------------------------------------------------------------
    async def _aget_relevant_documents(
        self,
        query: str,
        *,
        run_manager: AsyncCallbackManagerForRetrieverRun,
        k: int | None = None,
        strategy: str | Strategy | None = None,
        **kwargs: Any,
    ) -> list[Document]:
        query, k, chosen = self._plan(query, k, strategy)
        search_args = self._search_args(kwargs)
        if self._core is not None:
            result = await self._faiss_runnable(self._core).ainvoke(
                {"query": query, "k": k, "strategy": chosen}, config={"callbacks": run_manager.get_child()}
            )
            return _documents_from_result(result)
        variants = chosen.variants(query, self._concept)
        seen: dict[str, Document] = {}
        store = self.vectorstore

        async def asearch(depth: int) -> list[Ranking]:
            results = await gather_cancelling(
                [
                    self._variant_runnable(label, store).ainvoke(
                        {"query": text, "k": depth, **search_args},
                        config={"callbacks": run_manager.get_child(f"variant:{label}")},
                    )
                    for label, text in variants
                ]
            )
            return self._rankings(store, variants, results, depth, seen)

        groups = group_lookup(self._concept, seen, variants[0][1]) if chosen.uses_groups else None  # debiasrag.groups
        return _documents(
            await aretrieve_picks(chosen, asearch, k, groups), seen, self._concept.groups if groups is not None else ()
        )

    # -- store calls, each traced as a child run ----------------------------------------------------
    def _variant_runnable(self, label: str, store: Any) -> RunnableLambda:
        name = type(store).__name__

        def search(args: dict[str, Any]) -> Scored:
            args = dict(args)
            query, depth = args.pop("query"), args.pop("k")
            fetch_k = _fetch_k_default(store.similarity_search_with_score)

            def once(k: int, unfiltered: bool = False) -> Any:
                kwargs = _unfiltered(args) if unfiltered else _with_fetch_k(args, k, fetch_k)
                return store.similarity_search_with_score(query, k=k, **kwargs)

            steps, reply = self._variant_search_steps(store, args, depth), None
            try:
                while True:
                    call, k = steps.send(reply)
                    if call == "variant":
                        reply = call_variant(name, label, functools.partial(once, k), method=SCORED_SEARCH)
                        continue
                    try:
                        reply = once(k, unfiltered=call == "probe")
                    except Exception:  # best effort: the direction is learnt another time
                        reply = None
            except StopIteration as done:
                return done.value

        async def asearch(args: dict[str, Any]) -> Scored:
            args = dict(args)
            query, depth = args.pop("query"), args.pop("k")
            fetch_k = _fetch_k_default(store.asimilarity_search_with_score)

            async def once(k: int, unfiltered: bool = False) -> Any:
                kwargs = _unfiltered(args) if unfiltered else _with_fetch_k(args, k, fetch_k)
                return await store.asimilarity_search_with_score(query, k=k, **kwargs)

            steps, reply = self._variant_search_steps(store, args, depth), None
            try:
                while True:
                    call, k = steps.send(reply)
                    if call == "variant":
                        reply = await acall_variant(name, label, functools.partial(once, k), method=SCORED_SEARCH)
                        continue
                    try:
                        reply = await once(k, unfiltered=call == "probe")
                    except Exception:  # best effort, as in search()
                        reply = None
            except StopIteration as done:
                return done.value

        return RunnableLambda(search, afunc=asearch, name=f"debiasrag_search[{label}]")

    def _variant_search_steps(
        self, store: Any, args: Mapping[str, Any], depth: int
    ) -> Generator[tuple[str, int], Any, Any]:
        """One variant's store calls, for the sync and the async search alike: yields ``(call, k)`` and is sent
        that call's results. ``"variant"`` is the traced search (its errors are the caller's); ``"deeper"`` and
        ``"probe"`` (without a filter) are best effort, sent ``None`` when they fail. Returns the first ``depth``."""
        max_fetch = self.max_fetch
        learning = self._learning_direction(store)
        fetch = max(depth, PROBE_DEPTH) if learning else depth
        while True:  # deeper only while a filter leaves fewer than depth (see max_fetch)
            pairs, asked = (yield "variant", fetch), fetch
            fetch = _deeper(pairs, depth, fetch, max_fetch, args)
            if not fetch:
                break
        if learning and pairs and not self._learn_direction(store, [pairs]):
            if self._may_probe(store, args):
                # a filter left too few to show an order: the store's order without it tells the same (once per
                # store; every other search argument kept)
                probe = yield "probe", PROBE_DEPTH
                if probe is not None:
                    self._probed_store = store
                    self._learn_direction(store, [probe])
            else:
                # only ties (duplicate chunks): deeper results show the order, so the first call's scores are
                # already similarities, as every later call's
                for k in _past_ties(pairs, asked, max_fetch):
                    deeper = yield "deeper", k
                    if deeper is not None and (self._learn_direction(store, [deeper]) or len(deeper) < k):
                        break  # known, or the store holds no more
        return _first(pairs, depth)

    @staticmethod
    def _faiss_runnable(core: CoreRetriever) -> RunnableLambda:
        def search(args: dict[str, Any]) -> RetrievalResult:
            return core.retrieve(args["query"], k=args["k"], strategy=args["strategy"])

        async def asearch(args: dict[str, Any]) -> RetrievalResult:
            # Embedding and FAISS are CPU-bound with no async API: a worker thread keeps the loop free.
            return await asyncio.to_thread(search, args)

        return RunnableLambda(search, afunc=asearch, name="debiasrag_faiss_search")

    # -- scores -------------------------------------------------------------------------------------
    def _rankings(
        self, store: Any, variants: list[tuple[str, str]], results: list[Any], depth: int, seen: dict[str, Document]
    ) -> list[Ranking]:
        checked = [self._check_scored(label, result) for (label, _), result in zip(variants, results)]
        if all(not pairs for pairs in checked):
            raise NoResults
        convert, name = self._score_converter(store, [[score for _, score in pairs] for pairs in checked])
        keyed = []
        for pairs in checked:
            keys = [_seen_key(doc, seen) for doc, _ in pairs]
            keyed.append([(key, checked_relevance(convert, raw, name=name)) for key, (_, raw) in zip(keys, pairs)])
        return to_rankings([label for label, _ in variants], keyed, [len(pairs) < depth for pairs in checked])

    def _check_scored(self, label: str, result: Any) -> list[tuple[Document, float]]:
        if not isinstance(result, (list, tuple)):
            raise DebiasragError(
                f"{self.store_name}.{SCORED_SEARCH} returned {type(result).__name__}, "
                "expected a list of (Document, score) pairs"
            )
        pairs = []
        for item in result:
            if not (isinstance(item, (list, tuple)) and len(item) == 2 and isinstance(item[0], Document)):
                raise DebiasragError(
                    f"{self.store_name} returned {type(item).__name__} items without scores for the "
                    f"{label!r} variant; debiasrag needs (Document, score) pairs"
                )
            score = usable_score(item[1])
            if score is None:
                raise DebiasragError(
                    f"{self.store_name} returned no usable score ({item[1]!r}) for the {label!r} "
                    "variant; debiasrag needs numeric similarity or distance scores"
                )
            pairs.append((item[0], score))
        return pairs

    def _known_direction(self, store: Any = None) -> str | None:
        """The direction learnt from ``store`` (default: the store the retriever holds now); None: not learnt yet."""
        store = self.vectorstore if store is None else store
        learnt = self._learnt
        return learnt[1] if learnt is not None and learnt[0] is store else None

    def _learning_direction(self, store: Any) -> bool:
        """Whether a search of ``store`` should also show its order: ``"auto"``, the direction of this store not
        learnt yet, and a direction that matters (a ``relevance_fn`` maps raw scores whatever their direction)."""
        return self.score_direction == "auto" and self.relevance_fn is None and self._known_direction(store) is None

    def _may_probe(self, store: Any, args: Mapping[str, Any]) -> bool:
        """Whether to read ``store``'s order without the filter: only for a filtered search, until one such search
        of this store has returned (a failed one is tried again next time)."""
        return _filtered(args) and self._probed_store is not store

    def _learn_direction(self, store: Any, results: list[Any]) -> bool:
        """Learn ``store``'s direction from raw search results (before they are cut to depth); whether it is known
        now. Results that are not (Document, score) pairs are left to the checks that name them; a search of a store
        the retriever no longer holds teaches nothing."""
        try:
            scores = [[usable_score(item[1]) for item in pairs] for pairs in results]
            if any(score is None for row in scores for score in row):
                return False
            found = detect_score_direction(type(store).__name__, scores)  # type: ignore[arg-type]
        except (TypeError, IndexError, KeyError, DebiasragError):
            return False
        return self._remember(store, found) is not None

    def _remember(self, store: Any, found: str | None) -> str | None:
        """Keep ``found`` as ``store``'s direction when there is one and the retriever still holds that store."""
        if found is not None and store is self.vectorstore:
            self._learnt = (store, found)
        return found

    def _direction(self, store: Any, score_lists: list[list[float]]) -> str:
        if self.score_direction != "auto":
            return self.score_direction
        known = self._known_direction(store)
        if known is None:
            known = self._remember(store, detect_score_direction(type(store).__name__, score_lists))
        # Only ties so far: "higher" (the order within each variant is the same either way), decided later.
        return known or "higher"

    def _score_converter(self, store: Any, score_lists: list[list[float]]) -> tuple[Callable[[float], object], str]:
        """The function turning ``store``'s raw scores into higher-is-better ones, and its name for error messages."""
        if self.relevance_fn is not None:  # maps raw scores whatever their direction: the order is not read
            return self.relevance_fn, "relevance_fn"
        direction = self._direction(store, score_lists)
        if direction == "higher":
            return float, "score"
        try:
            return store._select_relevance_score_fn(), f"{type(store).__name__}._select_relevance_score_fn()"
        except NotImplementedError:
            return (lambda distance: -distance), "negation"


FILTER_ARGS = ("filter", "where", "expr")
FETCH_K = "fetch_k"


def _unfiltered(args: Mapping[str, Any]) -> dict[str, Any]:
    """``args`` without their filter (every other search argument, a tenant or a namespace, kept)."""
    return {key: value for key, value in args.items() if key not in FILTER_ARGS}


def _filtered(args: Mapping[str, Any]) -> bool:
    return any(args.get(key) is not None for key in FILTER_ARGS)


def _deeper(pairs: Any, depth: int, fetch: int, max_fetch: int, args: Mapping[str, Any]) -> int:
    """The next, deeper ``k`` to ask a store for, or 0 when these results are final: enough of them, no
    filter in ``args`` (so fewer results mean the store holds fewer), or ``max_fetch`` reached."""
    if not isinstance(pairs, list | tuple) or len(pairs) >= depth or not _filtered(args) or fetch >= max_fetch:
        return 0
    return min(fetch * 4, max_fetch)


def _past_ties(pairs: Any, asked: int, max_fetch: int) -> list[int]:
    """The deeper ``k`` to ask an unfiltered store for when the ``asked`` results so far only tie: 4x deeper each
    time up to ``max_fetch``; none when the store gave fewer than asked (it holds no more, and every score ties)."""
    if not isinstance(pairs, list | tuple) or len(pairs) < asked:
        return []
    depths = []
    while 0 < asked < max_fetch:
        asked = min(asked * 4, max_fetch)
        depths.append(asked)
    return depths


def _fetch_k_default(search: Callable[..., Any]) -> int | None:
    """The default of the search's own ``fetch_k`` parameter (langchain-community's FAISS: 20, the number of
    nearest neighbours its filter is applied to, whatever ``k`` is), or None when it has none."""
    try:
        parameter = inspect.signature(search).parameters.get(FETCH_K)
    except (TypeError, ValueError):  # a callable without a readable signature: pass nothing extra
        return None
    if parameter is None:
        return None
    default = parameter.default
    return default if isinstance(default, int) and not isinstance(default, bool) else 0


def _with_fetch_k(args: dict[str, Any], k: int, default: int | None) -> dict[str, Any]:
    """``args`` with ``fetch_k`` raised to at least ``k`` for a filtered search on a store that has it, so a deeper
    search also filters deeper (a user's larger ``fetch_k`` is kept; one that is not an integer is the store's)."""
    if default is None or not _filtered(args):
        return args
    own = args.get(FETCH_K, default)
    if isinstance(own, bool) or not isinstance(own, int):
        return args
    return {**args, FETCH_K: max(own, k)}


def _first(pairs: Any, depth: int) -> Any:
    """The best ``depth`` results of a deepened search (anything else is left for the score checks)."""
    return pairs[:depth] if isinstance(pairs, list | tuple) else pairs


def _input_error(exc: ValidationError) -> InputError:
    """A pydantic ValidationError (several lines and a URL) as one line naming the field."""
    error = exc.errors()[0]
    field = ".".join(str(part) for part in error.get("loc", ())) or "argument"
    got = shown(error.get("input"))
    return InputError(f"invalid DebiasedRetriever argument {field}: {error.get('msg', 'invalid value')}, got {got}")


# debiasrag's per-result metadata: always under its own ``debiasrag_`` keys, and under the plain key too when the
# document does not already have one (a user's own "score" / "variant" / "rank" is never overwritten).
RESULT_KEYS = ("score", "variant", "rank")
ID_KEY = "debiasrag_id"


def _with_scores(
    doc: Document, score: float, variant: str, rank: int, group: str | None, equal: bool | None = None
) -> Document:
    values: dict[str, Any] = {"score": score, "variant": variant, "rank": rank}
    added = {f"debiasrag_{key}": value for key, value in values.items()}
    added.update({key: value for key, value in values.items() if key not in doc.metadata})
    if group is not None:  # only strategies that balanced groups report one; a user's own label is kept
        added.update(result_group_fields(doc.metadata, group, equal=equal))
    return doc.model_copy(update={"metadata": {**doc.metadata, **added}})


def _documents(picks: list[Pick], seen: Mapping[Any, Document], balanced: Sequence[str]) -> list[Document]:
    # a store capped below k, or a gap no swap could close, leaves the groups unequal: say so on each document
    equal = groups_equal([pick.group for pick in picks], balanced)
    return [
        _with_scores(seen[pick.key], float(pick.score), pick.variant, rank, pick.group, equal)
        for rank, pick in enumerate(picks, 1)
    ]


def _documents_from_result(result: RetrievalResult) -> list[Document]:
    # LangChain ids are strings, so ids 1 and "1" (distinct in a FaissIndex) both become id "1"; debiasrag_id
    # keeps the index's own id, with its type, so the two stay told apart.
    documents = [
        Document(id=str(hit.id), page_content=hit.text, metadata={**hit.metadata, ID_KEY: hit.id})
        for hit in result.hits
    ]
    equal = result.groups_equal
    return [
        _with_scores(doc, hit.score, hit.variant, hit.rank, hit.group, equal)
        for doc, hit in zip(documents, result.hits)
    ]


__all__ = ["DebiasedRetriever", "document_key"]
