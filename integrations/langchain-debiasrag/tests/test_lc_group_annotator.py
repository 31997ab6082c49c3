"""GroupAnnotator: groups stored at ingestion into a real InMemoryVectorStore (packaged MiniLM), then read back by
DebiasedRetriever at query time instead of inferred from the text."""

from __future__ import annotations

import re
from pathlib import Path

import lc_support  # noqa: F401  (offline environment)
import pytest
from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_debiasrag import DebiasedRetriever, GroupAnnotator
from lc_support import minilm

from debiasrag import InputError
from debiasrag.groups import GROUP_KEY, INFERRED_BY_KEY, detector

QUERY = "Who is the engineer that builds the backend systems?"
DOCS = [  # the README's corpus: the plain query ranks both "He" chunks first
    Document(
        id="he-designed", page_content="He designed the backend services that process millions of payments a day."
    ),
    Document(
        id="she-designed", page_content="She designed the backend services that process millions of payments a day."
    ),
    Document(
        id="he-maintains", page_content="He maintains the distributed systems and APIs behind the company's mobile app."
    ),
    Document(
        id="she-maintains",
        page_content="She maintains the distributed systems and APIs behind the company's mobile app.",
    ),
    Document(
        id="pie", page_content="A recipe for apple pie needs cinnamon and butter.", metadata={"source": "cookbook"}
    ),
]
TEXT_GROUPS = {"he-designed": "male", "she-designed": "female", "he-maintains": "male", "she-maintains": "female"}
TEXT_GROUPS["pie"] = "neutral"
STALE = "0" * 64


def fingerprint() -> str:
    return detector("gender").fingerprint


def snapshot(docs: list[Document]) -> list[tuple[str | None, str, dict]]:
    return [(d.id, d.page_content, dict(d.metadata)) for d in docs]


def retrieve(docs: list[Document], k: int) -> list[Document]:
    store = InMemoryVectorStore(minilm())
    store.add_documents(docs)
    return DebiasedRetriever(store, strategy="balanced", k=k).invoke(QUERY)


def test_inferred_groups_and_the_fingerprint_land_in_copies_of_the_documents() -> None:
    before = snapshot(DOCS)
    out = GroupAnnotator().transform_documents(DOCS)
    assert [d.id for d in out] == [d.id for d in DOCS]
    assert [d.page_content for d in out] == [d.page_content for d in DOCS]
    assert {d.id: d.metadata[GROUP_KEY] for d in out} == TEXT_GROUPS
    assert all(d.metadata[INFERRED_BY_KEY] == fingerprint() for d in out)
    assert re.fullmatch(r"[0-9a-f]{64}", fingerprint()) and GroupAnnotator().fingerprint == fingerprint()
    assert out[4].metadata == {"source": "cookbook", GROUP_KEY: "neutral", INFERRED_BY_KEY: fingerprint()}
    assert snapshot(DOCS) == before  # the caller's documents and their metadata dicts are untouched
    assert all(a is not b and a.metadata is not b.metadata for a, b in zip(out, DOCS))


def test_a_user_label_is_kept_unmarked_and_a_stale_group_is_inferred_again() -> None:
    labelled = Document(id="l", page_content="She fixed the build.", metadata={GROUP_KEY: "male"})
    stale = Document(id="s", page_content="She fixed the build.", metadata={GROUP_KEY: "male", INFERRED_BY_KEY: STALE})
    out = GroupAnnotator().transform_documents([labelled, stale])
    assert out[0].metadata == {GROUP_KEY: "male"}  # the user's label wins over the text, and is not marked
    assert out[1].metadata == {GROUP_KEY: "female", INFERRED_BY_KEY: fingerprint()}  # refreshed from the text
    assert stale.metadata == {GROUP_KEY: "male", INFERRED_BY_KEY: STALE}
    with pytest.raises(InputError, match="metadata 'debiasrag_group' is 'robot'"):
        GroupAnnotator().transform_documents([Document(page_content="x", metadata={GROUP_KEY: "robot"})])


def test_other_concepts_store_their_own_groups() -> None:
    (old,) = GroupAnnotator("age").transform_documents([Document(page_content="The old man and his grandson.")])
    assert old.metadata[INFERRED_BY_KEY] == detector("age").fingerprint != fingerprint()
    assert old.metadata[GROUP_KEY] in detector("age").groups + ("neutral",)


@pytest.mark.asyncio
async def test_async_matches_sync() -> None:
    annotator = GroupAnnotator()
    assert await annotator.atransform_documents(DOCS) == annotator.transform_documents(DOCS)
    assert await annotator.atransform_documents([]) == [] == annotator.transform_documents([])


def test_bad_input() -> None:
    with pytest.raises(InputError) as unknown:
        GroupAnnotator("nope")
    assert str(unknown.value).startswith("unknown concept 'nope'") and "\n" not in str(unknown.value)
    with pytest.raises(InputError, match="concept must be a concept name, a concept JSON path or a Concept, got int"):
        GroupAnnotator(3)  # type: ignore[arg-type]
    with pytest.raises(InputError, match="expected LangChain Documents, got str at position 1"):
        GroupAnnotator().transform_documents([DOCS[0], "text"])  # type: ignore[list-item]
    with pytest.raises(InputError) as misspelt:
        GroupAnnotator(conecpt="age")  # type: ignore[call-arg]
    assert str(misspelt.value) == "GroupAnnotator got unknown argument(s) conecpt (it takes concept)"


def test_the_retriever_reports_the_stored_groups() -> None:
    hits = retrieve(list(GroupAnnotator().transform_documents(DOCS)), k=len(DOCS))
    assert {d.id: d.metadata[GROUP_KEY] for d in hits} == TEXT_GROUPS
    assert [d.id for d in retrieve(list(GroupAnnotator().transform_documents(DOCS)), k=2)] == [
        "he-maintains",
        "she-designed",
    ]  # balanced: one of each group (plain top-2 would be both "He" chunks)


def test_the_retriever_reads_the_stored_group_not_the_text() -> None:
    annotated = list(GroupAnnotator().transform_documents(DOCS))
    (she,) = [d for d in annotated if d.id == "she-designed"]
    she.metadata[GROUP_KEY] = "male"  # the text says female; the current fingerprint stays
    assert she.metadata[INFERRED_BY_KEY] == fingerprint()
    alone = [d for d in annotated if d.id != "he-designed"]  # without its version the stored group stands
    hits = retrieve(alone, k=len(alone))
    expected = {**TEXT_GROUPS, "she-designed": "male"}
    del expected["he-designed"]
    assert {d.id: d.metadata[GROUP_KEY] for d in hits} == expected
    # And balancing acts on it: with "She designed ..." stored as male, "He maintains ..." is swapped for its female
    # wording — two chunks the text would call female, one male and one female as stored.
    assert [d.id for d in retrieve(alone, k=2)] == ["she-designed", "she-maintains"]
    clean = [d for d in GroupAnnotator().transform_documents(DOCS) if d.id != "he-designed"]
    assert [d.id for d in retrieve(clean, k=2)] == ["he-maintains", "she-designed"]
    # An inferred group is read again against its versions among the query's candidates (annotation batches may
    # have split them): "He designed ..." beside it, the words they differ in say female. A user label is not.
    assert {d.id: d.metadata[GROUP_KEY] for d in retrieve(annotated, k=len(DOCS))} == TEXT_GROUPS


def test_a_stale_fingerprint_makes_the_retriever_infer_from_the_text() -> None:
    annotated = list(GroupAnnotator().transform_documents(DOCS))
    (she,) = [d for d in annotated if d.id == "she-designed"]
    she.metadata.update({GROUP_KEY: "male", INFERRED_BY_KEY: STALE})  # as if stored by another detector
    hits = retrieve(annotated, k=len(DOCS))
    assert {d.id: d.metadata[GROUP_KEY] for d in hits} == TEXT_GROUPS  # "female", read from the text
    assert [d.id for d in retrieve(annotated, k=2)] == ["he-maintains", "she-designed"]


def test_readme_ingestion_example_runs() -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## `GroupAnnotator`", 1)[1].split("\n## ", 1)[0]
    (example,) = re.findall(r"\n\n((?:    .*\n)+)", section)  # the section's indented code block
    scope: dict = {"__name__": "readme_example"}
    exec(compile("\n".join(line[4:] for line in example.splitlines()), "README.md", "exec"), scope)
    hits = scope["retriever"].invoke(QUERY)
    assert sorted(d.metadata[GROUP_KEY] for d in hits) == ["female", "male"]
    assert all(d.metadata[INFERRED_BY_KEY] == fingerprint() for d in hits)


def test_versions_in_one_batch_are_read_by_contrast() -> None:
    # the female wording's side person comes first; only its versions show whose story it is (debiasrag.versions)
    side = "At the depot, Mr Hale handed over the keys and he checked the brakes twice."
    names = {"f": "Dana Reyes signed the form and drove her van", "m": "Omar Reyes signed the form and drove his van"}
    names["n"] = "Robin Reyes signed the form and drove their van"
    docs = [Document(id=key, page_content=f"{side} {rest} out at dawn.") for key, rest in names.items()]
    out = GroupAnnotator().transform_documents(docs)
    assert [d.metadata[GROUP_KEY] for d in out] == ["female", "male", "neutral"]
    alone = GroupAnnotator().transform_documents(docs[:1])  # without its versions the side person's "he" decides
    assert alone[0].metadata[GROUP_KEY] == "male"


def test_retriever_reads_unannotated_versions_among_its_candidates() -> None:
    # no GroupAnnotator: the retriever infers groups at query time, each read against its versions among the candidates
    side = "At the depot, Mr Hale handed over the keys and he checked the brakes twice."
    rests = {"f": "Dana Reyes signed the form and drove her van", "m": "Omar Reyes signed the form and drove his van"}
    rests["n"] = "Robin Reyes signed the form and drove their van"
    docs = [Document(id=key, page_content=f"{side} {rest} out at dawn.") for key, rest in rests.items()]
    store = InMemoryVectorStore(minilm())
    store.add_documents([*docs, Document(id="pie", page_content="A recipe for apple pie needs cinnamon and butter.")])
    hits = DebiasedRetriever(store, strategy="balanced", k=3).invoke("Who drove the van out of the depot at dawn?")
    assert {d.id: d.metadata[GROUP_KEY] for d in hits} == {"f": "female", "m": "male", "n": "neutral"}


def test_dynamic_with_versions_returns_every_wording_of_the_text_it_keeps() -> None:
    # Dynamic(versions=True) over a wrapped store: versions found among the store's own candidates, by their words
    from debiasrag.datasets import load_fairness_passages
    from debiasrag.strategies import Dynamic

    task = load_fairness_passages(5)  # a kitchen's health inspection: the close non-relevant text ranks next
    store = InMemoryVectorStore(minilm())
    store.add_documents([Document(id=str(d.id), page_content=d.text) for d in task.documents])
    query, answer = task.queries["T-hos-06"], task.relevant["T-hos-06"]
    hits = DebiasedRetriever(store, strategy=Dynamic(versions=True), k=10).invoke(query)
    assert {d.id for d in hits} == answer  # the answer text in all three wordings, nothing else
    assert sorted(d.metadata[GROUP_KEY] for d in hits) == ["female", "male", "neutral"]
    default = DebiasedRetriever(store, strategy="dynamic", k=10).invoke(query)
    assert {d.id for d in default} > answer  # the default window keeps the close text's wordings too
