"""``debiasrag index CORPUS.jsonl --out DIR``: embed a JSONL corpus and save a FAISS index (or build it from
precomputed shards with ``--shards DIR ...``, nothing embedded)."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from debiasrag.anonymize.llm import DEFAULT_LLM_MODEL
from debiasrag.commands._common import (
    add_model_option,
    add_neutralize_option,
    flags_given,
    positive_int,
    progress_bar,
    say,
    warn,
)
from debiasrag.commands.anonymize import add_timeout_option, positive_float, refuse_llm_flags_without_llm
from debiasrag.corpus import Document, JsonlReport, read_documents
from debiasrag.embedders import load_embedder
from debiasrag.errors import InputError
from debiasrag.fileio import printable
from debiasrag.groups import census_counts, detector, mixed_census, user_labelled
from debiasrag.index import FaissIndex
from debiasrag.storage import DEFAULT_LOCK_TIMEOUT, check_writable_target


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``index`` subcommand."""
    parser = sub.add_parser("index", help="embed a JSONL corpus and save a FAISS index folder")
    parser.add_argument(
        "corpus",
        nargs="?",
        help='JSONL file of {"id": ..., "text": ..., other fields -> metadata}; - reads stdin',
    )
    parser.add_argument(
        "--shards",
        nargs="+",
        metavar="DIR",
        default=None,
        help="build from shard folders or files written by debiasrag.scale (ShardWriter, run_ray, run_datasets) "
        "instead of a corpus: nothing is embedded, the shards' groups are stored (versions across shards read by "
        "contrast)",
    )
    parser.add_argument(
        "--out",
        required=True,
        help="index folder to write: new, empty, or an existing index (a new version is published atomically)",
    )
    add_model_option(parser)
    parser.add_argument(
        "--kind", choices=["flat", "ivf", "hnsw"], default="flat", help="FAISS index kind (default: flat, exact)"
    )
    # None until given, so that --shards (nothing read, nothing embedded) can refuse them
    parser.add_argument(
        "--on-error", choices=["stop", "skip"], default=None, help="bad lines: stop (default) or skip and report"
    )
    parser.add_argument(
        "--batch-size", type=positive_int, default=None, help="documents embedded per batch (default: 256)"
    )
    parser.add_argument(
        "--lock-timeout",
        type=positive_float,
        default=DEFAULT_LOCK_TIMEOUT,
        metavar="SECONDS",
        help="wait at most this long for another save to the same --out to finish "
        f"(default: {DEFAULT_LOCK_TIMEOUT:g}); the previous index is kept when it runs out",
    )
    add_anonymize_options(parser)
    add_neutralize_option(
        parser,
        "gender-blind index: embed each document's gender-neutral wording (pronouns, gendered words, titles; "
        "first names removed by NER, 'ner', the default, or the name tables, 'table', or kept, 'keep'); the "
        "original text is stored, queries are neutralized the same way, and balanced swaps within a narrower bound",
    )
    parser.set_defaults(func=run)


def add_anonymize_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--anonymize`` and its options (``--anonymize-strategy``, ``--entities``, ``--llm-model``,
    ``--timeout``) to ``parser``."""
    parser.add_argument(
        "--anonymize",
        choices=["ner", "llm"],
        default=None,
        help="remove names before embedding (spaCy NER, or an Anthropic LLM with NER fallback); "
        "queries to this index are then anonymized the same way",
    )
    parser.add_argument(
        "--anonymize-strategy", choices=["remove", "replace"], default=None, help="with --anonymize (default: remove)"
    )
    parser.add_argument("--entities", default=None, help="entity types to anonymize, e.g. person,location,organization")
    parser.add_argument(
        "--llm-model", default=None, help=f"with --anonymize llm: the Anthropic model (default: {DEFAULT_LLM_MODEL})"
    )
    add_timeout_option(parser, "with --anonymize llm", default=None, dest="anonymize_timeout")


def anonymize_settings(args: argparse.Namespace) -> dict[str, Any] | None:
    """What ``--anonymize`` asks for, as recorded in the index's manifest (``None`` without ``--anonymize``).

    With ``llm`` the settings name the model used (``llm_model``), so the manifest says which model shaped the
    vectors. A query to the index still never calls the LLM on the manifest's say-so (see ``debiasrag query``).
    ``--llm-model`` and ``--timeout`` without ``--anonymize llm`` are an :class:`InputError`.
    """
    refuse_llm_flags_without_llm(args.anonymize, args.llm_model, args.anonymize_timeout)
    if not args.anonymize:
        given = flags_given(args, "entities", "anonymize_strategy")
        if given:  # would be ignored, and the names embedded
            raise InputError(f"{' and '.join(given)} {'need' if len(given) > 1 else 'needs'} --anonymize ner|llm")
        return None
    settings: dict[str, Any] = {
        "method": args.anonymize,
        "strategy": args.anonymize_strategy or "remove",
        "entities": args.entities,
    }
    if args.anonymize == "llm":
        settings["llm_model"] = args.llm_model if args.llm_model is not None else DEFAULT_LLM_MODEL
    return settings


def anonymize_documents(documents: list[Document], settings: dict, timeout: float | None = None) -> list[str]:
    """Texts to embed: each document's text with names removed. The stored text stays the original.

    ``settings`` are :func:`anonymize_settings` (with ``llm``, ``llm_model`` is the model asked). ``timeout``
    (seconds per LLM request attempt) is a run setting, not stored in the index's manifest.
    """
    from debiasrag.anonymize import LlmSetupError, get_anonymizer

    options: dict[str, Any] = {}
    if settings["method"] == "llm":
        options["model"] = settings.get("llm_model", DEFAULT_LLM_MODEL)
        if timeout is not None:
            options["timeout"] = timeout
    anonymizer = get_anonymizer(
        settings["method"], strategy=settings["strategy"], entities=settings["entities"], **options
    )
    texts: list[str] = []
    fallbacks = 0
    try:
        with progress_bar("anonymizing", len(documents)) as advance:
            for start in range(0, len(documents), 256):
                batch = documents[start : start + 256]
                for doc, result in zip(batch, anonymizer.anonymize_batch([d.text for d in batch])):
                    doc.metadata["anonymized_text"] = result.text
                    texts.append(result.text)
                    fallbacks += result.fallback is not None
                advance(len(batch))
    except LlmSetupError as exc:  # unknown model / refused key: one line naming what to change
        # A refused model: another --llm-model, or the offline NER anonymizer.
        hint = None if exc.kind == "key" else f"{exc.cli_hint}, or use --anonymize ner"
        raise exc.for_cli(hint) from None
    if fallbacks:  # the manifest records the LLM, so say which documents NER anonymized instead
        warn(f"{fallbacks} of {len(documents)} document(s) fell back to NER (the LLM answer failed or was rejected)")
    return texts


def _label_problem(document: Document) -> str | None:
    """Why a row's ``debiasrag_group`` label can label nothing (its line named, skipped with --on-error skip), or
    None: a bad label stopped the run after reading, without its line, whatever --on-error said."""
    if not user_labelled(document.metadata):
        return None
    try:
        detector("gender").group("", document.metadata, doc_id=document.id)
    except InputError as exc:
        return str(exc)
    return None


def run(args: argparse.Namespace) -> int:
    """Run ``debiasrag index``; returns the exit status."""
    settings = anonymize_settings(args)  # a misplaced --llm-model / --timeout: refused before any work
    if args.shards is not None:
        return run_from_shards(args, settings)
    if args.corpus is None:
        raise InputError("give a corpus (a JSONL file, or - for stdin) or --shards DIR")
    check_writable_target(Path(args.out))  # fail before reading, anonymizing and embedding, not after
    report = JsonlReport()
    documents = read_documents(args.corpus, on_error=args.on_error or "stop", report=report, check=_label_problem)
    if report.skipped:
        warn(report.summary())
    if args.anonymize:  # the anonymized text is stored there: never overwrite a field of the user's own
        clash = next((d for d in documents if "anonymized_text" in d.metadata), None)
        if clash is not None:
            raise InputError(
                f"document {clash.id!r} already has an 'anonymized_text' field, which --anonymize would overwrite",
                hint="rename that field first",
            )
    groups, mixed = mixed_census(documents)  # a bad debiasrag_group label stops here, before embedding or writing
    summary = census_counts(groups, mixed)
    mixed_ids = [doc.id for doc, named_both in zip(documents, mixed) if named_both]
    embedder = load_embedder(args.model)
    from debiasrag.counterfactual.neutralize import neutralizer_for

    neutralizer = neutralizer_for(args.neutralize)
    if settings is not None:
        embed_texts = anonymize_documents(documents, settings, timeout=args.anonymize_timeout)
    else:
        embed_texts = [d.text for d in documents]
    if neutralizer is not None:  # after anonymizing: the neutral wording of what would be embedded
        with progress_bar("neutralizing", len(documents)) as advance:
            neutral: list[str] = []
            for start in range(0, len(embed_texts), 256):
                neutral += neutralizer.neutralize_batch(embed_texts[start : start + 256])
                advance(min(256, len(embed_texts) - start))
        embed_texts = neutral
    preprocessing = {
        **({"anonymize": settings} if settings is not None else {}),
        **({"neutralize": neutralizer.settings} if neutralizer is not None else {}),
    }
    with progress_bar("embedding", len(documents)) as advance:  # the original text is stored, the rewritten embedded
        index = FaissIndex.from_documents(
            documents,
            embedder,
            batch_size=args.batch_size or 256,
            progress=advance,
            kind=args.kind,
            embed_texts=embed_texts,
            preprocessing=preprocessing,
        )
    # inferred once (above, from the original text, versions read by contrast), stored for queries to read
    index.store_groups("gender", groups=groups, versions=False)
    replaced: list[dict[str, Any]] = []
    index.save(args.out, lock_timeout=args.lock_timeout, on_replaced=replaced.append)
    say(describe_groups(summary, len(documents), mixed_ids))
    say_replaced(args.out, replaced, index)
    say(f"indexed {len(index)} documents with {embedder.name} into {args.out}")  # last line: what tools read
    return 0


def run_from_shards(args: argparse.Namespace, settings: dict[str, Any] | None) -> int:
    """``debiasrag index --shards DIR ... --out OUT``: the shards' vectors as they are, their groups stored."""
    from debiasrag.shards import index_from_shards, shards_mixed

    given = [
        flag
        for flag, on in (
            ("a corpus", args.corpus),
            ("--anonymize", settings),
            ("--neutralize", args.neutralize),
            ("--batch-size", args.batch_size),
            ("--on-error", args.on_error),
        )
        if on
    ]
    if given:  # the shards were preprocessed when they were written; their sidecars say how
        raise InputError(f"--shards builds from vectors already made: drop {' and '.join(given)}")
    check_writable_target(Path(args.out))
    index = index_from_shards(args.shards, model_name=args.model, kind=args.kind)
    groups = index.groups["gender"].groups
    summary = {group: groups.count(group) for group in ("female", "male", "neutral")}
    replaced: list[dict[str, Any]] = []
    index.save(args.out, lock_timeout=args.lock_timeout, on_replaced=replaced.append)
    recorded = shards_mixed(args.shards)  # found by the workers, if their detector is this one
    if recorded is None:  # shards of an older debiasrag or another detector: read here, as for a corpus
        _, flags = mixed_census(index.document(p, copy=False) for p in range(len(index)))
        unsettled = [doc_id for doc_id, named_both in zip(index.ids, flags) if named_both]
    else:  # those whose versions landed in another shard are settled by them; the others are named
        mixed = [index.position_of(doc_id) for doc_id in recorded]
        versions = index.versions(positions=mixed) if mixed else []
        unsettled = [index.ids[p] for p, found in zip(mixed, versions) if not found]
    say(describe_groups({**summary, "mixed": len(unsettled)}, len(index), unsettled))
    say_replaced(args.out, replaced, index)
    say(f"indexed {len(index)} documents with {index.model_name} into {args.out} (from shards, nothing embedded)")
    return 0


def say_replaced(out: str | Path, replaced: list[dict[str, Any]], new: FaissIndex) -> None:
    """Say that ``--out`` held an index, which the new one replaces (indexing builds, it does not add), and what
    changed in how it was made: queries follow the new index's model and preprocessing. ``replaced`` holds the
    manifest the save replaced, read under its lock: another run's index finished meanwhile counts too."""
    if not replaced:
        return
    old = replaced[0]
    changes = []
    if old.get("model") != new.model_name:
        changes.append(f"model {old.get('model')} -> {new.model_name}")
    for step in ("anonymize", "neutralize"):
        before, after = (old.get("preprocessing") or {}).get(step), new.preprocessing.get(step)
        if before != after:
            changes.append(f"{step} {_step(before)} -> {_step(after)}")
    changed = f"; changed: {', '.join(changes)}" if changes else ""
    say(
        f"replaced the index of {old.get('count')} documents in {out}{changed} "
        "(its files stay until the next save; to add documents, index the whole corpus)"
    )


def _step(settings: Any) -> str:
    """A preprocessing step's settings in a few words: ``off``, ``ner``, ``llm``, ``names=table``."""
    if not isinstance(settings, dict):
        return "off"
    return str(settings.get("method") or f"names={settings.get('names')}")


def describe_groups(summary: dict[str, int], total: int, mixed_ids: Sequence[str | int] = ()) -> str:
    """One line on the documents' gender groups, as ``balanced`` / ``dynamic`` will see them (``mixed_ids``: the
    documents naming both women and men, the first few of which it names, so a user knows which to label)."""
    counts = ", ".join(f"{n} {group}" for group, n in summary.items() if group != "mixed")
    line = f"groups (gender, stored in the index; a debiasrag_group field overrides): {counts}"
    if summary["mixed"]:
        share = summary["mixed"] / total
        line += (
            f"; {summary['mixed']} ({share:.0%}) name both women and men, where inferred groups are least reliable: "
            "label them with debiasrag_group for balanced / dynamic"
        )
        if mixed_ids:
            shown_ids = ", ".join(printable(repr(i)) for i in mixed_ids[:5])
            line += f" (ids {shown_ids}" + (f" and {len(mixed_ids) - 5} more)" if len(mixed_ids) > 5 else ")")
    return line
