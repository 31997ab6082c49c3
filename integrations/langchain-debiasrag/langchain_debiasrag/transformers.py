"""``AnonymizingTransformer``: remove or replace names in Documents before they are embedded (seed 002)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from langchain_core.documents import BaseDocumentTransformer, Document

from debiasrag.anonymize import AnonymizedText, Anonymizer, get_anonymizer
from debiasrag.backends import aanonymize_items, anonymize_items
from debiasrag.errors import InputError


class AnonymizingTransformer(BaseDocumentTransformer):
    """Anonymize Documents for ingestion: names out of the text, everything else kept.

    Each output Document keeps the input's id and metadata and gains flat, vector-store-safe fields (every
    value a str, int or bool, so Chroma and other stores accept them) that hold no removed name:
    ``anonymization_method``, ``anonymized_count``, ``anonymized_spans`` (JSON string of
    ``[[start, end, label], ...]``, offsets into the original text) and ``anonymization_fallback`` when NER
    took over from the LLM. ``include_names=True`` adds ``anonymized_names`` and, for ``replace``,
    ``anonymization_mapping`` (JSON strings) - only if storing the names beside the vectors is acceptable.
    ``record_entities=False`` adds nothing.

    Args:
        anonymizer: any :class:`debiasrag.anonymize.Anonymizer`; default: built from the arguments below.
        method: ``"ner"`` (spaCy, offline) or ``"llm"`` (Anthropic, falls back to NER).
        strategy: ``"remove"`` the names or ``"replace"`` them with placeholders such as ``PERSON_1``.
        entities: entity types (default person, location, organization, misc).
        record_entities: add the metadata described above.
        include_names: also record the removed names (off by default: a privacy leak in a shared store).
        **kwargs: passed to :func:`debiasrag.anonymize.get_anonymizer` (e.g. ``allow_list=``, ``model=``).
    """

    def __init__(
        self,
        anonymizer: Anonymizer | None = None,
        *,
        method: str = "ner",
        strategy: str = "remove",
        entities: str | Iterable[str] | None = None,
        record_entities: bool = True,
        include_names: bool = False,
        **kwargs: Any,
    ) -> None:
        if anonymizer is None:
            anonymizer = get_anonymizer(method, strategy=strategy, entities=entities, **kwargs)
        elif not isinstance(anonymizer, Anonymizer):
            raise InputError(f"{type(anonymizer).__name__} is not an anonymizer (needs anonymize and anonymize_batch)")
        self.anonymizer = anonymizer
        self.record_entities = record_entities
        self.include_names = include_names

    def transform_documents(self, documents: Sequence[Document], **kwargs: Any) -> Sequence[Document]:
        """Anonymized copies of the Documents, in order."""
        return self._apply(
            anonymize_items(self.anonymizer, documents, Document, _text, expected=_EXPECTED, noun="documents")
        )

    async def atransform_documents(self, documents: Sequence[Document], **kwargs: Any) -> Sequence[Document]:
        """Async :meth:`transform_documents` (the anonymizer runs in a worker thread)."""
        return self._apply(
            await aanonymize_items(self.anonymizer, documents, Document, _text, expected=_EXPECTED, noun="documents")
        )

    def _apply(self, pairs: list[tuple[Document, AnonymizedText]]) -> list[Document]:
        output = []
        for doc, result in pairs:
            metadata = dict(doc.metadata)
            if self.record_entities:
                metadata.update(result.metadata_record(include_names=self.include_names))
            output.append(doc.model_copy(update={"page_content": result.text, "metadata": metadata}))
        return output


_EXPECTED = "LangChain Documents"


def _text(document: Document) -> str:
    return document.page_content
