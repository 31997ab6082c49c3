"""``debiasrag index CORPUS.jsonl --out DIR``: embed a JSONL corpus and save a FAISS index."""

from __future__ import annotations

import argparse

from debiasrag.commands._common import add_model_option, err_console, positive_int, progress_bar
from debiasrag.corpus import JsonlReport, read_documents
from debiasrag.embedders import load_embedder
from debiasrag.index import FaissIndex


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("index", help="embed a JSONL corpus and save a FAISS index folder")
    parser.add_argument(
        "corpus", help='JSONL file of {"id": ..., "text": ..., other fields -> metadata}; - reads stdin'
    )
    parser.add_argument("--out", required=True, help="index folder to write (replaced atomically)")
    add_model_option(parser)
    parser.add_argument(
        "--kind", choices=["flat", "ivf", "hnsw"], default="flat", help="FAISS index kind (default: exact)"
    )
    parser.add_argument(
        "--on-error", choices=["stop", "skip"], default="stop", help="bad lines: stop (default) or skip and report"
    )
    parser.add_argument("--batch-size", type=positive_int, default=256, help="documents embedded per batch")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    report = JsonlReport()
    documents = read_documents(args.corpus, on_error=args.on_error, report=report)
    if report.skipped:
        err_console.print(f"[yellow]warning:[/] {report.summary()}", highlight=False)
    embedder = load_embedder(args.model)
    with progress_bar("embedding", len(documents)) as advance:
        index = FaissIndex.from_documents(
            documents, embedder, batch_size=args.batch_size, progress=advance, kind=args.kind
        )
    index.save(args.out)
    err_console.print(f"indexed {len(index)} documents with {embedder.name} into {args.out}", highlight=False)
    return 0
