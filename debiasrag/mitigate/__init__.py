"""Word-embedding bias mitigation algorithms (seed 003), scikit-learn style, one algorithm per module.

Every algorithm is a :class:`~debiasrag.mitigate.base.BaseDebias` with ``fit(model, <word sets>)`` and
``transform(model, target=None, ignore=None, copy=True)`` over a :class:`WordEmbeddings` (a vocabulary and its
matrix), and agrees with WEFE 1.0.x's implementation on the same inputs (``tests/debias/``):

* :class:`HardDebias` — Bolukbasi et al. 2016, neutralize and equalize;
* :class:`DoubleHardDebias` — Wang et al. 2020, frequency component removed first;
* :class:`HalfSiblingRegression` — Yang & Feng 2020, ridge prediction from gender words subtracted;
* :class:`RepulsionAttractionNeutralization` — Kumar et al. 2020, per-word optimisation;
* :class:`MulticlassHardDebias` — Manzini et al. 2019, Hard Debias over a k-dimensional subspace.

:mod:`debiasrag.mitigate.wordsets` holds seed 003's word sets (Table 2) and the overlap rules (Table 3).
"""

from debiasrag.mitigate.base import (
    NORMALIZATION,
    BaseDebias,
    TransformReport,
    UnknownWordError,
    WordEmbeddings,
    unit_rows,
)
from debiasrag.mitigate.double_hard_debias import DoubleHardDebias
from debiasrag.mitigate.half_sibling_regression import HalfSiblingRegression
from debiasrag.mitigate.hard_debias import HardDebias
from debiasrag.mitigate.multiclass_hard_debias import MulticlassHardDebias
from debiasrag.mitigate.repulsion_attraction_neutralization import RepulsionAttractionNeutralization

ALGORITHMS: dict[str, type[BaseDebias]] = {
    cls.short_name: cls
    for cls in (
        HardDebias,
        DoubleHardDebias,
        HalfSiblingRegression,
        RepulsionAttractionNeutralization,
        MulticlassHardDebias,
    )
}

__all__ = [
    "ALGORITHMS",
    "NORMALIZATION",
    "BaseDebias",
    "DoubleHardDebias",
    "HalfSiblingRegression",
    "HardDebias",
    "MulticlassHardDebias",
    "RepulsionAttractionNeutralization",
    "TransformReport",
    "UnknownWordError",
    "WordEmbeddings",
    "unit_rows",
]
