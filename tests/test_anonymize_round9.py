"""Session 40: open findings of the session-38 red team of the chat-log and handle rules (R5, R7-R12), on the real
spaCy pipeline: handles in configs, logs and key=value text, one-word handles after a cue, e-mail local parts, common
given names, word-name speaker labels, timestamps with milliseconds, and "@" tokens in code that are no handles."""

from __future__ import annotations

import pytest
from anonymize_support import removed

from debiasrag.anonymize import NerAnonymizer


@pytest.fixture(scope="module", params=[True, False], ids=["ner", "fast"])
def anonymizer(request: pytest.FixtureRequest) -> NerAnonymizer:
    return NerAnonymizer(use_ner=request.param)


def touched(anonymizer: NerAnonymizer, text: str, where: str) -> bool:
    """Whether any character of the braced part of ``where`` is inside a detected entity."""
    before, rest = where.split("{", 1)
    word, after = rest.split("}", 1)
    context = before + word + after
    assert text.count(context) == 1, context
    start = text.index(context) + len(before)
    return any(e.start < start + len(word) and start < e.end for e in anonymizer.detect(text))


@pytest.mark.parametrize(
    ("text", "names"),
    [
        # R7: keys of configs and logs, quotes, brackets, dunder names, lists after a cue
        ("level=warn user=jdoe action=delete", ["user={jdoe} "]),
        ('{"owner": "jane.doe", "repo_id": "abc"}', ['"{jane.doe}"']),
        ('__author__ = "r.patel"', ['"{r.patel}"']),
        ('"contributors": ["r.patel", "nina.g"]', ['"{r.patel}"', '"{nina.g}"']),
        ("# TODO(kofi.mensah): remove after migration", ["({kofi.mensah})"]),
        ("Thanks to kofi.mensah, r.patel and @lindiwe for reviews.", ["{kofi.mensah},", "{r.patel} and"]),
        ("2024-05-01 INFO auth: login failed for m.smith from 10.0.0.5", ["for {m.smith} "]),
        (">> On Tue, 5 Mar 2024, kofi.mensah wrote:\n>> the pipeline is down", ["{kofi.mensah} wrote"]),
        (
            "| Service | Owner | On-call |\n|---|---|---|\n| billing | r.patel | kofi.mensah |",
            ["{r.patel}", "{kofi.mensah}"],
        ),
        # R8: one word after a cue, a listed surname that is a word or has two letters, e-mail local parts
        ("The issue was opened by jkowalski and assigned to r.patel.", ["by {jkowalski} ", "{r.patel}."]),
        ("Acked-by: jkowalski\nTested-by: li.wei", ["{jkowalski}", "{li.wei}"]),
        ("owner: jane.doe\nbranch: main", ["{jane.doe}"]),
        ("my login is tgonzalez@gmail.com and also mwhite@outlook.com", ["{tgonzalez}@", "{mwhite}@"]),
        # R11: IRC join lines, timestamps with milliseconds, Discord's header for older days
        ("15:02 <rahul> merging now\n15:03 -!- hkim [~hkim@host-10.example.net] has joined #dev", ["-!- {hkim} ["]),
        ("09:00:02.456 kwame_a: hi\n09:00:03.101 dave_r: hey", ["{kwame_a}", "{dave_r}"]),
        (
            "kwame.a \u2014 03/14/2024 11:03 PM\nanyone up?\nemeka_o \u2014 03/14/2024 11:04 PM\nyes",
            ["{kwame.a} \u2014"],
        ),
    ],
)
def test_handles_in_configs_logs_and_after_cues_are_removed(
    anonymizer: NerAnonymizer, text: str, names: list[str]
) -> None:
    for where in names:
        assert removed(anonymizer, text, where), (text, where)


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        # R5: identifiers whose parts the name lists hold, after a cue or a bracket
        ("computed by self.lora_r and then by q_lora in the adapter", ["by {q_lora} "]),
        ("thanks to b.base the path works", ["{b.base}"]),
        ("Call the helper (q_lora) then the scorer (lora_r).", ["({q_lora})", "({lora_r})"]),
        # a one-word value after a comma, a key, a module or an ordinary noun after a cue stays
        ("If isinstance(user, anim) and owner: return", ["{anim})"]),
        ("f(owner=owner, repo=repo)", ["{repo}=repo"]),
        ("results are due by autumn, delivered by noon", ["{autumn}", "{noon}"]),
        ("import json\nthe payload is parsed by json before use", ["by {json} "]),
        # R12: "@" tokens of code
        ("@singledispatch\ndef f(x): ...", ["{@singledispatch}"]),
        ('<button @dblclick="edit" @mouseover="hint">', ["{@dblclick}", "{@mouseover}"]),
        ("@gray-light: #777;\n.btn { color: @gray-light; }", ["{@gray-light}:", "color: {@gray-light};"]),
        ("bumped by @renovate-bot, owned by @py-maintainers", ["{@renovate-bot}", "{@py-maintainers}"]),
        ("/**\n * @typedef {Object} User\n * @memberof api\n */", ["{@typedef}", "{@memberof}"]),
    ],
)
def test_code_tokens_stay(anonymizer: NerAnonymizer, text: str, kept: list[str]) -> None:
    for where in kept:
        assert not touched(anonymizer, text, where), (text, where)


def test_a_person_handle_with_a_role_word_is_still_removed(anonymizer: NerAnonymizer) -> None:
    text = "thanks @kiran_dev for the fix"
    assert removed(anonymizer, text, "{@kiran_dev}")


def test_common_given_names_in_chat_are_names(anonymizer: NerAnonymizer) -> None:
    # R9: WordNet lists James, Thomas and Sarah; "-es" stripping made "tomás" "tom", "ines" "in"
    text = "<james> anyone around?\n<thomas> yep\n<lucas> morning james\n<kwame> waiting on sarah and tomás"
    for where in ["<{james}> any", "<{thomas}>", "morning {james}", "on {sarah} ", "and {tomás}"]:
        assert removed(anonymizer, text, where), where


def test_a_nick_part_that_is_a_word_is_still_only_cued(anonymizer: NerAnonymizer) -> None:
    # the one-word handle after "thanks" does not spread to "planted lily bulbs"
    text = "[09:00] lily.chen: planted lily bulbs today\n[09:01] dave_r: nice, thanks lily"
    assert removed(anonymizer, text, "thanks {lily}")
    assert not touched(anonymizer, text, "planted {lily} bulbs")


def test_word_name_speakers_after_a_timestamp(anonymizer: NerAnonymizer) -> None:
    # R10: WhatsApp shows contacts' names; the stop-word names the lists leave out count beside an initial
    text = "12/03/2024, 09:15 - Grace: are we still on?\n12/03/2024, 09:16 - Will: yes, see you at 6\n"
    text += "12/03/2024, 09:17 - Grace: thanks will"
    for where in ["- {Grace}: are", "- {Will}: yes", "thanks {will}"]:
        assert removed(anonymizer, text, where), where
    chat = "[09:00] will_s: morning all\n[09:01] dave_r: it will rain later\n[09:02] aunt_may: the job may fail"
    assert removed(anonymizer, chat, "{will_s}:")
    assert removed(anonymizer, chat, "{aunt_may}:")
    assert not touched(anonymizer, chat, "it {will} rain")
    assert not touched(anonymizer, chat, "job {may} fail")
