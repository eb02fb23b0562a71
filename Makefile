# Quick start: `make run` and `make test` each set everything up from a fresh clone.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test bench clean

# torch is installed first, pinned to the CPU build these machines carry, so that the
# open range of the `train` extra (for users elsewhere) never pulls a multi-GB CUDA build;
# the `ray` extra (ray[rllib]) takes the torch already installed.
TORCH_CPU ?= torch==2.13.0

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet "$(TORCH_CPU)"
	$(PY) -m pip install --quiet -e ".[dev,train,notebooks,web,ray]"
	touch $(STAMP)

run: $(STAMP)
	$(VENV)/bin/sly-scout demo

test: $(STAMP)
	$(PY) -m pytest -n 2 --dist loadgroup -q

bench: $(STAMP)
	$(PY) benchmarks/run.py --readme

clean:
	rm -rf $(VENV) build *.egg-info
