"""``debiasrag query DIR "QUERY"``: retrieve from a saved index with a debiasing strategy."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from rich.table import Table

from debiasrag.anonymize.llm import DEFAULT_TIMEOUT, LlmSetupError
from debiasrag.commands._common import (
    add_model_option,
    cell,
    err_console,
    non_negative_int,
    out_console,
    positive_int,
    print_json,
    warn,
)
from debiasrag.commands.anonymize import add_timeout_option, refuse_llm_flags_without_llm
from debiasrag.embedders import index_embedder, load_embedder
from debiasrag.errors import InputError
from debiasrag.index import FaissIndex, read_manifest
from debiasrag.retriever import DebiasedRetriever, RetrievalResult, validate_query
from debiasrag.strategies import STRATEGIES, Dynamic


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``query`` subcommand."""
    parser = sub.add_parser("query", help="retrieve from an index folder")
    parser.add_argument("index", help="index folder written by `debiasrag index`")
    parser.add_argument("query", help="the (neutral) query")
    parser.add_argument(
        "--k", type=positive_int, default=None, help="results to return (a cap for dynamic; default 10)"
    )
    parser.add_argument(
        "--strategy", choices=list(STRATEGIES), default="dynamic", help="retrieval strategy (default: dynamic)"
    )
    parser.add_argument(
        "--versions",
        action="store_true",
        help="with --strategy dynamic, for corpora holding versions of their texts (female / male / neutral "
        "wordings, gender-swapped copies) and questions with one answer text: cut over texts and return every "
        "wording of the kept ones",
    )
    parser.add_argument(
        "--concept", default="gender", help="bundled concept (gender, age, wealth) or a concept .json file"
    )
    add_model_option(parser, default="the model the index was built with")
    parser.add_argument("--json", action="store_true", help="print a JSON array of hits")
    parser.add_argument(
        "--text-chars",
        type=non_negative_int,
        default=300,
        help="characters of each hit's text the table shows (default 300, 0 = all; --json always gives all)",
    )
    parser.add_argument(
        "--anonymize",
        choices=["auto", "ner", "llm", "none"],
        default="auto",
        help="anonymize the query first; auto (default) = as the index's corpus was anonymized",
    )
    parser.add_argument("--llm-model", default=None, help="with --anonymize llm: the Anthropic model")
    add_timeout_option(parser, "with --anonymize llm", default=None)
    parser.set_defaults(func=run)


def query_anonymizer(args: argparse.Namespace, index: FaissIndex) -> Callable[[str], str] | None:
    """The same anonymization the corpus got (recorded in the index), unless --anonymize says otherwise.

    A loaded index never makes us call a remote service on its own: when its corpus was anonymized by
    the LLM, ``auto`` anonymizes the query with the local NER anonymizer; only ``--anonymize llm`` on
    the command line sends the query to the LLM.
    """
    if args.anonymize == "none":
        return None
    from debiasrag.anonymize import as_query_transform, get_anonymizer, recorded_query_transform

    if args.anonymize == "auto":
        transform, note = recorded_query_transform(index.preprocessing)
        if note:
            err_console.print(f"note: {note}", markup=False, highlight=False)
        return transform
    settings = dict(index.preprocessing.get("anonymize") or {})
    options: dict = {}
    if args.anonymize == "llm":  # asked for on the command line: model and timeout from its flags
        timeout = DEFAULT_TIMEOUT if args.timeout is None else args.timeout
        options = {"timeout": timeout, **({"model": args.llm_model} if args.llm_model else {})}
    anonymizer = get_anonymizer(args.anonymize, strategy=settings.get("strategy", "remove"), entities=None, **options)
    return as_query_transform(anonymizer)


def run(args: argparse.Namespace) -> int:
    """Run ``debiasrag query``; returns the exit status."""
    validate_query(args.query)  # fail before loading a model
    refuse_llm_flags_without_llm(args.anonymize, args.llm_model, args.timeout)  # else ignored without a word
    if args.versions and args.strategy != "dynamic":
        raise InputError(f"--versions applies to --strategy dynamic, not {args.strategy}")
    manifest = read_manifest(args.index)
    # The model named by the index is never downloaded on its say-so; --model names one to download.
    embedder = load_embedder(args.model) if args.model else index_embedder(manifest.get("model"))
    index = FaissIndex.load(args.index, embedder=embedder)
    retriever = DebiasedRetriever(
        index,
        embedder,
        concept=args.concept,
        strategy=Dynamic(versions=True) if args.versions else args.strategy,
        query_transform=query_anonymizer(args, index),
    )
    note = retriever.detector.evidence_note()
    if note is not None and args.strategy in ("balanced", "dynamic"):  # the library's warning: the CLI hides warnings
        warn(note)
    try:
        result = retriever.retrieve(args.query, k=args.k)
    except LlmSetupError as exc:  # unknown model / refused key: name the flag, not the library parameter
        raise exc.for_cli() from None
    if args.json:  # strict JSON: ids of any size kept exactly, non-finite numbers as null
        print_json([hit.to_dict() for hit in result])
        return 0
    # Fairness is judged on the groups of the documents returned: show them when the strategy balanced them.
    grouped = bool(result.balanced_groups)
    caption = _balance_caption(result) if grouped else None
    table = Table(title=cell(f"{result.strategy}: {result.m} result(s) for {result.query!r}"), caption=caption)
    columns = (
        ("rank", "score", "variant", "group", "id", "text") if grouped else ("rank", "score", "variant", "id", "text")
    )
    for column in columns:
        table.add_column(column, overflow="fold")
    for hit in result:
        group = (cell(hit.group or "-"),) if grouped else ()
        row_id = cell(hit.id, one_line=True)  # an id's newline is part of it, not a second id
        table.add_row(
            str(hit.rank),
            f"{hit.score:.3f}",
            cell(hit.variant),
            *group,
            row_id,
            cell(_preview(hit.text, args.text_chars)),
        )
    out_console.print(table)
    return 0


def _preview(text: str, chars: int) -> str:
    """The first ``chars`` characters of ``text`` (0: all), with how much was left out: a web page is one hit, and
    the table printed whole pages (a new user's walkthrough, session 48)."""
    if not chars or len(text) <= chars:
        return text
    return f"{text[:chars].rstrip()}… [+{len(text) - chars} characters]"


def _balance_caption(result: RetrievalResult) -> str:
    """The groups balanced and how many of each were returned; says so when the swap bound left them unequal."""
    shown = ", ".join(f"{group} {n}" for group, n in result.group_counts.items())
    unequal = " (not equal: no candidate within the swap bound closes the gap)"
    return f"balanced groups: {shown}" + ("" if result.groups_equal else unequal)
