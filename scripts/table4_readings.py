"""Seed 000 Table 4 (WEAT binomial p̂, all-MiniLM-L6-v2, row 13): try every reading the seed's text leaves open.

The seed's row 13 (all-MiniLM-L6-v2, Table 3's 13th model): gender 0.48 / 1.0 / 0.19, age 0.51 / 0.52 / 0.07,
wealth 0.56 / 1.0 / 0.0 (neutral, debiasing, negative); positive is "always 1.0" (Table 4's caption).

Readings (axes):
  apostrophe   "This person's" (ASCII, our concept files) or "This person’s" (U+2019, as the seed prints it)
  age_a2       Appendix A.3's 14 A2 words (n = 31) or without 'adaptive' and 'innocent' (n = 29, the words that
               Table 6 / A.2 does not list)
  out_of_touch A.3 spells 'out-of-touch', A.2 / Table 6 'out of touch'
  targets      T lists as printed (with duplicates: age T2 has 'youthful' and 'grandchild' twice, wealth T2 repeats
               'opulent', 'ample', ...) or de-duplicated (a set)
  embed        attributes in the scenario template and targets as plain words (the benchmark); attributes and
               targets both in the template; attributes alone (no context) with plain targets
  count        eq. 4-6: per attribute, mean cosine to T1 vs mean cosine to T2 (= WEAT's s(w, T1, T2) > 0, checked
               below); or the sum of cosines (no 1/|T|, differs when |T1| != |T2|, e.g. age 22 vs 21)
Each p̂ is printed both rounded and truncated to two decimals. Diagnostics afterwards: the debiasing k as k1, k2,
max and min; Table 4's internal consistency (which n can give every printed value of a column); and single /
two-word removals from the age attribute sets (a diagnostic only: choosing words so the table matches is not a
fix unless the seed's text justifies it).

    HF_HUB_OFFLINE=1 .venv/bin/python scripts/table4_readings.py
    HF_HUB_OFFLINE=1 .venv/bin/python scripts/table4_readings.py --model .cache/models/all-mpnet-base-v2 --row 10

``--model`` / ``--row`` run the same readings for another model against another row of Table 4 (after ``make
models``: all-mpnet-base-v2 against row 10, whose gender and wealth cells equal ours; Table 3's order would
make it row 11, see ``debiasrag/data/bench/seed000_figures.json``).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import re
from pathlib import Path

import numpy as np

from debiasrag.concepts import load_concept
from debiasrag.embedders import load_embedder
from debiasrag.metrics.arrays import unit_rows as _unit
from debiasrag.metrics.weat_binomial import weat_counts

SEED_FILE = sorted(Path("/work/shared/seeds").glob("000_*.txt"))
SEED = {"gender": (0.48, 1.0, 0.19), "age": (0.51, 0.52, 0.07), "wealth": (0.56, 1.0, 0.0)}  # row 13; --row
CONCEPTS = ("gender", "age", "wealth")
SCEN = ("neutral", "debiasing", "negative")
AGE_EXTRA = ("adaptive", "innocent")

emb = None  # set by main(): the packaged MiniLM unless --model
_cache: dict[str, np.ndarray] = {}


def enc(texts: list[str]) -> np.ndarray:
    missing = [t for t in dict.fromkeys(texts) if t not in _cache]
    if missing:
        assert emb is not None
        for t, v in zip(missing, emb.encode(missing), strict=True):
            _cache[t] = np.asarray(v, dtype=np.float64)
    return np.stack([_cache[t] for t in texts])


def fmt(p: float, mode: str) -> float:
    return round(p + 1e-12, 2) if mode == "round" else math.floor(p * 100 + 1e-9) / 100


def counts(t1, t2, a1, a2, how: str) -> dict[str, int]:
    if how == "mean":
        return weat_counts(t1, t2, a1, a2)
    u1, u2 = _unit(t1), _unit(t2)

    def s(a):
        a = _unit(a)
        return (a @ u1.T).sum(axis=1), (a @ u2.T).sum(axis=1)

    s11, s21 = s(a1)
    s12, s22 = s(a2)
    k11 = int(np.sum(s11 > s21))
    return {"k1": k11 + int(np.sum(s22 > s12)), "k2": k11 + int(np.sum(s12 > s22)), "n": len(a1) + len(a2)}


def word_sets(name: str, age_a2: str, out_of_touch: str, targets: str) -> dict[str, list[str]]:
    sets = {k: list(v) for k, v in load_concept(name).weat.items()}
    if name == "age":
        if age_a2 == "A.3 (14, n=31)":
            sets["A2"] = sets["A2"] + list(AGE_EXTRA)
        sets["A1"] = [out_of_touch if w.replace("-", " ") == "out of touch" else w for w in sets["A1"]]
    if targets == "set":
        sets["T1"], sets["T2"] = list(dict.fromkeys(sets["T1"])), list(dict.fromkeys(sets["T2"]))
    return sets


def templates(name: str, apostrophe: str) -> dict[str, str]:
    return {s: t.replace("'", apostrophe) for s, t in load_concept(name).templates.items()}


def cell_values(name, sets, tpl, embed, how):
    """p̂-relevant counts for neutral, debiasing, negative (and positive) of one concept."""
    out = {}
    for scen in ("neutral", "debiasing", "positive", "negative"):
        t = tpl[scen]
        attr = (lambda w: w) if embed == "attributes alone" else (lambda w, t=t: t.format(attribute=w))
        targ = (lambda w, t=t: t.format(attribute=w)) if embed == "both in template" else (lambda w: w)
        t1, t2 = enc([targ(w) for w in sets["T1"]]), enc([targ(w) for w in sets["T2"]])
        a1, a2 = enc([attr(w) for w in sets["A1"]]), enc([attr(w) for w in sets["A2"]])
        out[scen] = counts(t1, t2, a1, a2, how)
    return out


def p_hats(c: dict, debias_k: str = "max") -> tuple[float, float, float, float]:
    d = c["debiasing"]
    kd = {"max": max(d["k1"], d["k2"]), "k1": d["k1"], "k2": d["k2"], "min": min(d["k1"], d["k2"])}[debias_k]
    n = c["neutral"]["n"]
    return (c["neutral"]["k1"] / n, kd / n, c["negative"]["k2"] / n, c["positive"]["k2"] / n)


def main() -> None:
    global emb
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="model name or folder (default: the packaged MiniLM)")
    parser.add_argument("--row", type=int, default=13, help="Table 4 row to compare with (1-19; default 13)")
    args = parser.parse_args()
    emb = load_embedder(args.model)
    row = parse_table4()[args.row - 1]
    SEED.update({name: tuple(row[3 * i : 3 * i + 3]) for i, name in enumerate(CONCEPTS)})
    print(f"model {emb.name}, Table 4 row {args.row}: {SEED}")
    # WEAT's s(w, T1, T2) = mean cos(w, T1) - mean cos(w, T2) is eq. 4-6's comparison: check it numerically once.
    c = load_concept("age")
    a = _unit(enc([c.templates["neutral"].format(attribute=w) for w in c.weat["A1"]]))
    t1, t2 = _unit(enc(list(c.weat["T1"]))), _unit(enc(list(c.weat["T2"])))
    s_weat = (a @ t1.T).mean(1) - (a @ t2.T).mean(1)
    assert np.array_equal(s_weat > 0, (a @ t1.T).mean(1) > (a @ t2.T).mean(1))

    axes = {
        "apostrophe": ["'", "\u2019"],
        "age_a2": ["A.3 minus adaptive/innocent (12, n=29)", "A.3 (14, n=31)"],
        "out_of_touch": ["out-of-touch", "out of touch"],
        "targets": ["list", "set"],
        "embed": ["attributes in template", "both in template", "attributes alone"],
        "count": ["mean", "sum"],
    }
    results = []
    for combo in itertools.product(*axes.values()):
        r = dict(zip(axes, combo, strict=True))
        row = {}
        for name in CONCEPTS:
            sets = word_sets(name, r["age_a2"], r["out_of_touch"], r["targets"])
            row[name] = cell_values(name, sets, templates(name, r["apostrophe"]), r["embed"], r["count"])
        for mode in ("round", "trunc"):
            ours = [fmt(p, mode) for name in CONCEPTS for p in p_hats(row[name])[:3]]
            seed = [v for name in CONCEPTS for v in SEED[name]]
            hits = [abs(o - s) < 1e-9 for o, s in zip(ours, seed, strict=True)]
            pos = sum(fmt(p_hats(row[name])[3], mode) == 1.0 for name in CONCEPTS)
            results.append((sum(hits), pos, mode, r, ours, row))
    results.sort(key=lambda x: (-x[0], -x[1]))
    print("== readings, best first: exact cells of 9 (gender, age, wealth × neutral, debiasing, negative) ==")
    print("   seed:", [v for name in CONCEPTS for v in SEED[name]])
    for hits, pos, mode, r, ours, row in results:
        ks = {
            n: (row[n]["neutral"]["k1"], row[n]["debiasing"]["k1"], row[n]["debiasing"]["k2"], row[n]["neutral"]["n"])
            for n in CONCEPTS
        }
        print(f"{hits}/9 pos=1.0:{pos}/3 {mode:5s} {json.dumps(r, ensure_ascii=False)}")
        print(f"      ours {ours}  (neutral k1, debias k1, debias k2, n) {ks}")

    bench = {
        name: cell_values(
            name,
            word_sets(name, "A.3 minus adaptive/innocent (12, n=29)", "out-of-touch", "list"),
            templates(name, "'"),
            "attributes in template",
            "mean",
        )
        for name in CONCEPTS
    }
    print("\n== benchmark reading, debiasing k as k1 / k2 / max / min (rounded) ==")
    for name in CONCEPTS:
        print(name, {k: round(p_hats(bench[name], k)[1], 3) for k in ("k1", "k2", "max", "min")}, "seed", SEED[name][1])

    print("\n== Table 4's own consistency: values of a column no k/n can print, for the n our sets give ==")
    rows = parse_table4()
    for name, n in (("gender", 48), ("age", 29), ("age", 31), ("wealth", 34)):
        ci = CONCEPTS.index(name)
        for mode in ("round", "trunc"):
            bad = [
                (m + 1, SCEN[s], rows[m][3 * ci + s])
                for m in range(len(rows))
                for s in range(3)
                if not any(abs(fmt(k / n, mode) - rows[m][3 * ci + s]) < 1e-9 for k in range(n + 1))
            ]
            print(f"{name} n={n} {mode}: {len(bad)} of {3 * len(rows)} cells unreachable {bad}")

    print(f"\n== which n can print the row's age cells {SEED['age']} at all (n <= 60) ==")
    for mode in ("round", "trunc"):
        ok = {
            n: [[k for k in range(n + 1) if abs(fmt(k / n, mode) - v) < 1e-9] for v in SEED["age"]]
            for n in range(20, 61)
        }
        print(mode, {n: ks for n, ks in ok.items() if all(ks)})

    print("\n== diagnostic only: age word removals (benchmark reading otherwise, A.3's 31 words, rounded) ==")
    print("   (picking words so the table matches is not a fix unless the seed's text justifies the removal)")
    full = word_sets("age", "A.3 (14, n=31)", "out-of-touch", "list")
    tpl = templates("age", "'")
    words = [("A1", w) for w in full["A1"]] + [("A2", w) for w in full["A2"]]
    mixed: list[list[str]] = []
    for size in (1, 2):
        hits = []
        for drop in itertools.combinations(words, size):
            sets = {k: [w for w in v if (k, w) not in drop] for k, v in full.items()}
            ph = p_hats(cell_values("age", sets, tpl, "attributes in template", "mean"))
            for mode in ("round", "trunc"):
                if [fmt(p, mode) for p in ph[:3]] == list(SEED["age"]):
                    hits.append((mode, [w for _, w in drop]))
            if size == 2 and [round(p * 29) for p in ph[:3]] == [15, 15, 2]:
                mixed.append([w for _, w in drop])
        n_sets = math.comb(len(words), size)
        print(f"remove {size}: {n_sets} choices, {len(hits)} (choice, mode) reproduce age {SEED['age']}: {hits[:40]}")
    if SEED["age"] == (0.51, 0.52, 0.07):  # MiniLM's row: its cells need mixed rounding conventions
        print(
            f"remove 2 giving the counts 15/29, 15/29, 2/29 (0.51 truncated, 0.52 and 0.07 rounded: mixed "
            f"conventions): {len(mixed)} {mixed[:20]}"
        )


def parse_table4() -> list[list[float]]:
    lines = SEED_FILE[0].read_text().splitlines()
    i = next(j for j, line in enumerate(lines) if line.startswith("neutral debiasing negative neutral"))
    pat = re.compile(
        r"(\d\.\d+)superscript\S+ start_POSTSUPERSCRIPT (?:∗ )+end_POSTSUPERSCRIPT|((\d\.\d+?)\3\3\3)(?= |$)"
    )
    rows = []
    for line in lines[i + 1 : i + 20]:
        rows.append([float(m.group(1) or m.group(3)) for m in pat.finditer(line)])
    assert all(len(r) == 9 for r in rows) and rows[12][:3] == [0.48, 1.0, 0.19], rows[12]
    return rows


if __name__ == "__main__":
    main()
