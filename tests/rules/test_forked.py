"""The second-core helper and the lint pass that uses it: same answers, serial or forked."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kafka_authz_cli.rules import lint as lint_module
from kafka_authz_cli.rules.forked import ForkedCall
from tests.bench.gen_rules import generate_varied

TYPES = Path(__file__).parents[1] / "conformance" / "kroxylicious" / "types.json"


def test_a_forked_call_returns_what_the_function_returns():
    parent = os.getpid()
    call = ForkedCall(lambda: (os.getpid() != parent, [1, 2, 3]))
    ran_elsewhere, value = call.result()
    assert value == [1, 2, 3]
    assert ran_elsewhere is hasattr(os, "fork")


def test_a_child_that_fails_is_answered_here_instead():
    parent = os.getpid()

    def only_here():
        if os.getpid() != parent:
            raise RuntimeError("the child fails")
        return "computed by the parent"

    assert ForkedCall(only_here).result() == "computed by the parent"


def test_a_child_whose_answer_will_not_pickle_is_answered_here_instead():
    assert ForkedCall(lambda: (lambda: 42)).result()() == 42


def test_cancel_stops_and_reaps_the_child():
    import time

    call = ForkedCall(lambda: time.sleep(30))
    pid = call._pid
    call.cancel()
    if pid is not None:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)


def test_lint_findings_are_the_same_serial_and_forked(monkeypatch):
    from kafka_authz_cli.rules.types_file import load_types

    registry = load_types(TYPES)[0]
    text = generate_varied(6000, seed=3)
    monkeypatch.setattr(lint_module, "_PARALLEL_FROM", 10**9)
    serial = lint_module.lint_text(text, "f.acl", registry).findings
    monkeypatch.setattr(lint_module, "_PARALLEL_FROM", 0)
    forked = lint_module.lint_text(text, "f.acl", registry).findings
    assert forked == serial
    assert {f.code for f in serial} >= {"AZ104", "AZ108", "AZ109"}
