"""Seed 003's word sets and overlap rules as data, plus the checker and the overlap table (Table 1).

Five word sets meet when a mitigation is measured (seed 003 §3): the metric's *target* and *attribute* words and
the algorithm's *bias-definition*, *gender-specific* and *objective* words (objective = vocabulary minus
gender-specific). Table 3's rules, read from ``debiasrag/data/wordsets/seed003.json``:

* ``metric_within``: every metric word lies in the algorithm set (attributes ⊆ objective; targets ⊆
  gender-specific);
* ``disjoint``: no word in both (objective/targets, bias-definition/attributes, bias-definition/targets,
  gender-specific/attributes).

:func:`check_overlap` evaluates every rule and raises :class:`~debiasrag.errors.InputError` (``on_leak="error"``)
or warns (``"warn"``); :func:`overlap_table` gives the intersection sizes of Table 1.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from debiasrag.errors import InputError
from debiasrag.mitigate.base import word_list
from debiasrag.resources import data_file

ALGORITHM_SETS = ("objective", "bias_definition", "gender_specific")
METRIC_SETS = ("attributes", "target")
RULES = ("metric_within", "disjoint")


@cache
def seed003_wordsets() -> dict[str, Any]:
    """The parsed ``seed003.json`` (Table 2 pairs and their split, Appendix 8.1 sources, Table 3 rules, Table 1)."""
    path = data_file("wordsets", "seed003.json")
    return json.loads(path.read_text(encoding="utf-8"))


@cache
def bolukbasi_gender_specific() -> tuple[str, ...]:
    """Bolukbasi et al.'s 1,441 gender-specific words (as published: mixed case, word2vec phrases)."""
    path = data_file("wordsets", "bolukbasi_gender_specific.json")
    return tuple(json.loads(path.read_text(encoding="utf-8"))["words"])


def flatten(pairs: Iterable[Iterable[str]]) -> list[str]:
    """Every word of every pair, first occurrence order."""
    return list(dict.fromkeys(w for pair in pairs for w in pair))


@dataclass
class OverlapReport:
    """Result of :func:`check_overlap`: one line per broken rule and the offending words."""

    problems: list[str] = field(default_factory=list)
    leaks: dict[str, list[str]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Whether no rule is broken."""
        return not self.problems


def _objective_contains(objective: Collection[str] | None, gender_specific: set[str], word: str) -> bool:
    return word not in gender_specific if objective is None else word in objective


def check_overlap(
    *,
    target: Iterable[str],
    attributes: Iterable[str],
    bias_definition: Iterable[str],
    gender_specific: Iterable[str],
    objective: Collection[str] | None = None,
    on_leak: str = "error",
    rules: list[dict[str, str]] | None = None,
) -> OverlapReport:
    """Check seed 003 Table 3's rules between a metric's words and a mitigation's words.

    Each set is a list (or set) of words; a bare string is an InputError, not a set of letters. ``objective``
    defaults to "every word not gender-specific" (the paper's choice). Words are compared lower-cased, outer
    blanks ignored (as :func:`debiasrag.metrics.check_word_sets`).
    ``on_leak``: ``"error"`` raises InputError naming every broken rule, ``"warn"`` warns, ``"ignore"`` only
    returns the report.
    """
    if on_leak not in ("error", "warn", "ignore"):
        raise InputError(f"on_leak must be 'error', 'warn' or 'ignore', got {on_leak!r}")
    # each a collection of words: a bare string would be compared letter by letter
    lower = lambda words, name: {w.strip().lower() for w in word_list(words, name)}  # noqa: E731  # as check_word_sets
    specific = lower(gender_specific, "gender_specific")
    metric = {"target": lower(target, "target"), "attributes": lower(attributes, "attributes")}
    algorithm: dict[str, Any] = {
        "bias_definition": lower(bias_definition, "bias_definition"),
        "gender_specific": specific,
    }
    objective = None if objective is None else lower(objective, "objective")
    report = OverlapReport()
    for rule in rules if rules is not None else seed003_wordsets()["table3_rules"]:
        a_name, m_name, kind = rule["algorithm_set"], rule["metric_set"], rule["rule"]
        if a_name not in ALGORITHM_SETS or m_name not in METRIC_SETS or kind not in RULES:
            raise InputError(f"unknown word-set rule {rule}")
        words = metric[m_name]
        if a_name == "objective":
            inside = {w for w in words if _objective_contains(objective, specific, w)}
        else:
            inside = words & algorithm[a_name]
        broken = words - inside if kind == "metric_within" else inside
        if broken:
            label = f"{m_name} {'outside' if kind == 'metric_within' else 'inside'} {a_name}"
            report.leaks[label] = sorted(broken)
            shown = ", ".join(sorted(broken)[:6]) + (f" (+{len(broken) - 6} more)" if len(broken) > 6 else "")
            report.problems.append(f"{label}: {shown}")
    if report.problems and on_leak != "ignore":
        message = "word sets break seed 003 Table 3: " + "; ".join(report.problems)
        if on_leak == "error":
            raise InputError(message)
        warnings.warn(message, stacklevel=2)
    return report


def overlap_table(
    algorithm_sets: dict[str, Collection[str]], metric_sets: dict[str, Collection[str]]
) -> dict[str, dict[str, int]]:
    """``{algorithm set: {metric set: |intersection|}}`` plus a ``"sizes"`` row (Table 1's layout)."""
    table: dict[str, dict[str, int]] = {
        a: {m: len(set(aw) & set(mw)) for m, mw in metric_sets.items()} for a, aw in algorithm_sets.items()
    }
    table["sizes"] = {name: len(set(words)) for name, words in {**algorithm_sets, **metric_sets}.items()}
    return table
