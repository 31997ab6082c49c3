"""Concepts (gender, age, wealth, or the user's own) loaded from JSON data files.

A concept names two groups, the sentence that puts a query into each group (a counterfactual variant),
and the debiasing context of seed 000 §2.2. The bundled files also carry the seed's word pairs,
attribute labels, scenario templates and WEAT sets used by the benchmarks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from debiasrag.errors import InputError

_SENTENCE_END = (".", "!", "?", "…")


def join_context(text: str, context: str) -> str:
    """Append a context sentence to ``text``, adding the full stop the text may lack."""
    text = text.strip()
    if text and not text.endswith(_SENTENCE_END):
        text += "."
    return f"{text} {context.strip()}".strip()


@dataclass(frozen=True)
class Concept:
    """A bias concept: two groups, their variant sentences and a debiasing context."""

    name: str
    groups: tuple[str, str]
    variants: dict[str, str]
    debiasing: str
    description: str = ""
    pairs: tuple[tuple[str, str], ...] = ()
    templates: dict[str, str] = field(default_factory=dict)
    attributes: dict[str, float] = field(default_factory=dict)
    attribute_kind: str = ""
    weat: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def variant_queries(self, query: str) -> list[tuple[str, str]]:
        """``[(group, query + that group's sentence), ...]`` in the concept's group order."""
        return [(group, join_context(query, self.variants[group])) for group in self.groups]

    def debiased_query(self, query: str) -> str:
        """The query with the debiasing context injected (seed 000 §2.2)."""
        return join_context(query, self.debiasing)

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, source: str = "concept") -> Concept:
        """Build a concept from parsed JSON, checking the fields retrieval needs."""
        if not isinstance(data, dict):
            raise InputError(f"{source}: a concept file must hold a JSON object")
        missing = [key for key in ("name", "groups", "variants", "debiasing") if key not in data]
        if missing:
            raise InputError(f"{source}: concept is missing field(s) {', '.join(missing)}")
        groups = data["groups"]
        variants = data["variants"]
        if not (isinstance(groups, list) and len(groups) == 2 and all(isinstance(g, str) and g for g in groups)):
            raise InputError(f"{source}: 'groups' must be a list of two non-empty names")
        if groups[0] == groups[1]:
            raise InputError(f"{source}: the two groups must differ")
        if not isinstance(variants, dict) or any(
            not isinstance(variants.get(g), str) or not variants[g].strip() for g in groups
        ):
            raise InputError(f"{source}: 'variants' needs a non-empty sentence for each group {groups}")
        if not isinstance(data["debiasing"], str) or not data["debiasing"].strip():
            raise InputError(f"{source}: 'debiasing' must be a non-empty sentence")
        pairs = data.get("pairs", [])
        if any(not (isinstance(p, list) and len(p) == 2) for p in pairs):
            raise InputError(f"{source}: 'pairs' must be a list of [group 1 word, group 2 word] lists")
        return cls(
            name=str(data["name"]),
            groups=(groups[0], groups[1]),
            variants={g: variants[g] for g in groups},
            debiasing=data["debiasing"],
            description=data.get("description", ""),
            pairs=tuple((a, b) for a, b in pairs),
            templates=dict(data.get("templates", {})),
            attributes={k: float(v) for k, v in data.get("attributes", {}).items()},
            attribute_kind=data.get("attribute_kind", ""),
            weat={k: tuple(v) for k, v in data.get("weat", {}).items()},
        )


def available_concepts() -> list[str]:
    """Names of the concepts bundled with the package."""
    folder = resources.files("debiasrag") / "data" / "concepts"
    return sorted(p.name[: -len(".json")] for p in folder.iterdir() if p.name.endswith(".json"))


def load_concept(concept: str | Path | Concept) -> Concept:
    """Load a bundled concept by name (``"gender"``) or the user's own from a JSON file path."""
    if isinstance(concept, Concept):
        return concept
    text = str(concept)
    if text.endswith(".json") or Path(text).is_file():
        path = Path(text)
        if not path.is_file():
            raise InputError(f"concept file not found: {path}")
        raw, source = path.read_text(encoding="utf-8"), str(path)
    else:
        if text not in available_concepts():
            raise InputError(
                f"unknown concept {text!r}; choose one of {', '.join(available_concepts())} or give a .json file"
            )
        raw = (resources.files("debiasrag") / "data" / "concepts" / f"{text}.json").read_text(encoding="utf-8")
        source = f"concept {text!r}"
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InputError(f"{source}: not valid JSON ({exc.msg} at line {exc.lineno})") from exc
    return Concept.from_dict(data, source=source)
