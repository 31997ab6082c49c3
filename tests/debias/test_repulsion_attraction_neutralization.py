from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import TOLERANCE

from debiasrag.errors import InputError
from debiasrag.mitigate import RepulsionAttractionNeutralization
from debiasrag.mitigate.repulsion_attraction_neutralization import _unit_rows_native

# RAN's output is fixed by its input only to ~1e-2: one float32 ulp on 20 of its 400 inputs moves it by 4.7e-3 to
# 2.1e-2 (39 of 40 seeds; 7.8e-7 in one), and float64 arithmetic by 2.1e-2 (scripts/ran_sensitivity.py 40).
# So 1e-6 holds only with bit-identical float32 kernels: here 6.1e-7, on the CI machine 1.15e-6 in one value of
# 400 (CI run of 2026-11-28). 1e-5 allows another CPU's kernels and still fails on any change to the algorithm,
# which moves outputs by ~1e-2. With MKL's AVX2 code path (MKL_CBWR=AVX2, the kernels of the machine that wrote the
# reference) it holds 1e-6 on the AVX-512 machines too: test_within_1e6_on_the_reference_kernels, which also accepts
# the default path (the one that holds it on an AMD EPYC without AVX-512).
RAN_TOLERANCE = 1e-5

# Run in a fresh interpreter: MKL reads MKL_CBWR once, when torch loads it.
_KERNEL_CHECK = """
import json, sys
import numpy as np
sys.path.insert(0, sys.argv[1])
from conftest import _script
from debiasrag.mitigate import RepulsionAttractionNeutralization
with np.load(sys.argv[2]) as data:
    ref = {key: data[key] for key in data.files}
settings = json.loads(str(ref["settings"]))
glove = _script().reference_input()
ran = RepulsionAttractionNeutralization().fit(glove, definitional_pairs=settings["definitional_pairs"])
ran.bias_direction_ = ref["RAN_direction"]
optimised = ran._optimise(ref["RAN_unit"], ref["RAN_neighbour_vectors"], ref["RAN_repulsion"])
result = ran.transform(glove, target=settings["ran"]["target"])
sample = np.stack([result[str(w)] for w in ref["sample_words"]])
print(json.dumps({"optimised": float(np.abs(optimised - ref["RAN_output"]).max()),
                  "sample": float(np.abs(sample - ref["RAN_sample"]).max())}))
"""


def test_matches_wefe_step_by_step(glove_input, reference):
    """Direction, neighbours and repulsion sets equal WEFE's; the optimiser on WEFE's inputs gives WEFE's output."""
    settings = reference["settings"]
    target = settings["ran"]["target"]
    ran = RepulsionAttractionNeutralization().fit(glove_input, definitional_pairs=settings["definitional_pairs"])
    direction = ran.bias_direction_ * np.sign(ran.bias_direction_ @ reference["RAN_direction"])
    np.testing.assert_allclose(direction, reference["RAN_direction"], atol=TOLERANCE)
    unit = glove_input.normalized()
    rows = glove_input.rows(target)
    np.testing.assert_allclose(unit.vectors[rows], reference["RAN_unit"], atol=TOLERANCE)
    near = ran.neighbours(unit.vectors, rows)
    assert [[glove_input.words[i] for i in row] for row in near] == reference["RAN_neighbours"].tolist()
    np.testing.assert_array_equal(ran.repulsion_mask(unit.vectors, rows, near), reference["RAN_repulsion"])
    ran.bias_direction_ = reference["RAN_direction"]
    optimised = ran._optimise(reference["RAN_unit"], reference["RAN_neighbour_vectors"], reference["RAN_repulsion"])
    np.testing.assert_allclose(optimised, reference["RAN_output"], rtol=0, atol=RAN_TOLERANCE)


def test_full_transform_agrees_with_wefe_given_its_bias_direction(glove_input, reference):
    """The whole transform (normalisation, neighbours, repulsion sets, optimisation, untouched rows) agrees with
    WEFE within RAN_TOLERANCE once it uses WEFE's bias direction; our own fitted direction differs from WEFE's by ~1e-7
    (WEFE fits the PCA in float32: the same float32 computation differs by 1.1e-7 between LAPACK builds), and
    RAN amplifies that (Adam on |w·d| near zero) to 3.5e-3 end to end (measured; bound 1e-2; random 1e-7
    changes of our direction gave 2.8e-6 to 4.7e-3 over 12 seeds)."""
    settings = reference["settings"]
    target = settings["ran"]["target"]
    ran = RepulsionAttractionNeutralization().fit(glove_input, definitional_pairs=settings["definitional_pairs"])
    words = [str(w) for w in reference["sample_words"]]
    own = ran.transform(glove_input, target=target)
    np.testing.assert_allclose(np.stack([own[w] for w in words]), reference["RAN_sample"], atol=1e-2)
    ran.bias_direction_ = reference["RAN_direction"]
    result = ran.transform(glove_input, target=target)
    sample = np.stack([result[w] for w in words])
    np.testing.assert_allclose(sample, reference["RAN_sample"], rtol=0, atol=RAN_TOLERANCE)
    sums = np.asarray(result.vectors, dtype=np.float64).sum(axis=0)
    np.testing.assert_allclose(sums, reference["RAN_column_sums"], rtol=0, atol=RAN_TOLERANCE * len(target))


def test_within_1e6_on_the_reference_kernels(glove_input):
    """Issue 11's 1e-6 for RAN, given WEFE's direction, on the float32 kernels the reference was computed with. Which
    MKL path those are depends on the CPU: on Intel AVX-512 machines the AVX2 path pinned by MKL_CBWR (8.2e-7; their
    default path 1.15e-6), on an AMD EPYC without AVX-512 the default path (6.1e-7; pinning AVX2 there gives 1.19e-6,
    session 45). So both paths run, each in a fresh interpreter (MKL reads MKL_CBWR once), and one must hold 1e-6;
    any change to the algorithm moves the output by ~1e-2 on both."""
    torch = pytest.importorskip("torch")
    if not torch.backends.mkl.is_available():
        pytest.skip("torch without MKL: MKL_CBWR cannot pin the kernels")
    flags = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    if " avx2" not in flags:
        pytest.skip("the reference kernels need AVX2")
    here = Path(__file__).parent
    measured = {}
    for path in ("default", "AVX2"):
        env = {k: v for k, v in os.environ.items() if k != "MKL_CBWR"} | (
            {"MKL_CBWR": path} if path != "default" else {}
        )
        run = subprocess.run(
            [sys.executable, "-c", _KERNEL_CHECK, str(here), str(here / "data" / "wefe_reference.npz")],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            check=True,
        )
        measured[path] = json.loads(run.stdout.strip().splitlines()[-1])
    assert any(e["optimised"] < TOLERANCE and e["sample"] < TOLERANCE for e in measured.values()), measured


def test_unit_vectors_are_bit_identical_to_gensims_float32_normalisation(glove_input, reference):
    """RAN normalises in the model's dtype like gensim; float64-then-round differed by one ulp (outputs by 0.02)."""
    unit = _unit_rows_native(glove_input.vectors)
    rows = glove_input.rows(reference["settings"]["ran"]["target"])
    np.testing.assert_array_equal(unit[rows], reference["RAN_unit"])
    np.testing.assert_array_equal(_unit_rows_native(np.zeros((2, 3), dtype=np.float32)), 0.0)


def test_batches_do_not_change_the_result_and_bias_drops(glove_input, reference):
    settings = reference["settings"]
    target = settings["ran"]["target"][:6]
    one = RepulsionAttractionNeutralization(epochs=50, batch_size=1).fit(
        glove_input, definitional_pairs=settings["definitional_pairs"]
    )
    many = RepulsionAttractionNeutralization(epochs=50, batch_size=64).fit(
        glove_input, definitional_pairs=settings["definitional_pairs"]
    )
    a, b = one.transform(glove_input, target=target), many.transform(glove_input, target=target)
    np.testing.assert_allclose(a.vectors, b.vectors, atol=1e-6)
    d = one.bias_direction_
    unit = glove_input.normalized()
    before = np.mean([abs(unit[w] @ d) for w in ("nurse", "homemaker", "receptionist", "programmer")])
    for wefe_compatible in (True, False):
        ran = RepulsionAttractionNeutralization(wefe_compatible=wefe_compatible).fit(
            glove_input, definitional_pairs=settings["definitional_pairs"]
        )
        out = ran.transform(glove_input, target=["nurse", "homemaker", "receptionist", "programmer"])
        after = np.mean([abs(out[w] @ d) for w in ("nurse", "homemaker", "receptionist", "programmer")])
        assert after < before / 3, (wefe_compatible, before, after)


def test_bad_input(glove_input):
    with pytest.raises(InputError, match="three weights"):
        RepulsionAttractionNeutralization(weights=(1.0, 1.0)).fit(glove_input, definitional_pairs=[["she", "he"]])
