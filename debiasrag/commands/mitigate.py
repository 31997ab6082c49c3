"""``debiasrag mitigate``: debias a word-vector file with one of seed 003's algorithms and write the result.

``mitigate IN OUT --algorithm hd|dhd|hsr|ran|mhd``: IN is a GloVe / word2vec text file (or ``glove`` for the
packaged GloVe 6B 50d, ``--limit`` its most frequent words; ``./glove`` reads a file of that name); OUT gets the
same format and the whole vocabulary (``--only-debiased``: only the words the algorithm changed), replaced
atomically. Word sets: ``--sets seed003`` (default; Table 2's bias-definition pairs) or ``bolukbasi``, or your own
``--definitional FILE.json`` (a list of word pairs; sets of any size for MHD) and ``--gender-specific FILE`` (words
not debiased: a JSON list or one word per line). ``--target FILE`` debiases only those words, for every algorithm
(RAN optimises every word separately, so give it the words you use). The summary (stderr, or ``--json`` on stdout)
counts every word once: debiased, equalized (HD / MHD's definitional pairs), rescaled to unit length (HD, RAN and
MHD with ``--normalization keep``) or unchanged, and gives the debiased words' mean |cos| with the first
definitional pair's difference, before and after.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from debiasrag.commands._common import positive_int, print_json, say, seed_int, warn
from debiasrag.errors import InputError
from debiasrag.fileio import check_output_path, loads_strict, read_text, refuse_same_file

RAN_WARN_WORDS = 50_000
FORMAT = "one word per line, or a JSON list of words"


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``mitigate`` subcommand."""
    p = sub.add_parser("mitigate", help="debias a word-embedding file (HD, DHD, HSR, RAN, MHD; seed 003)")
    p.add_argument(
        "input",
        help="word vectors as text (GloVe or word2vec format), or 'glove' for the packaged GloVe 6B 50d "
        "(a file named glove in this folder: write ./glove)",
    )
    p.add_argument(
        "output",
        help="text file to write (same format, replaced atomically); it holds the whole vocabulary, changed or "
        "not, unless --only-debiased",
    )
    p.add_argument(
        "--algorithm", required=True, type=str.upper, choices=["HD", "DHD", "HSR", "RAN", "MHD"], help="mitigation"
    )
    p.add_argument(
        "--sets",
        choices=["seed003", "bolukbasi"],
        default="seed003",
        help="packaged gender word sets (default seed003)",
    )
    p.add_argument("--definitional", default=None, help="JSON file: list of definitional pairs (MHD: sets)")
    p.add_argument(
        "--gender-specific",
        default=None,
        help=f"words not debiased ({FORMAT}); HD and MHD still equalize the definitional pairs among them, and "
        "--normalization keep still rescales them to unit length",
    )
    p.add_argument(
        "--target",
        default=None,
        help=f"debias only these words ({FORMAT}), with any algorithm (DHD: instead of its most biased words); "
        "gender-specific ones are skipped; the other words are still written, unchanged except as --normalization "
        "says (and HD / MHD's equalized pairs)",
    )
    p.add_argument(
        "--normalization",
        choices=["keep", "reverse"],
        default=None,
        help="vector lengths after HD, RAN and MHD, which normalise: 'keep' (default, WEFE's behaviour) keeps the "
        "normalised model, so EVERY vector is written at unit length, debiased or not; 'reverse' restores each "
        "vector's original length and writes the words the algorithm did not change exactly as read "
        "(seed 003 §4). DHD and HSR never rescale",
    )
    p.add_argument("--seed", type=seed_int, default=None, help="random seed of DHD's k-means (default 0)")
    p.add_argument("--limit", type=positive_int, default=None, help="with 'glove': only the N most frequent words")
    p.add_argument("--float64", action="store_true", help="read and compute in float64 (default float32)")
    p.add_argument(
        "--n-components",
        type=positive_int,
        default=None,
        help="HD / MHD: PCA components, at most the vectors' dimension (default 10, or the dimension if smaller)",
    )
    p.add_argument(
        "--n-words",
        type=positive_int,
        default=None,
        help="DHD without --target: debias the N most biased words at each end of the he-she ranking (default 1000)",
    )
    p.add_argument("--epochs", type=positive_int, default=None, help="RAN's optimisation steps (default 300)")
    p.add_argument(
        "--only-debiased",
        action="store_true",
        help="write only the words the algorithm changed (debiased and equalized), not the whole vocabulary",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON on stdout")
    p.set_defaults(func=run)


def _word_list(path: str, what: str) -> list[str]:
    """The words of a ``--target`` / ``--gender-specific`` file; another shape is refused, saying what is expected."""
    text = read_text(path, what=what)
    stripped = text.strip()
    if not stripped:
        raise InputError(f"{what} {path} is empty (expected {FORMAT})")
    if stripped[0] in "[{":
        try:
            words = loads_strict(text)  # also refuses NaN and nesting deeper than Python can follow
        except InputError as exc:
            raise InputError(f"{what} {path}: {exc.message}") from None
        if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
            got = "a JSON object" if isinstance(words, dict) else "JSON that is not a list of strings"
            raise InputError(f'{what} {path}: expected {FORMAT} (e.g. ["nurse", "engineer"]), got {got}')
        if not words:
            raise InputError(f"{what} {path}: the JSON list is empty (expected {FORMAT})")
        return words
    words = []
    for number, line in enumerate(text.splitlines(), start=1):
        parts = line.split()
        if len(parts) > 1:
            raise InputError(f"{what} {path}, line {number}: {len(parts)} words separated by blanks; expected {FORMAT}")
        words += parts
    return words


def _definitional(path: str) -> list[list[str]]:
    text = read_text(path, what="definitional file")
    try:
        sets = loads_strict(text)
    except InputError as exc:
        raise InputError(f"definitional file {path}: {exc.message}") from None
    if (
        not isinstance(sets, list)
        or not sets
        or not all(isinstance(s, list) and all(isinstance(w, str) for w in s) for s in sets)
    ):
        raise InputError(f'definitional file {path}: expected a JSON list of word lists, e.g. [["she", "he"]]')
    return sets


def _only_for(args: argparse.Namespace, option: str, algorithms: tuple[str, ...]) -> None:
    if getattr(args, option.lstrip("-").replace("-", "_")) is not None and args.algorithm not in algorithms:
        names = " or ".join(a.lower() for a in algorithms)
        raise InputError(f"{option} only applies to --algorithm {names}")


def _summary_line(summary: dict[str, Any]) -> str:
    parts = [f"{summary['algorithm']}: debiased {summary['debiased']} of {summary['words']} words"]
    if summary["equalized"]:
        parts.append(f"equalized {summary['equalized']} (definitional pairs)")
    if summary["rescaled"]:
        parts.append(
            f"rescaled {summary['rescaled']} other vectors to unit length (--normalization keep; 'reverse' keeps "
            "their length)"
        )
    parts.append(f"{summary['unchanged']} unchanged")
    line = ", ".join(parts)
    if "direction" in summary:
        line += (
            f"; mean |cos(w, {summary['direction']})| of the debiased words {summary['mean_abs_cos_before']:.4f}"
            f" -> {summary['mean_abs_cos_after']:.4f}"
        )
    if "mean_abs_cos_fitted_before" in summary:  # what the algorithm itself removed (RAN's axis is not she - he)
        line += (
            f", along its own fitted bias direction {summary['mean_abs_cos_fitted_before']:.4f}"
            f" -> {summary['mean_abs_cos_fitted_after']:.4f}"
        )
    if "mean_abs_cos_held_out_before" in summary:  # seed 003: words that learn a direction do not score it
        line += (
            f", along {len(summary['held_out_pairs'])} gender pairs the fit never saw"
            f" {summary['mean_abs_cos_held_out_before']:.4f} -> {summary['mean_abs_cos_held_out_after']:.4f}"
        )
    return line


def run(args: argparse.Namespace) -> int:
    """Read, debias, write; print the summary."""
    from debiasrag.mitigate import WordEmbeddings
    from debiasrag.mitigate.apply import debias, default_sets, read_vectors, write_vectors

    dtype = "float64" if args.float64 else "float32"
    for verb, path, stream in (("reads", args.input, "input"), ("writes", args.output, "output")):
        if path == "-":  # other commands read '-' as standard input / output; here it would be a file named '-'
            raise InputError(
                f"mitigate {verb} a word-vector file, not standard {stream}: give a path (./- for a file named -)"
            )
    packaged = args.input == "glove"
    if args.limit is not None and not packaged:
        raise InputError("--limit only applies to the packaged GloVe ('glove' as input)")
    _only_for(args, "--epochs", ("RAN",))
    _only_for(args, "--n-components", ("HD", "MHD"))
    _only_for(args, "--n-words", ("DHD",))
    _only_for(args, "--seed", ("DHD",))  # the other algorithms are deterministic: a seed would change nothing
    _only_for(args, "--normalization", ("HD", "RAN", "MHD"))  # DHD and HSR never rescale
    if args.n_words is not None and args.target:
        raise InputError("--n-words does not apply with --target: DHD then debiases exactly the target words")
    check_output_path(args.output)
    if not packaged:
        refuse_same_file(args.input, args.output)
    sets = default_sets(args.sets)
    if args.definitional:
        sets.definitional = _definitional(args.definitional)
    if args.gender_specific:
        sets.gender_specific = _word_list(args.gender_specific, "gender-specific file")
    # a concept of one's own (age, wealth) with the packaged gender-specific words: said with the summary
    kept_out = None
    if args.definitional and not args.gender_specific:
        kept_out = (
            f"note: no --gender-specific given, so the {args.sets} set's {len(sets.gender_specific)} gender-specific "
            "words (he, she, ...) are not debiased; for a concept other than gender, give its own word list"
        )
    target = _word_list(args.target, "target file") if args.target else None
    options: dict[str, Any] = {}
    for option in ("epochs", "n_components", "n_words"):
        if getattr(args, option) is not None:
            options[option] = getattr(args, option)
    if packaged:
        if os.path.exists("glove"):
            say("note: 'glove' is the packaged GloVe 6B 50d; to read the file named glove here, write ./glove")
        glove = WordEmbeddings.from_glove(limit=args.limit)
        model = WordEmbeddings(glove.words, glove.vectors.astype(dtype))
    else:
        model = read_vectors(args.input, dtype=dtype)
    if args.algorithm == "RAN" and (len(target) if target is not None else len(model)) > RAN_WARN_WORDS:
        warn(f"RAN optimises every word on its own; {len(model)} words take long (use --target)")
    result = debias(
        model,
        args.algorithm,
        sets=sets,
        target=target,
        normalization=args.normalization or "keep",
        seed=0 if args.seed is None else args.seed,
        options=options,
    )
    header = False
    if not packaged:
        with open(args.input, encoding="utf-8-sig") as handle:
            first = handle.readline().split()
        header = len(first) == 2 and all(part.isdigit() for part in first)
    written = result.model
    if args.only_debiased:
        if not result.changed_words:
            raise InputError("--only-debiased: the algorithm changed no word, so there is nothing to write")
        written = written.subset(result.changed_words)
    write_vectors(written, args.output, header=header)
    summary = {**result.summary, "written": len(written), "output": str(args.output)}
    if kept_out is not None:
        say(kept_out)
    if args.json:
        print_json(summary)
    else:
        say(f"{_summary_line(summary)}; wrote {len(written)} words to {args.output}")
        missing = summary.get("definitional_not_in_vocabulary") or []
        if missing:
            shown = ", ".join(missing[:10]) + (", ..." if len(missing) > 10 else "")
            say(f"fitted without {len(missing)} definitional pair(s) with a word missing from the vocabulary ({shown})")
        for key, why in (
            ("target_not_in_vocabulary", "not in the vocabulary"),
            ("target_gender_specific", "gender-specific"),
            ("target_definitional", "definitional words, which this algorithm keeps or equalizes"),
        ):
            if summary.get(key):
                shown = ", ".join(summary[key][:10]) + (", ..." if len(summary[key]) > 10 else "")
                say(f"not debiased: {len(summary[key])} target word(s) {why} ({shown})")
    return 0
