"""Word-set queries (WEFE style) and seed 003's word-set rules.

A :class:`Query` names two target sets (the social groups, e.g. female / male terms) and one or two attribute
sets (traits or occupations). Seed 003 (Table 3) adds two mitigation word sets and rules between all of them:

* bias-definition words (used to learn a bias direction) are never scored: disjoint from targets and attributes;
* targets lie inside the gender-specific set (so mitigation leaves them untouched);
* attributes are disjoint from the gender-specific set (so mitigation does change them).

:func:`check_word_sets` reports every broken rule; ``on_leak="error"`` raises :class:`InputError`.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from debiasrag.errors import InputError, check_texts


def _norm(word: str) -> str:
    return word.strip().lower()


def _word_set(words: object, label: str) -> list[str]:
    """One set of words as a list of strings: a bare string would be read letter by letter."""
    try:
        return check_texts(words, "word")
    except InputError as exc:
        raise InputError(f"{label}: {exc.message}") from None


@dataclass(frozen=True)
class Query:
    """Two target sets and one or two attribute sets, each a tuple of words/texts with a name."""

    targets: tuple[tuple[str, ...], tuple[str, ...]]
    attributes: tuple[tuple[str, ...], ...]
    target_names: tuple[str, str] = ("T1", "T2")
    attribute_names: tuple[str, ...] = ()
    name: str = ""

    @classmethod
    def build(
        cls,
        targets: Sequence[Sequence[str]],
        attributes: Sequence[Sequence[str]],
        target_names: Sequence[str] = ("T1", "T2"),
        attribute_names: Sequence[str] | None = None,
        name: str = "",
    ) -> Query:
        """Validate and build a query (two non-empty target sets, one or two non-empty attribute sets)."""
        if isinstance(targets, str) or isinstance(attributes, str):
            raise InputError(f"query {name!r}: targets and attributes are lists of word sets, not one string")
        targets = [_word_set(group, f"query {name!r}: target set {i + 1}") for i, group in enumerate(targets)]
        attributes = [_word_set(group, f"query {name!r}: attribute set {i + 1}") for i, group in enumerate(attributes)]
        if isinstance(target_names, str) or len(target_names) != 2:
            raise InputError(f"query {name!r}: target_names needs two names, got {target_names!r}")
        if attribute_names and (isinstance(attribute_names, str) or len(attribute_names) != len(attributes)):
            raise InputError(
                f"query {name!r}: attribute_names needs one name per attribute set, got {attribute_names!r}"
            )
        if len(targets) != 2:
            raise InputError(f"query {name!r}: needs exactly two target sets, got {len(targets)}")
        if len(attributes) not in (1, 2):
            raise InputError(f"query {name!r}: needs one or two attribute sets, got {len(attributes)}")
        for label, group in [*zip(target_names, targets, strict=True), *enumerate(attributes)]:
            if not group or any(not isinstance(w, str) or not w.strip() for w in group):
                raise InputError(f"query {name!r}: set {label!r} is empty or holds an empty word")
        names = tuple(attribute_names) if attribute_names else tuple(f"A{i + 1}" for i in range(len(attributes)))
        return cls(
            targets=(tuple(targets[0]), tuple(targets[1])),
            attributes=tuple(tuple(a) for a in attributes),
            target_names=(target_names[0], target_names[1]),
            attribute_names=names,
            name=name or f"{target_names[0]} vs {target_names[1]} wrt {' / '.join(names)}",
        )

    def target_words(self) -> set[str]:
        """Every target word, normalised."""
        return {_norm(w) for group in self.targets for w in group}

    def attribute_words(self) -> set[str]:
        """Every attribute word, normalised."""
        return {_norm(w) for group in self.attributes for w in group}


@dataclass
class WordSetReport:
    """Outcome of :func:`check_word_sets`: one message per broken rule, plus the offending words."""

    problems: list[str] = field(default_factory=list)
    leaks: dict[str, list[str]] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Whether no problem was found."""
        return not self.problems


def _show(words: Iterable[str], limit: int = 6) -> str:
    words = sorted(words)
    more = f" (+{len(words) - limit} more)" if len(words) > limit else ""
    return ", ".join(words[:limit]) + more


def check_word_sets(
    query: Query,
    definition: Iterable[str] = (),
    gender_specific: Iterable[str] = (),
    *,
    on_leak: str = "error",
) -> WordSetReport:
    """Check seed 003's Table 3 rules between a query and the mitigation word sets.

    Args:
        query: the metric's targets and attributes.
        definition: bias-definition words (the mitigation's training pairs, flattened).
        gender_specific: words the mitigation must not change (targets belong here).
        on_leak: ``"error"`` raises InputError listing every broken rule, ``"warn"`` emits one warning,
            ``"ignore"`` only returns the report.
    """
    if on_leak not in ("error", "warn", "ignore"):
        raise InputError(f"on_leak must be 'error', 'warn' or 'ignore', got {on_leak!r}")
    targets, attributes = query.target_words(), query.attribute_words()
    definition_set = {_norm(w) for w in _word_set(definition, "definition")}
    specific = {_norm(w) for w in _word_set(gender_specific, "gender_specific")}
    report = WordSetReport()
    checks = [
        ("definition words scored as targets", definition_set & targets),
        ("definition words scored as attributes", definition_set & attributes),
        ("attributes that are also targets", targets & attributes),
        ("attributes inside the gender-specific set", specific & attributes),
    ]
    if specific:  # without a gender-specific set there is nothing to contain the targets
        checks.append(("targets outside the gender-specific set", targets - specific))
    for label, words in checks:
        if words:
            report.leaks[label] = sorted(words)
            report.problems.append(f"{label}: {_show(words)}")
    if report.problems and on_leak != "ignore":
        message = f"word-set leakage in query {query.name!r} (seed 003 Table 3): " + "; ".join(report.problems)
        if on_leak == "error":
            raise InputError(message)
        warnings.warn(message, stacklevel=2)
    return report
