"""``IngestionPipeline`` steps: ``AnonymizeTransform`` removes or replaces names before embedding;
``GroupAnnotateTransform`` stores each node's group in its metadata once, at index time."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping, Sequence
from typing import Any

from llama_index.core.schema import BaseNode, MetadataMode, TransformComponent
from pydantic import Field, PrivateAttr

from debiasrag.anonymize import (
    AnonymizedText,
    Anonymizer,
    check_options,
    get_anonymizer,
    refuse_beside_anonymizer,
    settings_fingerprint,
)
from debiasrag.backends import aanonymize_items, anonymize_items
from debiasrag.concepts import Concept
from debiasrag.errors import InputError, check_bool, shown
from debiasrag.groups import GROUP_KEY, INFERRED_BY_KEY, annotate_groups, detector

# Recorded in node metadata but kept out of the embedding and LLM views: spans and counts mean nothing to an
# embedder, and with include_names=True the removed names would be embedded right back in.
RECORD_KEYS = (
    "anonymization_method",
    "anonymized_count",
    "anonymized_spans",
    "anonymization_fallback",
    "anonymized_names",
    "anonymization_mapping",
)


class AnonymizeTransform(TransformComponent):
    """Anonymize nodes in an ``IngestionPipeline`` (seed 002: embeddings should follow meaning, not names).

    Returns copies of the nodes (same ids and relationships) whose text has the names removed (or replaced
    with placeholders). Their metadata gains flat, vector-store-safe fields (str/int/bool values, accepted
    by Chroma) without any removed name: ``anonymization_method``, ``anonymized_count``,
    ``anonymized_spans`` (JSON string of ``[[start, end, label], ...]``, offsets into the original text) and
    ``anonymization_fallback`` when NER took over from the LLM; ``include_names=True`` adds
    ``anonymized_names`` and, for ``replace``, ``anonymization_mapping``. These keys are excluded from the
    embedding and LLM metadata views; ``record_entities=False`` leaves them out entirely.

    ``start_char_idx`` / ``end_char_idx`` point into the source document's ORIGINAL text, which the new
    node text no longer matches, so they are cleared (None) rather than left stale.

    Args:
        anonymizer: any :class:`debiasrag.anonymize.Anonymizer`; default: built from the fields below.
        method: ``"ner"`` (spaCy, offline) or ``"llm"`` (Anthropic, falls back to NER).
        strategy: ``"remove"`` or ``"replace"``.
        entities: entity types (default person, location, organization, misc).
        record_entities: add the metadata described above.
        include_names: also record the removed names (off by default: a privacy leak in a shared store).
        **options: passed to :func:`debiasrag.anonymize.get_anonymizer` (e.g. ``deny_list=``, ``allow_list=``,
            ``model=``), as LangChain's ``AnonymizingTransformer`` takes them; kept in ``anonymizer_options`` (part
            of the ingestion cache key). Anything that is not an option of the anonymizer class, and any of these
            settings beside an ``anonymizer``, raises :class:`debiasrag.InputError` naming it.
    """

    method: str = Field(default="ner", description="'ner' or 'llm'")
    strategy: str = Field(default="remove", description="'remove' or 'replace'")
    entities: list[str] | str | None = Field(
        default=None, description='entity types (a list or "person,location"); None = the default set'
    )
    record_entities: bool = Field(default=True, description="record counts and spans in node metadata")
    include_names: bool = Field(default=False, description="also record the removed names (a privacy leak)")
    anonymizer_name: str = Field(default="", description="the anonymizer's type (part of the ingestion cache key)")
    anonymizer_options: dict[str, Any] = Field(
        default_factory=dict,
        description="options for debiasrag.anonymize.get_anonymizer, e.g. deny_list (part of the ingestion cache key)",
    )

    _anonymizer: Any = PrivateAttr()

    def __init__(self, anonymizer: Anonymizer | None = None, **data: Any) -> None:
        if anonymizer is not None and not isinstance(anonymizer, Anonymizer):
            raise InputError(f"{type(anonymizer).__name__} is not an anonymizer (needs anonymize and anonymize_batch)")
        # Pydantic would keep a misspelt field or a deny_list and ignore it: every extra argument is an option of
        # the anonymizer (checked here), and anonymizer_options is how to_dict / from_dict carry them.
        for switch in ("record_entities", "include_names"):  # pydantic would read "no" as False, "yes" as True
            if switch in data:
                check_bool(switch, data[switch])
        stored = data.pop("anonymizer_options", None) or {}
        if not isinstance(stored, Mapping):
            raise InputError(f"anonymizer_options must be a dict of get_anonymizer options, got {shown(stored)}")
        extra = {name: data.pop(name) for name in [name for name in data if name not in type(self).model_fields]}
        options = {**stored, **extra}
        if anonymizer is None:
            options = check_options(data.get("method", "ner"), options, owner="AnonymizeTransform", own=_OWN_ARGS)
        else:  # a deny_list or strategy beside a built anonymizer would be dropped without a word
            defaults = {"method": "ner", "strategy": "remove", "entities": None}
            given = [name for name, default in defaults.items() if data.get(name, default) != default]
            refuse_beside_anonymizer("AnonymizeTransform", given, options)
        super().__init__(**{**data, "anonymizer_options": options})
        if anonymizer is None:
            anonymizer = get_anonymizer(
                self.method, strategy=self.strategy, entities=self.entities, **self.anonymizer_options
            )
        self._anonymizer = anonymizer
        # The cache key must tell two configurations apart (another deny_list, model or strategy), not only types.
        self.anonymizer_name = f"{type(anonymizer).__name__}:{settings_fingerprint(anonymizer)[:16]}"

    @classmethod
    def class_name(cls) -> str:
        """LlamaIndex's serialisation name."""
        return "DebiasragAnonymizeTransform"

    def __call__(self, nodes: Sequence[BaseNode], **kwargs: Any) -> Sequence[BaseNode]:
        """Anonymized copies of the nodes, in order."""
        return self._apply(anonymize_items(self._anonymizer, nodes, BaseNode, _text, expected=_EXPECTED, noun="nodes"))

    async def acall(self, nodes: Sequence[BaseNode], **kwargs: Any) -> Sequence[BaseNode]:
        """Async :meth:`__call__` (the anonymizer runs in a worker thread)."""
        return self._apply(
            await aanonymize_items(self._anonymizer, nodes, BaseNode, _text, expected=_EXPECTED, noun="nodes")
        )

    def _apply(self, pairs: list[tuple[BaseNode, AnonymizedText]]) -> list[BaseNode]:
        output = []
        for node, result in pairs:
            new = node.model_copy()  # shallow; metadata and exclusion lists are replaced below, not mutated
            new.set_content(result.text)
            # Offsets into the source document no longer fit a changed text: clear them, never leave them stale.
            if hasattr(new, "start_char_idx") and result.text != _text(node):
                new.start_char_idx = None
                new.end_char_idx = None  # type: ignore[attr-defined]  # TextNode has it; hasattr checked the pair
            metadata = dict(node.metadata)
            if self.record_entities:
                metadata.update(result.metadata_record(include_names=self.include_names))
                new.excluded_embed_metadata_keys = _union(node.excluded_embed_metadata_keys)
                new.excluded_llm_metadata_keys = _union(node.excluded_llm_metadata_keys)
            new.metadata = metadata
            output.append(new)
        return output


# Recorded in node metadata for the retriever, kept out of the embedding and LLM views: a "debiasrag_group: female"
# line in the embedded text would move the vector towards that group, the very bias the retriever balances away.
GROUP_KEYS = (GROUP_KEY, INFERRED_BY_KEY)


class GroupAnnotateTransform(TransformComponent):
    """Store each node's group (e.g. female / male / neutral) in its metadata in an ``IngestionPipeline``, so the
    vector store keeps it and :class:`~llama_index.retrievers.debiasrag.DebiasedRetriever` (``balanced``,
    ``dynamic``) reads it at query time instead of inferring it from every returned text again.

    Returns copies of the nodes (same ids, text and relationships; the inputs are not changed) whose metadata gains
    ``debiasrag_group`` (:data:`debiasrag.groups.GROUP_KEY`), inferred from the text by
    :func:`debiasrag.groups.annotate_groups`, and ``debiasrag_group_inferred_by``
    (:data:`~debiasrag.groups.INFERRED_BY_KEY`): the detector's fingerprint, so a retriever whose detector differs
    (another concept, a newer debiasrag) infers the group again rather than trusting a stale one. A node that
    already has ``debiasrag_group`` but no ``debiasrag_group_inferred_by`` is labelled by you: the label is checked
    and kept, unmarked. Both keys are excluded from the embedding and LLM metadata views, so the label never
    changes a node's vector nor reaches a prompt. Both values are flat strings (accepted by Chroma). One concept
    per store: both keys hold a single group.

    Example:
        >>> from llama_index.core import Document
        >>> (node,) = GroupAnnotateTransform()([Document(text="She fixed the build.")])
        >>> node.metadata["debiasrag_group"]
        'female'

    Args:
        concept: the concept whose groups are stored: ``"gender"``, ``"age"``, ``"wealth"`` or a path to a concept
            JSON; the same ``concept`` the retriever uses. An unknown one raises :class:`debiasrag.InputError` here.
    """

    concept: str = Field(default="gender", description="concept name or path to a concept JSON")
    fingerprint: str = Field(
        default="", description="the group detector's fingerprint (part of the ingestion cache key)"
    )

    def __init__(self, concept: str | os.PathLike[str] = "gender", **data: Any) -> None:
        unknown = sorted(set(data) - set(type(self).model_fields))
        if unknown:  # pydantic would keep a misspelt conecpt= and ignore it: the default concept's groups stored
            raise InputError(
                f"GroupAnnotateTransform got unknown argument(s) {', '.join(unknown)}", hint="it takes concept"
            )
        if isinstance(concept, os.PathLike):
            concept = os.fspath(concept)  # the same Path the retriever takes
        if isinstance(concept, Concept):
            raise InputError(
                "GroupAnnotateTransform keeps its concept by name or JSON path (it is saved with the pipeline): "
                "pass the concept's file path, not a Concept object"
            )
        if not isinstance(concept, str):
            raise InputError(f"concept must be a concept name or a concept JSON path, got {type(concept).__name__}")
        found = detector(concept)  # loads (and checks) the concept now, before pydantic and before first use
        super().__init__(**{**data, "concept": concept, "fingerprint": found.fingerprint})

    @classmethod
    def class_name(cls) -> str:
        """LlamaIndex's serialisation name."""
        return "DebiasragGroupAnnotateTransform"

    def __call__(self, nodes: Sequence[BaseNode], **kwargs: Any) -> Sequence[BaseNode]:
        """Copies of the nodes, in order, with their groups in ``metadata`` (see the class docstring)."""
        output = []
        for position, node in enumerate(nodes):
            if not isinstance(node, BaseNode):
                raise InputError(f"expected {_EXPECTED}, got {type(node).__name__} at position {position}")
            new = node.model_copy()  # shallow; metadata and exclusion lists are replaced below, not mutated
            new.metadata = dict(node.metadata)
            new.excluded_embed_metadata_keys = _union(node.excluded_embed_metadata_keys, GROUP_KEYS)
            new.excluded_llm_metadata_keys = _union(node.excluded_llm_metadata_keys, GROUP_KEYS)
            output.append(new)
        annotate_groups(output, self.concept)  # writes GROUP_KEY / INFERRED_BY_KEY into the copies' metadata
        return output

    async def acall(self, nodes: Sequence[BaseNode], **kwargs: Any) -> Sequence[BaseNode]:
        """Async :meth:`__call__` (run in a worker thread, so a large batch never blocks the event loop)."""
        return await asyncio.to_thread(self.__call__, nodes, **kwargs)


_EXPECTED = "LlamaIndex nodes"
_OWN_ARGS = ("anonymizer", "method", "strategy", "entities", "record_entities", "include_names")


def _text(node: BaseNode) -> str:
    return node.get_content(metadata_mode=MetadataMode.NONE)


def _union(keys: list[str], extra: Sequence[str] = RECORD_KEYS) -> list[str]:
    return list(keys) + [key for key in extra if key not in keys]
