"""Install weight of the partner packages: what a fresh venv gets from them versus their framework alone.

For each framework, two fresh venvs (``python -m venv``, real pip resolves against the package index):

* baseline: the framework's core package + numpy + faiss-cpu (what a user already has before adding us);
* ours: the partner package from ``integrations/`` plus the local ``debiasrag`` core (no extras).

It prints the package count of each (``pip list``, pip itself excluded), the packages ours adds over the
baseline (the target is exactly ``debiasrag`` + the partner package), the site-packages size, whether torch,
sentence-transformers, spaCy, anthropic, scipy or scikit-learn came along, and it imports the partner package
to check it loads without them.

    python3 benchmarks/install_weight.py [--only langchain|llamaindex] [--keep DIR]

Needs network access to the package index; takes a few minutes (pip's cache makes re-runs faster).
Exit status 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("torch", "sentence-transformers", "transformers", "spacy", "anthropic", "scipy", "scikit-learn", "rich")
FRAMEWORKS = {
    "langchain": {
        "baseline": ["langchain-core", "numpy", "faiss-cpu"],
        "ours": [".", "integrations/langchain-debiasrag"],  # relative to a clean copy of the checkout
        "ours_names": {"debiasrag", "langchain-debiasrag"},
        "import": "langchain_debiasrag",
    },
    "llamaindex": {
        "baseline": ["llama-index-core", "numpy", "faiss-cpu"],
        "ours": [".", "integrations/llama-index-retrievers-debiasrag"],
        "ours_names": {"debiasrag", "llama-index-retrievers-debiasrag"},
        "import": "llama_index.retrievers.debiasrag",
    },
}
# Imported after the partner package: none of these may be loaded by it.
IMPORT_CHECK = """
import sys, importlib
importlib.import_module({module!r})
import debiasrag, debiasrag.strategies, debiasrag.index, debiasrag.shards
print(sorted(m for m in ("torch", "sentence_transformers", "spacy", "anthropic", "scipy", "sklearn", "rich")
             if m in sys.modules))
"""


def normalise(name: str) -> str:
    return name.lower().replace("_", "-").replace(".", "-")


def make_venv(folder: Path, requirements: list[str]) -> tuple[dict[str, str], float, float]:
    """Create a venv, pip install ``requirements``; return ({package: version}, seconds, site-packages MB)."""
    subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
    python = folder / "bin" / "python"
    started = time.perf_counter()
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *requirements],
        capture_output=True,
        text=True,
    )
    if installed.returncode != 0:
        sys.exit(f"pip install {' '.join(requirements)} failed:\n{installed.stderr[-3000:]}")
    seconds = time.perf_counter() - started
    listing = subprocess.run(
        [str(python), "-m", "pip", "list", "--format=json", "--disable-pip-version-check"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    packages = {normalise(p["name"]): p["version"] for p in json.loads(listing) if normalise(p["name"]) != "pip"}
    site = next(folder.glob("lib/python*/site-packages"))
    size = sum(f.stat().st_size for f in site.rglob("*") if f.is_file()) / 1e6
    return packages, seconds, size


def clean_copy(workdir: Path) -> Path:
    """The checkout without venvs, caches or build leftovers: pip builds there, not in the working tree."""
    target = workdir / "src"
    if not target.exists():
        junk = shutil.ignore_patterns(".venv", ".git", "build", "dist", "*.egg-info", "__pycache__", ".*_cache")
        shutil.copytree(ROOT, target, ignore=junk)
    return target


def measure(name: str, spec: dict, workdir: Path) -> bool:
    base, base_s, base_mb = make_venv(workdir / f"{name}-baseline", spec["baseline"])
    source = clean_copy(workdir)
    ours, ours_s, ours_mb = make_venv(workdir / f"{name}-ours", [str(source / p) for p in spec["ours"]])
    added = sorted(set(ours) - set(base))
    missing = sorted(set(base) - set(ours))
    heavy = sorted(p for p in ours if p in HEAVY)
    python = workdir / f"{name}-ours" / "bin" / "python"
    loaded = subprocess.run(
        [str(python), "-c", IMPORT_CHECK.format(module=spec["import"])], capture_output=True, text=True, check=True
    ).stdout.strip()
    ok = set(added) == spec["ours_names"] and not heavy and loaded == "[]"
    print(f"\n== {name}")
    for label, what, count, mb, seconds in (
        ("baseline", " + ".join(spec["baseline"]), len(base), base_mb, base_s),
        ("ours", " + ".join(sorted(spec["ours_names"])), len(ours), ours_mb, ours_s),
    ):
        print(f"  {label:<9} {what:<44} {count:>3} packages  {mb:7.1f} MB  {seconds:5.1f} s")
    print(f"  ratio     packages {len(ours) / len(base):.3f}x   size {ours_mb / base_mb:.3f}x")
    print(f"  added over baseline: {', '.join(added) or '(none)'}")
    if missing:
        print(f"  in baseline only: {', '.join(missing)}")
    print(f"  heavy packages installed: {', '.join(heavy) or 'none'}; loaded by import: {loaded}")
    print(f"  target (ours = baseline + {sorted(spec['ours_names'])}, no torch): {'MET' if ok else 'MISSED'}")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(FRAMEWORKS))
    parser.add_argument("--keep", type=Path, help="create the venvs here and keep them (default: a temp dir)")
    args = parser.parse_args()
    workdir = args.keep or Path(tempfile.mkdtemp(prefix="debiasrag-install-weight-"))
    workdir.mkdir(parents=True, exist_ok=True)
    print(f"python {sys.version.split()[0]}; venvs in {workdir}")
    try:
        results = [measure(n, s, workdir) for n, s in FRAMEWORKS.items() if args.only in (None, n)]
    finally:
        if args.keep is None:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
