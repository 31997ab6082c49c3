"""``DebiasedRetriever``: every debiasrag strategy over a LlamaIndex retriever or a ``VectorStoreIndex``."""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any, Literal

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.callbacks.base import CallbackManager
from llama_index.core.indices.vector_store.base import VectorStoreIndex
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle

from debiasrag.aio import gather_cancelling
from debiasrag.backends import (
    NoResults,
    acall_variant,
    aretrieve_picks,
    call_variant,
    checked_relevance,
    prepare_query,
    retrieve_picks,
    to_rankings,
    usable_score,
)
from debiasrag.concepts import Concept, load_concept
from debiasrag.errors import DebiasragError, InputError, shown
from debiasrag.groups import (
    BALANCED_GROUP_KEY,
    GROUP_KEY,
    GROUPS_EQUAL_KEY,
    group_lookup,
    groups_equal,
    result_group_fields,
)
from debiasrag.retriever import validate_k
from debiasrag.strategies import Pick, Ranking, Strategy, get_strategy

# Added to each returned node's metadata and hidden from the LLM and embedding views of the node, so a
# "variant: female" line never reaches the prompt. The group goes under debiasrag's own key (not "group"),
# so a user's own "group" field is never overwritten; variant and rank always go under debiasrag_variant and
# debiasrag_rank, and under the plain "variant" / "rank" only when the node has no such key of its own.
RESULT_KEYS = ("variant", "rank")
DEBIASRAG_KEYS = (
    *RESULT_KEYS,
    *(f"debiasrag_{key}" for key in RESULT_KEYS),
    GROUP_KEY,
    BALANCED_GROUP_KEY,
    GROUPS_EQUAL_KEY,
)


class DebiasedRetriever(BaseRetriever):
    """Counterfactual (debiased) retrieval over a LlamaIndex retriever or a ``VectorStoreIndex``.

    Each query is searched once per query variant of the strategy, each with a **fresh** ``QueryBundle``
    (LlamaIndex's vector retriever writes the query embedding into the bundle it is given): ``topk`` (plain
    baseline), ``context`` (debiasing sentence injected), ``paper`` (seed 000 Algorithm 1: one search per
    concept group, e.g. "... This person is a woman." / "... a man."), ``balanced`` (the plain query's
    top-k with the returned documents' groups balanced within a relevance bound) or ``dynamic`` (default:
    the plain query's results close to the best one, groups balanced). ``balanced`` and ``dynamic`` search
    the plain query only (variant ``"neutral"``); each node's group (e.g. female / male / neutral) is its
    ``debiasrag_group`` metadata or is inferred from its text (:mod:`debiasrag.groups`).

    How deep it can search depends on what it wraps:

    - a ``VectorStoreIndex``: as deep as the strategy needs (``index.as_retriever(similarity_top_k=depth)``);
    - a retriever with a settable ``similarity_top_k`` (e.g. ``VectorIndexRetriever``): a shallow copy
      per search with that depth, the original is never changed;
    - any other retriever that returns scores: its own fixed number of results, which debiasrag
      re-ranks (give it a top-k of at least 2-5 times ``similarity_top_k``).

    ``similarity_top_k`` means exactly k nodes for ``topk``, ``context`` and ``balanced``, a cap for
    ``dynamic`` and a floor for ``paper`` (Algorithm 1 returns m >= k). Returned nodes are copies: the
    score is on the ``NodeWithScore`` (higher = more similar) and the metadata gains ``debiasrag_variant``,
    ``debiasrag_rank``, the same two under ``variant`` / ``rank`` unless the node already has that key (a
    user's own value is kept) and, for strategies that balance groups, ``debiasrag_balanced_group`` (the group they
    balanced on), ``debiasrag_group`` (the same, unless the node carries the user's own label there, kept as
    written) and ``debiasrag_groups_equal`` (whether the groups came back in equal numbers), all excluded from the
    LLM and embedding metadata views. Nodes sharing an id but not their
    text are two results (keyed by id and text); only exact duplicates merge.

    Args:
        source: a ``VectorStoreIndex`` or any ``BaseRetriever`` whose nodes carry scores.
        concept: ``"gender"``, ``"age"``, ``"wealth"``, a concept JSON path or a ``Concept``.
        strategy: strategy name or instance.
        similarity_top_k: number of results (see above).
        score_direction: ``"higher"`` (LlamaIndex's convention: scores are similarities) or ``"lower"``
            for a retriever that reports distances; those are negated unless ``relevance_fn`` is given.
        relevance_fn: maps a raw score to higher-is-better (optional).
        query_transform: applied to each query string first (e.g. an anonymizer).
        retriever_kwargs: extra arguments for ``index.as_retriever`` (e.g. ``filters=``). Not
            ``similarity_top_k``: the strategy sets each search's depth from ``similarity_top_k`` above, so
            that key is refused here.
    """

    def __init__(
        self,
        source: VectorStoreIndex | BaseRetriever,
        *,
        concept: str | Path | Concept = "gender",
        strategy: str | Strategy = "dynamic",
        similarity_top_k: int = 10,
        score_direction: Literal["higher", "lower"] = "higher",
        relevance_fn: Callable[[float], float] | None = None,
        query_transform: Callable[[str], str] | None = None,
        retriever_kwargs: dict[str, Any] | None = None,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
        **unknown: Any,
    ) -> None:
        if unknown:  # one line of ours, not a TypeError; "k" is LangChain's name for similarity_top_k
            names = ", ".join(sorted(unknown))
            hint = "the number of results is similarity_top_k=" if "k" in unknown or "top_k" in unknown else None
            raise InputError(f"DebiasedRetriever got unknown argument(s) {names}", hint=hint)
        if not isinstance(source, (VectorStoreIndex, BaseRetriever)):
            kind = type(source).__name__
            raise InputError(f"source must be a VectorStoreIndex or a LlamaIndex retriever, not {kind}")
        if not isinstance(score_direction, str) or score_direction not in ("higher", "lower"):
            raise InputError(f"score_direction must be 'higher' or 'lower', got {score_direction!r}")
        if retriever_kwargs is not None and not isinstance(retriever_kwargs, Mapping):
            raise InputError(
                f"retriever_kwargs must be a dict of index.as_retriever arguments, got {retriever_kwargs!r}"
            )
        for name, function in (("relevance_fn", relevance_fn), ("query_transform", query_transform)):
            if function is not None and not callable(function):
                raise InputError(f"{name} must be a function (or None), got {function!r}")
        if retriever_kwargs and not isinstance(source, VectorStoreIndex):
            raise InputError("retriever_kwargs only apply to a VectorStoreIndex; configure your retriever directly")
        if "node_ids" in (retriever_kwargs or {}):  # as_retriever passes the index's own: a TypeError at first query
            raise InputError(
                "retriever_kwargs must not set 'node_ids' (the index passes its own); restrict the search with "
                "filters=MetadataFilters(...) instead"
            )
        if "similarity_top_k" in (retriever_kwargs or {}):
            raise InputError(
                "retriever_kwargs must not set 'similarity_top_k': the strategy sets each search's depth; "
                "pass DebiasedRetriever(similarity_top_k=...)"
            )
        self.source = source
        self.concept = load_concept(concept)
        self.strategy = get_strategy(strategy)
        self.similarity_top_k = validate_k(similarity_top_k, "similarity_top_k")
        self.score_direction = score_direction
        self.relevance_fn = relevance_fn
        self.query_transform = query_transform
        self.retriever_kwargs = dict(retriever_kwargs or {})
        super().__init__(callback_manager=callback_manager, verbose=verbose)

    # -- the wrapped retriever at a given depth -------------------------------------------------------
    @property
    def source_name(self) -> str:
        """The wrapped index's or retriever's class name (used in error messages)."""
        return type(self.source).__name__

    def _retriever_at(self, depth: int) -> tuple[BaseRetriever, bool]:
        """The retriever to call for ``depth`` results, and whether it can honour that depth."""
        if isinstance(self.source, VectorStoreIndex):
            try:
                return self.source.as_retriever(similarity_top_k=depth, **self.retriever_kwargs), True
            except DebiasragError:
                raise
            except Exception as exc:  # a retriever_kwargs value the index refuses: one line naming the call
                if not self.retriever_kwargs:
                    raise
                detail = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
                raise InputError(
                    f"{self.source_name}.as_retriever(**retriever_kwargs) failed: {type(exc).__name__}: {detail}"
                ) from exc
        if _has_settable_top_k(self.source):
            deeper = copy.copy(self.source)  # shares index and model; only the depth differs
            deeper.similarity_top_k = depth  # type: ignore[attr-defined]
            return deeper, True
        return self.source, False

    def _plan(self, query_bundle: QueryBundle) -> tuple[list[tuple[str, str]], int]:
        query = prepare_query(
            query_bundle.query_str if isinstance(query_bundle, QueryBundle) else query_bundle, self.query_transform
        )
        return self.strategy.variants(query, self.concept), self.similarity_top_k

    # -- sync -----------------------------------------------------------------------------------------
    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        variants, k = self._plan(query_bundle)
        seen: dict[str, NodeWithScore] = {}

        def search(depth: int) -> list[Ranking]:
            retriever, deep = self._retriever_at(depth)
            results = [
                # a fresh bundle per variant (the vector retriever writes the query embedding into it)
                call_variant(
                    self.source_name,
                    label,
                    partial(retriever.retrieve, QueryBundle(query_str=text)),
                    action="retrieval",
                )  # fmt: skip
                for label, text in variants
            ]
            return self._rankings(variants, results, depth, deep, seen)

        groups = (
            group_lookup(self.concept, seen, variants[0][1]) if self.strategy.uses_groups else None
        )  # debiasrag.groups
        return _nodes(
            retrieve_picks(self.strategy, search, k, groups), seen, self.concept.groups if groups is not None else ()
        )

    # -- async ----------------------------------------------------------------------------------------
    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        variants, k = self._plan(query_bundle)
        seen: dict[str, NodeWithScore] = {}

        async def one(retriever: BaseRetriever, label: str, text: str) -> list[NodeWithScore]:
            search = partial(retriever.aretrieve, QueryBundle(query_str=text))
            return await acall_variant(self.source_name, label, search, action="retrieval")

        async def asearch(depth: int) -> list[Ranking]:
            retriever, deep = self._retriever_at(depth)
            results = await gather_cancelling([one(retriever, label, text) for label, text in variants])
            return self._rankings(variants, results, depth, deep, seen)

        groups = (
            group_lookup(self.concept, seen, variants[0][1]) if self.strategy.uses_groups else None
        )  # debiasrag.groups
        return _nodes(
            await aretrieve_picks(self.strategy, asearch, k, groups),
            seen,
            self.concept.groups if groups is not None else (),
        )

    # -- scores ---------------------------------------------------------------------------------------
    def _rankings(
        self,
        variants: list[tuple[str, str]],
        results: list[Any],
        depth: int,
        deep: bool,
        seen: dict[str, NodeWithScore],
    ) -> list[Ranking]:
        if all(not nodes for nodes in results):
            raise NoResults
        keyed = []
        for (label, _), nodes in zip(variants, results):
            pairs = []
            for item in nodes:
                if not isinstance(item, NodeWithScore):
                    raise DebiasragError(f"{self.source_name} returned {type(item).__name__}, expected NodeWithScore")
                score = usable_score(item.score, lenient=True)
                if score is None:
                    kind = "without a score" if item.score is None else "without a usable score"
                    raise DebiasragError(
                        f"{self.source_name} returned a node {kind} ({shown(item.score)}) for "
                        f"the {label!r} variant; debiasrag needs scored retrieval with finite numeric scores"
                    )
                pairs.append((_seen_key(item, seen), self._convert(score)))
            keyed.append(pairs)
        # A retriever that cannot go deeper has given all it will: let the strategy decide with it.
        complete = [not deep or len(nodes) < depth for nodes in results]
        return to_rankings([label for label, _ in variants], keyed, complete)

    # LlamaIndex's retrieve() / aretrieve() pass _retrieve's nodes through these hooks, which resolve IndexNodes
    # and keep the first node of each node_id. The wrapped retriever's own retrieve() has already resolved its
    # IndexNodes, and our picks are already one per document (keyed by id and text, _seen_key): dropping by id
    # again would lose a second document whose id collides with the first (two indexes built apart).
    def _handle_recursive_retrieval(self, query_bundle: QueryBundle, nodes: list[NodeWithScore]) -> list[NodeWithScore]:
        return nodes

    async def _ahandle_recursive_retrieval(
        self, query_bundle: QueryBundle, nodes: list[NodeWithScore]
    ) -> list[NodeWithScore]:
        return nodes

    def _convert(self, raw: float) -> float:
        if self.relevance_fn is not None:
            return checked_relevance(self.relevance_fn, raw)  # NaN, infinity or text: one-line InputError
        return raw if self.score_direction == "higher" else -raw


def _text(item: NodeWithScore) -> str:
    return item.node.get_content(metadata_mode=MetadataMode.NONE)


def _seen_key(item: NodeWithScore, seen: dict[str, NodeWithScore]) -> str:
    """The node id, remembered in ``seen``; a node whose id was already seen with a *different* text is another
    node (e.g. a retriever fusing indexes whose ids collide), so it gets its own key (the id plus a hash of its
    text) and is kept, never merged into the first one. Exact duplicates (same id, same text) keep merging."""
    key = item.node.node_id
    first = seen.setdefault(key, item)
    if first is not item and _text(first) != _text(item):
        key = f"{key}#sha1:{hashlib.sha1(_text(item).encode('utf-8')).hexdigest()}"
        seen.setdefault(key, item)
    return key


def _has_settable_top_k(retriever: BaseRetriever) -> bool:
    prop = getattr(type(retriever), "similarity_top_k", None)
    return isinstance(prop, property) and prop.fset is not None


def _nodes(picks: list[Pick], seen: Mapping[Any, NodeWithScore], balanced: Sequence[str]) -> list[NodeWithScore]:
    # a retriever capped below k, or a gap no swap could close, leaves the groups unequal: say so on each node
    equal = groups_equal([pick.group for pick in picks], balanced)
    output = []
    for rank, pick in enumerate(picks, start=1):
        node = seen[pick.key].node.model_copy()  # shallow: the stored node keeps its own metadata
        values: dict[str, Any] = {"variant": pick.variant, "rank": rank}
        added = {f"debiasrag_{key}": value for key, value in values.items()}
        added.update({key: value for key, value in values.items() if key not in node.metadata})  # user's kept
        if pick.group is not None:  # only strategies that balanced groups report one; a user's own label is kept
            added.update(result_group_fields(node.metadata, pick.group, equal=equal))
        node.metadata = {**node.metadata, **added}
        # only what debiasrag added: a user's own "rank" stays in the views it was in; the group key is always hidden,
        # a user's own label included (a gender label in the prompt is what a debiasing plugin must not add)
        hidden = (*added, GROUP_KEY) if pick.group is not None else tuple(added)
        node.excluded_llm_metadata_keys = _union(node.excluded_llm_metadata_keys, hidden)
        node.excluded_embed_metadata_keys = _union(node.excluded_embed_metadata_keys, hidden)
        output.append(NodeWithScore(node=node, score=float(pick.score)))
    return output


def _union(keys: list[str], extra: tuple[str, ...]) -> list[str]:
    return list(keys) + [key for key in extra if key not in keys]
