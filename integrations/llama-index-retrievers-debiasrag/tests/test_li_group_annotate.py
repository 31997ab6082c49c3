"""GroupAnnotateTransform in a real IngestionPipeline: groups stored in node metadata (hidden from the embedder and
the LLM), indexed in a real VectorStoreIndex (packaged MiniLM), then read back by DebiasedRetriever at query time."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from li_support import minilm
from llama_index.core import Document, VectorStoreIndex
from llama_index.core.ingestion import IngestionPipeline
from llama_index.core.schema import BaseNode, MetadataMode, TextNode
from llama_index.retrievers.debiasrag import DebiasedRetriever, GroupAnnotateTransform

from debiasrag import InputError
from debiasrag.groups import GROUP_KEY, INFERRED_BY_KEY, detector

QUERY = "Who is the engineer that builds the backend systems?"
TEXTS = {  # the README's corpus: the plain query ranks both "He" chunks first
    "he-designed": "He designed the backend services that process millions of payments a day.",
    "she-designed": "She designed the backend services that process millions of payments a day.",
    "he-maintains": "He maintains the distributed systems and APIs behind the company's mobile app.",
    "she-maintains": "She maintains the distributed systems and APIs behind the company's mobile app.",
    "pie": "A recipe for apple pie needs cinnamon and butter.",
}
TEXT_GROUPS = {"he-designed": "male", "she-designed": "female", "he-maintains": "male", "she-maintains": "female"}
TEXT_GROUPS["pie"] = "neutral"
STALE = "0" * 64


def documents() -> list[Document]:
    return [Document(id_=key, text=text, metadata={"source": "wiki"}) for key, text in TEXTS.items()]


def fingerprint() -> str:
    return detector("gender").fingerprint


def annotated() -> dict[str, BaseNode]:
    nodes = IngestionPipeline(transformations=[GroupAnnotateTransform()]).run(documents=documents())
    return {node.node_id: node for node in nodes}


def retrieve(nodes: list[BaseNode], k: int) -> dict[str, str]:
    index = VectorStoreIndex(nodes, embed_model=minilm())
    hits = DebiasedRetriever(index, strategy="balanced", similarity_top_k=k).retrieve(QUERY)
    return {hit.node.node_id: hit.node.metadata[GROUP_KEY] for hit in hits}


def test_inferred_groups_and_the_fingerprint_land_in_copies_of_the_nodes() -> None:
    docs = documents()
    out = GroupAnnotateTransform()(docs)
    assert [n.node_id for n in out] == list(TEXTS)
    assert [n.get_content(MetadataMode.NONE) for n in out] == list(TEXTS.values())
    assert {n.node_id: n.metadata[GROUP_KEY] for n in out} == TEXT_GROUPS
    assert all(n.metadata[INFERRED_BY_KEY] == fingerprint() and n.metadata["source"] == "wiki" for n in out)
    assert re.fullmatch(r"[0-9a-f]{64}", fingerprint()) and GroupAnnotateTransform().fingerprint == fingerprint()
    # The inputs are untouched: metadata and exclusion lists of the copies are new objects.
    assert all(d.metadata == {"source": "wiki"} and d.excluded_embed_metadata_keys == [] for d in docs)
    assert all(n is not d and n.metadata is not d.metadata for n, d in zip(out, docs))


def test_the_group_never_reaches_the_embedder_or_the_llm() -> None:
    node = TextNode(id_="n", text=TEXTS["she-designed"], metadata={"source": "wiki", "year": 2024})
    node.excluded_embed_metadata_keys = ["year"]  # the user's own exclusions are kept
    (out,) = GroupAnnotateTransform()([node])
    assert out.metadata[GROUP_KEY] == "female"
    assert out.excluded_embed_metadata_keys == ["year", GROUP_KEY, INFERRED_BY_KEY]
    assert out.excluded_llm_metadata_keys == [GROUP_KEY, INFERRED_BY_KEY]
    for mode in (MetadataMode.EMBED, MetadataMode.LLM):
        assert "debiasrag_group" not in out.get_content(metadata_mode=mode)
        assert out.get_content(metadata_mode=mode) == node.get_content(metadata_mode=mode)  # "source: wiki" stays
    assert node.excluded_embed_metadata_keys == ["year"] and node.excluded_llm_metadata_keys == []
    # In a pipeline with the embedder after it: the vector is the one the unannotated node gets.
    pipeline = IngestionPipeline(transformations=[GroupAnnotateTransform(), minilm()])
    (embedded,) = pipeline.run(nodes=[node])
    assert embedded.metadata[GROUP_KEY] == "female"
    assert embedded.embedding == pytest.approx(minilm().get_text_embedding(node.get_content(MetadataMode.EMBED)))


def test_a_user_label_is_kept_unmarked_and_a_stale_group_is_inferred_again() -> None:
    labelled = TextNode(id_="l", text="She fixed the build.", metadata={GROUP_KEY: "male"})
    stale = TextNode(id_="s", text="She fixed the build.", metadata={GROUP_KEY: "male", INFERRED_BY_KEY: STALE})
    out = GroupAnnotateTransform()([labelled, stale])
    assert out[0].metadata == {GROUP_KEY: "male"}  # the user's label wins over the text, and is not marked
    assert out[1].metadata == {GROUP_KEY: "female", INFERRED_BY_KEY: fingerprint()}  # refreshed from the text
    assert stale.metadata == {GROUP_KEY: "male", INFERRED_BY_KEY: STALE}
    with pytest.raises(InputError, match="metadata 'debiasrag_group' is 'robot'"):
        GroupAnnotateTransform()([TextNode(text="x", metadata={GROUP_KEY: "robot"})])


@pytest.mark.asyncio
async def test_acall_and_arun_match_call() -> None:
    transform = GroupAnnotateTransform()
    sync = transform(documents())
    asynced = await transform.acall(documents())
    assert [n.metadata for n in asynced] == [n.metadata for n in sync]
    nodes = await IngestionPipeline(transformations=[transform]).arun(documents=documents())
    assert [n.metadata for n in nodes] == [n.metadata for n in sync]
    assert await transform.acall([]) == [] == transform([])


def test_bad_input_and_serialisation() -> None:
    with pytest.raises(InputError) as unknown:
        GroupAnnotateTransform("nope")
    assert str(unknown.value).startswith("unknown concept 'nope'") and "\n" not in str(unknown.value)
    with pytest.raises(InputError, match="unknown concept 'nope'"):
        GroupAnnotateTransform(concept="nope")
    with pytest.raises(InputError, match="concept must be a concept name or a concept JSON path, got int"):
        GroupAnnotateTransform(3)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="expected LlamaIndex nodes, got str at position 1"):
        GroupAnnotateTransform()([documents()[0], "text"])  # type: ignore[list-item]
    with pytest.raises(InputError) as misspelt:  # was kept by pydantic and ignored: gender groups stored
        GroupAnnotateTransform(conecpt="age")
    assert str(misspelt.value) == "GroupAnnotateTransform got unknown argument(s) conecpt (it takes concept)"
    age = GroupAnnotateTransform(concept="age")
    assert age.fingerprint == detector("age").fingerprint != fingerprint()
    assert age.to_dict()["class_name"] == "DebiasragGroupAnnotateTransform"
    restored = GroupAnnotateTransform.from_dict(age.to_dict())
    assert (restored.concept, restored.fingerprint) == ("age", age.fingerprint)


def test_the_retriever_reports_the_stored_groups() -> None:
    nodes = list(annotated().values())
    assert retrieve(nodes, k=len(TEXTS)) == TEXT_GROUPS
    # balanced: one of each group (with "source: wiki" embedded the plain query ranks the two "He" chunks first);
    # "He maintains ..." is swapped for its own female wording, so both texts of the top 2 stay
    assert list(retrieve(nodes, k=2)) == ["he-designed", "she-maintains"]


def test_the_retriever_reads_the_stored_group_not_the_text() -> None:
    nodes = annotated()
    nodes["she-designed"].metadata[GROUP_KEY] = "male"  # the text says female; the current fingerprint stays
    assert nodes["she-designed"].metadata[INFERRED_BY_KEY] == fingerprint()
    alone = [node for key, node in nodes.items() if key != "he-designed"]  # without its version the group stands
    expected = {**TEXT_GROUPS, "she-designed": "male"}
    del expected["he-designed"]
    assert retrieve(alone, k=len(alone)) == expected
    # And balancing acts on it: with "She designed ..." stored as male, "He maintains ..." is swapped for its female
    # wording — two chunks the text would call female, one male and one female as stored.
    assert list(retrieve(alone, k=2)) == ["she-designed", "she-maintains"]
    assert list(retrieve([node for key, node in annotated().items() if key != "he-designed"], k=2)) == [
        "he-maintains",
        "she-designed",
    ]
    # An inferred group is read again against its versions among the query's candidates (annotation batches may
    # have split them): "He designed ..." beside it, the words they differ in say female. A user label is not.
    assert retrieve(list(nodes.values()), k=len(TEXTS)) == TEXT_GROUPS


def test_a_stale_fingerprint_makes_the_retriever_infer_from_the_text() -> None:
    nodes = annotated()
    nodes["she-designed"].metadata.update({GROUP_KEY: "male", INFERRED_BY_KEY: STALE})  # another detector's
    assert retrieve(list(nodes.values()), k=len(TEXTS)) == TEXT_GROUPS  # "female", read from the text
    assert list(retrieve(list(nodes.values()), k=2)) == ["he-designed", "she-maintains"]


def test_readme_ingestion_example_runs() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## `GroupAnnotateTransform`", 1)[1].split("\n## ", 1)[0]
    (example,) = re.findall(r"\n\n((?:    .*\n)+)", section)  # the section's indented code block
    scope: dict = {"__name__": "readme_example"}
    exec(compile("\n".join(line[4:] for line in example.splitlines()), "README.md", "exec"), scope)
    hits = scope["retriever"].retrieve(QUERY)
    assert sorted(hit.node.metadata[GROUP_KEY] for hit in hits) == ["female", "male"]
    assert all(hit.node.metadata[INFERRED_BY_KEY] == fingerprint() for hit in hits)


def test_versions_in_one_run_are_read_by_contrast() -> None:
    # the female wording's side person comes first; only its versions show whose story it is (debiasrag.versions)
    side = "At the depot, Mr Hale handed over the keys and he checked the brakes twice."
    rests = {"f": "Dana Reyes signed the form and drove her van", "m": "Omar Reyes signed the form and drove his van"}
    rests["n"] = "Robin Reyes signed the form and drove their van"
    docs = [Document(id_=key, text=f"{side} {rest} out at dawn.") for key, rest in rests.items()]
    nodes = IngestionPipeline(transformations=[GroupAnnotateTransform()]).run(documents=docs)
    assert [node.metadata[GROUP_KEY] for node in nodes] == ["female", "male", "neutral"]
    alone = IngestionPipeline(transformations=[GroupAnnotateTransform()]).run(documents=docs[:1])
    assert alone[0].metadata[GROUP_KEY] == "male"  # without its versions the side person's "he" decides


def test_retriever_reads_unannotated_versions_among_its_candidates() -> None:
    # no GroupAnnotateTransform: groups inferred at query time, each read against its versions among the candidates
    side = "At the depot, Mr Hale handed over the keys and he checked the brakes twice."
    rests = {"f": "Dana Reyes signed the form and drove her van", "m": "Omar Reyes signed the form and drove his van"}
    rests["n"] = "Robin Reyes signed the form and drove their van"
    nodes = [TextNode(id_=key, text=f"{side} {rest} out at dawn.") for key, rest in rests.items()]
    nodes.append(TextNode(id_="pie", text="A recipe for apple pie needs cinnamon and butter."))
    index = VectorStoreIndex(nodes, embed_model=minilm())
    hits = DebiasedRetriever(index, strategy="balanced", similarity_top_k=3).retrieve(
        "Who drove the van out of the depot at dawn?"
    )
    assert {hit.node.node_id: hit.node.metadata[GROUP_KEY] for hit in hits} == {
        "f": "female",
        "m": "male",
        "n": "neutral",
    }


def test_dynamic_with_versions_returns_every_wording_of_the_text_it_keeps() -> None:
    # Dynamic(versions=True) over a VectorStoreIndex: versions found among the retrieved nodes, by their words
    from debiasrag.datasets import load_fairness_passages
    from debiasrag.strategies import Dynamic

    task = load_fairness_passages(5)  # a kitchen's health inspection: the close non-relevant text ranks next
    nodes = [TextNode(id_=str(d.id), text=d.text) for d in task.documents]
    index = VectorStoreIndex(nodes, embed_model=minilm())
    query, answer = task.queries["T-hos-06"], task.relevant["T-hos-06"]
    hits = DebiasedRetriever(index, strategy=Dynamic(versions=True), similarity_top_k=10).retrieve(query)
    assert {hit.node.node_id for hit in hits} == answer  # the answer text in all three wordings, nothing else
    assert sorted(hit.node.metadata[GROUP_KEY] for hit in hits) == ["female", "male", "neutral"]
    default = DebiasedRetriever(index, strategy="dynamic", similarity_top_k=10).retrieve(query)
    assert {hit.node.node_id for hit in default} > answer  # the default window keeps the close text's wordings too
