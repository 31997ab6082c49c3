"""The NER anonymizer on person-name gold sets nobody here tuned it on (session 28).

    .venv/bin/python benchmarks/anonymize_report.py

``ner_gold.jsonl`` (85 texts) and ``ner_gold_heldout.jsonl`` (40) chose the anonymizer's rules. The two report
sets were written blind by helper sessions that saw none of this package (only the format): 160 texts each, in
the styles of a retrieval corpus (news, forum posts, tickets, minutes, chat, medical and legal notes), names from
many cultures, multi-part names with particles, given names that are also English words (used as names and, in
other texts, as words), lower-case chat names, ALL-CAPS headings, initials, people's names inside organisation
and place names. ``ner_gold_report.jsonl`` was written first and read for misses, which gave the joining of name
parts (``NerAnonymizer._join_name_parts``); ``ner_gold_report2.jsonl`` was written after that rule and reported it,
then its misses were read too, which gave the lower-case names of casual text (``NerAnonymizer._casual_names``);
``ner_gold_report3.jsonl`` (200 texts: 100 chat / comment texts typed in lower case, 100 technical texts with
lower-case tool and model names such as bert, jenkins, siri) was written after both and reported them, per half;
in session 29 the misses of all three were read, which gave user handles and chat context
(``NerAnonymizer._handles``, ``_cued``, ``data/names/mention_context.json``). ``ner_gold_report4.jsonl`` (200 texts:
50 formal, 50 workplace with @mentions and technical tokens, 50 casual typed in lower case, 50 mixed) was written
after those rules and reported them, per quarter; then its misses were read, which gave a second round (handles
with dots and underscores, more chat context). ``ner_gold_report5.jsonl`` (200 texts in the same four styles) was
written after the second round and only reports. ``ner_gold_report6.jsonl`` (240 texts, 20 in each of 12 genres:
e-mail, chat logs, minutes, citations, legal, sports, clinical, social media, ALL CAPS, lower-case chat, names from
many cultures, look-alikes) was written blind in session 37 and reported that session's round (text in capitals,
labels, shorthand, eponyms, lower-case coreference) before and after; its misses were then read once, which gave one
fix (a dictionary word before a colon that is part of a full name elsewhere stays a name); in session 38 its
chat-log misses gave the chat speakers rule. ``ner_gold_report7.jsonl`` (240 texts, half chat and transcripts) was
written blind in session 38, reported that rule, then was read for misses (a second round: tags, headers, initials,
handles without "@"); ``ner_gold_report8.jsonl`` (the same twelve kinds of text) was written blind after both and
only reports. ``ner_gold_report9.jsonl`` (240 texts, 20 in each of twelve genres: clinical notes with shorthand,
Markdown tables and headings, support tickets, runbooks, news with roles before names, given names used as words,
e-mail, product pages with brands, lower-case chat, legal notes, HTML, mixed) was written blind in session 47 by a
helper that saw none of the package and reported that session's round R16 once (docs/anonymization.md).
Columns: full-name recall of persons (seed 002's criterion: every character of each gold occurrence removed), of
every gold name (persons, places, organisations), and the share of ordinary words kept, for the default
configuration and ``use_ner=False`` (``--fast``).
"""

from __future__ import annotations

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from study_sets import run_commit  # noqa: E402

from debiasrag.anonymize import NerAnonymizer  # noqa: E402
from debiasrag.anonymize.evaluate import load_gold, name_recall, word_survival  # noqa: E402
from debiasrag.bench._common import md_table  # noqa: E402

SETS = {
    "ner_gold.jsonl": "design",
    "ner_gold_heldout.jsonl": "design",
    "ner_gold_report.jsonl": "report, read for misses",
    "ner_gold_report2.jsonl": "report, read for misses",
    "ner_gold_report3.jsonl": "report, read for misses",
    "ner_gold_report4.jsonl": "report, read for misses",
    "ner_gold_report5.jsonl": "report, blind",
    "ner_gold_report6.jsonl": "report, read for misses",
    "ner_gold_report7.jsonl": "report, read for misses",
    "ner_gold_report8.jsonl": "report, blind",
    "ner_gold_report9.jsonl": "report, blind but HTML read",
}
QUARTERS = (
    ("formal", slice(0, 50)),
    ("workplace", slice(50, 100)),
    ("casual", slice(100, 150)),
    ("mixed", slice(150, 200)),
)


def genres(names: tuple[str, ...], size: int = 20) -> tuple[tuple[str, slice], ...]:
    """Consecutive runs of ``size`` texts, one per genre, in the order the set's writer was given."""
    return tuple((genre, slice(size * i, size * (i + 1))) for i, genre in enumerate(names))


HALVES = {
    "ner_gold_report3.jsonl": (("chat", slice(0, 100)), ("technical", slice(100, 200))),
    "ner_gold_report4.jsonl": QUARTERS,
    "ner_gold_report5.jsonl": QUARTERS,
    "ner_gold_report6.jsonl": genres(
        (
            "email",
            "chat log",
            "minutes",
            "citations",
            "legal",
            "sports",
            "clinical",
            "social",
            "ALL CAPS",
            "lower-case chat",
            "many cultures",
            "look-alikes",
        )
    ),
    "ner_gold_report7.jsonl": genres(
        (
            "IRC",
            "Slack / Teams",
            "WhatsApp / SMS",
            "support transcripts",
            "game / stream chat",
            "meeting transcripts",
            "lower-case texts",
            "tickets",
            "social",
            "forum",
            "mixed formal",
            "look-alikes",
        )
    ),
    "ner_gold_report8.jsonl": genres(
        (
            "IRC / Matrix",
            "Slack / Teams / Discord",
            "WhatsApp / Telegram / SMS",
            "support transcripts",
            "game / stream chat",
            "interviews / hearings",
            "lower-case texts",
            "issue trackers / commits",
            "social",
            "forums / Q&A",
            "formal, many cultures",
            "look-alikes",
        )
    ),
    "ner_gold_report9.jsonl": genres(
        (
            "clinical",
            "markdown",
            "support",
            "runbook",
            "news",
            "word names",
            "email",
            "product",
            "casual",
            "legal",
            "html",
            "mixed",
        )
    ),
}


def main() -> None:
    commit = run_commit()
    print(f"debiasrag at {commit}\n")
    rows = []
    for label, anonymizer in (("default", NerAnonymizer()), ("--fast", NerAnonymizer(use_ner=False))):
        for name, role in SETS.items():
            everything = load_gold(name)
            for part, cut in (("", slice(None)), *HALVES.get(name, ())):
                gold = everything[cut]
                results = anonymizer.anonymize_batch([row["text"] for row in gold])
                found = [r.entities for r in results]
                rows.append(
                    [
                        label,
                        f"{name}{' ' + part if part else ''} ({len(gold)}, {role})",
                        f"{name_recall(gold, found, ['persons']):.3f}",
                        f"{name_recall(gold, found):.3f}",
                        f"{word_survival(gold, [r.text for r in results]):.3f}",
                    ]
                )
    print(md_table(["anonymizer", "gold set", "person recall", "all-names recall", "word survival"], rows))


if __name__ == "__main__":
    main()
