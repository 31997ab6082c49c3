"""Person-name recall of the NER anonymizer by name origin (session 44).

    .venv/bin/python benchmarks/anonymize_by_origin.py [--split design|report|both] [--misses] [--probe PATH]

An anonymizer that removes some peoples' names less reliably than others is itself biased: documents about the people
whose names leak are still retrieved by name (seed 002 removes names before embedding for this reason). The probe
``debiasrag/data/names/origin_probe.json`` holds hand-written names of eleven origins (24 each, half "design", half
"report", gender-balanced) and 16 sentence templates in retrieval-corpus styles (half each). Every template of a split
is filled with every name of that split, so within a split only the name changes (counterfactual filling).

Columns per origin: ``full`` = recall of the ``{full}`` slots (seed 002's criterion: every character of the occurrence
inside a detected entity), ``short`` = recall of the given or family name alone (``{given}``, ``{family}``), ``all`` =
both, ``words`` = share of the templates' other words kept (:func:`debiasrag.anonymize.evaluate.word_survival`).
``gap`` = best origin minus worst origin. ``--misses`` lists the missed slots of the design split only: the report
split is measured, never read for misses. ``--probe`` measures another probe file of the same format (default
``origin_probe.json``), e.g. ``origin_probe2.json``, a blind report-only probe whose design half is empty; a split
without names or templates is skipped.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from study_sets import run_commit  # noqa: E402

from debiasrag.anonymize import NerAnonymizer  # noqa: E402
from debiasrag.anonymize.base import Entity  # noqa: E402
from debiasrag.anonymize.evaluate import word_survival  # noqa: E402
from debiasrag.bench._common import md_table  # noqa: E402
from debiasrag.resources import data_file  # noqa: E402

SPLITS = ("design", "report")
MODES = ("default", "fast")
GOLD_SLOTS = ("full", "given", "family")  # {initial} is filled but not a name to remove
_SLOT = re.compile(r"\{(full|given|family|initial)\}")


@dataclass
class Filled:
    """One template filled with one name: the text and the (start, end, slot) of each gold name occurrence."""

    origin: str
    name: str
    style: str
    text: str
    spans: list[tuple[int, int, str]] = field(default_factory=list)

    def gold_row(self) -> dict[str, Any]:
        """The row format of :mod:`debiasrag.anonymize.evaluate` (for :func:`word_survival`)."""
        return {"text": self.text, "persons": sorted({self.text[s:e] for s, e, _ in self.spans})}


def default_probe() -> Path:
    """The probe measured unless ``--probe`` names another: ``debiasrag/data/names/origin_probe.json``."""
    return Path(data_file("names", "origin_probe.json"))


def load_probe(path: Path | None = None) -> dict[str, Any]:
    """The probe file (names per origin and split, templates per split); ``origin_probe.json`` unless ``path``."""
    return json.loads((path or default_probe()).read_text(encoding="utf-8"))


def fill(template: dict[str, Any], person: dict[str, str], origin: str) -> Filled:
    """``template`` with ``person``'s name in its slots; lower-case templates are lower-cased piece by piece so the
    recorded spans stay exact."""
    values = {**person, "initial": person["given"][0] + "."}
    case = str.lower if template["lower"] else str
    out = Filled(origin, person["full"], template["style"], "")
    parts: list[str] = []
    at = last = 0
    for match in _SLOT.finditer(template["text"]):
        parts.append(case(template["text"][last : match.start()]))
        at += len(parts[-1])
        value = case(values[match.group(1)])
        if match.group(1) in GOLD_SLOTS:
            out.spans.append((at, at + len(value), match.group(1)))
        parts.append(value)
        at += len(value)
        last = match.end()
    parts.append(case(template["text"][last:]))
    out.text = "".join(parts)
    return out


def probe_texts(probe: dict[str, Any], split: str) -> list[Filled]:
    """Every template of ``split`` filled with every name of ``split``, origin by origin."""
    return [
        fill(template, person, origin)
        for origin, data in probe["origins"].items()
        for person in data[split]
        for template in probe["templates"][split]
    ]


def covered(entities: Sequence[Entity], start: int, end: int) -> bool:
    """Seed 002's criterion, as in :func:`debiasrag.anonymize.evaluate.name_recall`: every character inside an entity.
    (``name_recall`` itself matches every whole-word occurrence of each gold string, which would count a given name
    inside the full name a second time; the probe knows its exact slots.)"""
    return all(any(e.start <= k < e.end for e in entities) for k in range(start, end))


@dataclass
class OriginScore:
    """Recall and word survival of one origin on one split and mode."""

    full: float
    short: float
    all: float
    words: float
    misses: list[tuple[Filled, int, int, str, list[Entity]]]


def _share(hits: list[bool]) -> float:
    return sum(hits) / len(hits) if hits else 1.0


def measure(anonymizer: NerAnonymizer, texts: Sequence[Filled]) -> dict[str, OriginScore]:
    """Per origin: full-name recall, given/family-alone recall, both, words kept, and the missed slots."""
    results = anonymizer.anonymize_batch([t.text for t in texts])
    scores: dict[str, OriginScore] = {}
    for origin in dict.fromkeys(t.origin for t in texts):
        mine = [(t, r) for t, r in zip(texts, results) if t.origin == origin]
        full: list[bool] = []
        short: list[bool] = []
        misses = []
        for filled, result in mine:
            for start, end, slot in filled.spans:
                hit = covered(result.entities, start, end)
                (full if slot == "full" else short).append(hit)
                if not hit:
                    misses.append((filled, start, end, slot, result.entities))
        words = word_survival([t.gold_row() for t, _ in mine], [r.text for _, r in mine])
        scores[origin] = OriginScore(_share(full), _share(short), _share(full + short), words, misses)
    return scores


def anonymizer_for(mode: str) -> NerAnonymizer:
    """The default anonymizer (``"default"``) or the one without the entity recognizer (``"fast"``)."""
    return NerAnonymizer(use_ner=mode == "default")


def gap(scores: dict[str, OriginScore], column: str) -> float:
    """Best origin minus worst origin in ``column``."""
    values = [getattr(s, column) for s in scores.values()]
    return max(values) - min(values)


def table(scores: dict[str, OriginScore]) -> str:
    """One row per origin, then the gap and the worst origin of each recall column."""
    rows = [
        [origin, f"{s.full:.3f}", f"{s.short:.3f}", f"{s.all:.3f}", f"{s.words:.3f}", str(len(s.misses))]
        for origin, s in scores.items()
    ]
    worst = {c: min(scores, key=lambda o: getattr(scores[o], c)) for c in ("full", "short", "all")}
    rows.append(["gap (best - worst)", *(f"{gap(scores, c):.3f}" for c in ("full", "short", "all")), "", ""])
    rows.append(["worst origin", worst["full"], worst["short"], worst["all"], "", ""])
    return md_table(["origin", "full", "short", "all", "words", "missed slots"], rows)


def print_misses(scores: dict[str, OriginScore]) -> None:
    """Each missed slot with what the anonymizer detected in that text."""
    for origin, s in scores.items():
        for filled, start, end, slot, entities in s.misses:
            found = ", ".join(f"{e.text!r}/{e.label}" for e in entities) or "-"
            print(f"  {origin:22} {filled.style:16} {slot:6} {filled.text[start:end]!r:34} found: {found}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=(*SPLITS, "both"), default="both")
    parser.add_argument("--misses", action="store_true", help="list the design split's misses")
    parser.add_argument("--probe", type=Path, default=None, help="probe file (default: origin_probe.json)")
    args = parser.parse_args(argv)
    path = args.probe or default_probe()
    probe = load_probe(path)
    splits = SPLITS if args.split == "both" else (args.split,)
    print(f"debiasrag at {run_commit()}; probe {path.name} ({probe['session']}, {probe['date']})\n")
    for mode in MODES:
        anonymizer = anonymizer_for(mode)
        for split in splits:
            texts = probe_texts(probe, split)
            if not texts:  # e.g. the empty design half of a report-only probe
                print(f"## {mode}, {split} split: empty in {path.name}\n")
                continue
            slots = sum(len(t.spans) for t in texts)
            scores = measure(anonymizer, texts)
            print(f"## {mode}, {split} split ({len(texts)} texts, {slots} name slots)\n")
            print(table(scores))
            print()
            if args.misses and split == "design":  # the report split is never read for misses
                print_misses(scores)
                print()


if __name__ == "__main__":
    main()
