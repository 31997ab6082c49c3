"""Red-team round 5 over the LangChain wrapper: scores of a distance store with one result, settings changed after
construction, a user's own group label in the returned copies, misspelt counts in search_kwargs, raising user
functions, and the annotator taking what the retriever takes."""

from __future__ import annotations

import itertools
from pathlib import Path

import lc_support  # noqa: F401  (offline environment)
import pytest
from langchain_core.documents import Document
from langchain_core.vectorstores import InMemoryVectorStore
from langchain_debiasrag import DebiasedRetriever, GroupAnnotator
from lc_support import in_memory_store, minilm

from debiasrag.concepts import load_concept
from debiasrag.errors import InputError

chromadb = pytest.importorskip("chromadb")
langchain_chroma = pytest.importorskip("langchain_chroma")
_names = itertools.count()
QUERY = "Who builds the backend systems?"
DOCS = [
    Document(
        id="eng-m", page_content="He is a software engineer who builds backend systems.", metadata={"topic": "it"}
    ),
    Document(
        id="eng-f", page_content="She is a software engineer who builds backend systems.", metadata={"topic": "it"}
    ),
    Document(id="pie", page_content="Bake the apple pie for forty minutes.", metadata={"topic": "food"}),
    Document(id="cat", page_content="The cat sleeps on the warm windowsill.", metadata={"topic": "pets"}),
]


def l2_chroma() -> object:  # Chroma's default space: squared L2 distances, lower is better
    client = chromadb.EphemeralClient(settings=chromadb.config.Settings(anonymized_telemetry=False))
    return langchain_chroma.Chroma.from_documents(DOCS, minilm(), client=client, collection_name=f"l2-{next(_names)}")


def _scores(docs: list[Document]) -> dict[str, float]:
    return {doc.id: round(doc.metadata["score"], 6) for doc in docs}


def test_a_one_result_search_on_a_distance_store_scores_as_a_deeper_one() -> None:
    store = l2_chroma()
    one = _scores(DebiasedRetriever(store, strategy="topk", k=1).invoke(QUERY))
    three = _scores(DebiasedRetriever(store, strategy="topk", k=3).invoke(QUERY))
    assert one.items() <= three.items()  # the raw distance came back as the score at k = 1 (1.10 against 0.22)
    # a filter leaving one (off-topic) document: its score is still a converted distance, below the relevant ones
    (pie,) = DebiasedRetriever(store, strategy="topk", k=3, search_kwargs={"filter": {"topic": "food"}}).invoke(QUERY)
    every = _scores(DebiasedRetriever(store, strategy="topk", k=4).invoke(QUERY))
    assert round(pie.metadata["score"], 6) == every["pie"] < every["eng-m"]  # was 2.0, above any cosine


def test_settings_changed_after_construction_take_effect() -> None:
    memory, chroma = in_memory_store(DOCS), l2_chroma()
    retriever = DebiasedRetriever(memory, strategy="balanced", k=2)
    retriever.invoke(QUERY)  # learns "higher" on the in-memory store
    for swapped in (retriever.model_copy(update={"vectorstore": chroma}), retriever):
        if swapped is retriever:
            retriever.vectorstore = chroma
        assert [d.id for d in swapped.invoke(QUERY, strategy="topk")][0].startswith("eng")  # not reversed
    retriever.strategy = "topk"
    assert retriever.invoke(QUERY)[0].metadata.get("debiasrag_group") is None  # topk balances no groups
    assert retriever.model_copy(update={"strategy": "paper"}).invoke(QUERY)[0].metadata["variant"] in ("female", "male")
    with pytest.raises(InputError, match="bogus"):
        retriever.strategy = "bogus"
    with pytest.raises(InputError):
        retriever.concept = "/nonexistent/concept.json"
    assert retriever.strategy == "topk"  # a refused assignment leaves the retriever as it was


def test_a_users_own_group_label_is_kept_in_the_returned_copies() -> None:
    docs = [
        Document(id="f1", page_content="She builds backend systems.", metadata={"debiasrag_group": "F"}),
        Document(id="w1", page_content="He builds backend systems for banks.", metadata={"debiasrag_group": "wealthy"}),
        Document(id="n1", page_content="The engineer builds backend systems."),
    ]
    hits = {d.id: d.metadata for d in DebiasedRetriever(in_memory_store(docs), strategy="balanced", k=3).invoke(QUERY)}
    assert hits["f1"]["debiasrag_group"] == "F" and hits["f1"]["debiasrag_balanced_group"] == "female"
    assert hits["w1"]["debiasrag_group"] == "wealthy" and hits["w1"]["debiasrag_balanced_group"] == "male"
    assert hits["n1"]["debiasrag_group"] == hits["n1"]["debiasrag_balanced_group"] == "neutral"


@pytest.mark.parametrize("key", ["top_k", "n_results", "similarity_top_k"])
def test_a_count_in_search_kwargs_is_refused(key: str) -> None:
    with pytest.raises(InputError, match=f"search_kwargs must not set '{key}'"):
        DebiasedRetriever(in_memory_store(DOCS), search_kwargs={key: 1})


def test_a_raising_user_function_is_one_input_error_with_its_cause() -> None:
    store = in_memory_store(DOCS)
    with pytest.raises(InputError, match="relevance_fn .*raised ZeroDivisionError") as raised:
        DebiasedRetriever(store, strategy="topk", relevance_fn=lambda s: 1 / 0).invoke(QUERY)
    assert isinstance(raised.value.__cause__, ZeroDivisionError)
    with pytest.raises(InputError, match="query_transform raised ZeroDivisionError"):
        DebiasedRetriever(store, strategy="topk", query_transform=lambda q: 1 / 0).invoke(QUERY)


def test_the_annotator_takes_a_path_or_a_concept_as_the_retriever_does(tmp_path: Path) -> None:
    bundled = Path(__file__).resolve().parents[3] / "debiasrag" / "data" / "concepts" / "age.json"
    for concept in (bundled, load_concept(bundled)):
        (doc,) = GroupAnnotator(concept=concept).transform_documents([Document(page_content="The old man waited.")])
        assert doc.metadata["debiasrag_group"] == "old"


def test_a_search_of_a_store_swapped_out_meanwhile_teaches_the_new_store_nothing() -> None:
    import threading

    from langchain_core.embeddings import DeterministicFakeEmbedding

    docs = [Document(id=str(i), page_content=f"doc {i}") for i in range(4)]
    entered, gate = threading.Event(), threading.Event()

    class Similarities(InMemoryVectorStore):  # best first, descending; blocks until released
        def similarity_search_with_score(self, query, k=4, **kwargs):
            entered.set()
            gate.wait(10)
            return [(d, 0.9 - 0.1 * i) for i, d in enumerate(docs[:k])]

    class Distances(InMemoryVectorStore):  # best first, ascending
        def similarity_search_with_score(self, query, k=4, **kwargs):
            return [(d, 0.1 + 0.1 * i) for i, d in enumerate(docs[:k])]

    embedding = DeterministicFakeEmbedding(size=4)
    retriever = DebiasedRetriever(Similarities(embedding), strategy="topk", k=2)
    old_search = threading.Thread(target=lambda: retriever.invoke("q"))
    old_search.start()
    entered.wait(10)
    retriever.vectorstore = Distances(embedding)  # swapped while the old store's search runs
    gate.set()
    old_search.join()
    assert [d.id for d in retriever.invoke("q")] == ["0", "1"]  # read "higher", the old store's, it was reversed


def test_the_unfiltered_probe_keeps_other_search_arguments_and_is_best_effort() -> None:
    from langchain_core.embeddings import DeterministicFakeEmbedding

    calls: list[dict] = []

    class Tenanted(InMemoryVectorStore):  # needs its tenant; a filter leaves one document
        def similarity_search_with_score(self, query, k=4, **kwargs):
            calls.append(kwargs)
            if "tenant" not in kwargs:
                raise RuntimeError("tenant required")
            if kwargs.get("filter"):
                return [(Document(id="a", page_content="a"), 0.3)]
            return [(Document(id=x, page_content=x), 0.3 + 0.1 * i) for i, x in enumerate("abc")]

    store = Tenanted(DeterministicFakeEmbedding(size=4))
    retriever = DebiasedRetriever(store, strategy="topk", k=3, search_kwargs={"tenant": "t1", "filter": {"x": 1}})
    (hit,) = retriever.invoke("q")
    assert calls[-1] == {"tenant": "t1"} and retriever._known_direction() == "lower"
    assert hit.id == "a" and hit.metadata["score"] == pytest.approx(-0.3)


def test_with_a_relevance_fn_the_store_order_is_not_read() -> None:
    from langchain_core.embeddings import DeterministicFakeEmbedding

    class Reranked(InMemoryVectorStore):  # a hybrid store: results not sorted by their raw score
        def similarity_search_with_score(self, query, k=4, **kwargs):
            return [(Document(id=x, page_content=x), s) for x, s in zip("abc", (0.5, 0.9, 0.1))][:k]

    store = Reranked(DeterministicFakeEmbedding(size=4))
    hits = DebiasedRetriever(store, strategy="topk", k=3, relevance_fn=lambda s: s).invoke("q")
    assert [d.id for d in hits] == ["b", "a", "c"]  # failed: "returned unsorted scores"
