"""A loaded index never makes a network call the user did not ask for."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from debiasrag import Document, FaissIndex


class _Recorder(BaseHTTPRequestHandler):
    requests: list[str] = []

    def do_POST(self) -> None:  # noqa: N802 - http.server's naming
        type(self).requests.append(self.path)
        body = json.dumps(
            {"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}
        ).encode()
        self.send_response(401)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


@pytest.fixture
def recording_server():
    _Recorder.requests = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", _Recorder.requests
    server.shutdown()


def test_query_of_an_llm_anonymized_index_stays_local(tmp_path, embedder, recording_server, run_cli):
    base_url, requests = recording_server
    docs = [Document(1, "She commanded the fleet."), Document(2, "A cat slept in the sun.")]
    index = FaissIndex.from_documents(docs, embedder)
    index.preprocessing = {"anonymize": {"method": "llm", "strategy": "remove", "entities": None}}
    index.save(tmp_path / "ix")
    env = {"ANTHROPIC_BASE_URL": base_url, "ANTHROPIC_API_KEY": "sk-test"}
    result = run_cli("query", tmp_path / "ix", "Who did Maria say commanded the fleet?", "--json", env=env)
    assert result.returncode == 0, result.stderr
    assert requests == []
    assert "anonymized locally with NER" in result.stderr
    assert json.loads(result.stdout)[0]["id"] == 1
    # Asked for on the command line, the LLM is used (and its failure is reported, not hidden).
    run_cli("query", tmp_path / "ix", "Who did Maria say commanded the fleet?", "--anonymize", "llm", env=env)
    assert requests, "the explicit --anonymize llm should have reached the (fake) API"
