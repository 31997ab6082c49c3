"""AnonymizingTransformer with the real spaCy NER anonymizer (offline), sync and async."""

from __future__ import annotations

import functools
import json

import lc_support  # noqa: F401  (offline environment)
import pytest
from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_debiasrag import AnonymizingTransformer, DebiasedRetriever
from lc_support import minilm

from debiasrag import InputError
from debiasrag.anonymize import get_anonymizer

DOCS = [
    Document(id="a", page_content="Maria Garcia fixed the payment service in Madrid.", metadata={"source": "wiki"}),
    Document(id="b", page_content="The backend team shipped a new release.", metadata={"source": "blog"}),
]


@functools.cache
def ner() -> object:
    return get_anonymizer("ner")


def test_remove_keeps_id_and_metadata_and_records_entities() -> None:
    out = AnonymizingTransformer(ner()).transform_documents(DOCS)
    assert [d.id for d in out] == ["a", "b"]
    assert "Maria" not in out[0].page_content and "Madrid" not in out[0].page_content
    assert "fixed the payment service" in out[0].page_content
    assert out[0].metadata["source"] == "wiki"
    meta = out[0].metadata
    spans = json.loads(meta["anonymized_spans"])
    assert [(DOCS[0].page_content[s:e], label) for s, e, label in spans] == [
        ("Maria Garcia", "PERSON"),
        ("Madrid", "GPE"),
    ]
    assert meta["anonymized_count"] == 2 and meta["anonymization_method"] == "ner"
    # Store-safe: flat values only, and no removed name anywhere in the metadata (privacy default).
    assert all(isinstance(v, (str, int, float, bool)) for v in meta.values())
    assert "Maria" not in json.dumps(meta) and "Madrid" not in json.dumps(meta)
    assert out[1].page_content == DOCS[1].page_content and out[1].metadata["anonymized_count"] == 0
    assert DOCS[0].page_content.startswith("Maria")  # inputs untouched


def test_replace_records_the_mapping() -> None:
    (out,) = AnonymizingTransformer(strategy="replace", entities="person").transform_documents(DOCS[:1])
    assert out.page_content == "PERSON_1 fixed the payment service in Madrid."
    assert "anonymization_mapping" not in out.metadata and "Maria" not in json.dumps(out.metadata)
    transformer = AnonymizingTransformer(strategy="replace", entities="person", include_names=True)
    (out,) = transformer.transform_documents(DOCS[:1])
    assert json.loads(out.metadata["anonymization_mapping"]) == {"PERSON_1": "Maria Garcia"}
    assert json.loads(out.metadata["anonymized_names"]) == ["Maria Garcia"]
    assert all(isinstance(v, (str, int, float, bool)) for v in out.metadata.values())


@pytest.mark.asyncio
async def test_async_matches_sync() -> None:
    transformer = AnonymizingTransformer(ner())
    assert await transformer.atransform_documents(DOCS) == transformer.transform_documents(DOCS)


def test_record_entities_off_and_empty_input() -> None:
    transformer = AnonymizingTransformer(ner(), record_entities=False)
    assert transformer.transform_documents(DOCS)[0].metadata == {"source": "wiki"}
    assert transformer.transform_documents([]) == []


def test_bad_input() -> None:
    with pytest.raises(InputError, match="expected LangChain Documents, got str at position 1"):
        AnonymizingTransformer(ner()).transform_documents([DOCS[0], "text"])
    with pytest.raises(InputError, match="dict is not an anonymizer"):
        AnonymizingTransformer({"method": "ner"})
    with pytest.raises(InputError, match="unknown anonymization method 'regex'"):
        AnonymizingTransformer(method="regex")


LEAK = Document(id="c", page_content="bob fixed the build. Zorblat Quanx reviewed it.")


def test_anonymizer_options_are_forwarded() -> None:
    """deny_list (and any other option of the anonymizer class) reaches get_anonymizer: "bob" goes."""
    assert "bob" in AnonymizingTransformer().transform_documents([LEAK])[0].page_content  # NER alone keeps it
    (out,) = AnonymizingTransformer(deny_list=["bob", "Zorblat Quanx"]).transform_documents([LEAK])
    assert "bob" not in out.page_content and "Zorblat" not in out.page_content
    assert "fixed the build" in out.page_content


@pytest.mark.parametrize(
    ("kwargs", "unknown"),
    [
        ({"methd": "ner"}, "methd"),
        ({"strategyy": "replace"}, "strategyy"),
        ({"deny": ["x"], "alow_list": ["y"]}, "alow_list, deny"),
    ],
)
def test_unknown_arguments_are_one_line_input_errors(kwargs: dict, unknown: str) -> None:
    with pytest.raises(InputError) as error:
        AnonymizingTransformer(**kwargs)
    message = str(error.value)
    assert message.startswith(f"AnonymizingTransformer got unknown argument(s) {unknown} (")
    assert "\n" not in message
    for accepted in ("method", "strategy", "entities", "include_names", "deny_list", "allow_list", "model"):
        assert accepted in message.split("(", 1)[1]


def test_anonymizer_options_with_an_anonymizer_are_refused_not_dropped() -> None:
    for kwargs in ({"deny_list": ["bob"]}, {"strategy": "replace"}, {"method": "llm"}, {"entities": "person"}):
        with pytest.raises(InputError) as error:
            AnonymizingTransformer(ner(), **kwargs)
        (name,) = kwargs
        assert f"AnonymizingTransformer got {name} and an anonymizer" in str(error.value)
    AnonymizingTransformer(ner(), record_entities=False, include_names=True)  # the transformer's own settings


def test_anonymized_ingestion_then_debiased_retrieval() -> None:
    store = InMemoryVectorStore(minilm())
    store.add_documents(AnonymizingTransformer(ner()).transform_documents(DOCS))
    docs = DebiasedRetriever(store, strategy="balanced", k=1).invoke("Who fixed the payment service?")
    assert docs[0].id == "a" and "Maria" not in docs[0].page_content


@pytest.mark.parametrize("switch", ["record_entities", "include_names"])
def test_switches_take_true_or_false_only(switch: str) -> None:
    with pytest.raises(InputError, match=f"{switch} must be True or False, got 'no'"):  # "no" would read as True
        AnonymizingTransformer(**{switch: "no"})
