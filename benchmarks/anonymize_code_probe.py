"""Handles written without "@" that the NER anonymizer would remove from code and package docs (session 38).

    .venv/bin/python benchmarks/anonymize_code_probe.py [--files N] [--seed S]

A handle without "@" ("Assignee: r.patel") is read as a person only after a cue word or in a chat log
(``NerAnonymizer._bare_handles``): code and technical docs are full of identifiers whose parts are in the name lists
("repo_id", "meta_k", "jax.jit"). This probe runs the rule over N text and source files (.md, .rst, .txt, .py) of the
installed packages of this virtualenv (a fixed shuffle, seed S), with the cue and with the cue switched off, and
prints how many distinct handles and matches each finds and the most frequent. Every match in such files is a false
positive but for the odd author handle in a changelog ("c-bata"); the counts depend on the installed packages
(``make install``'s set).

``--rule casual_names`` (session 40) counts instead the lower-case words the reader of casual text
(``NerAnonymizer._casual_names``) takes for names in the same files, with the code left out
(``debiasrag/anonymize/code_lines.py``) and with it read as text, as before session 40 ("obj", "elif", "param",
"pydantic"); what is left is mostly words of comments and docstrings, and the odd real name ("# TODO (sven)").
"""

from __future__ import annotations

import argparse
import os
import random
import sys
from collections import Counter
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from debiasrag.anonymize import NerAnonymizer, ner  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=6000)
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--rule", choices=("bare_handles", "casual_names"), default="bare_handles")
    args = parser.parse_args(argv)
    packages = Path(sys.prefix) / "lib"
    files = sorted(
        str(p) for ext in ("md", "rst", "txt", "py") for p in packages.glob(f"python3*/site-packages/**/*.{ext}")
    )
    random.Random(args.seed).shuffle(files)
    texts = []
    for name in files[: args.files]:
        try:
            texts.append(Path(name).read_text(encoding="utf-8")[:20000])
        except (OSError, UnicodeDecodeError):
            continue
    anonymizer = NerAnonymizer(use_ner=False)
    if args.rule == "casual_names":
        for label in ("code left out", "code read as text (before session 40)"):
            if label != "code left out":
                ner.code_spans = lambda text, shape=None: []  # type: ignore[assignment]
            found = Counter(e.text for text in texts for e in anonymizer._casual_names(text))
            print(f"{label}: {len(texts)} files, {len(found)} distinct words, {sum(found.values())} matches")
            print("   most frequent:", ", ".join(f"{h} ({n})" for h, n in found.most_common(12)) or "none")
        return 0
    for label in ("with the cue", "without the cue"):
        if label == "without the cue":
            anonymizer._cued_handle = lambda text, start, cues: True  # type: ignore[method-assign]
        found = Counter(e.text for text in texts for e in anonymizer._bare_handles(text))
        print(f"{label}: {len(texts)} files, {len(found)} distinct handles, {sum(found.values())} matches")
        print("   most frequent:", ", ".join(f"{h} ({n})" for h, n in found.most_common(12)) or "none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
