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

import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from debiasrag.errors import InputError, check_seed, shown
from debiasrag.fileio import atomic_write, read_text
from debiasrag.mitigate import ALGORITHMS
from debiasrag.mitigate.base import BaseDebias, TransformReport, WordEmbeddings, some, word_list
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
    """The debiased model, the fitted estimator, a before/after summary (see :func:`debias`) and which rows changed
    (``report``: debiased, equalized and rescaled row indices)."""

    model: WordEmbeddings
    estimator: BaseDebias
    summary: dict[str, Any] = field(default_factory=dict)
    report: TransformReport | None = None

    @property
    def changed_words(self) -> list[str]:
        """The words the algorithm debiased or equalized, in vocabulary order (not those only rescaled)."""
        if self.report is None:
            return []
        rows = np.union1d(self.report.debiased, self.report.equalized)
        return [self.model.words[i] for i in rows]


def read_vectors(path: str | Path, *, dtype: str = "float32") -> WordEmbeddings:
    """Read a GloVe / word2vec text file into :class:`WordEmbeddings`; bad lines are an InputError naming the line.

    ``dtype``: ``"float32"`` (as the files usually hold) or ``"float64"``.
    """
    if dtype not in ("float32", "float64"):
        raise InputError(f"dtype must be float32 or float64, got {dtype!r}")
    if not isinstance(path, (str, os.PathLike)):
        raise InputError(f"path must be a file path (str or pathlib.Path), got {type(path).__name__}")
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
        if "\t" in line:
            raise InputError(f"{path}, line {number}: a tab; expected a word and numbers separated by single spaces")
        if len(parts) < 2 or not parts[0]:
            raise InputError(f"{path}, line {number}: expected a word followed by numbers, separated by single spaces")
        if "" in parts:
            raise InputError(f"{path}, line {number}: two spaces in a row; separate the numbers by single spaces")
        if dim is None:
            dim = len(parts) - 1
        if len(parts) - 1 != dim:
            raise InputError(f"{path}, line {number}: {len(parts) - 1} numbers, the file's vectors have {dim}")
        try:
            values = np.array(parts[1:], dtype=dtype)
        except ValueError:
            raise InputError(f"{path}, line {number}: not a number in the vector of {parts[0]!r}") from None
        if not np.isfinite(values).all():
            if np.isfinite(np.array(parts[1:], dtype=np.float64)).all():  # finite, but past float32's 3.4e38
                raise InputError(
                    f"{path}, line {number}: the vector of {parts[0]!r} holds a number too large for float32; "
                    "read the file as float64"
                )
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
    """Write ``model`` as a GloVe text file (``header``: word2vec's ``<count> <dimension>`` first line), atomically.

    A word that the file could not hold (empty, or with a space or line break: :func:`read_vectors` would split
    it) is an InputError, and nothing is written.
    """
    if not isinstance(model, WordEmbeddings):
        raise InputError(f"model must be a WordEmbeddings (words + matrix), got {type(model).__name__}")
    if not isinstance(path, (str, os.PathLike)):
        raise InputError(f"path must be a file path (str or pathlib.Path), got {type(path).__name__}")
    unwritable = [w for w in model.words if not w or any(c in w for c in " \n\r")]
    if unwritable:
        raise InputError(
            f"{len(unwritable)} word(s) cannot be written to a word-vector text file (empty, or holding a space or "
            f"line break): {some(unwritable)}"
        )
    digits = 9 if model.vectors.dtype == np.float32 else 17

    def chunks() -> Iterator[str]:
        if header:
            yield f"{len(model.words)} {model.vectors.shape[1]}\n"
        for word, row in zip(model.words, model.vectors, strict=True):
            yield word + " " + " ".join(f"{v:.{digits}g}" for v in row.tolist()) + "\n"

    return atomic_write(path, chunks())


def default_sets(name: str = "seed003") -> WordSets:
    """Gender word sets: ``"seed003"`` (Table 2's 12 bias-definition pairs; gender-specific = Bolukbasi's list
    plus Table 2's 48 words) or ``"bolukbasi"`` (his 10 definitional pairs and gender-specific list). Pairs are
    lower-cased; Bolukbasi's gender-specific list is used as published, case and all, as WEFE uses it: its
    word2vec-cased entries ("Handsome", "NeW", "COUPLE") are other words than GloVe's lower-case ones, and
    lower-cased they kept "handsome", "muscular", "new" and "couple" from being debiased (words a model lacks
    are skipped)."""
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
    return WordSets(lowered, list(dict.fromkeys([*bolukbasi_gender_specific(), *(w.lower() for w in extra)])))


def estimator_for(
    algorithm: str, *, normalization: str = "keep", seed: int = 0, options: dict[str, Any] | None = None
) -> BaseDebias:
    """A new estimator for ``algorithm`` (``HD``, ``DHD``, ``HSR``, ``RAN`` or ``MHD``, any case); ``options`` are
    its other parameters (e.g. ``{"n_components": 5}``), an unknown one is an InputError listing the valid ones."""
    name = algorithm.upper() if isinstance(algorithm, str) else algorithm
    if name not in ALGORITHMS:
        raise InputError(f"algorithm must be one of {', '.join(ALGORITHM_NAMES)}, got {algorithm!r}")
    cls = ALGORITHMS[name]
    if options is not None and not isinstance(options, dict):
        raise InputError(f"options must be a dict of {name}'s parameters, got {type(options).__name__}")
    options = dict(options or {})
    fixed = {"normalization": normalization, **({"random_state": seed} if name == "DHD" else {})}
    allowed = sorted(set(cls().get_params()) - set(fixed))
    unknown = [key for key in options if key not in allowed]
    if unknown:
        others = (
            "normalization and seed are debias() arguments" if name == "DHD" else "normalization is a debias() argument"
        )
        raise InputError(
            f"{name} has no option {', '.join(shown(k, 30) for k in unknown)} (its options: {', '.join(allowed)}; "
            f"{others})"
        )
    return cls(**fixed, **options)


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


def _check_sets(sets: Any, name: str) -> WordSets:
    """``sets`` checked as the algorithm will read it: pairs (sets of any size for HSR and MHD) with no word twice."""
    if not isinstance(sets, WordSets):
        raise InputError(f"sets must be a WordSets (definitional, gender_specific), got {type(sets).__name__}")
    size = None if name in ("HSR", "MHD") else 2
    label = "definitional sets" if size is None else "definitional pairs"
    definitional = BaseDebias._pairs(sets.definitional, label, size=size)
    return WordSets(definitional, word_list(sets.gender_specific, "gender-specific words"))


def _target_words(model: WordEmbeddings, target: Any, ignore: list[str]) -> tuple[list[str], list[str], list[str]]:
    """``(to debias, not in the vocabulary, gender-specific)``; an InputError if nothing is left to debias."""
    asked = list(dict.fromkeys(word_list(target, "target")))
    if not asked:
        raise InputError("the target word list is empty")
    skip = set(ignore)
    unknown = [w for w in asked if w not in model]
    specific = [w for w in asked if w in skip]
    words = [w for w in asked if w in model and w not in skip]
    if not words:
        why = []
        if unknown:
            why.append(f"{len(unknown)} not in the vocabulary ({some(unknown)})")
        if specific:
            why.append(f"{len(specific)} gender-specific ({some(specific)})")
        raise InputError(f"no target word to debias: of the {len(asked)} given, " + " and ".join(why))
    return words, unknown, specific


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
    every word not gender-specific); the input model is unchanged. The result holds the whole vocabulary.

    ``summary`` counts every word once: ``debiased`` (changed by the algorithm), ``equalized`` (HD / MHD's
    definitional pairs, placed symmetrically about the bias direction), ``rescaled`` (vectors only made unit length:
    HD, RAN and MHD with ``normalization="keep"``; with ``"reverse"`` those words keep their input vectors) and
    ``unchanged`` (bit-identical), plus the mean |cos(w, d)| over the debiased words before and after, ``d`` being
    the unit difference of the first definitional pair both of whose words are known, and the same along the
    estimator's own fitted ``bias_direction_`` where it has one (``mean_abs_cos_fitted_before`` / ``_after``).
    With ``target``, the target
    words not debiased because the model lacks them (``target_not_in_vocabulary``), they are gender-specific
    (``target_gender_specific``) or definitional words the algorithm keeps or equalizes (``target_definitional``);
    ``definitional_not_in_vocabulary``: the definitional pairs (sets) the fit went without, a word of theirs missing.
    """
    model = BaseDebias._check_model(model)
    name = algorithm.upper() if isinstance(algorithm, str) else algorithm
    estimator = estimator_for(name, normalization=normalization, seed=check_seed(seed), options=options)
    sets = _check_sets(sets if sets is not None else default_sets(), name)
    ignore = [w for w in sets.gender_specific if w in model]
    unknown: list[str] = []
    specific: list[str] = []
    if target is not None:  # gender-specific words stay untouched whichever algorithm runs
        target, unknown, specific = _target_words(model, target, ignore)
    estimator.fit(model, **_fit_arguments(name, sets))
    result, report = estimator.transform_report(model, target=target, ignore=ignore)
    rows = report.debiased
    summary: dict[str, Any] = {
        "algorithm": name,
        "words": len(model),
        "debiased": int(len(rows)),
        "equalized": int(len(report.equalized)),
        "rescaled": int(len(report.rescaled)),
        "unchanged": int(len(model) - len(rows) - len(report.equalized) - len(report.rescaled)),
        "normalization": normalization,
    }
    # A definitional pair the vocabulary lacks is fitted without (``--limit`` can leave out half the defaults): say so.
    summary["definitional_not_in_vocabulary"] = [
        " / ".join(words) for words in sets.definitional if not all(w in model for w in words)
    ]
    if target is not None:  # target words left as they are, and why
        debiased = set(rows.tolist())
        summary["target_not_in_vocabulary"] = unknown
        summary["target_gender_specific"] = specific
        summary["target_definitional"] = [w for w in target if model.index[w] not in debiased]
    pair = next((p for p in sets.definitional if len(p) >= 2 and all(w in model for w in p[:2])), None)
    if pair is not None:
        d = np.asarray(model[pair[0]], dtype=np.float64) - np.asarray(model[pair[1]], dtype=np.float64)
        d /= np.linalg.norm(d) or 1.0
        summary["direction"] = f"{pair[0]} - {pair[1]}"
        summary["mean_abs_cos_before"] = _mean_abs_cos(model.vectors[rows], d)
        summary["mean_abs_cos_after"] = _mean_abs_cos(result.vectors[rows], d)
    # The pair's axis is not what every algorithm removes (RAN fits its own direction and may move words along
    # she - he while taking them off it): the same measure along the estimator's own fitted direction, where it has one.
    fitted = getattr(estimator, "bias_direction_", None)
    if isinstance(fitted, np.ndarray) and fitted.ndim == 1 and fitted.shape[0] == model.vectors.shape[1]:
        unit = fitted.astype(np.float64) / (np.linalg.norm(fitted) or 1.0)
        summary["mean_abs_cos_fitted_before"] = _mean_abs_cos(model.vectors[rows], unit)
        summary["mean_abs_cos_fitted_after"] = _mean_abs_cos(result.vectors[rows], unit)
    _held_out_measure(summary, model, result, rows, sets)
    return DebiasResult(result, estimator, summary, report)


def _held_out_measure(summary: dict[str, Any], model: Any, result: Any, rows: np.ndarray, sets: Any) -> None:
    """The debiased words' mean |cos| with a gender direction learnt from pairs the fit never saw (the bundled gender
    concept's pairs sharing no word with the definitional sets, both words in the vocabulary; the mean of their unit
    differences), those words themselves not scored: seed 003's rule. The fitted pair's own axis flatters the fit (a
    new user's audit, session 46: HD on 4 pairs took words from 0.106 to 0.000 on its own direction and from 0.156
    to 0.145 on one of two held-out pairs). Only for a gender debias (the definitional sets share a word with the
    concept's pairs) and with at least 2 such pairs."""
    from debiasrag.concepts import load_concept

    pairs = load_concept("gender").pairs
    used = {w.casefold() for words in sets.definitional for w in words}
    if not used & {w.casefold() for pair in pairs for w in pair}:
        return  # not a gender debias: the gender pairs measure something else
    held = [(a, b) for a, b in pairs if not {a.casefold(), b.casefold()} & used and a in model and b in model]
    if len(held) < 2:
        return
    differences = []
    for a, b in held:
        d = np.asarray(model[a], dtype=np.float64) - np.asarray(model[b], dtype=np.float64)
        differences.append(d / (np.linalg.norm(d) or 1.0))
    direction = np.mean(differences, axis=0)
    direction /= np.linalg.norm(direction) or 1.0
    held_rows = {model.index[w] for pair in held for w in pair}
    scored = np.array([r for r in rows.tolist() if r not in held_rows], dtype=np.int64)
    summary["held_out_pairs"] = [f"{a} / {b}" for a, b in held]
    summary["mean_abs_cos_held_out_before"] = _mean_abs_cos(model.vectors[scored], direction)
    summary["mean_abs_cos_held_out_after"] = _mean_abs_cos(result.vectors[scored], direction)
