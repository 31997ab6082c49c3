"""Helpers shared by the subcommands: consoles, safe printing of user data, progress bars, common options.

User data (texts, ids, paths, model names) is never parsed as rich markup and never reaches the terminal
with control characters: print it through :func:`cell`, :func:`say`, :func:`warn` or :func:`print_json`.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.text import Text

from debiasrag.corpus import JsonlReport
from debiasrag.errors import InputError, check_seed
from debiasrag.fileio import dumps_strict, printable, terminal_safe_json


class _Console(Console):
    """rich's console, but a reader that closes the pipe (``| head``) raises :class:`BrokenPipeError` for
    :func:`debiasrag.cli.main` to end with exit 141, as every command does (rich's own handler exits 1)."""

    def on_broken_pipe(self) -> None:
        self.quiet = True
        raise BrokenPipeError


# Progress and tables for people go to stderr so stdout stays clean for --json and pipes.
# soft_wrap: a long warning stays one line in logs instead of being cut at 80 columns.
err_console = _Console(stderr=True, soft_wrap=True)
# Tables stay readable when stdout is a pipe or a CI log (rich would assume 80 columns there).
out_console = _Console(width=None if sys.stdout.isatty() else 140)


def cell(value: Any, style: str = "", *, one_line: bool = False) -> Text:
    """A table cell or title showing ``value`` as plain text: no markup, control characters escaped (with
    ``one_line`` newlines too: an id "a\nb" was drawn as two ids)."""
    return Text(printable(value, one_line=one_line), style=style)


def say(message: str, style: str = "") -> None:
    """Print one plain line to stderr (markup in ``message`` is shown as typed, control characters escaped)."""
    err_console.print(Text(printable(message), style=style), highlight=False, soft_wrap=True)


def no_rows(source: str, report: JsonlReport, what: str) -> str:
    """``"FILE holds no WHAT"`` (and how many bad lines were skipped): why an input left nothing to process."""
    skipped = f" ({len(report.skipped)} bad line(s) skipped)" if report.skipped else ""
    return f"{'standard input' if source == '-' else source} holds no {what}{skipped}"


def warn(message: str) -> None:
    """Print ``warning: message`` to stderr; ``message`` is plain text."""
    err_console.print(Text.assemble(("warning:", "yellow"), " ", printable(message)), highlight=False, soft_wrap=True)


def print_json(data: Any, *, indent: int | None = None, sort_keys: bool = False) -> None:
    """Print ``data`` to stdout as strict JSON (no NaN; lone surrogates and terminal controls escaped)."""
    text = terminal_safe_json(dumps_strict(data, indent=indent, sort_keys=sort_keys))  # no raw C1/bidi
    try:
        sys.stdout.write(text + "\n")
    except UnicodeEncodeError:  # stdout cannot encode some character (e.g. an ASCII locale): escape them all
        sys.stdout.write(dumps_strict(data, indent=indent, sort_keys=sort_keys, ascii_only=True) + "\n")
    sys.stdout.flush()


@contextmanager
def progress_bar(description: str, total: int | None) -> Iterator[Callable[..., None]]:
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
        task = progress.add_task(escape(printable(description)), total=total)  # the column reads markup
        yield lambda n=1: progress.advance(task, n)


def add_model_option(parser: argparse.ArgumentParser, default: str = "packaged all-MiniLM-L6-v2") -> None:
    """Add ``--model`` (dest ``model``, the name library hints use); ``default`` says what no ``--model`` means."""
    parser.add_argument(
        "--model",
        type=model_name,
        default=None,
        help=f"sentence-transformers model name or local path (default: {default})",
    )


def model_name(text: str) -> str:
    """argparse type of ``--model``: a name or path, not blank (a blank one would silently mean the default)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a model name or path, got an empty string")
    return text


def add_neutralize_option(parser: argparse.ArgumentParser, help_text: str) -> None:
    """``--neutralize [NAMES]`` (``ner`` when given alone): a gender-blind index, first names removed this way."""
    from debiasrag.counterfactual.neutralize import NAME_MODES  # the commands using it load the index anyway

    parser.add_argument(
        "--neutralize",
        choices=NAME_MODES,
        nargs="?",
        const="ner",
        default=None,
        metavar="NAMES",
        help=help_text,
    )


def flags_given(args: argparse.Namespace, *dests: str) -> list[str]:
    """The options among ``dests`` (argparse dests) the user gave, as flags: ``llm_model`` -> ``--llm-model``.
    Only for options whose default is None, so that "not given" can be told from a value."""
    return [f"--{dest.replace('_', '-')}" for dest in dests if getattr(args, dest) is not None]


def positive_int(text: str) -> int:
    """argparse type: an integer above zero."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def non_negative_int(text: str) -> int:
    """argparse type: an integer of zero or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer of 0 or more, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer of 0 or more, got {value}")
    return value


def seed_int(text: str) -> int:
    """argparse type: a random seed, an integer from 0 to 2**32 - 1 (what numpy and scikit-learn accept)."""
    try:
        return check_seed(int(text))
    except (ValueError, InputError):
        raise argparse.ArgumentTypeError(f"expected an integer from 0 to {2**32 - 1}, got {text!r}") from None
