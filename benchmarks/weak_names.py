"""Would first names that lean to one gender (but not 90%) help the group detector as a last resort? (issue 10)

    .venv/bin/python benchmarks/weak_names.py

The detector's name tables hold names that at least 90% of their bearers share one gender (``names-dataset``).
``fairness_report7`` was missed at k = 10 by ``balanced`` through names below that bar (Chidi 0.89 male, Yuki 0.82
female, Noor 0.61 female) in texts with no other evidence. This tries a weaker tier, used only where a text holds no
mention at all and every such name in it agrees: names with share θ ≤ s < 0.9, in the top 1,000 of some country,
not among GloVe 6B's 10,000 most frequent words (the main table's own rule). Read on every labelled set already
read (the group sets, report1–7, wide_report1–4); the unread blind sets are not touched. It changes nothing in the
package: it prints, per θ, how many texts the tier would decide and how many it gets right or wrong against the
labels. Needs the ``nlp`` extra (names-dataset).
"""

from __future__ import annotations

import re
from collections import Counter

from debiasrag.datasets import load_fairness_set, load_group_sets, load_wide_topics
from debiasrag.glove import GloveVectors
from debiasrag.groups import GroupDetector

TOKEN = re.compile(r"[^\W\d_]+")


def weak_names(theta: float, rank: int = 1000, frequent: int = 10000) -> dict[str, str]:
    """Names ``theta`` ≤ share < 0.9 of one gender, top-``rank`` somewhere, not a frequent English word."""
    from names_dataset import NameDataset

    table = NameDataset(load_first_names=True, load_last_names=False).first_names
    common = GloveVectors().index
    found: dict[str, str] = {}
    for name, info in table.items():
        ranks = [r for r in (info.get("rank") or {}).values() if r]
        if not (name.isalpha() and name[0].isupper() and name[1:].islower() and len(name) > 1):
            continue
        if not ranks or min(ranks) > rank or common.get(name.lower(), frequent) < frequent:
            continue
        shares = info.get("gender") or {}
        for gender, group in (("F", "female"), ("M", "male")):
            if theta <= shares.get(gender, 0.0) < 0.9:
                found[name] = group
    return found


def main() -> None:
    sets = load_group_sets()
    for part in range(1, 8):
        sets[f"report{part}"] = [(d.text, d.metadata["group"]) for d in load_fairness_set(f"report{part}").documents]
    for part in range(1, 5):
        sets[f"wide_report{part}"] = [(d.text, d.metadata["group"]) for d in load_wide_topics(report=part).documents]
    detector = GroupDetector("gender")
    # texts the detector reads neutral because they hold no mention at all: the only ones the tier may decide
    open_texts = [
        (name, text, gold)
        for name, rows in sets.items()
        for text, gold in rows
        if detector.group(text) == "neutral" and not detector.mentions(text)
    ]
    print(f"{sum(map(len, sets.values()))} labelled texts in {len(sets)} sets; {len(open_texts)} without any mention")
    for theta in (0.85, 0.8, 0.75, 0.7, 0.6):
        names = weak_names(theta)
        right = wrong = 0
        per_set: Counter[str] = Counter()
        errors = []
        for name, text, gold in open_texts:
            said = {names[token] for token in TOKEN.findall(text) if token in names}
            if len(said) != 1:
                continue
            group = said.pop()
            right += group == gold
            wrong += group != gold
            per_set[name] += 1 if group == gold else -1
            if group != gold:
                errors.append(f"    {name}: {gold} read {group}: {text[:100]}")
        print(f"θ {theta}: {len(names)} names; decides {right + wrong} texts, {right} right, {wrong} wrong")
        print("   net per set:", dict(per_set))
        print("\n".join(errors[:6]))


if __name__ == "__main__":
    main()
