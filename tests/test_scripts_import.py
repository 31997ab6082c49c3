"""Every maintainer script and benchmark imports: the README cites them by command, and a helper renamed in the package
(``weat_binomial._unit`` became ``metrics.arrays.unit_rows``) broke ``scripts/table4_readings.py`` unnoticed."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "scripts").glob("*.py")) + sorted((ROOT / "benchmarks").glob("*.py"))


@pytest.mark.parametrize("path", SCRIPTS, ids=[f"{p.parent.name}/{p.name}" for p in SCRIPTS])
def test_script_imports(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(path.parent))  # benchmarks import each other by name
    spec = importlib.util.spec_from_file_location(f"_checked_{path.parent.name}_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    try:
        spec.loader.exec_module(module)  # module level only: main() runs under __name__ == "__main__"
    finally:
        sys.modules.pop(spec.name, None)
    assert module.__doc__, f"{path.name} says what it does"
