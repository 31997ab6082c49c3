"""The real command line for tests: :func:`cli` runs ``debiasrag.cli.main`` in this process as a subprocess would
see it; :func:`cli_process` starts a fresh interpreter, for what only a process shows."""

from __future__ import annotations

import faulthandler
import io
import logging
import os
import subprocess
import sys
import traceback
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def cli_process(
    *args: str, env: dict[str, str] | None = None, timeout: float = 180, **kwargs
) -> subprocess.CompletedProcess:
    """``debiasrag ARGS`` in a fresh interpreter, offline, with text output captured. For what only a process
    shows (imports under a given environment, signals, pipes, the network); everything else uses :func:`cli`,
    which runs the same ``main`` without paying the ~14 s import of sentence-transformers again."""
    full_env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "debiasrag.cli", *map(str, args)],
        capture_output=True,
        text=kwargs.pop("text", True),
        env=full_env,
        timeout=timeout,
        cwd=kwargs.pop("cwd", ROOT),
        **kwargs,
    )


def cli(
    *args: str | Path,
    env: dict[str, str] | None = None,
    input: str | bytes | None = None,
    cwd: str | Path | None = None,
    text: bool = True,
    timeout: float = 180,
) -> subprocess.CompletedProcess:
    """``debiasrag ARGS`` run by :func:`debiasrag.cli.console_main`'s ``main`` in this process, as a subprocess
    would see it: its own stdin / stdout / stderr (bytes under them, UTF-8), environment and working folder, an
    exception escaping ``main`` printed as a traceback with exit 1, ``argparse``'s exits kept. Logging handlers,
    warning filters, the environment and the folder are put back afterwards. A run longer than ``timeout`` ends
    the test worker with every thread's stack (a hang must not stall CI)."""
    from debiasrag.cli import main

    def stream(data: bytes = b"") -> io.TextIOWrapper:
        return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8", errors="strict", newline=None)

    stdin_bytes = input.encode("utf-8") if isinstance(input, str) else (input or b"")
    stdin, stdout, stderr = stream(stdin_bytes), stream(), stream()
    stderr.reconfigure(errors="backslashreplace")  # as Python sets up a process's stderr
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    package_logger = logging.getLogger("debiasrag")
    saved_handlers, saved_level = list(package_logger.handlers), package_logger.level
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    os.environ.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", **(env or {})})
    os.chdir(cwd or ROOT)
    faulthandler.dump_traceback_later(timeout, exit=True, file=sys.__stderr__)
    try:
        with warnings.catch_warnings():
            sys.stdin, sys.stdout, sys.stderr = stdin, stdout, stderr
            try:
                code = main([str(arg) for arg in args])
            except SystemExit as exc:  # argparse: --help, usage errors
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
                if exc.code is not None and not isinstance(exc.code, int):
                    print(exc.code, file=sys.stderr)
            except BaseException:  # what a process would print before exiting 1
                traceback.print_exc()
                code = 1
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
    finally:
        faulthandler.cancel_dump_traceback_later()
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        package_logger.handlers[:] = saved_handlers
        package_logger.setLevel(saved_level)
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    out, err = stdout.buffer.getvalue(), stderr.buffer.getvalue()  # type: ignore[attr-defined]
    argv = [sys.executable, "-m", "debiasrag.cli", *map(str, args)]
    if text:
        return subprocess.CompletedProcess(argv, code, out.decode("utf-8"), err.decode("utf-8"))
    return subprocess.CompletedProcess(argv, code, out, err)
