"""`make test` is deterministic: every property test runs under the "ci" profile of conftest.py."""

import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

TESTS = Path(__file__).parent
SEEN: list[int] = []
CI = os.environ.get("HYPOTHESIS_PROFILE", "ci") == "ci"


@settings(max_examples=5, derandomize=False)  # a test's own settings cannot re-randomize the run
@given(st.integers())
def test_a_property_test_runs_under_the_profile(n):
    own = test_a_property_test_runs_under_the_profile._hypothesis_internal_use_settings
    if CI:
        assert own.derandomize and own.database is None and own.print_blob and own.max_examples == 5
    else:
        assert not own.derandomize and own.max_examples == 5 * int(os.environ.get("HYPOTHESIS_EXPLORE_FACTOR", "10"))
    SEEN.append(n)


@pytest.mark.skipif(not CI, reason="the ci profile only")
def test_the_examples_are_the_same_on_every_run():
    # Derandomized examples derive from the test itself: the run above saw what a rerun sees.
    first = list(SEEN)
    SEEN.clear()
    test_a_property_test_runs_under_the_profile()
    assert first and SEEN == first


def test_no_test_sets_a_seed_or_a_database_of_its_own():
    # conftest.py enforces the profile anyway; a test asking for randomness or a database is a mistake.
    offenders = []
    for path in TESTS.rglob("*.py"):
        if "bench" in path.parts or path.name in ("conftest.py", Path(__file__).name):
            continue
        text = path.read_text(encoding="utf-8")
        if re.search(r"@seed\(|derandomize\s*=\s*False|database\s*=", text):
            offenders.append(str(path.relative_to(TESTS)))
    assert offenders == []


@settings(max_examples=1000)
@given(st.integers())
def test_ci_caps_the_examples_and_explore_multiplies_them(n):
    own = test_ci_caps_the_examples_and_explore_multiplies_them._hypothesis_internal_use_settings
    factor = int(os.environ.get("HYPOTHESIS_EXPLORE_FACTOR", "10"))
    assert own.max_examples == (int(os.environ.get("HYPOTHESIS_CI_MAX_EXAMPLES", "100")) if CI else 1000 * factor)
