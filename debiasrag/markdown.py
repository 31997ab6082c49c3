"""Markdown tables for reports (the demo report, benchmark reports): one writer, pipes escaped."""

from __future__ import annotations

import math
from collections.abc import Sequence


def fmt(value: object, digits: int = 3) -> str:
    """A table cell: floats with ``digits`` decimals (``n/a`` for NaN or infinity), everything else as ``str``."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return f"{value:.{digits}f}" if math.isfinite(value) else "n/a"  # NaN: undefined, e.g. no such document
    return str(value)


def md_table(headers: Sequence[str], rows: Sequence[Sequence[object]], digits: int = 3, align: str = "") -> str:
    """A GitHub markdown table; floats with ``digits`` decimals, pipes in cells escaped.

    ``align`` gives one letter per column, ``l`` or ``r`` (right-aligned numbers); default: plain ``---``.
    """

    def cell(v: object) -> str:
        return fmt(v, digits).replace("|", "\\|").replace("\n", " ")

    rules = ["---:" if a == "r" else "---" for a in align] if align else ["---" for _ in headers]
    lines = ["| " + " | ".join(cell(h) for h in headers) + " |", "|" + "|".join(rules) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


__all__ = ["fmt", "md_table"]
