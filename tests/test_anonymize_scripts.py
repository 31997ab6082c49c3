"""Text in scripts written without spaces (Chinese, Japanese, Thai …) beside Latin names: the English pipeline reads
a run of such characters as one token, so a name at its start took the whole run with it ("David是厨师。他在餐厅…" →
"。", red team, session 43). Real spaCy pipeline, with and without the entity recognizer."""

from __future__ import annotations

import pytest

from debiasrag.anonymize import NerAnonymizer


@pytest.fixture(scope="module", params=["ner", "fast"])
def anonymizer(request: pytest.FixtureRequest) -> NerAnonymizer:
    return NerAnonymizer(use_ner=request.param == "ner")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("David是厨师。他在餐厅工作了十年，擅长做面包。", "是厨师。他在餐厅工作了十年，擅长做面包。"),
        ("Maria是医生。她在医院工作了26年。", "是医生。她在医院工作了26年。"),
        ("Hanoi的医生在医院工作了26年。她是librarian。", "的医生在医院工作了26年。她是librarian。"),
    ],
)
def test_a_latin_name_in_spaceless_text_goes_alone(anonymizer: NerAnonymizer, text: str, expected: str) -> None:
    result = anonymizer.anonymize(text)
    assert result.text == expected
    assert all(text[e.start : e.end] == e.text and e.text.isascii() for e in result.entities)


def test_every_latin_name_of_a_spaceless_run_is_its_own_entity(anonymizer: NerAnonymizer) -> None:
    text = "Dr. Wang从Hanoi来，在医院工作了26年。"
    result = anonymizer.anonymize(text)
    assert [e.text for e in result.entities] == ["Wang", "Hanoi"]
    assert result.text.endswith("从来，在医院工作了26年。") and "Wang" not in result.text


def test_spaceless_text_without_latin_names_is_kept(anonymizer: NerAnonymizer) -> None:
    for text in ("他在餐厅工作了十年。", "田中さんはとても親切です。", "我和朋友去了北京。"):
        assert anonymizer.anonymize(text).text == text
