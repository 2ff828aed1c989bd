# kafka-authz-cli: `make demo`, `make test`, `make bench`, `make fuzz`. Everything installs into ./.venv.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test bench fuzz venv check-java clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "error: Python 3.11+ is required (found " + sys.version.split()[0] + ")")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	@touch $(STAMP)

venv: $(STAMP)

# Spark needs a JVM (Java 17+): say so in one line rather than failing deep inside a test.
check-java:
	@command -v java >/dev/null 2>&1 || { echo "error: Java 17+ is required for the Spark parts of authz (install a JDK/JRE 17, e.g. apt-get install openjdk-17-jre-headless)"; exit 1; }
	@v=$$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1); \
	  if [ -n "$$v" ] && [ "$$v" -lt 17 ]; then echo "error: Java 17+ is required for Spark, found Java $$v"; exit 1; fi

demo: $(STAMP) check-java
	$(BIN)/authz --help
	@bash examples/demo.sh $(BIN)

test: $(STAMP) check-java
	$(BIN)/python -m pytest -q tests

bench: $(STAMP) check-java
	$(BIN)/python tests/bench/run_all.py

# Coverage-guided fuzzing of every reader (1,000,000 inputs in total, a few minutes); never part of `make test`.
# atheris 3.0+ (2.x mis-instruments Python 3.11 loops); without it, hypothesis generates the inputs.
fuzz: $(STAMP)
	@$(BIN)/python -m pip install -q 'atheris>=3.0' 2>/dev/null || echo "atheris did not install: fuzzing with hypothesis instead"
	$(BIN)/python tests/bench/fuzz_readers.py $(FUZZ_ARGS)

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
