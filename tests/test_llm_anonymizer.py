"""LlmAnonymizer driven through the REAL anthropic client against a fake Messages API on 127.0.0.1.

The fake server answers like Claude would (or misbehaves on purpose): good removals, rewrites, 429 then
success, persistent 500s, timeouts, malformed JSON. Nothing of our own code is mocked.
"""

from __future__ import annotations

import json
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from debiasrag.anonymize import LlmAnonymizer, NerAnonymizer, PlaceholderMapping
from debiasrag.anonymize.llm import load_prompt, spans_from_answer
from debiasrag.errors import DebiasragError, InputError

# Which names a careful LLM deletes from each test document.
NAMES = {
    "Alejandro quickly ran to the store to buy a cold drink.": ["Alejandro"],
    "Kashvi and Oluwafemi met on a rainy Tuesday in Northampton.": ["Kashvi", "Oluwafemi", "Northampton"],
    "Alice lent Bob money. Bob promised to return it soon.": ["Alice", "Bob"],
    "The weather was mild and nothing happened.": [],
    "Dr. Yerusha examined Reyan's heart.": ["Yerusha", "Reyan"],
}


def careful_removal(doc: str) -> str:
    for name in NAMES.get(doc, []):
        doc = doc.replace(name, "")
    return doc


class FakeMessagesAPI:
    """A tiny Anthropic Messages API: ``respond(doc, attempt)`` -> (status, body_bytes, extra headers, delay)."""

    def __init__(self, respond: Callable[[str, int], tuple[int, bytes, dict[str, str], float]]) -> None:
        self.respond = respond
        self.calls: Counter[str] = Counter()
        self.in_flight = 0
        self.max_in_flight = 0
        self.prompts: list[str] = []
        self.lock = threading.Lock()
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                content = body["messages"][0]["content"]
                prompt, doc = content.split("::::\n", 1)
                with api.lock:
                    api.calls[doc] += 1
                    attempt = api.calls[doc]
                    api.prompts.append(prompt)
                    api.in_flight += 1
                    api.max_in_flight = max(api.max_in_flight, api.in_flight)
                try:
                    status, payload, headers, delay = api.respond(doc, attempt)
                    time.sleep(delay)
                    self.send_response(status)
                    self.send_header("content-type", "application/json")
                    self.send_header("content-length", str(len(payload)))
                    for key, value in headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (timeout test)
                finally:
                    with api.lock:
                        api.in_flight -= 1

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> FakeMessagesAPI:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def message(text: str) -> tuple[int, bytes, dict[str, str], float]:
    body = {
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [{"type": "text", "text": text}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 10},
    }
    return 200, json.dumps(body).encode(), {}, 0.0


def error(status: int, kind: str) -> tuple[int, bytes, dict[str, str], float]:
    body = {"type": "error", "error": {"type": kind, "message": "fake failure"}}
    return status, json.dumps(body).encode(), {"retry-after-ms": "5"}, 0.0


@pytest.fixture
def make(tmp_path, monkeypatch) -> Iterator[Callable[..., LlmAnonymizer]]:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-real-key")

    def build(server: FakeMessagesAPI, **kwargs) -> LlmAnonymizer:
        options = {"model": "claude-test", "cache_dir": tmp_path / "cache", "max_retries": 2, "timeout": 5.0}
        options.update(kwargs)
        return LlmAnonymizer(base_url=server.url, **options)

    yield build


def test_batch_refuses_one_string_before_any_request(make):
    with FakeMessagesAPI(lambda doc, attempt: message(careful_removal(doc))) as server:
        with pytest.raises(InputError, match="expected a list of texts, got one str"):
            make(server).anonymize_batch("Bob ran.")
        assert not server.calls


def test_good_answers_become_entities_with_original_offsets(make):
    docs = list(NAMES)
    with FakeMessagesAPI(lambda doc, attempt: message(careful_removal(doc))) as server:
        results = make(server).anonymize_batch(docs)
    assert [r.method for r in results] == ["llm"] * len(docs)
    assert all(r.fallback is None for r in results)
    for doc, result in zip(docs, results):
        assert [e.text for e in result.entities] == [n for n in NAMES[doc] for _ in range(doc.count(n))] or sorted(
            e.text for e in result.entities
        ) == sorted(n for n in NAMES[doc] for _ in range(doc.count(n)))
        assert all(doc[e.start : e.end] == e.text for e in result.entities)
    assert results[0].text == "quickly ran to the store to buy a cold drink."
    assert results[1].text == "and met on a rainy Tuesday."  # no dangling "in"
    assert results[2].text == "lent money. promised to return it soon."
    assert results[3].text == docs[3] and results[3].entities == []
    # The possessive goes with the name; a role title keeps its role.
    assert results[4].text == "The doctor examined heart."
    # The seed's default prompt (Table 5, first row) was sent.
    assert server.prompts[0].strip() == load_prompt("remove_person_location").removesuffix("::::").strip()


def test_person_only_uses_the_second_prompt(make):
    with FakeMessagesAPI(lambda doc, attempt: message(careful_removal(doc))) as server:
        make(server, entities="person").anonymize("Alice lent Bob money. Bob promised to return it soon.")
    assert "Organization" not in server.prompts[0] and "PROPER NOUNS" in server.prompts[0]


def test_rewritten_answer_falls_back_to_ner_and_says_why(make):
    doc = "Alice lent Bob money. Bob promised to return it soon."
    with FakeMessagesAPI(lambda d, attempt: message("Someone lent a friend some cash, promising repayment.")) as server:
        result = make(server).anonymize(doc)
    ner = NerAnonymizer().anonymize(doc)
    assert result.method == "ner"
    assert result.fallback is not None and "rejected" in result.fallback
    assert result.text == ner.text == "lent money. promised to return it soon."


def test_answer_with_preamble_or_deleted_ordinary_words_is_rejected(make):
    doc = "Alejandro quickly ran to the store to buy a cold drink."
    answers = {1: "Here is the modified text: quickly ran to the store to buy a cold drink."}
    with FakeMessagesAPI(lambda d, attempt: message(answers[1])) as server:
        result = make(server).anonymize(doc)
    assert result.method == "ner" and "rejected" in result.fallback and "Here is" in result.fallback
    entities, why = spans_from_answer(doc, "quickly ran to store to buy a drink.", labelled=False)
    assert entities is None and "ordinary words" in why


def test_rate_limit_then_success_is_retried_by_the_sdk(make):
    def respond(doc, attempt):
        return error(429, "rate_limit_error") if attempt == 1 else message(careful_removal(doc))

    doc = "Alejandro quickly ran to the store to buy a cold drink."
    with FakeMessagesAPI(respond) as server:
        result = make(server).anonymize(doc)
    assert server.calls[doc] == 2
    assert result.method == "llm" and result.fallback is None
    assert result.text == "quickly ran to the store to buy a cold drink."


def test_persistent_server_errors_fall_back_after_retries(make):
    doc = "Alice lent Bob money. Bob promised to return it soon."
    with FakeMessagesAPI(lambda d, attempt: error(500, "api_error")) as server:
        result = make(server, max_retries=1).anonymize(doc)
    assert server.calls[doc] == 2  # first try + one SDK retry
    assert result.method == "ner" and "InternalServerError" in result.fallback
    assert result.text == "lent money. promised to return it soon."


def test_timeouts_fall_back(make):
    doc = "Alejandro quickly ran to the store to buy a cold drink."

    def slow(d, attempt):
        status, body, headers, _ = message(careful_removal(d))
        return status, body, headers, 1.5

    with FakeMessagesAPI(slow) as server:
        started = time.perf_counter()
        result = make(server, timeout=0.3, max_retries=0).anonymize(doc)
        elapsed = time.perf_counter() - started
    assert result.method == "ner" and "Timeout" in result.fallback
    assert elapsed < 10  # NER load included; the request itself gave up after 0.3 s
    assert result.text == "quickly ran to the store to buy a cold drink."


def test_ctrl_c_stops_requests_at_once(make):
    # A user's Ctrl-C during `--method llm` against a hung gateway took 28 s to return and sent 16 more paid
    # requests (session 46): the pool finished every queued chunk, with every SDK retry, before re-raising.
    main = threading.main_thread()
    assert threading.current_thread() is main  # where Ctrl-C's KeyboardInterrupt is raised
    docs = [f"Alice lent Bob money number {i}." for i in range(6)]
    hung = {"on": True}

    def respond(d, attempt):
        status, body, headers, _ = message(d.replace("Alice ", "").replace("Bob ", ""))
        return status, body, headers, (30.0 if hung["on"] else 0.0)

    with FakeMessagesAPI(respond) as server:
        anonymizer = make(server, max_concurrency=2, max_retries=4, timeout=20.0, cache_dir=None)
        timer = threading.Timer(1.0, signal.pthread_kill, (main.ident, signal.SIGINT))  # as Ctrl-C sends it
        timer.start()
        started = time.perf_counter()
        with pytest.raises(KeyboardInterrupt):
            anonymizer.anonymize_batch(docs)
        elapsed = time.perf_counter() - started
        sent = sum(server.calls.values())
        time.sleep(3.0)  # longer than the SDK's backoff before a retry
        assert elapsed < 3.0
        assert sent == 2 and sum(server.calls.values()) == 2  # the two in flight; no retry, nothing queued sent
        hung["on"] = False  # the same anonymizer works for the next batch
        assert anonymizer.anonymize_batch(docs[:1])[0].text == "lent money number 0."


def test_malformed_json_falls_back(make):
    with FakeMessagesAPI(lambda d, attempt: (200, b'{"content": [ {"type": "te', {}, 0.0)) as server:
        result = make(server, max_retries=0).anonymize("Alice lent Bob money.")
    assert result.method == "ner" and result.fallback
    assert result.text == "lent money."


def test_wrong_shape_json_falls_back(make):
    with FakeMessagesAPI(lambda d, attempt: (200, b'{"unexpected": true}', {}, 0.0)) as server:
        result = make(server, max_retries=0).anonymize("Alice lent Bob money.")
    assert result.method == "ner" and result.fallback


def test_cache_makes_a_rerun_free(make, tmp_path):
    docs = list(NAMES)
    with FakeMessagesAPI(lambda doc, attempt: message(careful_removal(doc))) as server:
        first = make(server).anonymize_batch(docs)
        calls = sum(server.calls.values())
        again = make(server)
        second = again.anonymize_batch(docs)
        assert sum(server.calls.values()) == calls == len(docs)
    assert again.stats["cache_hits"] == len(docs) and again.stats["requests"] == 0
    assert [r.text for r in first] == [r.text for r in second]
    # A different model is a different cache key.
    with FakeMessagesAPI(lambda doc, attempt: message(careful_removal(doc))) as server:
        make(server, model="claude-other").anonymize_batch(docs[:1])
        assert sum(server.calls.values()) == 1


def test_concurrency_is_limited_and_order_kept(make):
    docs = [f"Alice lent Bob {n} coins." for n in range(12)]

    def respond(doc, attempt):
        status, body, headers, _ = message(doc.replace("Alice ", "").replace("Bob ", ""))
        return status, body, headers, 0.15

    with FakeMessagesAPI(respond) as server:
        results = make(server, max_concurrency=3).anonymize_batch(docs)
    assert 1 < server.max_in_flight <= 3
    assert [r.text for r in results] == [f"lent {n} coins." for n in range(12)]


def test_one_failing_document_does_not_disturb_the_others(make):
    docs = list(NAMES)
    bad = docs[2]

    def respond(doc, attempt):
        return error(500, "api_error") if doc == bad else message(careful_removal(doc))

    with FakeMessagesAPI(respond) as server:
        results = make(server, max_retries=0).anonymize_batch(docs)
    assert len(results) == len(docs)
    assert [r.method for r in results] == ["llm", "llm", "ner", "llm", "llm"]
    assert results[2].text == "lent money. promised to return it soon."


def test_replace_prompt_placeholders_become_our_consistent_ids(make):
    doc = "Alice met Bob in Paris. Alice works for Google."
    answer = "CHAR_A met CHAR_B in LOC_A. CHAR_A works for ORG_A."
    shared = PlaceholderMapping()
    with FakeMessagesAPI(lambda d, attempt: message(answer)) as server:
        result = make(server, strategy="replace", mapping=shared).anonymize(doc)
    assert "CHAR_A" in server.prompts[0]  # the seed's Table 17 prompt
    assert result.text == "PERSON_1 met PERSON_2 in LOC_1. PERSON_1 works for ORG_1."
    assert [(e.text, e.label) for e in result.entities] == [
        ("Alice", "PERSON"),
        ("Bob", "PERSON"),
        ("Paris", "LOC"),
        ("Alice", "PERSON"),
        ("Google", "ORG"),
    ]
    assert shared.reverse(result.text) == doc


def test_person_and_location_only_filters_labelled_answers(make):
    doc = "Alice met Bob in Paris. Alice works for Google."
    answer = "CHAR_A met CHAR_B in LOC_A. CHAR_A works for ORG_A."
    with FakeMessagesAPI(lambda d, attempt: message(answer)) as server:
        result = make(server, entities="person,location").anonymize(doc)
    assert result.text == "met. works for Google."


def test_fallback_error_mode_raises(make):
    with FakeMessagesAPI(lambda d, attempt: message("totally different text")) as server:
        with pytest.raises(DebiasragError, match="rejected"):
            make(server, fallback="error").anonymize("Alice lent Bob money.")


def test_empty_text_and_text_of_only_names(make):
    def respond(doc, attempt):
        return message(doc.replace("Alice", "").replace("Bob", ""))

    with FakeMessagesAPI(respond) as server:
        results = make(server).anonymize_batch(["", "   ", "Alice Bob"])
    assert [r.text for r in results] == ["", "   ", ""]
    assert [e.text for e in results[2].entities] == ["Alice Bob"] or [e.text for e in results[2].entities] == [
        "Alice",
        "Bob",
    ]
    assert sum(server.calls.values()) == 1  # blank texts are not sent


def test_missing_api_key_names_the_variable(monkeypatch, tmp_path):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    with pytest.raises(InputError, match="ANTHROPIC_API_KEY"):
        LlmAnonymizer(cache_dir=tmp_path)


def test_alignment_tolerates_whitespace_and_case_only():
    doc = "Nikolai and Deborah met in New York.\nDeborah smiled."
    entities, why = spans_from_answer(doc, "  and   met in .\n smiled.  ", labelled=False)
    assert why == "" and [e.text for e in entities] == ["Nikolai", "Deborah", "New York", "Deborah"]
    assert all(doc[e.start : e.end] == e.text for e in entities)
    entities, _ = spans_from_answer("Alice and Bob came.", "And came.", labelled=False)
    assert [e.text for e in entities] == ["Alice", "Bob"]


def test_long_text_is_sent_in_chunks_with_offsets_kept(make):
    sentence = "The council met again to discuss the harbour repairs and the budget. "
    text = "Alice opened the meeting. " + sentence * 30 + "Finally Bob closed it."
    with FakeMessagesAPI(lambda doc, attempt: message(doc.replace("Alice", "").replace("Bob", ""))) as server:
        result = make(server, max_chars=500).anonymize(text)
    # Several chunks; identical chunks (the repeated middle) are asked only once.
    assert len(server.calls) >= 3 and set(server.calls.values()) == {1}
    assert result.method == "llm"
    assert [e.text for e in result.entities] == ["Alice", "Bob"]
    assert all(text[e.start : e.end] == e.text for e in result.entities)
    assert result.text.startswith("opened the meeting.") and result.text.endswith("Finally closed it.")
