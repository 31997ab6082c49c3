"""Run one mitigation on a user's word-vector file: read, choose word sets, fit, transform, write.

This is what ``debiasrag mitigate`` does, as a library:

>>> model = read_vectors("vectors.txt")                       # doctest: +SKIP
>>> result = debias(model, "HD", sets=default_sets("seed003"))  # doctest: +SKIP
>>> write_vectors(result.model, "debiased.txt")               # doctest: +SKIP

Files are text, one word per line followed by its numbers separated by spaces (GloVe's format); a first line
``<count> <dimension>`` (word2vec's text format) is accepted and written back if it was there. Values are written
with enough digits to read back bit-identical (9 significant digits for float32, 17 for float64).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from debiasrag.errors import InputError, check_seed
from debiasrag.fileio import atomic_write, read_text
from debiasrag.mitigate.base import BaseDebias, WordEmbeddings
from debiasrag.mitigate.double_hard_debias import DoubleHardDebias
from debiasrag.mitigate.half_sibling_regression import HalfSiblingRegression
from debiasrag.mitigate.hard_debias import HardDebias
from debiasrag.mitigate.multiclass_hard_debias import MulticlassHardDebias
from debiasrag.mitigate.repulsion_attraction_neutralization import RepulsionAttractionNeutralization
from debiasrag.mitigate.wordsets import bolukbasi_gender_specific, flatten, seed003_wordsets

ALGORITHM_NAMES = ("HD", "DHD", "HSR", "RAN", "MHD")
SET_CHOICES = ("seed003", "bolukbasi")


@dataclass
class WordSets:
    """What a mitigation learns from (``definitional``: pairs, or sets for MHD) and leaves alone."""

    definitional: list[list[str]]
    gender_specific: list[str]


@dataclass
class DebiasResult:
    """The debiased model, the fitted estimator and a before/after summary (see :func:`debias`)."""

    model: WordEmbeddings
    estimator: BaseDebias
    summary: dict[str, Any] = field(default_factory=dict)


def read_vectors(path: str | Path, *, dtype: str = "float32") -> WordEmbeddings:
    """Read a GloVe / word2vec text file into :class:`WordEmbeddings`; bad lines are an InputError naming the line.

    ``dtype``: ``"float32"`` (as the files usually hold) or ``"float64"``.
    """
    if dtype not in ("float32", "float64"):
        raise InputError(f"dtype must be float32 or float64, got {dtype!r}")
    # "\n" only: GloVe's large vocabularies hold words with U+2028 or U+0085, which str.splitlines() splits on
    lines = read_text(path, what="word-vector file").split("\n")
    start = 0
    header = lines[0].split() if lines else []
    if len(header) == 2 and all(part.isascii() and part.isdigit() for part in header):  # not "²"
        start = 1
    words: list[str] = []
    rows: list[np.ndarray] = []
    dim = int(header[1]) if start else None
    for number, line in enumerate(lines[start:], start=start + 1):
        parts = line.rstrip().split(" ")
        if parts == [""]:
            continue
        if len(parts) < 2:
            raise InputError(f"{path}, line {number}: expected a word followed by numbers")
        if dim is None:
            dim = len(parts) - 1
        if len(parts) - 1 != dim:
            raise InputError(f"{path}, line {number}: {len(parts) - 1} numbers, the file's vectors have {dim}")
        try:
            values = np.array(parts[1:], dtype=dtype)
        except ValueError:
            raise InputError(f"{path}, line {number}: not a number in the vector of {parts[0]!r}") from None
        if not np.isfinite(values).all():
            raise InputError(f"{path}, line {number}: the vector of {parts[0]!r} holds NaN or infinity")
        words.append(parts[0])
        rows.append(values)
    if not words:
        raise InputError(f"{path}: no word vectors in the file")
    if start and len(words) != int(header[0]):
        raise InputError(f"{path}: the header announces {header[0]} words, the file has {len(words)}")
    if len(set(words)) != len(words):
        seen: set[str] = set()
        twice = next(w for w in words if w in seen or seen.add(w))  # type: ignore[func-returns-value]
        raise InputError(f"{path}: the word {twice!r} appears twice")
    return WordEmbeddings(words, np.stack(rows))


def write_vectors(model: WordEmbeddings, path: str | Path, *, header: bool = False) -> Path:
    """Write ``model`` as a GloVe text file (``header``: word2vec's ``<count> <dimension>`` first line), atomically."""
    digits = 9 if model.vectors.dtype == np.float32 else 17

    def chunks() -> Iterator[str]:
        if header:
            yield f"{len(model.words)} {model.vectors.shape[1]}\n"
        for word, row in zip(model.words, model.vectors, strict=True):
            yield word + " " + " ".join(f"{v:.{digits}g}" for v in row.tolist()) + "\n"

    return atomic_write(path, chunks())


def default_sets(name: str = "seed003") -> WordSets:
    """Gender word sets: ``"seed003"`` (Table 2's 12 bias-definition pairs; gender-specific = Bolukbasi's list
    plus Table 2's 48 words) or ``"bolukbasi"`` (his 10 definitional pairs and gender-specific list). Words are
    given as published and lower-cased (words a model lacks are skipped)."""
    data = seed003_wordsets()
    if name == "seed003":
        pairs = data["bias_definition_pairs"]
        extra = flatten(data["table2_pairs"])
    elif name == "bolukbasi":
        pairs = data["bolukbasi_definitional_pairs"]
        extra = flatten(pairs)
    else:
        raise InputError(f"word sets must be one of {', '.join(SET_CHOICES)}, got {name!r}")
    lowered = [[w.lower() for w in p] for p in pairs]
    specific = [*bolukbasi_gender_specific(), *extra]
    return WordSets(lowered, list(dict.fromkeys([*specific, *(w.lower() for w in specific)])))


def estimator_for(
    algorithm: str, *, normalization: str = "keep", seed: int = 0, options: dict[str, Any] | None = None
) -> BaseDebias:
    """A new estimator for ``algorithm`` (``HD``, ``DHD``, ``HSR``, ``RAN`` or ``MHD``, any case)."""
    name = algorithm.upper()
    options = dict(options or {})
    if name == "HD":
        return HardDebias(normalization=normalization, **options)
    if name == "DHD":
        return DoubleHardDebias(random_state=seed, normalization=normalization, **options)
    if name == "HSR":
        return HalfSiblingRegression(normalization=normalization, **options)
    if name == "RAN":
        return RepulsionAttractionNeutralization(normalization=normalization, **options)
    if name == "MHD":
        return MulticlassHardDebias(normalization=normalization, **options)
    raise InputError(f"algorithm must be one of {', '.join(ALGORITHM_NAMES)}, got {algorithm!r}")


def _fit_arguments(name: str, sets: WordSets) -> dict[str, Any]:
    if name == "HSR":
        return {"definitional_words": flatten(sets.definitional)}
    if name == "MHD":
        return {"definitional_sets": sets.definitional, "equalize_sets": sets.definitional}
    return {"definitional_pairs": sets.definitional}


def _mean_abs_cos(vectors: np.ndarray, direction: np.ndarray) -> float:
    if not len(vectors):
        return 0.0
    v = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(v, axis=1)
    cos = (v @ direction) / np.where(norms == 0, 1.0, norms)
    return float(np.mean(np.abs(cos)))


def debias(
    model: WordEmbeddings,
    algorithm: str,
    *,
    sets: WordSets | None = None,
    target: Sequence[str] | None = None,
    normalization: str = "keep",
    seed: int = 0,
    options: dict[str, Any] | None = None,
) -> DebiasResult:
    """Fit ``algorithm`` on ``model`` with ``sets`` (default :func:`default_sets`) and debias ``target`` (default:
    every word not gender-specific); the input model is unchanged.

    ``summary``: the algorithm, how many words changed, and the mean |cos(w, d)| over the debiased words before
    and after, ``d`` being the unit difference of the first definitional pair both of whose words are known; with
    ``target``, the target words left unchanged because the model lacks them (``target_not_in_vocabulary``) or
    they are gender-specific (``target_gender_specific``).
    """
    sets = sets if sets is not None else default_sets()
    name = algorithm.upper()
    estimator = estimator_for(name, normalization=normalization, seed=check_seed(seed), options=options)
    estimator.fit(model, **_fit_arguments(name, sets))
    ignore = [w for w in sets.gender_specific if w in model]
    if target is not None:  # gender-specific words stay untouched whichever algorithm runs
        if isinstance(target, str):
            raise InputError("target must be a list of words, not one string")
        skip = set(ignore)
        asked = list(dict.fromkeys(target))
        unknown = [w for w in asked if w not in model]
        specific = [w for w in asked if w in skip]
        target = [w for w in asked if w in model and w not in skip]
        if not target:
            raise InputError("no target word is in the vocabulary outside the gender-specific words")
    result = estimator.transform(model, target=target, ignore=ignore)
    rows = model.rows(target) if target is not None else np.setdiff1d(np.arange(len(model)), model.rows(ignore))
    pair = next((p for p in sets.definitional if len(p) >= 2 and all(w in model for w in p[:2])), None)  # HSR: words
    summary: dict[str, Any] = {"algorithm": name, "words": len(model), "debiased": int(len(rows))}
    if target is not None:  # target words left as they are, and why
        summary["target_not_in_vocabulary"] = unknown
        summary["target_gender_specific"] = specific
    if pair is not None:
        d = np.asarray(model[pair[0]], dtype=np.float64) - np.asarray(model[pair[1]], dtype=np.float64)
        d /= np.linalg.norm(d) or 1.0
        summary["direction"] = f"{pair[0]} - {pair[1]}"
        summary["mean_abs_cos_before"] = _mean_abs_cos(model.vectors[rows], d)
        summary["mean_abs_cos_after"] = _mean_abs_cos(result.vectors[rows], d)
    return DebiasResult(result, estimator, summary)
