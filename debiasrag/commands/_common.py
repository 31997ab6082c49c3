"""Helpers shared by the subcommands: stderr console, progress bars, common options."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

# Progress and tables for people go to stderr so stdout stays clean for --json and pipes.
# soft_wrap: a long warning stays one line in logs instead of being cut at 80 columns.
err_console = Console(stderr=True, soft_wrap=True)
# Tables stay readable when stdout is a pipe or a CI log (rich would assume 80 columns there).
out_console = Console(width=None if sys.stdout.isatty() else 140)


@contextmanager
def progress_bar(description: str, total: int | None) -> Iterator[callable]:
    """Yield ``advance(n)``; draws a rich bar on stderr (hidden when stderr is not a terminal)."""
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=err_console,
        transient=True,
        disable=not err_console.is_terminal,
    )
    with progress:
        task = progress.add_task(description, total=total)
        yield lambda n=1: progress.advance(task, n)


def add_model_option(parser: argparse.ArgumentParser, help_suffix: str = "") -> None:
    parser.add_argument(
        "--model",
        default=None,
        help="sentence-transformers model name or local path (default: packaged all-MiniLM-L6-v2)" + help_suffix,
    )


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value
