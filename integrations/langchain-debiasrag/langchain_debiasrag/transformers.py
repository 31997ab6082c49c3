"""Ingestion-time Document transformers: ``AnonymizingTransformer`` removes or replaces names before the Documents
are embedded (seed 002); ``GroupAnnotator`` stores each Document's group in its metadata once, at index time."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterable, Sequence
from typing import Any

from langchain_core.documents import BaseDocumentTransformer, Document

from debiasrag.anonymize import (
    AnonymizedText,
    Anonymizer,
    check_options,
    get_anonymizer,
    refuse_beside_anonymizer,
)
from debiasrag.backends import aanonymize_items, anonymize_items
from debiasrag.concepts import Concept
from debiasrag.errors import InputError, check_bool
from debiasrag.groups import annotate_groups, detector_for


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
            options = check_options(method, kwargs, owner="AnonymizingTransformer", own=_OWN_ARGS)
            anonymizer = get_anonymizer(method, strategy=strategy, entities=entities, **options)
        elif not isinstance(anonymizer, Anonymizer):
            raise InputError(f"{type(anonymizer).__name__} is not an anonymizer (needs anonymize and anonymize_batch)")
        else:  # a deny_list or strategy beside a built anonymizer would be dropped without a word
            given = {"method": method != "ner", "strategy": strategy != "remove", "entities": entities is not None}
            refuse_beside_anonymizer("AnonymizingTransformer", [name for name, set_ in given.items() if set_], kwargs)
        self.anonymizer = anonymizer
        self.record_entities = check_bool("record_entities", record_entities)
        self.include_names = check_bool("include_names", include_names)  # "no" must not record names

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


class GroupAnnotator(BaseDocumentTransformer):
    """Store each Document's group (e.g. female / male / neutral) in its metadata at ingestion, so a vector store
    keeps it and :class:`~langchain_debiasrag.DebiasedRetriever` (``balanced``, ``dynamic``) reads it at query time
    instead of inferring it from every returned text again.

    Each output Document is a copy (same id, text and metadata; the inputs are not changed) whose metadata gains
    ``debiasrag_group`` (:data:`debiasrag.groups.GROUP_KEY`), inferred from the text by
    :func:`debiasrag.groups.annotate_groups`, and ``debiasrag_group_inferred_by``
    (:data:`~debiasrag.groups.INFERRED_BY_KEY`): the detector's fingerprint, so a retriever whose detector differs
    (another concept, a newer debiasrag) infers the group again rather than trusting a stale one. A Document that
    already has ``debiasrag_group`` but no ``debiasrag_group_inferred_by`` is labelled by you: the label is checked
    and kept, unmarked. Both values are flat strings, accepted by every store (Chroma included). One concept per
    store: both keys hold a single group.

    Example:
        >>> from langchain_core.documents import Document
        >>> (doc,) = GroupAnnotator().transform_documents([Document(page_content="She fixed the build.")])
        >>> doc.metadata["debiasrag_group"]
        'female'

    Args:
        concept: the concept whose groups are stored: ``"gender"``, ``"age"``, ``"wealth"`` or a path to a concept
            JSON; the same ``concept`` the retriever uses. An unknown one raises :class:`debiasrag.InputError` here.
    """

    def __init__(self, concept: str | os.PathLike[str] | Concept = "gender", **unknown: Any) -> None:
        if unknown:  # a misspelt conecpt= would store the default concept's groups: one line of ours, not a TypeError
            raise InputError(
                f"GroupAnnotator got unknown argument(s) {', '.join(sorted(unknown))}", hint="it takes concept"
            )
        if isinstance(concept, os.PathLike):
            concept = os.fspath(concept)  # the same Path the retriever takes
        if not isinstance(concept, (str, Concept)):
            raise InputError(
                f"concept must be a concept name, a concept JSON path or a Concept, got {type(concept).__name__}"
            )
        self.concept = concept
        self.fingerprint = detector_for(concept).fingerprint  # loads (and checks) the concept now, not at first use

    def transform_documents(self, documents: Sequence[Document], **kwargs: Any) -> Sequence[Document]:
        """Copies of the Documents, in order, with their groups in ``metadata`` (see the class docstring)."""
        copies = [doc.model_copy(update={"metadata": dict(doc.metadata)}) for doc in _checked(documents)]
        annotate_groups(copies, self.concept)  # writes GROUP_KEY / INFERRED_BY_KEY into the copies' metadata
        return copies

    async def atransform_documents(self, documents: Sequence[Document], **kwargs: Any) -> Sequence[Document]:
        """Async :meth:`transform_documents` (run in a worker thread, so a large batch never blocks the event loop)."""
        return await asyncio.to_thread(self.transform_documents, documents, **kwargs)


_EXPECTED = "LangChain Documents"
_OWN_ARGS = ("anonymizer", "method", "strategy", "entities", "record_entities", "include_names")


def _checked(documents: Sequence[object]) -> list[Document]:
    checked: list[Document] = []
    for position, doc in enumerate(documents):
        if not isinstance(doc, Document):
            raise InputError(f"expected {_EXPECTED}, got {type(doc).__name__} at position {position}")
        checked.append(doc)
    return checked


def _text(document: Document) -> str:
    return document.page_content
