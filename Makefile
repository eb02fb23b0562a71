# Quick start: `make run` and `make test` each set everything up from a fresh clone.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test test-fast lint docs bench clean

# torch is installed first, pinned to the CPU build these machines carry, so that the
# open range of the `train` extra (for users elsewhere) never pulls a multi-GB CUDA build;
# the `ray` extra (ray[rllib]) takes the torch already installed.
TORCH_CPU ?= torch==2.13.0

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet "$(TORCH_CPU)"
	$(PY) -m pip install --quiet -e ".[dev,train,notebooks,web,ray,openspiel]"
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/sly-scout demo

# Everything: the linter, then every test (markers included: slow, browser, ray, train).
test: $(STAMP) lint
	$(PY) -m pytest -n 2 --dist loadgroup -q

# The contributor's inner loop: about a minute.
test-fast: $(STAMP)
	$(PY) -m pytest -n 2 --dist loadgroup -q -m "not slow"

lint: $(STAMP)
	$(VENV)/bin/ruff check .

# The docs site at http://127.0.0.1:8000/ (the test suite builds it with --strict).
docs: $(STAMP)
	$(VENV)/bin/mkdocs serve

bench: $(STAMP)
	$(PY) benchmarks/run.py --readme
	$(PY) benchmarks/ismcts_speed.py --out benchmarks/ismcts_speed.md
	$(PY) benchmarks/exit_speed.py --out benchmarks/exit_speed.md
	$(PY) benchmarks/web_load.py --players 50 --games 2
	$(PY) benchmarks/openspiel_speed.py

clean:
	rm -rf $(VENV) build site *.egg-info
