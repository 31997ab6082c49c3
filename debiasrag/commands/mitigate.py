"""``debiasrag mitigate``: debias a word-vector file with one of seed 003's algorithms and write the result.

``mitigate IN OUT --algorithm hd|dhd|hsr|ran|mhd``: IN is a GloVe / word2vec text file (or ``glove`` for the
packaged GloVe 6B 50d, ``--limit`` its most frequent words); OUT gets the same format, replaced atomically.
Word sets: ``--sets seed003`` (default; Table 2's bias-definition pairs) or ``bolukbasi``, or your own
``--definitional FILE.json`` (a list of word pairs; sets of any size for MHD) and ``--gender-specific FILE``
(words never changed: a JSON list or one word per line). ``--target FILE`` debiases only those words (RAN
optimises every word separately, so give it the words you use). The summary (stderr, or ``--json`` on stdout)
says how many words changed and their mean |cos| with the first definitional pair's difference, before and after.
"""

from __future__ import annotations

import argparse
from typing import Any

from debiasrag.commands._common import positive_int, print_json, say, seed_int, warn
from debiasrag.errors import InputError
from debiasrag.fileio import check_output_path, loads_strict, read_text, refuse_same_file

RAN_WARN_WORDS = 50_000


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``mitigate`` subcommand."""
    p = sub.add_parser("mitigate", help="debias a word-embedding file (HD, DHD, HSR, RAN, MHD; seed 003)")
    p.add_argument("input", help="word vectors as text (GloVe or word2vec format), or 'glove' for the packaged 50d")
    p.add_argument("output", help="text file to write (same format, replaced atomically)")
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
    p.add_argument("--gender-specific", default=None, help="words never changed: JSON list or one word per line")
    p.add_argument("--target", default=None, help="debias only these words: JSON list or one word per line")
    p.add_argument(
        "--normalization",
        choices=["keep", "reverse"],
        default="keep",
        help="reverse: give vectors their original length back after HD/RAN/MHD (seed 003 §4)",
    )
    p.add_argument("--seed", type=seed_int, default=0, help="random seed (DHD's k-means; default 0)")
    p.add_argument("--limit", type=positive_int, default=None, help="with 'glove': only the N most frequent words")
    p.add_argument("--float64", action="store_true", help="read and compute in float64 (default float32)")
    p.add_argument("--n-components", type=positive_int, default=None, help="HD / MHD: PCA components (default 10)")
    p.add_argument("--epochs", type=positive_int, default=None, help="RAN's optimisation steps (default 300)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON on stdout")
    p.set_defaults(func=run)


def _word_list(path: str, what: str) -> list[str]:
    text = read_text(path, what=what)
    if text.lstrip().startswith("["):
        try:
            words = loads_strict(text)  # also refuses NaN and nesting deeper than Python can follow
        except InputError as exc:
            raise InputError(f"{what} {path}: {exc.message}") from None
        if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
            raise InputError(f"{what} {path}: expected a JSON list of words")
        return words
    return [line.strip() for line in text.splitlines() if line.strip()]


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


def run(args: argparse.Namespace) -> int:
    """Read, debias, write; print the summary."""
    from debiasrag.mitigate import WordEmbeddings
    from debiasrag.mitigate.apply import debias, default_sets, read_vectors, write_vectors

    dtype = "float64" if args.float64 else "float32"
    packaged = args.input == "glove"
    if args.limit is not None and not packaged:
        raise InputError("--limit only applies to the packaged GloVe ('glove' as input)")
    check_output_path(args.output)
    if not packaged:
        refuse_same_file(args.input, args.output)
    sets = default_sets(args.sets)
    if args.definitional:
        sets.definitional = _definitional(args.definitional)
    if args.gender_specific:
        sets.gender_specific = _word_list(args.gender_specific, "gender-specific file")
    target = _word_list(args.target, "target file") if args.target else None
    options: dict[str, Any] = {}
    if args.epochs is not None:
        if args.algorithm != "RAN":
            raise InputError("--epochs only applies to --algorithm ran")
        options["epochs"] = args.epochs
    if args.n_components is not None:
        if args.algorithm not in ("HD", "MHD"):
            raise InputError("--n-components only applies to --algorithm hd or mhd")
        options["n_components"] = args.n_components
    if packaged:
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
        normalization=args.normalization,
        seed=args.seed,
        options=options,
    )
    header = False
    if not packaged:
        with open(args.input, encoding="utf-8-sig") as handle:
            first = handle.readline().split()
        header = len(first) == 2 and all(part.isdigit() for part in first)
    write_vectors(result.model, args.output, header=header)
    summary = {**result.summary, "output": str(args.output)}
    if args.json:
        print_json(summary)
    else:
        line = f"{summary['algorithm']}: debiased {summary['debiased']} of {summary['words']} words"
        if "direction" in summary:
            line += (
                f"; mean |cos(w, {summary['direction']})| {summary['mean_abs_cos_before']:.4f}"
                f" -> {summary['mean_abs_cos_after']:.4f}"
            )
        say(f"{line}; wrote {args.output}")
        for key, why in (
            ("target_not_in_vocabulary", "not in the vocabulary"),
            ("target_gender_specific", "gender-specific"),
        ):
            if summary.get(key):
                shown = ", ".join(summary[key][:10]) + (", ..." if len(summary[key]) > 10 else "")
                say(f"left unchanged: {len(summary[key])} target word(s) {why} ({shown})")
    return 0
