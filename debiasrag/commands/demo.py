"""``debiasrag demo``: the main job, end to end on bundled data."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from rich.table import Table

from debiasrag.commands._common import add_model_option, cell, out_console, positive_int, progress_bar, say
from debiasrag.datasets import load_gendered_topics, load_toy_task
from debiasrag.demo import TABLE_HEADERS, run_demo, table_cells
from debiasrag.embedders import load_embedder
from debiasrag.errors import InputError


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``demo`` subcommand."""
    parser = sub.add_parser("demo", help="index the bundled sample corpus and compare all strategies")
    parser.add_argument(
        "--out", default="demo-out", help="folder for the corpus, index and report.md (default: demo-out)"
    )
    parser.add_argument("--k", type=positive_int, default=10, help="k for the fixed-k strategies (default 10)")
    add_model_option(parser)
    parser.set_defaults(func=run)


_DEMO_FILES = {"sample_corpus.jsonl", "report.md", "index"}
# fileio.atomic_write's temp names (``.<name>.<pid>-<hex>.tmp``; before 0.1.1 without the pid)
_DEMO_TEMP = re.compile(r"^\.(sample_corpus\.jsonl|report\.md)\.(\d+-)?[0-9a-f]{8}\.tmp$")


def check_demo_folder(folder: Path) -> None:
    """Refuse an ``--out`` that holds anything but an earlier demo's output: the demo replaces those files."""
    if folder.exists() and not folder.is_dir():
        raise InputError(f"--out {folder} exists and is not a folder")
    entries = {entry.name for entry in folder.iterdir()} if folder.is_dir() else set()
    entries = {name for name in entries if not _DEMO_TEMP.match(name)}  # our own interrupted writes
    earlier_demo = (folder / "index" / "manifest.json").is_file() or _is_demo_corpus(folder / "sample_corpus.jsonl")
    if entries and (entries - _DEMO_FILES or not earlier_demo):
        raise InputError(
            f"--out {folder} is not empty and is not an earlier demo output; "
            "refusing to write the demo into it (choose a new folder)"
        )


def _is_demo_corpus(path: Path) -> bool:
    """Whether ``path`` is the demo's own sample corpus, as its first step writes it: a first run interrupted
    before the index was saved left only that (and perhaps an unfinished index folder), and a re-run must work."""
    try:
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    except (OSError, ValueError):
        return False
    return rows == [d.to_row() for d in load_gendered_topics().documents]


def run(args: argparse.Namespace) -> int:
    """Run ``debiasrag demo``; returns the exit status."""
    check_demo_folder(Path(args.out))  # before any model loads
    embedder = load_embedder(args.model)
    total = len(load_gendered_topics().queries) + len(load_toy_task().queries)
    with progress_bar("querying", total) as advance:
        results, report = run_demo(embedder, Path(args.out), args.k, on_query=advance)
    for title, rows in results.items():
        table = Table(title=cell(f"{title} — neutral queries, {embedder.name}"))
        for column in TABLE_HEADERS:
            table.add_column(column, justify="left" if column == "strategy" else "right")
        for r in rows:
            table.add_row(*(f"{c:.2f}" if isinstance(c, float) else str(c) for c in table_cells(r)))
        out_console.print(table)
    say(f"report written to {report}")
    return 0
