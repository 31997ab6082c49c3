"""``debiasrag`` command line. Each module in :mod:`debiasrag.commands` registers its subcommands.

Bad input ends with one line ``debiasrag: error: ...`` on stderr and exit code 2, never a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence

from debiasrag.errors import DebiasragError
from debiasrag.extras import EXTRA_OF_MODULE, missing_extra


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line, exit 2 (argparse prints usage first otherwise)
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    from debiasrag import __version__, commands

    parser = _Parser(prog="debiasrag", description="Less biased retrieval for RAG stacks.")
    parser.add_argument("--version", action="version", version=f"debiasrag {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"debiasrag.commands.{info.name}")
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    try:
        parser = build_parser()
    except ModuleNotFoundError as exc:  # rich (the cli extra) or another optional dependency is not installed
        print(f"debiasrag: error: {missing_extra(exc, 'the command line')}", file=sys.stderr)
        return 2
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in EXTRA_OF_MODULE:
            raise
        print(f"debiasrag: error: {missing_extra(exc, f'debiasrag {args.command}')}", file=sys.stderr)
        return 2
    except DebiasragError as exc:
        print(f"debiasrag: error: {exc}", file=sys.stderr)
        return 2
    except (OSError, UnicodeError) as exc:
        print(f"debiasrag: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("debiasrag: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
