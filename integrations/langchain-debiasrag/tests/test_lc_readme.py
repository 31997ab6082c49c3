"""The README's example is executed, so it cannot rot."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import lc_support  # noqa: F401  (sets the offline environment before the model loads)

README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_readme_example_runs_and_prints_the_debiased_results() -> None:
    (example,) = python_blocks(README.read_text(encoding="utf-8"))
    assert len(example.strip().splitlines()) <= 16
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example, str(README), "exec"), {"__name__": "readme_example"})
    lines = out.getvalue().splitlines()
    assert [line.split()[0] for line in lines] == ["1", "2", "3", "4"]  # the four engineering chunks, ranked
    assert [line.split()[1] for line in lines].count("female") == 2  # groups balanced: 2 female, 2 male
    assert [line.split()[1] for line in lines].count("male") == 2
    assert sum(" She " in f" {line} " for line in lines) == 2 and not any("apple pie" in line for line in lines)
