"""Reference values for tests/debias/: run WEFE 1.0.x's five mitigation algorithms once on a GloVe subset.

WEFE pins numpy<=1.26.4 and scipy<1.13, which conflict with ours, so it runs in its own virtualenv. Two steps:

    .venv/bin/python scripts/wefe_reference.py export /tmp/wefe_input.npz
    python3 -m venv /tmp/wefe-venv && /tmp/wefe-venv/bin/pip install wefe==1.0.1
    # RAN needs torch; any CPU build works (we linked .venv's torch 2.13 into /tmp/wefe-venv via a .pth file)
    /tmp/wefe-venv/bin/python scripts/wefe_reference.py compute /tmp/wefe_input.npz tests/debias/data/wefe_reference.npz

``export`` writes the input (the 2,000 most frequent GloVe 6B 50d words plus the word sets, float32); tests
rebuild the same input from the installed GloVe package (:func:`reference_input`), so only outputs are stored:
the vectors of ``SAMPLE_WORDS`` after each algorithm, and per algorithm the column sums of the whole output
matrix (a check on every row). DHD's k-means has no seed in WEFE: ``compute`` seeds numpy's global generator.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

VOCAB = 2000
DEFINITIONAL_PAIRS = [
    ["woman", "man"],
    ["girl", "boy"],
    ["she", "he"],
    ["mother", "father"],
    ["daughter", "son"],
    ["female", "male"],
    ["her", "his"],
    ["herself", "himself"],
    ["mary", "john"],
]  # Bolukbasi et al.'s definitional_pairs.json, lower-cased for GloVe
GENDER_SPECIFIC = ["women", "men", "wife", "husband", "sister", "brother", "queen", "king", "girls", "boys", "mom"]
EXTRA = ["nurse", "engineer", "doctor", "homemaker", "programmer", "receptionist", "surgeon", "dancer", "captain"]
SAMPLE_WORDS = [
    *[w for p in DEFINITIONAL_PAIRS for w in p],
    *GENDER_SPECIFIC,
    *EXTRA,
    "the",
    "city",
    "president",
    "children",
    "family",
    "school",
    "music",
    "science",
    "art",
]
RAN_TARGET = ["nurse", "engineer", "homemaker", "programmer", "receptionist", "captain", "doctor", "science"]
SETTINGS = {
    "vocab": VOCAB,
    "definitional_pairs": DEFINITIONAL_PAIRS,
    "gender_specific": GENDER_SPECIFIC,
    "dhd": {"n_words": 200, "n_components": 4, "bias_representation": ["he", "she"], "numpy_seed": 0},
    "hsr": {"alpha": 60.0},
    "ran": {"target": RAN_TARGET, "epochs": 300, "theta": 0.05, "n_neighbours": 100, "learning_rate": 0.01},
    "mhd": {"n_components": 3},
}


def reference_input():  # noqa: ANN201 - used from our venv and from tests
    """The input model: GloVe's first VOCAB words plus every word the settings name (float32)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from debiasrag.mitigate import WordEmbeddings

    glove = WordEmbeddings.from_glove()
    words = [*glove.words[:VOCAB], *SAMPLE_WORDS, *RAN_TARGET]
    return glove.subset(words)


def export(path: str) -> None:
    import numpy as np

    model = reference_input()
    np.savez(path, words=np.array(model.words), vectors=model.vectors)
    print(f"wrote {path}: {len(model.words)} words")


def compute(input_path: str, output_path: str) -> None:
    import numpy as np
    import wefe
    from gensim.models import KeyedVectors
    from wefe.debias.double_hard_debias import DoubleHardDebias
    from wefe.debias.half_sibling_regression import HalfSiblingRegression
    from wefe.debias.hard_debias import HardDebias
    from wefe.debias.multiclass_hard_debias import MulticlassHardDebias
    from wefe.debias.repulsion_attraction_neutralization import RepulsionAttractionNeutralization
    from wefe.word_embedding_model import WordEmbeddingModel

    data = np.load(input_path)
    words = [str(w) for w in data["words"]]

    def model() -> WordEmbeddingModel:
        kv = KeyedVectors(vector_size=data["vectors"].shape[1])
        kv.add_vectors(words, data["vectors"].astype(np.float32))
        return WordEmbeddingModel(kv, "glove-subset")

    pairs, specific = DEFINITIONAL_PAIRS, [*{w for p in DEFINITIONAL_PAIRS for w in p}, *GENDER_SPECIFIC]
    out: dict[str, object] = {}
    results = {}
    results["HD"] = HardDebias().fit(model(), definitional_pairs=pairs).transform(model(), ignore=specific)
    np.random.seed(SETTINGS["dhd"]["numpy_seed"])
    m = model()
    dhd = DoubleHardDebias(n_words=SETTINGS["dhd"]["n_words"], n_components=SETTINGS["dhd"]["n_components"])
    dhd.fit(m, definitional_pairs=pairs, bias_representation=SETTINGS["dhd"]["bias_representation"])
    results["DHD"] = dhd.transform(m, ignore=specific)
    out["DHD_words"] = np.array(dhd.target_words)
    hsr = HalfSiblingRegression().fit(model(), definitional_words=[w for p in pairs for w in p], alpha=60)
    results["HSR"] = hsr.transform(model(), ignore=GENDER_SPECIFIC)
    ran = RepulsionAttractionNeutralization().fit(model(), definitional_pairs=pairs)
    results["RAN"] = ran.transform(model(), target=RAN_TARGET, ignore=[])
    # RAN's output moves by up to 1e-2 when an input moves by one float32 ulp, so also keep WEFE's own inputs to
    # the optimisation (unit vector, neighbours, repulsion set, bias direction) and its output per target word.
    unit = model()
    unit.normalize()
    out["RAN_direction"] = np.asarray(ran.bias_direction_, dtype=np.float64)
    out["RAN_unit"] = np.stack([unit[w] for w in RAN_TARGET])
    out["RAN_neighbours"] = np.array([ran._get_neighbours(unit, w, 100) for w in RAN_TARGET])
    out["RAN_repulsion"] = np.array(
        [
            [ran._indirect_bias(unit[n], unit[w], ran.bias_direction_) > 0.05 for n in row]
            for w, row in zip(RAN_TARGET, out["RAN_neighbours"])
        ]
    )
    out["RAN_neighbour_vectors"] = np.stack([[unit[n] for n in row] for row in out["RAN_neighbours"]])
    out["RAN_output"] = np.stack(
        [
            ran._debias(
                unit,
                w,
                unit[w],
                ran._init_vector(unit, w),
                ran.bias_direction_,
                ran._get_repulsion_set(unit, w, ran.bias_direction_, 0.05, 100),
                0.01,
                300,
                [0.33, 0.33, 0.33],
            )
            .detach()
            .numpy()
            for w in RAN_TARGET
        ]
    )
    mhd = MulticlassHardDebias(pca_args={"n_components": SETTINGS["mhd"]["n_components"]})
    mhd.fit(model(), definitional_sets=pairs, equalize_sets=pairs)
    results["MHD"] = mhd.transform(model(), ignore=GENDER_SPECIFIC)
    for name, result in results.items():
        out[f"{name}_sample"] = np.stack([result[w] for w in SAMPLE_WORDS]).astype(np.float64)
        out[f"{name}_column_sums"] = np.asarray(result.wv.vectors, dtype=np.float64).sum(axis=0)
    out["sample_words"] = np.array(SAMPLE_WORDS)
    out["settings"] = np.array(json.dumps({**SETTINGS, "wefe_version": wefe.__version__}))
    np.savez_compressed(output_path, **out)
    print(f"wrote {output_path} (WEFE {wefe.__version__})")


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "export":
        export(sys.argv[2])
    elif len(sys.argv) >= 4 and sys.argv[1] == "compute":
        compute(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
