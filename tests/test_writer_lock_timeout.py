"""A save waits a bounded time for another writer's lock (``lock_timeout``, ``--lock-timeout``).

Another process really holds ``DIR/.debiasrag.lock`` (a second interpreter that flocks it): a save with a short
timeout gives up with :class:`IndexWriteError` naming the lock file, and the previous index is unchanged and
loads; a lock released in time lets the save through; ``None`` waits without limit.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from debiasrag import Document, FaissIndex
from debiasrag.errors import IndexWriteError, InputError
from debiasrag.storage import DEFAULT_LOCK_TIMEOUT, LOCK_FILE, read_manifest

# Holds the lock until its stdin closes, or for argv[2] seconds when given; says "locked" once it has it.
HOLDER = """
import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)
fcntl.flock(fd, fcntl.LOCK_EX)
print("locked", flush=True)
if len(sys.argv) > 2:
    time.sleep(float(sys.argv[2]))
else:
    sys.stdin.read()
"""


def small_index(ids: list[str]) -> FaissIndex:
    rng = np.random.default_rng(len(ids))
    vectors = rng.normal(size=(len(ids), 8)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index = FaissIndex(8)
    index.add([Document(i, f"text of {i}") for i in ids], vectors)
    return index


@pytest.fixture
def saved(tmp_path) -> Path:
    folder = tmp_path / "ix"
    small_index(["old-1", "old-2"]).save(folder)
    return folder


def hold_lock(folder: Path, seconds: float | None = None) -> subprocess.Popen[str]:
    """A second process holding ``folder``'s writer lock (until its stdin closes, or for ``seconds``)."""
    args = [sys.executable, "-c", HOLDER, str(folder / LOCK_FILE), *([] if seconds is None else [str(seconds)])]
    proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "locked"
    return proc


@pytest.fixture
def holder(saved) -> Iterator[subprocess.Popen[str]]:
    proc = hold_lock(saved)
    yield proc
    assert proc.stdin is not None
    proc.stdin.close()
    proc.wait(timeout=10)


def versions(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("debiasrag-data-"))


def test_a_held_lock_times_out_with_our_error_and_the_old_index_intact(saved, holder):
    before = (read_manifest(saved), versions(saved))
    started = time.monotonic()
    with pytest.raises(IndexWriteError) as caught:
        small_index(["new-1"]).save(saved, lock_timeout=0.5)
    elapsed = time.monotonic() - started
    assert 0.5 <= elapsed < 5, elapsed
    message = str(caught.value)
    assert "\n" not in message
    assert str(saved / LOCK_FILE) in message and "the previous index is unchanged" in message
    assert "lock_timeout=60" in message  # the hint names the parameter to change
    assert (read_manifest(saved), versions(saved)) == before  # nothing was written
    assert FaissIndex.load(saved).ids == ["old-1", "old-2"]


@pytest.mark.parametrize("lock_timeout", [5, None], ids=["bounded", "unbounded"])
def test_a_lock_released_in_time_lets_the_save_through(saved, lock_timeout):
    proc = hold_lock(saved, seconds=0.4)
    started = time.monotonic()
    small_index(["new-1"]).save(saved, lock_timeout=lock_timeout)
    elapsed = time.monotonic() - started
    proc.wait(timeout=10)
    assert elapsed >= 0.2, elapsed  # it did wait for the other writer
    assert FaissIndex.load(saved).ids == ["new-1"]


def test_zero_tries_once_and_a_free_lock_needs_no_wait(saved):
    small_index(["new-1"]).save(saved, lock_timeout=0)
    assert FaissIndex.load(saved).ids == ["new-1"]
    proc = hold_lock(saved)
    try:
        with pytest.raises(IndexWriteError, match="the previous index is unchanged"):
            small_index(["new-2"]).save(saved, lock_timeout=0)
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=10)
    assert FaissIndex.load(saved).ids == ["new-1"]


@pytest.mark.parametrize("value", [-1, math.nan, math.inf, "5", True])
def test_a_bad_lock_timeout_is_refused_before_any_work(tmp_path, value):
    with pytest.raises(InputError, match="lock_timeout must be a number of seconds"):
        small_index(["a"]).save(tmp_path / "ix", lock_timeout=value)
    assert not (tmp_path / "ix").exists()


def test_the_default_is_bounded():
    assert DEFAULT_LOCK_TIMEOUT == 600


def test_cli_lock_timeout_is_one_line_naming_the_lock_and_the_flag(run_cli, tmp_path, embedder):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"id": "new", "text": "A cat slept in the sun."}) + "\n", encoding="utf-8")
    folder = tmp_path / "ix"
    FaissIndex.from_documents([Document("old", "The train left at noon.")], embedder).save(folder)
    before = read_manifest(folder)
    proc = hold_lock(folder)
    try:
        result = run_cli("index", corpus, "--out", folder, "--lock-timeout", "0.5")
    finally:
        assert proc.stdin is not None
        proc.stdin.close()
        proc.wait(timeout=10)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr
    assert len(lines) == 1 and lines[0].startswith("debiasrag: error: "), lines
    assert str(folder / LOCK_FILE) in lines[0] and "the previous index is unchanged" in lines[0]
    assert "use --lock-timeout 60 to wait longer" in lines[0] and "lock_timeout=" not in lines[0]
    assert read_manifest(folder) == before
    assert FaissIndex.load(folder, embedder=embedder).ids == ["old"]


@pytest.mark.parametrize("value", ["0", "-1", "soon"])
def test_cli_bad_lock_timeout_is_a_usage_error(run_cli, tmp_path, value):
    corpus = tmp_path / "c.jsonl"
    corpus.write_text(json.dumps({"id": 1, "text": "A cat."}) + "\n", encoding="utf-8")
    result = run_cli("index", corpus, "--out", tmp_path / "ix", "--lock-timeout", value)
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.returncode == 2 and len(lines) == 1 and "--lock-timeout" in lines[0], result.stderr
    assert not (tmp_path / "ix").exists()
