import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import settings

CONFORMANCE = Path(__file__).parent / "conformance"

# Hypothesis profiles. `make test` loads "ci": every property test derandomized (its examples derive
# from the test itself, the same on every machine and every run), no example database (nothing
# carried over from an earlier run changes the outcome), and a failing example printed with its
# reproduction blob, at most CI_MAX_EXAMPLES examples per test (a fixed set of examples gains little
# from its 300th; the exploring is the nightly's). `make fuzz` and the nightly run load "explore"
# (HYPOTHESIS_PROFILE=explore): random, with the example database, and EXPLORE_FACTOR times each
# test's own example count.
EXPLORE_FACTOR = int(os.environ.get("HYPOTHESIS_EXPLORE_FACTOR", "10"))
CI_MAX_EXAMPLES = int(os.environ.get("HYPOTHESIS_CI_MAX_EXAMPLES", "100"))
settings.register_profile("ci", derandomize=True, database=None, print_blob=True, deadline=None)
settings.register_profile("explore", derandomize=False, print_blob=True, deadline=None, max_examples=1000)
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")
settings.load_profile(PROFILE)

# `whatif --index --current` keeps incremental baselines in the user's cache directory: the tests keep
# theirs in a directory of their own, so that no run writes to ~/.cache or answers from an earlier run's.
os.environ["AUTHZ_CACHE_DIR"] = tempfile.mkdtemp(prefix="authz-test-cache-")


def _profiled(given_settings: settings) -> settings:
    """A test's own @settings under the loaded profile: whatever a test sets, "ci" keeps it
    derandomized, without a database and at most CI_MAX_EXAMPLES examples; "explore" randomizes it
    and multiplies its examples."""
    if PROFILE == "explore":
        return settings(given_settings, derandomize=False, database=settings.default.database,
                        max_examples=given_settings.max_examples * EXPLORE_FACTOR)
    return settings(given_settings, derandomize=True, database=None, print_blob=True,
                    max_examples=min(given_settings.max_examples, CI_MAX_EXAMPLES))


#: Fixtures that start a Spark JVM: a test using one is a Spark test whatever its markers say, so that
#: `make test` can run the Spark tests beside the others (`-m spark` / `-m "not spark"`) and miss none.
SPARK_FIXTURES = {"spark", "standalone"}


@pytest.hookimpl(tryfirst=True)  # before -m selects by marker
def pytest_itemcollected(item):
    if SPARK_FIXTURES & set(getattr(item, "fixturenames", ())) and item.get_closest_marker("spark") is None:
        item.add_marker(pytest.mark.spark)


def pytest_collection_modifyitems(items):
    done: set[int] = set()  # a parametrized test is one function behind many items
    for item in items:
        test = getattr(getattr(item, "obj", None), "__func__", getattr(item, "obj", None))
        if not hasattr(getattr(test, "hypothesis", None), "inner_test") or id(test) in done:
            continue
        done.add(id(test))
        test._hypothesis_internal_use_settings = _profiled(test._hypothesis_internal_use_settings)


def read_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


@pytest.fixture(scope="session")
def conformance_dir() -> Path:
    return CONFORMANCE


@pytest.fixture(autouse=True)
def _fresh_consoles():
    """Each test's CLI runs get consoles made anew, as each `authz` process does: rich fixes a
    console's width from COLUMNS when it is made, so a console made by an earlier test in the same
    worker (80 columns) would ignore a later test's COLUMNS=200."""
    from kafka_authz_cli.cli import common

    common.console._console = None
    common.err_console._console = None
    yield
