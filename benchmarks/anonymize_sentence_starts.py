"""Given names that open every sentence they are in: recall, and what the dictionary-names list costs in words.

    .venv/bin/python benchmarks/anonymize_sentence_starts.py [--pairs 100]

The NER anonymizer reads a sentence-initial word that is both a listed given name and an English dictionary word as
an ordinary word unless the document names it elsewhere ("Dawn broke"). ``data/names/dictionary_names.txt``
(``scripts/build_dictionary_names.py``) lists the dictionary words that text uses as names (Maria, Rebecca, Joel),
which are then names at a sentence start too. Side by side, the same anonymizer with and without that list:

* **recall**: the top ``--pairs`` female / male name pairs of ``data/names/gender_swap_names.json`` in short bios
  whose every sentence opens with the name — the share of texts from which the name is gone;
* **words kept**: sentences we wrote that open with a word of the list used as an ordinary word ("Amber is fossil
  resin.") — the share left unchanged; and the gold sets' word survival (``anonymize.evaluate.word_survival``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re

from debiasrag.anonymize import NerAnonymizer
from debiasrag.anonymize.evaluate import load_gold, word_survival
from debiasrag.resources import data_path

BIOS = (
    "{n} leads the data platform team. {n} also mentors new hires.",
    "{n} is the new manager of the clinic.",
    "{n} works as a nurse on the night shift. {n} trained in Leeds.",
)
ORDINARY = (
    "Amber is fossilised tree resin.",
    "Heather covers the moor in late summer.",
    "Holly berries are poisonous to dogs.",
    "Ruby is a red variety of corundum.",
    "Iris muscles control the size of the pupil.",
    "Lily pads float on the pond.",
    "Hazel trees grow along the lane.",
    "Curry tastes better the next day.",
    "Sandy soil drains quickly after rain.",
    "Penny whistles are cheap to buy.",
    "Dawn broke over the hills.",
    "Grace under pressure is rare.",
    "Hunter green suits a kitchen.",
    "Jade is carved in many countries.",
    "Will you come to the meeting?",
    "Mark the date in your calendar.",
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=100, help="top female / male name pairs to test")
    args = parser.parse_args(argv)
    pairs = json.loads(data_path("names", "gender_swap_names.json").read_text(encoding="utf-8"))["pairs"]
    names = [name for pair in pairs[: args.pairs] for name in pair[:2]]
    with_list = NerAnonymizer()
    without = NerAnonymizer()
    without.detect("warm up")  # loads the pipeline and the gazetteer
    without.gazetteer = dataclasses.replace(without.gazetteer, dictionary_names=frozenset())
    gold = [row for name in ("ner_gold.jsonl", "ner_gold_heldout.jsonl") for row in load_gold(name)]
    print(f"{len(names)} names x {len(BIOS)} bios; {len(ORDINARY)} ordinary sentences; {len(gold)} gold texts\n")
    print(f"{'anonymizer':34s} {'names removed':>14s} {'ordinary kept':>14s} {'gold word survival':>19s}")
    bios = [template.format(n=name) for name in names for template in BIOS]
    owners = [name for name in names for _ in BIOS]
    for label, anonymizer in (("without dictionary_names.txt", without), ("with it (shipped)", with_list)):
        left = [
            bool(re.search(rf"\b{re.escape(name)}\b", r.text))
            for name, r in zip(owners, anonymizer.anonymize_batch(bios))
        ]
        removed = len(left) - sum(left)
        changed = [text for text, r in zip(ORDINARY, anonymizer.anonymize_batch(list(ORDINARY))) if r.text != text]
        survival = word_survival(gold, [r.text for r in anonymizer.anonymize_batch([row["text"] for row in gold])])
        kept = len(ORDINARY) - len(changed)
        print(f"{label:34s} {removed / len(bios):14.3f} {kept / len(ORDINARY):14.3f} {survival:19.3f}")
        leaked = sorted({name for name, kept_name in zip(owners, left) if kept_name})
        print(f"  names left somewhere: {', '.join(leaked) or '-'}")
        print(f"  ordinary sentences changed: {' | '.join(changed) or '-'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
