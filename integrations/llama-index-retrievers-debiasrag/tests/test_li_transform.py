"""AnonymizeTransform in a real IngestionPipeline (spaCy NER, offline), sync and async."""

from __future__ import annotations

import functools
import json

import pytest
from li_support import minilm
from llama_index.core import Document, VectorStoreIndex
from llama_index.core.ingestion import IngestionPipeline
from llama_index.core.ingestion.pipeline import get_transformation_hash
from llama_index.core.schema import MetadataMode
from llama_index.retrievers.debiasrag import AnonymizeTransform, DebiasedRetriever

from debiasrag import InputError
from debiasrag.anonymize import get_anonymizer

DOCS = [
    Document(id_="a", text="Maria Garcia fixed the payment service in Madrid.", metadata={"source": "wiki"}),
    Document(id_="b", text="The backend team shipped a new release.", metadata={"source": "blog"}),
]


@functools.cache
def ner():
    return get_anonymizer("ner")


def test_transform_keeps_ids_and_metadata_and_hides_the_record_from_the_embedder() -> None:
    out = AnonymizeTransform(ner())(DOCS)
    assert [n.node_id for n in out] == ["a", "b"]
    text = out[0].get_content(MetadataMode.NONE)
    assert "Maria" not in text and "Madrid" not in text and "fixed the payment service" in text
    assert out[0].metadata["source"] == "wiki"
    meta = out[0].metadata
    spans = json.loads(meta["anonymized_spans"])
    assert [(DOCS[0].text[s:e], label) for s, e, label in spans] == [("Maria Garcia", "PERSON"), ("Madrid", "GPE")]
    assert meta["anonymized_count"] == 2 and meta["anonymization_method"] == "ner"
    # Store-safe: flat values only, and no removed name anywhere in the metadata (privacy default).
    assert all(isinstance(v, (str, int, float, bool)) for v in meta.values())
    assert "Maria" not in json.dumps(meta) and "Madrid" not in json.dumps(meta)
    for mode in (MetadataMode.EMBED, MetadataMode.LLM):  # names must not come back in through metadata
        assert "Maria" not in out[0].get_content(mode) and "source: wiki" in out[0].get_content(mode)
    assert DOCS[0].text.startswith("Maria Garcia")  # inputs untouched


def test_pipeline_sync_and_async_and_replace_mapping() -> None:
    pipeline = IngestionPipeline(transformations=[AnonymizeTransform(ner()), minilm()])
    nodes = pipeline.run(documents=DOCS)
    assert len(nodes) == 2 and all(n.embedding is not None and len(n.embedding) == 384 for n in nodes)
    assert "Maria" not in nodes[0].get_content(MetadataMode.NONE)

    replaced = AnonymizeTransform(strategy="replace", entities=["person"])(DOCS[:1])
    as_string = AnonymizeTransform(strategy="replace", entities="person")(DOCS[:1])  # as the CLI's --entities
    assert as_string[0].get_content() == replaced[0].get_content()
    assert replaced[0].get_content() == "PERSON_1 fixed the payment service in Madrid."
    assert "anonymization_mapping" not in replaced[0].metadata
    replaced = AnonymizeTransform(strategy="replace", entities=["person"], include_names=True)(DOCS[:1])
    assert json.loads(replaced[0].metadata["anonymization_mapping"]) == {"PERSON_1": "Maria Garcia"}
    for mode in (MetadataMode.EMBED, MetadataMode.LLM):  # opted-in names stay out of the embedded text
        assert "Maria" not in replaced[0].get_content(mode)


def test_char_offsets_of_split_nodes_are_cleared_not_left_stale() -> None:
    from llama_index.core.node_parser import SentenceSplitter

    doc = Document(id_="c", text="Maria Garcia fixed the payment service. " * 3 + "Nothing else happened here today.")
    nodes = SentenceSplitter(chunk_size=24, chunk_overlap=0)([doc])
    assert len(nodes) > 1 and all(n.start_char_idx is not None for n in nodes)
    out = AnonymizeTransform(ner())(nodes)
    for before, after in zip(nodes, out):
        if after.get_content(MetadataMode.NONE) != before.get_content(MetadataMode.NONE):
            assert after.start_char_idx is None and after.end_char_idx is None
        else:  # an unchanged node's offsets still point at its text in the source
            assert (after.start_char_idx, after.end_char_idx) == (before.start_char_idx, before.end_char_idx)
            assert doc.text[after.start_char_idx : after.end_char_idx] == after.get_content(MetadataMode.NONE)
    assert any(n.start_char_idx is None for n in out) and any(n.start_char_idx is not None for n in out)


@pytest.mark.asyncio
async def test_acall_matches_call() -> None:
    transform = AnonymizeTransform(ner())
    sync = transform(DOCS)
    asynced = await transform.acall(DOCS)
    assert [n.get_content() for n in asynced] == [n.get_content() for n in sync]
    assert [n.metadata for n in asynced] == [n.metadata for n in sync]
    nodes = await IngestionPipeline(transformations=[transform]).arun(documents=DOCS)
    assert [n.get_content() for n in nodes] == [n.get_content() for n in sync]


def test_bad_input() -> None:
    with pytest.raises(InputError, match="expected LlamaIndex nodes, got str at position 0"):
        AnonymizeTransform(ner())(["text"])
    with pytest.raises(InputError, match="dict is not an anonymizer"):
        AnonymizeTransform({"method": "ner"})
    with pytest.raises(InputError, match="unknown anonymization method 'regex'"):
        AnonymizeTransform(method="regex")
    assert AnonymizeTransform(ner())([]) == []


LEAK = Document(id_="c", text="bob fixed the build. Zorblat Quanx reviewed it.")


def test_anonymizer_options_are_forwarded_as_in_langchain() -> None:
    """deny_list (and any other option of the anonymizer class) reaches get_anonymizer: "bob" goes."""
    assert "bob" in AnonymizeTransform()([LEAK])[0].get_content()  # NER alone keeps it
    transform = AnonymizeTransform(deny_list=["bob", "Zorblat Quanx"])
    text = transform([LEAK])[0].get_content()
    assert "bob" not in text and "Zorblat" not in text and "fixed the build" in text
    # The options are part of the ingestion cache key: a cached run without the deny list is not reused.
    assert transform.anonymizer_options == {"deny_list": ["bob", "Zorblat Quanx"]}
    assert get_transformation_hash([LEAK], transform) != get_transformation_hash([LEAK], AnonymizeTransform())
    again = AnonymizeTransform.from_dict(transform.to_dict())  # LlamaIndex's serialisation keeps them
    assert "bob" not in again([LEAK])[0].get_content()


def test_a_ready_anonymizer_s_settings_are_part_of_the_cache_key() -> None:
    """Two transforms over built anonymizers with other deny lists must not share cached results."""
    from debiasrag.anonymize import get_anonymizer

    plain = AnonymizeTransform(get_anonymizer("ner"))
    denying = AnonymizeTransform(get_anonymizer("ner", deny_list=["bob"]))
    assert get_transformation_hash([LEAK], plain) != get_transformation_hash([LEAK], denying)
    same = AnonymizeTransform(get_anonymizer("ner", deny_list=["bob"]))  # equal settings, equal key
    assert get_transformation_hash([LEAK], same) == get_transformation_hash([LEAK], denying)
    for other in ({"exclude_names": ["Zorblat"]}, {"use_gazetteer": False}, {"lower_case_names": False}):
        changed = AnonymizeTransform(get_anonymizer("ner", **other))  # settings kept in other forms count too
        assert get_transformation_hash([LEAK], changed) != get_transformation_hash([LEAK], plain), other


@pytest.mark.parametrize(
    ("kwargs", "unknown"),
    [
        ({"strategyy": "replace"}, "strategyy"),
        ({"methd": "ner"}, "methd"),
        ({"deny": ["x"], "alow_list": ["y"]}, "alow_list, deny"),
    ],
)
def test_unknown_arguments_are_one_line_input_errors(kwargs: dict, unknown: str) -> None:
    with pytest.raises(InputError) as error:
        AnonymizeTransform(**kwargs)
    message = str(error.value)
    assert message.startswith(f"AnonymizeTransform got unknown argument(s) {unknown} (")
    assert "\n" not in message
    for accepted in ("method", "strategy", "entities", "include_names", "deny_list", "allow_list", "model"):
        assert accepted in message.split("(", 1)[1]


def test_anonymizer_options_with_an_anonymizer_are_refused_not_dropped() -> None:
    for kwargs in ({"deny_list": ["bob"]}, {"strategy": "replace"}, {"method": "llm"}, {"entities": "person"}):
        with pytest.raises(InputError) as error:
            AnonymizeTransform(ner(), **kwargs)
        (name,) = kwargs
        assert f"AnonymizeTransform got {name} and an anonymizer" in str(error.value)
    AnonymizeTransform(ner(), record_entities=False, include_names=True)  # the transform's own settings


def test_anonymized_ingestion_then_debiased_retrieval() -> None:
    nodes = IngestionPipeline(transformations=[AnonymizeTransform(ner())]).run(documents=DOCS)
    index = VectorStoreIndex(nodes, embed_model=minilm())
    retriever = DebiasedRetriever(index, strategy="balanced", similarity_top_k=1)
    (top,) = retriever.retrieve("Who fixed the payment service?")
    assert top.node.node_id == "a" and "Maria" not in top.node.get_content()


@pytest.mark.parametrize("switch", ["record_entities", "include_names"])
def test_switches_take_true_or_false_only(switch: str) -> None:
    with pytest.raises(InputError, match=f"{switch} must be True or False, got 'yes'"):  # pydantic reads "yes" as True
        AnonymizeTransform(**{switch: "yes"})
