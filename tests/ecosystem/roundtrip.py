"""The two properties every ecosystem writer is held to (each writer's tests give their strategies):
what the format can hold comes back exactly, and --lossy keeps exactly what it can, never widening."""

from __future__ import annotations

from kafka_authz_cli.acl import BrokerSettings, diff

#: what the writers' tests compare decisions under: the broker's defaults (no super users, no allow.everyone)
NO_ACLS = BrokerSettings()


def assert_round_trips(bindings, text: str, read, name: str):
    """``text`` (the writer's output for ``bindings``) reads back to exactly them, deciding alike."""
    again = read(text, name).bindings
    assert sorted(map(str, again)) == sorted(map(str, set(bindings)))
    assert diff(bindings, again, NO_ACLS, NO_ACLS).verdict == "equivalent"
    return again


def assert_lossy_keeps_what_it_can(bindings, written, read, name: str, holds) -> None:
    """A --lossy write reads back to the bindings ``holds`` accepts, lists the others as lost, and holds
    nothing that was not given."""
    again = read(written.text, name).bindings
    unique = list(dict.fromkeys(bindings))
    assert sorted(map(str, again)) == sorted(str(b) for b in unique if holds(b))
    assert {str(x.binding) for x in written.lost} == {str(b) for b in unique if not holds(b)}
    assert set(map(str, again)) <= set(map(str, bindings))
