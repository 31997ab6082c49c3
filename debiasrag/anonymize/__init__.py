"""Anonymize texts before embedding so that similarity follows meaning, not names (seed 002, Sec. 4).

>>> from debiasrag.anonymize import get_anonymizer
>>> anonymizer = get_anonymizer("ner")                       # or "llm" (Anthropic), strategy="replace"
>>> result = anonymizer.anonymize("Alejandro quickly ran to the store.")
>>> result.text, [e.to_dict() for e in result.entities]      # offsets point into the ORIGINAL text

Detection and transformation are separate: detectors (:class:`NerAnonymizer`, :class:`LlmAnonymizer`) find
:class:`Entity` spans; operators (:class:`Remove`, :class:`Replace`) rewrite the text.
"""

from __future__ import annotations

import hashlib
import inspect
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from debiasrag.anonymize.base import (
    DEFAULT_ENTITIES,
    ENTITY_TYPES,
    AnonymizedText,
    Anonymizer,
    Entity,
    parse_entity_types,
)
from debiasrag.anonymize.llm import DEFAULT_LLM_MODEL, LlmAnonymizer, LlmSetupError
from debiasrag.anonymize.ner import DEFAULT_SPACY_MODEL, NerAnonymizer
from debiasrag.anonymize.operators import PlaceholderMapping, Remove, Replace, reverse_placeholders
from debiasrag.errors import InputError, check_search_left, shown
from debiasrag.storage import RECORDED_NER_SWITCHES

METHODS = ("ner", "llm")


def get_anonymizer(
    method: str = "ner",
    *,
    strategy: str = "remove",
    entities: str | Iterable[str] | None = None,
    **kwargs: Any,
) -> NerAnonymizer | LlmAnonymizer:
    """Build an anonymizer. ``method``: ``"ner"`` (spaCy, offline) or ``"llm"`` (Anthropic, falls back to NER).

    ``entities`` defaults to person + location + organization + misc (the seed's default prompt). Other keyword
    arguments go to the class (e.g. ``model=``, ``allow_list=``, ``deny_list=``, ``mapping=``, ``n_process=``).
    """
    return anonymizer_class(method)(strategy=strategy, entities=entities, **check_options(method, kwargs))


def check_options(
    method: Any, options: Mapping[str, Any], *, owner: str = "get_anonymizer", own: Sequence[str] = ()
) -> dict[str, Any]:
    """``options`` for ``method``'s anonymizer class (``deny_list``, ``allow_list``, ``model``, ...), checked: any
    other name is a one-line :class:`InputError` naming it, ``owner``'s ``own`` arguments and the class's options
    (the class would raise a bare ``TypeError``; a wrapper that swallows extra arguments would ignore them)."""
    if not isinstance(method, str):
        raise InputError(f"method must be 'ner' or 'llm', got {shown(method)}")
    cls = anonymizer_class(method)  # an unknown method: InputError
    accepted = [name for name in inspect.signature(cls).parameters if name not in ("strategy", "entities")]
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        takes = f"{', '.join(own)} and, for method={method!r}, " if own else ""
        raise InputError(
            f"{owner} got unknown argument(s) {', '.join(unknown)}",
            hint=f"it takes {takes}the {cls.__name__} options {', '.join(accepted)}",
        )
    return dict(options)


def refuse_beside_anonymizer(owner: str, settings: Sequence[str], options: Mapping[str, Any]) -> None:
    """Anonymizer settings given beside a ready anonymizer would be ignored: a one-line :class:`InputError`."""
    names = [*settings, *sorted(options)]
    if names:
        raise InputError(
            f"{owner} got {', '.join(names)} and an anonymizer: they only build one",
            hint="pass them to debiasrag.anonymize.get_anonymizer, or leave out the anonymizer",
        )


def settings_fingerprint(anonymizer: Anonymizer) -> str:
    """A stable SHA-256 of how an anonymizer is configured (model, strategy, entity types, allow / deny lists, name
    lists left out, endpoint, fallback, ...; never an API key), so caches keyed by it tell two configurations apart.
    Read from the object's public settings, so a setting added to a class is covered without listing it here."""

    def stable(value: Any) -> Any:
        if value is None or isinstance(value, (str, int, float, bool)):
            return value
        if isinstance(value, (set, frozenset, list, tuple)) and all(isinstance(v, (str, int)) for v in value):
            return sorted(map(str, value))
        return None  # an object: covered below where it matters

    settings: dict[str, Any] = {
        name: stable(value)
        for name, value in vars(anonymizer).items()
        if not name.startswith("_") and name not in ("api_key", "stats") and stable(value) is not None
    }
    gazetteer = getattr(anonymizer, "gazetteer", None)  # exclude_names / use_gazetteer
    settings["gazetteer"] = None if gazetteer is None else sorted(getattr(gazetteer, "excluded", ()))
    settings["operator"] = type(getattr(anonymizer, "operator", None)).__name__
    settings["shared_mapping"] = getattr(anonymizer, "mapping", None) is not None
    client = getattr(anonymizer, "client", None)
    settings["base_url"] = str(getattr(client, "base_url", "")) if client is not None else None
    settings["others"] = [getattr(other, "model", None) for other in getattr(anonymizer, "others", ()) or ()]
    payload = json.dumps([type(anonymizer).__name__, settings], sort_keys=True, default=str)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def recorded_query_transform(preprocessing: Mapping[str, Any]) -> tuple[Callable[[str], str] | None, str | None]:
    """The query anonymization an index's corpus got (``preprocessing["anonymize"]``, as its manifest records it)
    and a note to show the user, or ``(None, None)`` when the corpus was not anonymized.

    A loaded index never makes us call a remote service on its own: a corpus anonymized by the LLM gets its
    queries anonymized by the local NER anonymizer, and the note says so.
    """
    settings = preprocessing.get("anonymize")
    if not isinstance(settings, Mapping):
        return None, None
    note = None
    method = settings.get("method", "ner")
    if method not in METHODS:  # an anonymizer of the user's own (ShardWriter records its class name)
        return None, (
            f"this index's corpus was anonymized by {method!r}, which debiasrag cannot rebuild: queries are not "
            "anonymized; pass query_transform=as_query_transform(<that anonymizer>) (or None to silence this)"
        )
    if method == "llm":
        method = "ner"
        note = (
            "this index's corpus was anonymized with the LLM; queries are anonymized locally with NER "
            "(an LLM anonymizer as query_transform, or debiasrag query --anonymize llm, sends them to the LLM)"
        )
    # Name lists the corpus was anonymized with (ShardWriter records them) apply to the queries too.
    lists = {key: settings[key] for key in ("allow_list", "deny_list") if settings.get(key)}
    # so are the NER switches it recorded (the tagger-only pass of use_ner=False, lower_case_names=False)
    switches = {key: settings[key] for key in RECORDED_NER_SWITCHES if settings.get(key) is False}
    strategy = settings.get("strategy", "remove")
    anonymizer = get_anonymizer(method, strategy=strategy, entities=settings.get("entities"), **lists, **switches)
    return as_query_transform(anonymizer), note


def anonymizer_class(method: str) -> type[NerAnonymizer] | type[LlmAnonymizer]:
    """The class behind ``method`` (``"ner"`` or ``"llm"``); anything else is an :class:`InputError`."""
    classes: dict[str, type[NerAnonymizer] | type[LlmAnonymizer]] = {"ner": NerAnonymizer, "llm": LlmAnonymizer}
    if method not in classes:
        raise InputError(f"unknown anonymization method {method!r}; choose 'ner' or 'llm'")
    return classes[method]


class QueryAnonymizer:
    """A query transform that anonymizes queries so they match an anonymized corpus (picklable, so a retriever
    holding one can go to worker processes).

    A query made only of names would become empty: an :class:`~debiasrag.errors.InputError` says so (searching the
    names as typed would match documents by the gender or origin of the names, in an index that holds none).
    """

    def __init__(self, anonymizer: Anonymizer) -> None:
        self.anonymizer = anonymizer

    def __call__(self, query: str) -> str:
        """``query`` anonymized; an :class:`~debiasrag.errors.InputError` when nothing but names was in it."""
        return check_search_left(self.anonymizer.anonymize(query).text, "queries are anonymized")


def as_query_transform(anonymizer: Anonymizer) -> Callable[[str], str]:
    """Wrap an anonymizer for ``DebiasedRetriever(query_transform=...)`` so queries match an anonymized corpus
    (a :class:`QueryAnonymizer`)."""
    return QueryAnonymizer(anonymizer)


__all__ = [
    "anonymizer_class",
    "as_query_transform",
    "QueryAnonymizer",
    "check_options",
    "refuse_beside_anonymizer",
    "settings_fingerprint",
    "recorded_query_transform",
    "DEFAULT_ENTITIES",
    "DEFAULT_LLM_MODEL",
    "DEFAULT_SPACY_MODEL",
    "ENTITY_TYPES",
    "METHODS",
    "AnonymizedText",
    "Anonymizer",
    "Entity",
    "LlmAnonymizer",
    "LlmSetupError",
    "NerAnonymizer",
    "PlaceholderMapping",
    "Remove",
    "Replace",
    "get_anonymizer",
    "parse_entity_types",
    "reverse_placeholders",
]
