"""Session 39: two findings of the red team's round on the chat-log rules (session 38). A chat line's tags
before the speaker were all kept, names too ("[reply to Kwame Mensah] dave_r:"); and a speaker nick's given-name
part that is also a word ("mark_t", "rose_k") was removed at every mention ("just mark the ticket")."""

from __future__ import annotations

import pytest
from anonymize_support import removed

from debiasrag.anonymize import NerAnonymizer


@pytest.fixture(scope="module", params=[True, False], ids=["ner", "fast"])
def anonymizer(request: pytest.FixtureRequest) -> NerAnonymizer:
    return NerAnonymizer(use_ner=request.param)


def check(anonymizer: NerAnonymizer, text: str, names: list[str], kept: list[str]) -> None:
    """Every ``names`` place is removed and no ``kept`` place is (places as :func:`removed` reads them)."""
    for where in names:
        assert removed(anonymizer, text, where), where
    for where in kept:
        assert not removed(anonymizer, text, where), where


@pytest.mark.parametrize(
    ("text", "names", "kept"),
    [
        # A tag may hold a person; times, channels and tag words name no one.
        (
            "[10:02] [reply to Kwame Mensah] dave_r: agreed, ship it\n"
            "[10:03] [#general] lina_p: shipping now\n"
            "[10:04] [Team] raj_patel99: 👍",
            ["to {Kwame} Mensah", "Kwame {Mensah}"],
            ["[{10}:02] [reply", "[#{general}]", "[{Team}]"],
        ),
        (
            "[Priya] [09:00] dave_r: hi\n[09:01] [DM from Kwame] kofi_m: yo",
            ["[{Priya}]", "from {Kwame}"],
            ["[{DM} from", "[09:{01}]"],
        ),
        (
            "[Mod] [VIP] sarah_k: welcome in chat\n"
            "[Whisper] [Guild] big_mike: gg all\n"
            "[Party] [Amara] lucy.o: hi\n"
            "[General] [All] dave_r: brb",
            ["[{Amara}]"],
            ["[{Mod}]", "[{VIP}]", "[{Whisper}]", "[{Guild}]", "[{Party}]", "[{General}]", "[{All}]"],
        ),
    ],
)
def test_a_name_in_a_chat_tag_is_removed_and_tag_words_stay(
    anonymizer: NerAnonymizer, text: str, names: list[str], kept: list[str]
) -> None:
    check(anonymizer, text, names, kept)


@pytest.mark.parametrize(
    ("text", "names", "kept"),
    [
        (
            "[14:00] mark_t: standup in 5\n"
            "[14:01] priya_n: just mark the ticket as done\n"
            "[14:02] kwame_a: thanks mark\n"
            "[14:03] mark_t: waiting for kwame to merge",
            ["thanks {mark}", "for {kwame} to"],  # "kwame" is no word: a name at every mention
            ["just {mark} the"],
        ),
        (
            "[08:10] rose_k: cpu usage rose to 90% overnight\n"
            "[08:11] li.wei: latency rose too, p99 is 800ms\n"
            "[08:12] dave_r: rolled back, gg rose!",
            ["gg {rose}!"],
            ["usage {rose} to", "latency {rose} too"],
        ),
        (
            "[11:20] bill_w: finance wants us to bill them monthly\n"
            "[11:21] ana_m: ok, bill them on the 1st\n"
            "[11:22] ana_m: bill said the client agreed",
            ["{bill} said"],
            ["ok, {bill} them"],
        ),
        (
            "[09:00] lily.chen: planted lily bulbs today\n"
            "[09:01] dave_r: nice, thanks lily\n"
            "[09:02] dave_r: lily: can you share the photos?",
            ["thanks {lily}", "{lily}: can"],
            ["planted {lily} bulbs"],
        ),
    ],
)
def test_a_nick_part_that_is_a_word_is_a_name_only_where_cued(
    anonymizer: NerAnonymizer, text: str, names: list[str], kept: list[str]
) -> None:
    check(anonymizer, text, names, kept)
