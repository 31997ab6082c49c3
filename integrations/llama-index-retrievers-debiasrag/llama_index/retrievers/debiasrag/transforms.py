"""``AnonymizeTransform``: an ``IngestionPipeline`` step that removes or replaces names before embedding."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llama_index.core.schema import BaseNode, MetadataMode, TransformComponent
from pydantic import Field, PrivateAttr

from debiasrag.anonymize import AnonymizedText, Anonymizer, get_anonymizer
from debiasrag.backends import aanonymize_items, anonymize_items
from debiasrag.errors import InputError

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
    """

    method: str = Field(default="ner", description="'ner' or 'llm'")
    strategy: str = Field(default="remove", description="'remove' or 'replace'")
    entities: list[str] | None = Field(default=None, description="entity types; None = the default set")
    record_entities: bool = Field(default=True, description="record counts and spans in node metadata")
    include_names: bool = Field(default=False, description="also record the removed names (a privacy leak)")
    anonymizer_name: str = Field(default="", description="the anonymizer's type (part of the ingestion cache key)")

    _anonymizer: Any = PrivateAttr()

    def __init__(self, anonymizer: Anonymizer | None = None, **data: Any) -> None:
        if anonymizer is not None and not isinstance(anonymizer, Anonymizer):
            raise InputError(f"{type(anonymizer).__name__} is not an anonymizer (needs anonymize and anonymize_batch)")
        super().__init__(**data)
        if anonymizer is None:
            anonymizer = get_anonymizer(self.method, strategy=self.strategy, entities=self.entities)
        self._anonymizer = anonymizer
        self.anonymizer_name = type(anonymizer).__name__

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


_EXPECTED = "LlamaIndex nodes"


def _text(node: BaseNode) -> str:
    return node.get_content(metadata_mode=MetadataMode.NONE)


def _union(keys: list[str]) -> list[str]:
    return list(keys) + [key for key in RECORD_KEYS if key not in keys]
