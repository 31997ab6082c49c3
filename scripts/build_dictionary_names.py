"""Maintainer script: the given names that the English dictionary also lists but that text uses as names.

The NER anonymizer reads a lone capitalised word that opens a sentence and is both a listed given name and an
English dictionary word ("Dawn broke", "Will you come?") as an ordinary word unless the document names it elsewhere
(:meth:`debiasrag.anonymize.ner.NerAnonymizer._weak_sentence_start`). The dictionary (WordNet lemmas in spaCy's
lemmatizer tables) also lists many people's names — Maria, Rebecca, Joel, Hector, Sarah — so "Maria leads the team."
kept its name. This script lists the given names that are dictionary words **used as names**, judged by how the word
is used in a large corpus (GloVe 6B 50d, lower-cased Wikipedia + Gigaword):

* at least ``SHARE`` (0.5) of its 10 nearest neighbours among the ``TOP`` (50,000) most frequent words are listed
  given names or surnames that are not dictionary words themselves (the neighbours of "maria" are cecilia, elena,
  cristina …; of "dawn" midnight, morning, dusk; of "amber" iris, jade, violet, ruby — names, but words too);
* and none of its ``-s``, ``-es`` or (after a ``y``) ``-ies`` forms is among those ``TOP`` words (a frequent plural
  means a common noun or a verb: "hunters", "marks", "rays", "victors", "curries").

Months and weekdays (``non_names.json``) and the seasons are left out: their neighbours are each other, and some
are given names. 0.5 is half the neighbours, 50,000 the same frequency horizon for both tests. The first version
counted every listed name among the neighbours; on the anonymizer's gold sets it removed "Amber light", "Heather
grows" and "Ruby wine", so this version counts only names that are not dictionary words — chosen after seeing those
three sentences (README, "Anonymizing before embedding", says so).

Writes ``debiasrag/data/names/dictionary_names.txt`` (one capitalised name per line, ``#`` header lines say how it
was made); :mod:`debiasrag.anonymize.gazetteer` reads it.

    .venv/bin/python scripts/build_dictionary_names.py
"""

from __future__ import annotations

import numpy as np

from debiasrag.anonymize.gazetteer import load_gazetteer
from debiasrag.anonymize.ner import DEFAULT_SPACY_MODEL, english_words, is_dictionary_word, load_spacy
from debiasrag.fileio import atomic_write_text
from debiasrag.mitigate import WordEmbeddings
from debiasrag.resources import data_path

SHARE, TOP, NEIGHBOURS = 0.5, 50_000, 10
SEASONS = frozenset({"spring", "summer", "autumn", "winter"})  # like the months of non_names.json: words first


def dictionary_names() -> list[str]:
    """The list, capitalised, in alphabetical order."""
    gazetteer = load_gazetteer()
    english = english_words(load_spacy(DEFAULT_SPACY_MODEL, use_ner=False))
    glove = WordEmbeddings.from_glove()
    vectors = np.asarray(glove.vectors, dtype=np.float32)
    vectors = vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
    rank = {word: i for i, word in enumerate(glove.words)}
    head = vectors[:TOP]
    # neighbours that are names and nothing else: a dictionary word's neighbours that are names *and* words
    # (amber -> iris, jade, violet, ruby) say it belongs to a class of words, not of names
    named = np.array([gazetteer.is_person_name(w) and not is_dictionary_word(w, english) for w in glove.words[:TOP]])
    kept = []
    for name in sorted(gazetteer.given):
        if not is_dictionary_word(name, english) or name not in rank or gazetteer.is_non_name(name) or name in SEASONS:
            continue
        plurals = [name + "s", name + "es"] + ([name[:-1] + "ies"] if name.endswith("y") else [])
        if any(rank.get(plural, TOP) < TOP for plural in plurals):
            continue
        similarity = head @ vectors[rank[name]]
        if rank[name] < TOP:
            similarity[rank[name]] = -np.inf  # not its own neighbour
        nearest = np.argpartition(-similarity, NEIGHBOURS)[:NEIGHBOURS]
        if named[nearest].mean() >= SHARE:
            kept.append(name.capitalize())
    return kept


def main() -> None:
    kept = dictionary_names()
    header = [
        "# Given names that the English dictionary tables also list but that text uses as names (GloVe 6B 50d:",
        f"# >= {SHARE} of the {NEIGHBOURS} nearest neighbours among the {TOP:,} most frequent words are names that are",
        "# not dictionary words, and no -s / -es / -ies form among them).",
        f"# Written by scripts/build_dictionary_names.py; {len(kept)} names.",
    ]
    atomic_write_text(data_path("names", "dictionary_names.txt"), "\n".join(header + kept) + "\n")
    print(f"{len(kept)} names written")


if __name__ == "__main__":
    main()
