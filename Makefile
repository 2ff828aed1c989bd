# kafka-authz-cli: `make demo`, `make test`, `make bench`, `make fuzz`. Everything installs into ./.venv.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test check lint bench fuzz venv check-java check-mvn check-chromium live-deps clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "error: Python 3.11+ is required (found " + sys.version.split()[0] + ")")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	@# An editable install skips data files: link the manual page where `pip install .` puts it.
	@mkdir -p $(VENV)/share/man/man1 && ln -sf $(abspath man/authz.1) $(VENV)/share/man/man1/authz.1
	@touch $(STAMP)

venv: $(STAMP)

# Spark needs a JVM (Java 17+): say so in one line rather than failing deep inside a test.
check-java:
	@command -v java >/dev/null 2>&1 || { echo "error: Java 17+ is required for the Spark parts of authz and the live Kafka broker tests (install a JDK/JRE 17, e.g. apt-get install openjdk-17-jre-headless)"; exit 1; }
	@v=$$(java -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1); \
	  if [ -n "$$v" ] && [ "$$v" -lt 17 ]; then echo "error: Java 17+ is required for Spark, found Java $$v"; exit 1; fi

# The live tests run a real Kafka broker whose jars Maven fetches (tests/live/pom.xml, cached in ~/.m2).
check-mvn:
	@command -v mvn >/dev/null 2>&1 || { echo "error: Maven is required to fetch the Kafka broker for the live tests (install it, e.g. apt-get install maven)"; exit 1; }

# The HTML report of `authz access` is tested in a real headless browser: Debian's chromium, driven by
# Playwright's driver from the test extra (never `playwright install`: the system's browser is used).
# Installed with apt-get when missing (as root, or with passwordless sudo); otherwise one line says so.
check-chromium:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || [ -n "$$AUTHZ_CHROMIUM" ] || { \
	  sudo=""; [ "$$(id -u)" = 0 ] || { sudo -n true 2>/dev/null && sudo="sudo -n"; } || { echo "error: chromium is missing for the HTML report's browser test and this user cannot install it (as root: apt-get install chromium)"; exit 1; }; \
	  command -v apt-get >/dev/null 2>&1 || { echo "error: chromium is missing for the HTML report's browser test and there is no apt-get here (install chromium, or set AUTHZ_CHROMIUM to a Chromium binary)"; exit 1; }; \
	  echo "installing chromium (apt-get) for the HTML report's browser test"; \
	  { $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1 || \
	    { $$sudo apt-get update -q >/dev/null 2>&1 && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1; }; } || \
	  { echo "error: apt-get install chromium failed: the HTML report's browser test needs Debian's chromium"; exit 1; }; }

# Resolve the broker's classpath once (downloads into ~/.m2 on a fresh machine; later runs are offline).
live-deps: $(STAMP) check-java check-mvn
	@cd tests/live && $(abspath $(BIN))/python -c 'import kafka_broker as k; k.classpath(); print("Kafka " + k.kafka_version() + " broker jars ready")'

demo: $(STAMP) check-java
	$(BIN)/authz --help
	@bash examples/demo.sh $(BIN)

# ruff (pyflakes, import order, complexity, private imports), the import-linter contracts and mypy
# (pyproject.toml's [tool.mypy]) first: seconds each, and a broken layer fails the run before the tests.
lint: $(STAMP)
	$(BIN)/ruff check kafka_authz_cli tests
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy

# The edit-and-test loop: ruff, the import contracts and every test that needs no JVM, no broker and no
# browser, spread over the cores (pytest-xdist). `make test` stays the whole suite: run it before a push.
check: $(STAMP)
	$(BIN)/ruff check kafka_authz_cli tests
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy
	$(BIN)/python -m pytest -q -n auto -m "not spark and not spark_cluster and not live" \
	  --ignore=tests/live --ignore=tests/review/test_access_html_browser.py tests

# Deterministic: tests/conftest.py loads the hypothesis profile "ci" (derandomized, no example database,
# a failing example printed with its reproduction blob), so a run fails or passes the same everywhere.
# The Spark tests spend most of their time waiting on JVMs (run one after the other, half of the suite's
# wall time was idle CPU): they run beside the other tests, their report printed after them, and the
# target fails if either part fails.
test: $(STAMP) lint check-java check-mvn check-chromium live-deps
	@spark=$$(mktemp); cluster=$$(mktemp); live=$$(mktemp); \
	  $(BIN)/python -m pytest -q --durations=8 -m "spark and not spark_cluster" tests >"$$spark" 2>&1 & s1=$$!; \
	  $(BIN)/python -m pytest -q --durations=4 -m "spark_cluster" tests >"$$cluster" 2>&1 & s2=$$!; \
	  $(BIN)/python -m pytest -q --durations=8 -m "not spark and not spark_cluster" tests/live >"$$live" 2>&1 & s3=$$!; \
	  rc=0; $(BIN)/python -m pytest -q --durations=15 -m "not spark and not spark_cluster" --ignore=tests/live tests \
	    || rc=$$?; \
	  r1=0; wait $$s1 || r1=$$?; r2=0; wait $$s2 || r2=$$?; r3=0; wait $$s3 || r3=$$?; \
	  echo "== the live broker's tests (run beside the others):"; cat "$$live"; \
	  echo "== the Spark tests (run beside the others):"; cat "$$spark"; \
	  echo "== the Spark standalone cluster's tests (run beside the others):"; cat "$$cluster"; \
	  rm -f "$$spark" "$$cluster" "$$live"; \
	  test $$rc = 0 && test $$r1 = 0 && test $$r2 = 0 && test $$r3 = 0

bench: $(STAMP) check-java check-mvn live-deps
	$(BIN)/python tests/bench/run_all.py

# Coverage-guided fuzzing of every reader (1,000,000 inputs in total, a few minutes), then every property
# test of the suite with random examples, the example database and 10x their examples (hypothesis
# profile "explore"; HYPOTHESIS_EXPLORE_FACTOR changes the factor); never part of `make test`. This is
# the nightly run: `make fuzz` once a day keeps exploring what `make test` checks deterministically.
# atheris 3.0+ (2.x mis-instruments Python 3.11 loops); without it, hypothesis generates the inputs.
fuzz: $(STAMP)
	@$(BIN)/python -m pip install -q 'atheris>=3.0' 2>/dev/null || echo "atheris did not install: fuzzing with hypothesis instead"
	$(BIN)/python tests/bench/fuzz_readers.py $(FUZZ_ARGS)
	HYPOTHESIS_PROFILE=explore $(BIN)/python -m pytest -q -m hypothesis --ignore=tests/live tests

clean:
	rm -rf $(VENV) build *.egg-info .pytest_cache .hypothesis
