"""Red-team round 2, command line: cases written from issue 9 that the first suite did not try.

Bad input ends with exit 2 and one line ``debiasrag: error: …`` and leaves every file as it was; nothing a
user typed (paths, model names) reaches the terminal raw; a loaded index downloads nothing; a refused LLM
model or key names the flag to change. Cases that fail before a model loads run as subprocesses; cases that
need spaCy, MiniLM or the fake LLM server run the same ``main`` in-process so those load once.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from debiasrag import Document, FaissIndex
from debiasrag.cli import main
from debiasrag.errors import InputError

try:  # `python -m pytest` puts the checkout on sys.path; plain `pytest` puts tests/ there
    from tests.test_llm_anonymizer import FakeMessagesAPI, error, message
except ImportError:  # pragma: no cover - depends on how pytest was started
    from test_llm_anonymizer import FakeMessagesAPI, error, message


def snapshot(folder: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(folder)): (None if p.is_dir() else p.read_bytes()) for p in sorted(folder.rglob("*"))}


def rows(*items: dict) -> bytes:
    return b"".join(json.dumps(item).encode() + b"\n" for item in items)


def no_raw_controls(text: str) -> bool:
    return not any(ord(c) < 32 and c not in "\n" or 0x7F <= ord(c) < 0xA0 or c in "\u202a\u202e" for c in text)


# -- subprocess: refused before any model loads, nothing changed -------------------------------------------
def _user_folder(tmp_path: Path) -> Path:
    user = tmp_path / "user"
    user.mkdir()
    (user / "report.md").write_text("my own report, not a benchmark's\n")
    (user / "results.json").write_text('{"mine": true}\n')
    return user


DEEP, TIMEOUT = b"[" * 100_000, "argument --timeout: expected a positive number"
SEED = "argument --seed: expected an integer from 0 to 4294967295"
MITIGATE = ["mitigate", "glove", "o.txt", "--algorithm", "hd"]
TWO_X = rows({"id": "x", "text": "She ran."}, {"id": "x", "text": "He sat."})
CASES = {
    "bench-out-user-folder": (lambda t: ["bench", "sts", "--out", _user_folder(t)], "not an earlier benchmark report"),
    "bench-out-link-to-user": (lambda t: ["bench", "weat", "--out", _link(t)], "not an earlier benchmark report"),
    "demo-out-link-to-user": (lambda t: ["demo", "--out", _link(t)], "is not an earlier demo output"),
    "index-out-link-slash": (lambda t: ["index", _file(t, "c.jsonl", GOOD), "--out", f"{_link(t)}/"], "symbolic link"),
    "mitigate-deep-words": (lambda t: [*MITIGATE, "--gender-specific", _file(t, "g.json", DEEP)], "nested too deeply"),
    "mitigate-deep-sets": (lambda t: [*MITIGATE, "--definitional", _file(t, "d.json", DEEP)], "nested too deeply"),
    "mitigate-nan-sets": (lambda t: [*MITIGATE, "--definitional", _file(t, "d.json", b"[[NaN]]")], "NaN is not valid"),
    "augment-duplicate-ids": (
        lambda t: ["augment", _file(t, "in.jsonl", TWO_X), "out.jsonl", "--keep-original"],
        "line 2: duplicate id 'x' (first seen on line 1)",
    ),
    "index-anonymized-text-field": (
        lambda t: ["index", _file(t, "c.jsonl", MINE), "--out", "ix", "--anonymize", "ner"],
        "document 1 already has an 'anonymized_text' field, which --anonymize would overwrite",
    ),
    "bias-score-seed-negative": (lambda t: ["bias-score", _file(t, "c.jsonl", GOOD), "--seed", "-1"], SEED),
    "mitigate-seed-huge": (lambda t: [*MITIGATE[:3], "--algorithm", "dhd", "--seed", str(10**25)], SEED),
    "bench-seed-negative": (lambda t: ["bench", "weat", "--seed", "-5"], SEED),
    "anonymize-bad-base-url": (
        lambda t: ["anonymize", _file(t, "c.jsonl", GOOD), "o.jsonl", "--method", "llm", "--base-url", "http://[::1"],
        "use --base-url https://api.anthropic.com for the API itself",
    ),
    "query-timeout-zero": (lambda t: ["query", t, "q", "--anonymize", "llm", "--timeout", "0"], TIMEOUT),
    "query-timeout-nan": (lambda t: ["query", t, "q", "--anonymize", "llm", "--timeout", "nan"], TIMEOUT),
    # session 32's round on bench with users' data: each found before any model loads
    "bench-data-twice": (lambda t: ["bench", "retrieval", "--data", "a", "--data", "b"], "--data given 2 times"),
    "bench-out-twice": (lambda t: ["bench", "weat", "--out=a", "--out", "b"], "--out given 2 times"),
    "bench-data-abbreviated-twice": (
        lambda t: ["bench", "retrieval", "--dat", "a", "--data", "b"],
        "--data given 2 times",
    ),
    "bench-out-under-a-file": (
        lambda t: ["bench", "weat", "--out", _file(t, "f", b"x") / "sub"],
        "is a file, not a folder",
    ),
    "bench-out-plots-only": (lambda t: ["bench", "weat", "--out", _plots_only(t)], "it holds only plots/"),
}
GOOD = rows({"id": 1, "text": "A fine sentence."})
MINE = rows({"id": 1, "text": "Alice ran.", "anonymized_text": "my own field"})


def _link(tmp_path: Path) -> Path:
    link = tmp_path / "link-to-user"
    link.symlink_to(_user_folder(tmp_path), target_is_directory=True)
    return link


def _plots_only(tmp_path: Path) -> Path:
    (tmp_path / "out" / "plots" / "m").mkdir(parents=True)  # a run interrupted before its results.json
    (tmp_path / "out" / "plots" / "m" / "weat.png").write_bytes(b"png")
    return tmp_path / "out"


def _file(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


@pytest.mark.parametrize("name", list(CASES))
def test_refused_before_any_work_and_nothing_changed(tmp_path, run_cli, one_line_error, name):
    make_args, fragment = CASES[name]
    args = make_args(tmp_path)
    before = snapshot(tmp_path)
    result = run_cli(*args, cwd=tmp_path)
    one_line_error(result, fragment)
    assert snapshot(tmp_path) == before


def test_bench_out_a_broken_link_is_refused_before_the_run(tmp_path, run_cli, one_line_error):
    link = tmp_path / "broken"
    link.symlink_to(tmp_path / "nowhere")  # (the snapshot of the cases above cannot read a broken link)
    one_line_error(run_cli("bench", "weat", "--out", link, cwd=tmp_path), "is a broken symbolic link")
    assert link.is_symlink() and not (tmp_path / "nowhere").exists()


class _Recorder(BaseHTTPRequestHandler):
    seen: list[str] = []

    def _record(self) -> None:
        type(self).seen.append(f"{self.command} {self.path}")
        self.send_response(404)
        self.send_header("content-length", "0")
        self.end_headers()

    do_GET = do_HEAD = do_POST = _record  # noqa: N815 - http.server's naming

    def log_message(self, *args) -> None:
        pass


def test_query_never_downloads_the_model_an_index_names(tmp_path, embedder, run_cli_process, one_line_error):
    """Online (offline switches off, the hub pointed at a local recorder): an index's model comes from this
    machine - a cached hub snapshot loads, a missing one is one line naming --model - and no request is made."""
    from debiasrag.embedders import packaged_default_model_path

    packaged = packaged_default_model_path()
    if packaged is None:
        pytest.skip("needs the packaged MiniLM to stand in for a cached hub model")
    repo = tmp_path / "hf-home" / "hub" / "models--someone-else--minilm"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text("abc123")
    (repo / "snapshots").mkdir()
    (repo / "snapshots" / "abc123").symlink_to(packaged, target_is_directory=True)
    docs = [Document(1, "She is a nurse."), Document(2, "The sky is blue.")]
    for folder, model in (("missing", "someone-else/not-on-this-machine"), ("cached", "someone-else/minilm")):
        index = FaissIndex.from_documents(docs, embedder)
        index.model_name = model
        index.save(tmp_path / folder)
    _Recorder.seen = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        env = {
            "HF_HUB_OFFLINE": "0",
            "TRANSFORMERS_OFFLINE": "0",
            "HF_ENDPOINT": f"http://127.0.0.1:{server.server_address[1]}",
            "HF_HOME": str(tmp_path / "hf-home"),
        }
        missing = run_cli_process("query", tmp_path / "missing", "Who is a nurse?", env=env)
        cached = run_cli_process(
            "query", tmp_path / "cached", "Who is a nurse?", "--json", "--strategy", "topk", env=env
        )
    finally:
        server.shutdown()
    one_line_error(missing, "'someone-else/not-on-this-machine' is not on this machine", "use --model")
    assert cached.returncode == 0, cached.stderr[-2000:]
    assert json.loads(cached.stdout)[0]["id"] == 1
    assert _Recorder.seen == []


def test_verbose_log_lines_escape_paths(tmp_path, run_cli):
    corpus = _file(tmp_path, "c\x1b[2J\u202e.jsonl", b'{"id": 1, "text": NaN}\n')
    result = run_cli("--verbose", "index", corpus, "--out", tmp_path / "ix", "--on-error", "skip")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "skipped line 1" in result.stderr and "c\\x1b[2J\\u202e.jsonl" in result.stderr
    assert no_raw_controls(result.stderr), result.stderr


def test_bench_report_prints_no_raw_controls_and_writes_strict_json(tmp_path, run_cli):
    from debiasrag.commands.bench import check_report_folder

    data = _file(
        tmp_path,
        "set\x1b[2J.jsonl",
        rows(
            {"kind": "query", "id": "q1", "text": "Who is a nurse?"},
            {"kind": "document", "id": "d1", "text": "She is a nurse.", "group": "female", "relevant_to": ["q1"]},
            {"kind": "document", "id": "d2", "text": "He is a nurse.", "group": "male", "relevant_to": ["q1"]},
            {"kind": "document", "id": "d3", "text": "The sky is blue.", "group": "neutral"},
        ),
    )
    out = tmp_path / "rep[bold]\x1b]0;x\x07"
    result = run_cli("bench", "retrieval", "--data", data, "--out", out, "--cache-dir", tmp_path / "cache")
    assert result.returncode == 0, result.stderr[-2000:]
    assert no_raw_controls(result.stdout) and no_raw_controls(result.stderr)
    assert "set\\x1b[2J.jsonl" in result.stdout  # the command line in the report, escaped on the terminal
    json.loads((out / "results.json").read_text(encoding="utf-8"), parse_constant=pytest.fail)  # strict JSON
    check_report_folder(out)  # an earlier report may be replaced by the next run
    assert sorted(p.name for p in out.iterdir()) == ["report.md", "results.json"] + (
        ["plots"] if (out / "plots").exists() else []
    )
    # a report file that is a link to a file of the user's: the next run would write through it, outside --out
    mine = _file(tmp_path, "notes.md", b"mine\n")
    (out / "report.md").unlink()
    (out / "report.md").symlink_to(mine)
    with pytest.raises(InputError, match=r"'report.md' is a symbolic link; the report writes only files of its own"):
        check_report_folder(out)
    result = run_cli("bench", "retrieval", "--data", data, "--out", out, "--cache-dir", tmp_path / "cache")
    assert result.returncode == 2 and mine.read_bytes() == b"mine\n"


# -- in-process: augment (spaCy) -----------------------------------------------------------------------
def test_augment_never_overwrites_a_users_counterfactual_of(tmp_path, capsys):
    source = _file(tmp_path, "in.jsonl", rows({"id": "x", "text": "She is a nurse.", "counterfactual_of": "mine"}))
    target = _file(tmp_path, "out.jsonl", b"old output\n")
    assert main(["augment", str(source), str(target), "--keep-original"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("debiasrag: error: line 1: the row already has a 'counterfactual_of' field")
    assert err.count("\n") == 1 and target.read_bytes() == b"old output\n"


def test_augment_without_keep_original_passes_any_id_through(tmp_path, capsys):
    source = _file(tmp_path, "in.jsonl", rows({"id": [1], "text": "She is a nurse."}, {"id": None, "text": "He ran."}))
    assert main(["augment", str(source), str(tmp_path / "out.jsonl")]) == 0, capsys.readouterr().err
    written = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [row["id"] for row in written] == [[1], None] and written[0]["text"] == "He is a nurse."


# -- in-process: query --anonymize llm against the fake Messages API ----------------------------------------
@pytest.fixture
def small_index(tmp_path, embedder) -> Path:
    docs = [Document(1, "She commanded the fleet."), Document(2, "A cat slept in the sun.")]
    FaissIndex.from_documents(docs, embedder).save(tmp_path / "ix")
    return tmp_path / "ix"


@pytest.fixture
def llm_env(tmp_path, monkeypatch):
    def use(server: FakeMessagesAPI) -> None:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-not-a-real-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.url)
        monkeypatch.setenv("DEBIASRAG_CACHE_DIR", str(tmp_path / "cache"))

    return use


def test_query_llm_unknown_model_names_the_query_flag(small_index, llm_env, capsys):
    with FakeMessagesAPI(lambda doc, attempt: error(404, "not_found_error")) as server:
        llm_env(server)
        code = main(["query", str(small_index), "Who did Maria say commanded the fleet?", "--anonymize", "llm",
                     "--llm-model", "claude-nope"])  # fmt: skip
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith("debiasrag: error: the Anthropic API does not know the model 'claude-nope' (404")
    assert "use --llm-model" in err and "model=" not in err


def test_query_llm_timeout_flag_bounds_a_hung_server(small_index, llm_env, capsys):
    def hang(doc, attempt):
        return (*message(doc)[:3], 30.0)

    with FakeMessagesAPI(hang) as server:
        llm_env(server)
        started = time.perf_counter()
        code = main(["query", str(small_index), "Who did Maria say commanded the fleet?", "--anonymize", "llm",
                     "--timeout", "0.5", "--json"])  # fmt: skip
        elapsed = time.perf_counter() - started
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert json.loads(captured.out)[0]["id"] == 1
    assert elapsed < 25  # five 0.5 s attempts and the SDK's backoff, then NER; never the server's 30 s each


def test_bench_llm_unknown_model_names_the_bench_flag(llm_env, capsys):
    """bench --anonymize llm takes --llm-model / --timeout; the model reaches the API and a 404 names the flag."""
    with FakeMessagesAPI(lambda doc, attempt: error(404, "not_found_error")) as server:
        llm_env(server)
        code = main(["bench", "sts", "--anonymize", "llm", "--llm-model", "claude-nope", "--timeout", "5"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith("debiasrag: error: the Anthropic API does not know the model 'claude-nope' (404")
    assert "use --llm-model" in err
    assert main(["bench", "sts", "--llm-model", "claude-nope"]) == 2  # without --anonymize llm: refused
    assert "apply to --anonymize llm only" in capsys.readouterr().err


def test_bench_llm_without_a_key_is_refused_before_any_work(tmp_path, monkeypatch, capsys):
    """Without ANTHROPIC_API_KEY every anonymized variant was skipped and the run said "ok" (exit 0)."""
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    assert main(["bench", "sts", "--anonymize", "llm", "--out", str(tmp_path / "report")]) == 2
    assert capsys.readouterr().err.strip() == (
        "debiasrag: error: --anonymize llm needs an Anthropic API key: set ANTHROPIC_API_KEY "
        "(or use --anonymize ner, which runs offline)"
    )
    assert not (tmp_path / "report").exists()


def test_llm_refusal_in_a_command_without_llm_model_flag():
    """A command without --llm-model says what it can change instead (every LLM command has the flag now,
    so one without it, demo, stands in); the ones with it name it."""
    from debiasrag.anonymize import LlmSetupError
    from debiasrag.cli import _for_command, build_parser, error_line

    commands = build_parser().commands  # type: ignore[attr-defined]
    refused = LlmSetupError("the Anthropic API does not know the model 'm' (404 not_found_error)", hint="pass model=")
    refused.cli_hint, refused.kind = "use --llm-model with a listed model", "model"
    assert error_line(_for_command(refused, commands["demo"]), commands["demo"]).endswith(
        "(use --anonymize ner; this command has no --llm-model)"
    )
    for command in ("index", "query", "bench", "anonymize"):
        assert error_line(_for_command(refused, commands[command]), commands[command]).endswith(
            "(use --llm-model with a listed model)"
        )
    key = LlmSetupError("the Anthropic API refused the API key (401 authentication_error)", hint="pass api_key=")
    key.cli_hint, key.kind = "set a valid key in ANTHROPIC_API_KEY", "key"
    assert error_line(_for_command(key, commands["index"]), commands["index"]).endswith(
        "(set a valid key in ANTHROPIC_API_KEY)"
    )


@pytest.mark.parametrize("table", [False, True])
def test_a_reader_that_closes_the_pipe_ends_the_run_quietly(tmp_path: Path, table: bool) -> None:
    """`debiasrag ... | head -0`: no traceback, no error line, the SIGPIPE exit status (141) — also for a command
    whose output is a rich table (`bias-score`: rich's own handler exited 1)."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    corpus = tmp_path / "c.jsonl"
    corpus.write_text('{"text": "She is a nurse."}\n{"text": "He is a pilot."}\n', encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "debiasrag.cli", *(["bias-score", str(corpus)] if table else ["bench", "list"])],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=Path(__file__).resolve().parents[2],
    )
    proc.stdout.close()  # before the child has imported anything, so its first write finds no reader
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 141, stderr.decode()
    assert stderr.decode().strip() == ""
