"""The one entry class for debiased retrieval over a :class:`~debiasrag.index.FaissIndex`."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, SupportsInt, cast, overload

import numpy as np

from debiasrag.concepts import Concept, load_concept
from debiasrag.counterfactual.neutralize import GenderNeutralizer
from debiasrag.embedders import Embedder, embed_queries, index_embedder, load_embedder, to_unit_length
from debiasrag.errors import InputError, is_blank
from debiasrag.groups import NEUTRAL, GroupDetector, detector, groups_equal, user_labelled
from debiasrag.index import FaissIndex
from debiasrag.strategies import (
    BLIND_INDEX_DELTA,
    Balanced,
    DynamicCutoff,
    GroupOf,
    Pick,
    Ranking,
    Strategy,
    get_strategy,
    run_strategy,
)
from debiasrag.versions import find_versions


@dataclass
class Hit:
    """One retrieved chunk. ``rank`` is 1-based; ``variant`` names the query variant that found it.

    ``group`` is the document's group (:mod:`debiasrag.groups`) when the strategy balanced groups.
    """

    id: str | int
    text: str
    score: float
    rank: int
    variant: str
    metadata: dict[str, Any] = field(default_factory=dict)
    group: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready copy."""
        return asdict(self)


@dataclass
class RetrievalResult(Sequence[Hit]):
    """The hits of one query, plus how they were found. ``m`` is the number of hits returned.

    ``balanced_groups`` names the groups the strategy balanced (e.g. ``("female", "male")`` for
    ``balanced`` / ``dynamic`` with the gender concept); empty when it did not balance groups. ``group_counts``
    and ``groups_equal`` say how many of each came back and whether they are equal.
    """

    query: str
    strategy: str
    hits: list[Hit]
    variants: dict[str, str]
    balanced_groups: tuple[str, ...] = ()

    @property
    def m(self) -> int:
        """Number of hits (``m`` in seed 000's Algorithm 1)."""
        return len(self.hits)

    def __len__(self) -> int:
        return len(self.hits)

    @overload
    def __getitem__(self, i: int) -> Hit: ...

    @overload
    def __getitem__(self, i: slice) -> list[Hit]: ...

    def __getitem__(self, i: int | slice) -> Hit | list[Hit]:
        return self.hits[i]

    def __iter__(self) -> Iterator[Hit]:
        return iter(self.hits)

    @property
    def ids(self) -> list[str | int]:
        """The hits' document ids, best first."""
        return [hit.id for hit in self.hits]

    @property
    def group_counts(self) -> dict[str, int]:
        """How many hits of each balanced group were returned (``{}`` when the strategy balanced none)."""
        return {group: sum(hit.group == group for hit in self.hits) for group in self.balanced_groups}

    @property
    def groups_equal(self) -> bool | None:
        """Whether the balanced groups came back in equal numbers (``None`` when the strategy balanced none):
        ``False`` when no swap within the strategy's relevance bound could close the gap, or when an odd number of
        gendered documents cannot split evenly and no neutral one was close enough to take the odd place."""
        return groups_equal([hit.group for hit in self.hits], self.balanced_groups)


def validate_query(query: object) -> str:
    if not isinstance(query, str):
        raise InputError(f"query must be a string, not {type(query).__name__}")
    if is_blank(query):  # only spaces, controls, invisible marks
        raise InputError("query is empty")
    return query.strip()


def validate_k(k: object, name: str = "k") -> int:
    """``k`` as an int; the error names the parameter as the caller calls it (``similarity_top_k`` in LlamaIndex)."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise InputError(f"{name} must be a positive integer, got {k!r}")
    if k <= 0:
        raise InputError(f"{name} must be a positive integer, got {k}")
    return int(k)


class DebiasedRetriever:
    """Retrieve from a FAISS index with one of the strategies ``topk``, ``context``, ``paper``,
    ``balanced`` or ``dynamic`` (default).

    Args:
        index: the :class:`FaissIndex` to search.
        embedder: the model the index was built with (default: ``index.model_name``, loaded from this
            machine only; pass the name or an embedder to allow a download).
        concept: bundled concept name, path to a concept JSON, or a :class:`Concept`.
        strategy: default strategy name or instance.
        k: default number of results (10); for ``dynamic`` a cap, as ``retrieve(k=)``, the CLI and the wrappers take it.
        query_transform: applied to every query first (e.g. an anonymizer, so queries match the corpus). The
            default, ``"index"``, is the anonymization the index's corpus got (``debiasrag index --anonymize``,
            recorded in its manifest; an LLM-anonymized corpus gets local NER, with a warning), none for an index
            that was not anonymized; ``None`` applies nothing.

    Example:
        >>> retriever = DebiasedRetriever(index, embedder)          # doctest: +SKIP
        >>> [hit.id for hit in retriever.retrieve("a nurse at night")]  # doctest: +SKIP
    """

    def __init__(
        self,
        index: FaissIndex,
        embedder: Embedder | str | None = None,
        *,
        concept: str | Concept = "gender",
        strategy: str | Strategy = "dynamic",
        k: int = 10,
        query_transform: Callable[[str], str] | Literal["index"] | None = "index",
    ) -> None:
        if not isinstance(index, FaissIndex):
            raise InputError(f"index must be a FaissIndex, got {type(index).__name__}")
        self.index = index
        # The model the index names is only loaded from this machine: an index never triggers a download.
        self.embedder = load_embedder(embedder) if embedder is not None else index_embedder(index.model_name)
        if self.embedder.dimension != index.dimension:
            raise InputError(
                f"embedder {self.embedder.name} has dimension {self.embedder.dimension}, index has {index.dimension}"
            )
        if index.model_name is not None and self.embedder.name != index.model_name:
            # two models of one dimension (MiniLM and e5 are both 384-d) give vectors that do not compare
            raise InputError(
                f"the index was built with model {index.model_name}, not {self.embedder.name}",
                hint="to embed queries with the model the index was built with (or rebuild the index)",
                option="embedder",
                value=index.model_name,
            )
        self.concept = load_concept(concept)
        # A gender-blind index (``preprocessing.neutralize``) embedded the neutral wording of every document:
        # queries get the same rewrite, and ``balanced`` swaps within a narrower bound (its wordings embed alike).
        settings = index.preprocessing.get("neutralize")
        self._neutralizer: GenderNeutralizer | None = (
            GenderNeutralizer.from_settings(settings) if isinstance(settings, dict) else None
        )
        self.strategy = self.strategy_for(strategy)
        self.k = validate_k(k)
        if query_transform == "index":
            # Queries must match the corpus as it was embedded: names removed from one and not the other would
            # rank by the names' gender and origin.
            from debiasrag.anonymize import recorded_query_transform

            query_transform, note = recorded_query_transform(index.preprocessing)
            if note:
                warnings.warn(note, stacklevel=2)
        elif query_transform is not None and not callable(query_transform):
            raise InputError(
                f"query_transform must be a function from text to text, got {type(query_transform).__name__}"
            )
        self.query_transform = query_transform
        # Bundled concepts share one memoized detector per process.
        bundled = isinstance(concept, str) and concept == self.concept.name
        self._detector = detector(self.concept.name) if bundled else GroupDetector(self.concept)
        self._groups: dict[int, str] = {}  # position -> group, filled lazily (memo for this index)
        stored = index.groups.get(self.concept.name)
        allowed = {*self.concept.groups, NEUTRAL}
        if stored is not None and stored.detector == self._detector.fingerprint and set(stored.groups) <= allowed:
            self._groups = dict(enumerate(stored.groups))  # computed once at index time by this same detector
        else:
            # The user's own labels are read now: one naming no group of the concept fails here, in one line,
            # not on every later query that meets its document.
            for position, metadata in enumerate(index.metadatas):
                if user_labelled(metadata):
                    text, doc_id = index.texts[position], index.ids[position]
                    self._groups[position] = self._detector.group(text, metadata, doc_id=doc_id)

    @property
    def detector(self) -> GroupDetector:
        """The detector that reads the documents' groups for :attr:`concept` (where no label or stored group is)."""
        return self._detector

    def group_of(self, position: int) -> str:
        """The group of the document at ``position``: as stored by :meth:`FaissIndex.store_groups`, else its
        ``debiasrag_group`` metadata, else inferred and read against its versions in the index (memoized)."""
        if position not in self._groups:  # asked directly: its versions among its nearest stored vectors
            self._infer_groups([position], self.index.versions(positions=[position])[0] + [position])
        return self._groups[position]

    def _infer_groups(self, wanted: Iterable[int], pool: Iterable[int]) -> None:
        """Infer and memoize the groups of ``wanted`` not known yet; an unlabelled one is read against its versions
        among the documents of ``pool`` (a query's candidates: versions of one text rank together), found by their
        words (:func:`~debiasrag.versions.word_candidates`), without another store call."""
        new = sorted({p for p in wanted if p not in self._groups})
        if not new:
            return
        docs = {p: self.index.document(p, copy=False) for p in new}  # read only
        found = {p: self._detector.group(doc.text, doc.metadata, doc_id=doc.id) for p, doc in docs.items()}
        members = sorted(set(pool) | set(new))
        texts = [self.index.texts[p] for p in members]
        for i, versions in enumerate(find_versions(texts, memo=True, concept_words=self._detector.concept_words)):
            p = members[i]
            if p in found and versions and not user_labelled(docs[p].metadata):  # annotated in another batch too
                found[p] = self._detector.contrast_group(texts[i], found[p], [texts[j] for j in versions])
        self._groups.update(found)

    def retrieve(self, query: str, *, k: int | None = None, strategy: str | Strategy | None = None) -> RetrievalResult:
        """Search with every variant of ``query`` embedded in one batch and searched in one FAISS call."""
        query = validate_query(query)
        if self.query_transform is not None:
            query = validate_query(self.query_transform(query))
        if self._neutralizer is not None:
            query = self._neutralizer.query_transform(query)
        chosen = self.strategy if strategy is None else self.strategy_for(strategy)
        k = self.k if k is None else validate_k(k)  # for dynamic a cap: the constructor's k is one too
        variants = chosen.variants(query, self.concept)
        vectors = _unit(embed_queries(self.embedder, [text for _, text in variants]))  # e5-style prefix if any
        groups = (
            GroupOf(
                self.concept.groups,
                lambda key: self.group_of(_row(key)),
                lambda key: self.index.texts[_row(key)],
                self._detector.concept_words,
                query,
            )
            if chosen.uses_groups
            else None
        )

        def search(depth: int) -> list[Ranking]:
            rankings = self._rankings(variants, vectors, depth)
            if groups is not None:  # the new candidates' groups in one pass, read against versions among them all
                candidates = [_row(key) for ranking in rankings for key in ranking.keys]
                self._infer_groups(candidates, candidates)
            return rankings

        picks = run_strategy(chosen, search, k, len(self.index), group_of=groups)
        balanced = tuple(self.concept.groups) if groups is not None else ()
        return RetrievalResult(query, chosen.name, self._hits(picks), dict(variants), balanced)

    def strategy_for(self, strategy: str | Strategy) -> Strategy:
        """The strategy this retriever runs for ``strategy`` (a name or an instance): ``"balanced"`` on a
        gender-blind index is ``Balanced(delta=BLIND_INDEX_DELTA)``, its narrower bound; an instance as it is."""
        if strategy == "balanced" and self._neutralizer is not None:
            return Balanced(delta=BLIND_INDEX_DELTA)
        return get_strategy(strategy)

    def _rankings(self, variants: list[tuple[str, str]], vectors: np.ndarray, depth: int) -> list[Ranking]:
        scores, positions = self.index.search(vectors, depth)
        rankings = []
        for (label, _), row_scores, row_positions in zip(variants, scores, positions):
            valid = row_positions >= 0
            keys = row_positions[valid].tolist()
            rankings.append(
                Ranking(label, keys, row_scores[valid].tolist(), complete=depth >= len(self.index) or len(keys) < depth)
            )
        return rankings

    def _hits(self, picks: list[Pick]) -> list[Hit]:
        hits = []
        for rank, pick in enumerate(picks, start=1):
            doc = self.index.document(_row(pick.key))
            hits.append(Hit(doc.id, doc.text, float(pick.score), rank, pick.variant, doc.metadata, pick.group))
        return hits


def _unit(vectors: np.ndarray) -> np.ndarray:
    """Query rows at unit length, as ``FaissIndex.add`` stores documents, so scores stay cosines for an embedder
    that does not normalise (they reached 5.47: red-team round 6); rows already of unit length (every shipped
    embedder's) are kept bit for bit."""
    vectors = np.asarray(vectors, dtype=np.float32)
    if vectors.ndim != 2 or not len(vectors):
        return vectors
    return to_unit_length(vectors, np.linalg.norm(vectors.astype(np.float64), axis=1))


def _row(key: Hashable) -> int:
    """A ranking key of :class:`DebiasedRetriever`: the document's FAISS row (an int)."""
    return int(cast(SupportsInt, key))


__all__ = ["DebiasedRetriever", "DynamicCutoff", "Hit", "RetrievalResult"]
