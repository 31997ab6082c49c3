"""Child process for the persistence tests: saves or loads real FaissIndex folders, no embedding model.

    python _index_writer.py save DIR LABEL N [--kill-at fsync:K | replace:before | replace:after]
    python _index_writer.py save-loop DIR LABEL N ROUNDS
    python _index_writer.py read-loop DIR SECONDS

``--kill-at`` sends SIGKILL to this process at the K-th ``os.fsync`` of the save, or just before / just
after the ``os.replace`` that publishes the manifest: a real kill -9 of a real save at that point.
A document set is recognisable by its LABEL: ids ``LABEL-0 … LABEL-(N-1)``, texts ``LABEL text i``.
"""

from __future__ import annotations

import os
import signal
import sys
import time
import zlib

import numpy as np

from debiasrag import Document, FaissIndex
from debiasrag.errors import DebiasragError

DIM = 16


def build(label: str, n: int) -> FaissIndex:
    rng = np.random.default_rng(zlib.crc32(label.encode()))
    vectors = rng.normal(size=(n, DIM)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    index = FaissIndex(DIM, model_name="test/random")
    index.add([Document(f"{label}-{i}", f"{label} text {i}", {"label": label}) for i in range(n)], vectors)
    return index


def arm_kill(point: str) -> None:
    what, _, when = point.partition(":")
    if what == "fsync":
        real_fsync, count = os.fsync, [0]

        def fsync(fd: int) -> None:
            count[0] += 1
            if count[0] == int(when):
                os.kill(os.getpid(), signal.SIGKILL)
            real_fsync(fd)

        os.fsync = fsync
    elif what == "replace":
        real_replace = os.replace

        def replace(src, dst, *args, **kwargs):
            publishing = str(dst).endswith("manifest.json")
            if publishing and when == "before":
                os.kill(os.getpid(), signal.SIGKILL)
            real_replace(src, dst, *args, **kwargs)
            if publishing and when == "after":
                os.kill(os.getpid(), signal.SIGKILL)

        os.replace = replace
    else:
        raise SystemExit(f"unknown kill point {point}")


def check_whole(index: FaissIndex) -> str:
    """The label of a loaded index, after checking it is one whole document set."""
    labels = {meta["label"] for meta in index.metadatas}
    assert len(labels) == 1, labels
    (label,) = labels
    assert index.ids == [f"{label}-{i}" for i in range(len(index))], index.ids[:3]
    assert index.texts == [f"{label} text {i}" for i in range(len(index))]
    return label


def main(argv: list[str]) -> int:
    command, folder = argv[0], argv[1]
    if command == "save":
        label, n = argv[2], int(argv[3])
        if len(argv) > 5 and argv[4] == "--kill-at":
            arm_kill(argv[5])
        build(label, n).save(folder)
        return 0
    if command == "save-loop":
        label, n, rounds = argv[2], int(argv[3]), int(argv[4])
        index = build(label, n)
        for _ in range(rounds):
            index.save(folder)
        return 0
    if command == "read-loop":
        deadline, loads, seen = time.monotonic() + float(argv[2]), 0, set()
        while time.monotonic() < deadline:
            try:
                seen.add(check_whole(FaissIndex.load(folder)))
            except DebiasragError as exc:
                print(f"load failed: {exc}", file=sys.stderr)
                return 1
            loads += 1
        print(f"{loads} {' '.join(sorted(seen))}")
        return 0
    raise SystemExit(f"unknown command {command}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
