"""``debiasrag index --anonymize llm --llm-model M``: the real CLI and the real ``anthropic`` client
against a fake Messages API on 127.0.0.1 that records each request's ``model``.

The chosen model (or the default) is what the API is asked for and what the manifest records; a model the API
does not know is one line naming ``--llm-model``; ``--llm-model`` / ``--timeout`` without ``--anonymize llm``
are refused with one line before any work. A query to such an index still anonymizes locally (NER): the
recorded model never makes us call the API.
"""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from debiasrag.anonymize.llm import DEFAULT_LLM_MODEL
from debiasrag.cli import main
from debiasrag.errors import IndexLoadError
from debiasrag.storage import read_manifest

DOCS = ["Kashvi and Oluwafemi met on a rainy Tuesday in Northampton.", "The weather was mild and nothing happened."]
NAMES = ("Kashvi", "Oluwafemi", "Northampton")


class FakeMessages:
    """A Messages API answering every request with its document minus ``NAMES`` (or with ``status``'s error).

    ``models`` lists the ``model`` of every request, in arrival order.
    """

    def __init__(self, status: int = 200) -> None:
        self.models: list[str] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server naming
                request = json.loads(self.rfile.read(int(self.headers["content-length"])))
                fake.models.append(request["model"])
                doc = request["messages"][0]["content"].split("::::\n", 1)[-1]
                if status == 200:
                    for name in NAMES:
                        doc = doc.replace(name, "")
                    body = {
                        "id": "msg_test",
                        "type": "message",
                        "role": "assistant",
                        "model": request["model"],
                        "content": [{"type": "text", "text": doc}],
                        "stop_reason": "end_turn",
                        "stop_sequence": None,
                        "usage": {"input_tokens": 10, "output_tokens": 10},
                    }
                else:
                    body = {"type": "error", "error": {"type": "not_found_error", "message": "model: unknown"}}
                payload = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        """Stop serving and release the port."""
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def fake() -> Iterator[type[FakeMessages]]:
    servers: list[FakeMessages] = []

    def start(status: int = 200) -> FakeMessages:
        servers.append(FakeMessages(status))
        return servers[-1]

    yield start  # type: ignore[misc]
    for server in servers:
        server.close()


def llm_env(server: FakeMessages, tmp_path: Path) -> dict[str, str]:
    return {
        "ANTHROPIC_API_KEY": "sk-test-not-a-real-key",
        "ANTHROPIC_BASE_URL": server.url,
        "DEBIASRAG_CACHE_DIR": str(tmp_path / "cache"),
    }


def error_line(result: subprocess.CompletedProcess[str]) -> str:
    """The single ``debiasrag: error:`` line of a run that exited 2 (and printed nothing else of note)."""
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert len(lines) == 1 and lines[0].startswith("debiasrag: error: "), lines
    return lines[0]


def write_corpus(path: Path) -> Path:
    path.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(DOCS)), encoding="utf-8")
    return path


@pytest.mark.parametrize("chosen", ["claude-chosen-1", None])
def test_the_chosen_model_reaches_the_api_and_the_manifest(run_cli, tmp_path, fake, chosen):
    server = fake()
    out = tmp_path / "ix"
    flags = ["--llm-model", chosen] if chosen else []
    args = ["index", write_corpus(tmp_path / "c.jsonl"), "--out", out, "--anonymize", "llm", *flags, "--timeout", "5"]
    result = run_cli(*args, env=llm_env(server, tmp_path))
    assert result.returncode == 0, result.stderr
    expected = chosen or DEFAULT_LLM_MODEL
    assert server.models and set(server.models) == {expected}, server.models
    settings = read_manifest(out)["preprocessing"]["anonymize"]
    assert settings == {"method": "llm", "strategy": "remove", "entities": None, "llm_model": expected}


def test_a_query_to_the_index_does_not_call_the_recorded_model(run_cli, tmp_path, fake, monkeypatch, capsys):
    server = fake()
    out = tmp_path / "ix"
    args = ["index", write_corpus(tmp_path / "c.jsonl"), "--out", out, "--anonymize", "llm", "--llm-model", "claude-x"]
    assert run_cli(*args, env=llm_env(server, tmp_path)).returncode == 0
    sent = len(server.models)
    for name, value in llm_env(server, tmp_path).items():
        monkeypatch.setenv(name, value)
    assert main(["query", str(out), "Where did Kashvi meet Oluwafemi?", "--json"]) == 0
    captured = capsys.readouterr()
    assert "anonymized locally with NER" in captured.err
    assert len(server.models) == sent  # the manifest's llm_model is a record, not a licence to call the API
    assert json.loads(captured.out)[0]["id"] == 0


def test_the_library_retriever_anonymizes_queries_as_the_cli_does(run_cli, tmp_path, fake, monkeypatch, capsys):
    from debiasrag import DebiasedRetriever, FaissIndex

    server = fake()
    out = tmp_path / "ix"
    args = ["index", write_corpus(tmp_path / "c.jsonl"), "--out", out, "--anonymize", "llm", "--llm-model", "claude-x"]
    assert run_cli(*args, env=llm_env(server, tmp_path)).returncode == 0
    sent = len(server.models)
    for name, value in llm_env(server, tmp_path).items():
        monkeypatch.setenv(name, value)
    query = "Where did Kashvi meet Oluwafemi?"
    assert main(["query", str(out), query, "--strategy", "topk", "--json"]) == 0
    cli_ids = [hit["id"] for hit in json.loads(capsys.readouterr().out)]
    index = FaissIndex.load(out)
    with pytest.warns(UserWarning, match="anonymized locally with NER"):
        retriever = DebiasedRetriever(index, strategy="topk")
    result = retriever.retrieve(query)
    assert "Kashvi" not in result.query and "Oluwafemi" not in result.query
    assert [hit.id for hit in result] == cli_ids
    assert len(server.models) == sent  # no query went to the LLM
    plain = DebiasedRetriever(index, strategy="topk", query_transform=None).retrieve(query)  # opted out
    assert plain.query == query


def test_documents_that_fell_back_to_ner_are_counted(run_cli, tmp_path, fake):
    server = fake(500)  # every LLM answer fails: each document falls back to local NER
    out = tmp_path / "ix"
    args = ["index", write_corpus(tmp_path / "c.jsonl"), "--out", out, "--anonymize", "llm", "--timeout", "2"]
    result = run_cli(*args, env=llm_env(server, tmp_path))
    assert result.returncode == 0, result.stderr
    assert f"{len(DOCS)} of {len(DOCS)} document(s) fell back to NER" in result.stderr  # the manifest says llm


def test_an_unknown_model_is_one_line_naming_llm_model(run_cli, tmp_path, fake):
    server = fake(404)
    out = tmp_path / "ix"
    args = [
        "index",
        write_corpus(tmp_path / "c.jsonl"),
        "--out",
        out,
        "--anonymize",
        "llm",
        "--llm-model",
        "claude-nope",
    ]
    line = error_line(run_cli(*args, env=llm_env(server, tmp_path)))
    assert "the Anthropic API does not know the model 'claude-nope' (404" in line
    assert "use --llm-model" in line and "--anonymize ner" in line and "model=" not in line
    assert set(server.models) == {"claude-nope"}
    assert not out.exists()
    assert f"e.g. {DEFAULT_LLM_MODEL}" in line  # another model to try


def test_a_refused_default_model_is_not_offered_again(run_cli, tmp_path, fake):
    # The hint named the very model the API had just refused (a walkthrough, session 46).
    server = fake(404)
    args = ["index", write_corpus(tmp_path / "c.jsonl"), "--out", tmp_path / "ix", "--anonymize", "llm"]
    line = error_line(run_cli(*args, env=llm_env(server, tmp_path)))
    assert f"does not know the model '{DEFAULT_LLM_MODEL}'" in line and "use --llm-model" in line
    assert line.count(DEFAULT_LLM_MODEL) == 1


@pytest.mark.parametrize(
    "flags",
    [["--llm-model", "claude-x"], ["--anonymize", "ner", "--llm-model", "claude-x"], ["--timeout", "5"]],
    ids=["no-anonymize", "anonymize-ner", "timeout"],
)
def test_llm_flags_without_anonymize_llm_are_refused(run_cli, tmp_path, flags):
    out = tmp_path / "ix"
    line = error_line(run_cli("index", write_corpus(tmp_path / "c.jsonl"), "--out", out, *flags))
    assert line == "debiasrag: error: --llm-model and --timeout apply to --anonymize llm only"
    assert not out.exists()


@pytest.mark.parametrize(
    "flags",
    [["--llm-model", "claude-x"], ["--anonymize", "auto", "--timeout", "5"], ["--anonymize", "ner", "--timeout", "5"]],
    ids=["no-anonymize", "auto-timeout", "ner-timeout"],
)
def test_query_refuses_llm_flags_without_anonymize_llm(run_cli, tmp_path, flags):
    # they were ignored without a word: a user could think the query went to the LLM
    index = tmp_path / "ix"
    assert run_cli("index", write_corpus(tmp_path / "c.jsonl"), "--out", index).returncode == 0
    line = error_line(run_cli("query", index, "Who runs the bakery?", *flags))
    assert line == "debiasrag: error: --llm-model and --timeout apply to --anonymize llm only"


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--entities", "person"], "--entities needs"),
        (["--anonymize-strategy", "replace"], "--anonymize-strategy needs"),
        (["--entities", "person", "--anonymize-strategy", "remove"], "--entities and --anonymize-strategy need"),
    ],
)
def test_anonymization_options_without_anonymize_are_refused(run_cli, tmp_path, flags, named):
    """They would be ignored and the names embedded."""
    out = tmp_path / "ix"
    line = error_line(run_cli("index", write_corpus(tmp_path / "c.jsonl"), "--out", out, *flags))
    assert line == f"debiasrag: error: {named} --anonymize ner|llm"
    assert not out.exists()


@pytest.mark.parametrize("value", [5, "", ["claude-x"]])
def test_a_manifest_with_a_bad_llm_model_does_not_load(tmp_path, embedder, value):
    from debiasrag import Document, FaissIndex

    index = FaissIndex.from_documents([Document(1, "A cat slept in the sun.")], embedder)
    index.preprocessing = {"anonymize": {"method": "llm", "strategy": "remove", "entities": None, "llm_model": "m"}}
    index.save(tmp_path / "ix")
    manifest = json.loads((tmp_path / "ix" / "manifest.json").read_text(encoding="utf-8"))
    manifest["preprocessing"]["anonymize"]["llm_model"] = value
    (tmp_path / "ix" / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(IndexLoadError, match="'preprocessing.anonymize.llm_model' must be a model name"):
        FaissIndex.load(tmp_path / "ix")
