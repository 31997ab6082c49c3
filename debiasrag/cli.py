"""``debiasrag`` command line. Each module in :mod:`debiasrag.commands` registers its subcommands.

Bad input ends with one line ``debiasrag: error: ...`` on stderr and exit code 2, never a traceback.
The line is terminal-safe (control characters escaped), and a library error's hint names the flag of
the option it suggests (the library itself names the Python parameter).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import logging
import os
import pkgutil
import re
import shlex
import signal
import sqlite3
import sys
import warnings
from collections.abc import Sequence
from typing import Any, NoReturn

from debiasrag.errors import DebiasragError, DebiasragWarning
from debiasrag.extras import EXTRA_OF_MODULE, missing_extra
from debiasrag.fileio import printable

logger = logging.getLogger(__name__)


class _StoreOnce(argparse.Action):
    """argparse's ``store``, refusing an option that takes one value when it is given twice (``--data A --data B``):
    argparse would keep the last and drop the first without a word. Options meant to repeat (``--model``) append."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: object,
        option_string: str | None = None,
    ) -> None:
        if option_string is not None and isinstance(parser, _Parser):
            parser.given[self.dest] = parser.given.get(self.dest, 0) + 1
            if parser.given[self.dest] > 1:
                parser.error(
                    f"{option_string} given {parser.given[self.dest]} times; it takes one value (the earlier "
                    "ones would be ignored)"
                )
        setattr(namespace, self.dest, values)


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.register("action", None, _StoreOnce)  # the default action, and "store" by name
        self.register("action", "store", _StoreOnce)
        self.given: dict[str, int] = {}  # how often each one-value option came in this parse
        self.words: list[str] = []  # the words of this parse (error() reads how an option took its value)

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        self.given = {}
        self.words = list(sys.argv[1:] if args is None else args)  # for error(): how an option took its value
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> NoReturn:  # one line, exit 2 (argparse prints usage first otherwise)
        # Every error line starts with "debiasrag: error:", a subcommand's too; its --help is named instead.
        help_hint = f" (see {self.prog} --help)" if self.prog != "debiasrag" else ""
        help_hint = self._took_the_next_word(message) + help_hint
        self.exit(2, f"debiasrag: error: {printable(message)}{help_hint}\n")

    def _took_the_next_word(self, message: str) -> str:
        """A hint when an option whose value may be left out took the next word as its value ("--neutralize
        corpus.jsonl", more words after it): where to put the option. Empty otherwise ("--neutralize=bogus")."""
        swallowed = re.match(r"argument (--[\w-]+): invalid choice: '([^']*)'", message)
        if swallowed is None:
            return ""
        option, value = swallowed.groups()
        optional = any(option in action.option_strings and action.nargs == "?" for action in self._actions)
        took_next = any(a == option and b == value for a, b in zip(self.words, self.words[1:-1]))
        if not (optional and took_next):
            return ""
        return f" (to use {option} without a value, put it after {value!r}, or give it one)"


def build_parser() -> argparse.ArgumentParser:
    """The ``debiasrag`` parser with every subcommand registered (``parser.commands`` maps name → subparser)."""
    from debiasrag import __version__, commands

    parser = _Parser(prog="debiasrag", description="Less biased retrieval for RAG stacks.")
    parser.add_argument("--version", action="version", version=f"debiasrag {__version__}")
    parser.add_argument("--verbose", action="store_true", help="log fallbacks, caches and skipped lines to stderr")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"debiasrag.commands.{info.name}")
        module.register(sub)
    parser.commands = sub.choices  # type: ignore[attr-defined]
    return parser


# Library parameters whose flag has another name: the library takes an embedder (object or name), the CLI a name.
_FLAG_DEST = {"embedder": "model"}


def _flag_for(parser: argparse.ArgumentParser | None, option: str, value: object) -> str | None:
    """``--on-error skip`` for the library option ``on_error`` with value ``"skip"``, if the command has it."""
    dest = _FLAG_DEST.get(option, option)
    for action in parser._actions if parser is not None else ():
        if action.dest == dest and action.option_strings:
            flag = max(action.option_strings, key=len)
            return flag if value is None or value is True else f"{flag} {shlex.quote(str(value))}"
    return None


def error_line(exc: DebiasragError, parser: argparse.ArgumentParser | None = None) -> str:
    """The one line the CLI prints for a library error, its hint phrased with the command's flags."""
    hint = ""
    if exc.option is None:
        hint = exc.hint or ""
    else:
        flag = _flag_for(parser, exc.option, exc.value)
        if flag is not None:  # a hint naming a parameter this command has no flag for would only confuse
            hint = exc.hint_text(flag)
    message = f"{exc.message} ({hint})" if hint else exc.message
    return f"debiasrag: error: {printable(message)}"


class _PrintableFormatter(logging.Formatter):
    """Log lines (``--verbose``) carry paths and user data: one line each, control characters escaped."""

    def format(self, record: logging.LogRecord) -> str:
        return printable(super().format(record))


def _for_command(exc: DebiasragError, parser: argparse.ArgumentParser | None) -> DebiasragError:
    """A refused LLM model or key (``LlmSetupError``) says what to change with this command's flags."""
    for_cli = getattr(exc, "for_cli", None)
    if for_cli is None:
        return exc
    if getattr(exc, "kind", "") == "key" or _flag_for(parser, "llm_model", None) is not None:
        return for_cli()
    return for_cli("use --anonymize ner; this command has no --llm-model")


def _fail(line: str) -> int:
    print(line, file=sys.stderr)
    return 2


def _stdout_closed() -> int:
    """Exit as a process killed by SIGPIPE would (141), silently; later flushes go to /dev/null."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 141


def _empty_argument(words: list[str], parser: argparse.ArgumentParser) -> str | None:
    """Which argument is empty, if one is: a path of "" is the current folder to Python (``--out ""`` or ``--out=``
    wrote an index into it). Options whose default is "" (``--allow``, ``--deny``: no names) may be empty, and words
    after ``--`` are the user's text."""
    commands = getattr(parser, "commands", {}).values()
    may_be_empty = {
        flag for sub in commands for action in sub._actions if action.default == "" for flag in action.option_strings
    }
    for at, word in enumerate(words):
        if word == "--":
            return None
        named = word[:-1] if word.startswith("--") and word.endswith("=") else None
        if word == "" and at and words[at - 1].startswith("--"):
            named = words[at - 1]
        if named in may_be_empty:
            continue
        if named is not None:
            return f"{named} is given an empty value; give a value (a path, a name) or leave it out"
        if word == "":
            positional = _positional_at(words, at, parser)
            if positional == "query":  # as a query of only spaces is told (`query IDX ""`, session 45)
                return "query is empty"
            return f"argument {at + 1} is empty; give a value (a path, a name) or leave it out"
    return None


def _positional_at(words: list[str], at: int, parser: argparse.ArgumentParser) -> str | None:
    """The name of the subcommand's positional argument that ``words[at]`` is, where no option comes before it."""
    if at < 1 or any(w.startswith("-") for w in words[1:at]):
        return None
    sub = getattr(parser, "commands", {}).get(words[0])
    positionals = [a.dest for a in getattr(sub, "_actions", []) if not a.option_strings]
    return positionals[at - 1] if at - 1 < len(positionals) else None


_SHOW_WARNING = warnings.showwarning


def _show_ours(message: Any, category: type[Warning], filename: str, lineno: int, file: Any = None, line: Any = None):
    """A :class:`DebiasragWarning` as a ``warning:`` line; any other warning as Python shows it."""
    if issubclass(category, DebiasragWarning):
        from debiasrag.commands._common import warn

        warn(str(message))
        return
    _SHOW_WARNING(message, category, filename, lineno, file, line)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 ok, 1 a benchmark failed, 2 bad input, 130 interrupted,
    141 the reader of the output closed it)."""
    shown = warnings.showwarning  # a caller in the same process (a test, a notebook) gets its own back
    try:
        return _run(argv)
    finally:
        warnings.showwarning = shown


def _run(argv: Sequence[str] | None) -> int:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    if not sys.warnoptions:  # third-party warnings (joblib, torch, ...) would break the one-line contract
        warnings.simplefilter("ignore")
        warnings.simplefilter("default", DebiasragWarning)  # ours: one "warning:" line each (_show_ours)
    warnings.showwarning = _show_ours  # main() puts the caller's back
    try:
        parser = build_parser()
    except ModuleNotFoundError as exc:  # rich (the cli extra) or another optional dependency is not installed
        logger.debug("cannot build the command line: %s", exc)
        return _fail(f"debiasrag: error: {printable(missing_extra(exc, 'the command line'))}")
    refused = _empty_argument(list(sys.argv[1:] if argv is None else argv), parser)
    if refused is not None:
        return _fail(f"debiasrag: error: {refused}")
    args = parser.parse_args(argv)
    command_parser = parser.commands.get(args.command)  # type: ignore[attr-defined]
    if args.verbose:  # our own loggers only: third-party INFO lines would drown them
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(_PrintableFormatter("debiasrag: %(name)s: %(message)s"))
        package_logger = logging.getLogger("debiasrag")
        package_logger.addHandler(handler)
        package_logger.setLevel(logging.INFO)
        warnings.simplefilter("default")
    try:
        return int(args.func(args) or 0)
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in EXTRA_OF_MODULE:
            raise
        logger.debug("optional dependency missing: %s", exc)
        return _fail(error_line(missing_extra(exc, f"debiasrag {args.command}"), command_parser))
    except DebiasragError as exc:
        return _fail(error_line(_for_command(exc, command_parser), command_parser))
    except BrokenPipeError:  # the reader went away (`| head`): not an error of ours, so no message
        return _stdout_closed()
    except (OSError, UnicodeError) as exc:
        return _fail(f"debiasrag: error: {printable(exc)}")
    except sqlite3.Error as exc:  # the embedding cache (a corrupt file, a full disk)
        return _fail(f"debiasrag: error: embedding cache: {printable(exc)}")
    except KeyboardInterrupt:
        print("debiasrag: interrupted", file=sys.stderr)
        return 130


def console_main() -> int:
    """The ``debiasrag`` command: :func:`main`, then Ctrl-C is ignored while the interpreter shuts down — the work is
    done and its output written, so an interrupt landing then (unloading the models takes a second or two) must not
    turn a finished run into exit 130."""
    code = main()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(console_main())
