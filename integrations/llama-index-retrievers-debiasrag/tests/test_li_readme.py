"""The README's example is executed, so it cannot rot."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import li_support  # noqa: F401  (sets the offline environment before the model loads)

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_example_runs_and_prints_the_debiased_results() -> None:
    text = README.read_text(encoding="utf-8")
    (example,) = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    (shown,) = re.findall(r"```text\n(.*?)```", text, flags=re.S)
    assert len(example.strip().splitlines()) <= 16
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(example, str(README), "exec"), {"__name__": "readme_example"})
    lines = out.getvalue().splitlines()
    assert [line.split()[0] for line in lines] == ["1", "2", "3", "4"]  # the four engineering chunks
    assert sorted(line.split()[1] for line in lines) == ["female", "female", "male", "male"]  # groups balanced
    assert {line.split()[2] for line in lines} == {"neutral"}  # dynamic searches the plain query only
    assert sum(" She " in f" {line} " for line in lines) == 2 and not any("apple pie" in line for line in lines)
    assert lines == shown.splitlines()  # the output the README shows is what it prints
