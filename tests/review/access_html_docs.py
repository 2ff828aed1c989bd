"""Documents of the `authz access --format json` shape (the brief of issue 22) for the HTML report's tests:
a small known one, one with hostile names, and a large one of N principals x N resources."""

from __future__ import annotations

import random

#: Names a report must show as text: markup, an event handler that would set a flag, quotes, unicode.
EVIL_PRINCIPAL = 'User:<img src=x onerror="window.__pwned=1">'
EVIL_TOPIC = "</script><script>window.__pwned=2</script>"
QUOTED_TOPIC = "it's \"quoted\" & <b>bold</b> заказы-✓ 注文"
EVIL_ORIGIN = "acls.csv:3 (<svg onload=window.__pwned=3>)"


def acl(principal, operation, resource_type="TOPIC", name="orders", pattern="LITERAL", host="*", permission="ALLOW"):
    return {"resource_type": resource_type, "resource_name": name, "pattern_type": pattern, "principal": principal,
            "host": host, "operation": operation, "permission": permission}


def entry(principal, operation, resource_type="TOPIC", name="orders", *, host="*", implied=False, reason="acl",
          binding=None, origin=None, excepts=()):
    return {"resource_type": resource_type, "resource_name": name, "principal": principal, "host": host,
            "operation": operation, "implied": implied,
            "via": {"reason": reason, "acl": binding, "origin": origin},
            "except": [{"principal": p, "host": h} for p, h in excepts]}


def doc(access, *, super_users=(), allow_everyone=False, principal=None, name="orders", pattern="literal"):
    return {"version": 1,
            "query": {"resource_type": "TOPIC", "resource_name": name, "pattern": pattern, "principal": principal,
                      "settings": {"super_users": list(super_users), "allow_everyone_if_no_acl_found": allow_everyone}},
            "access": access,
            "resources": len({(e["resource_type"], e["resource_name"]) for e in access}),
            "principals": len({e["principal"] for e in access})}


def known_doc() -> dict:
    """Every reason once. Expected cells in KNOWN_CELLS."""
    alice_read = acl("User:alice", "READ")
    everyone = acl("User:*", "DESCRIBE")
    carol = acl("User:carol", "READ", name="orders-", pattern="PREFIXED")
    bob = acl("User:bob", "WRITE", host="10.0.0.1")
    return doc([
        entry("User:alice", "READ", binding=alice_read, origin="acls.csv:2"),
        entry("User:alice", "DESCRIBE", implied=True, binding=alice_read, origin="acls.csv:2"),
        entry("User:alice", "READ", "GROUP", "app", binding=acl("User:alice", "READ", "GROUP", "app"),
              origin="acls.csv:5"),
        entry("User:bob", "WRITE", host="10.0.0.1", binding=bob, origin="acls.csv:3"),
        entry("User:bob", "DESCRIBE", host="10.0.0.1", implied=True, binding=bob, origin="acls.csv:3"),
        entry("User:*", "DESCRIBE", reason="wildcard_principal", binding=everyone, origin="acls.csv:4",
              excepts=[("User:mallory", "*"), ("User:eve", "10.0.0.9")]),
        entry("User:carol", "READ", "TOPIC", "orders-eu-1", reason="prefixed", binding=carol, origin="acls.csv:6"),
        entry("User:carol", "DESCRIBE", "TOPIC", "orders-eu-1", implied=True, reason="prefixed", binding=carol,
              origin="acls.csv:6"),
        entry("User:admin", "ALTER", reason="super_user"),
        entry("User:admin", "READ", reason="super_user"),
        entry("User:admin", "DESCRIBE", reason="super_user"),
    ], super_users=["User:admin"], pattern="prefix", name="orders")


#: (principal, "TYPE name") -> operations shown, in Kafka's operation order.
KNOWN_CELLS = {
    ("User:*", "TOPIC orders"): ["DESCRIBE"],
    ("User:admin", "TOPIC orders"): ["READ", "ALTER", "DESCRIBE"],
    ("User:alice", "TOPIC orders"): ["READ", "DESCRIBE"],
    ("User:alice", "GROUP app"): ["READ"],
    ("User:bob", "TOPIC orders"): ["WRITE", "DESCRIBE"],
    ("User:carol", "TOPIC orders-eu-1"): ["READ", "DESCRIBE"],
}


def evil_doc() -> dict:
    evil_acl = acl(EVIL_PRINCIPAL, "READ", name=EVIL_TOPIC)
    return doc([
        entry(EVIL_PRINCIPAL, "READ", "TOPIC", EVIL_TOPIC, binding=evil_acl, origin=EVIL_ORIGIN,
              excepts=[(EVIL_PRINCIPAL + "2", "<i>host</i>")]),
        entry("User:alice", "WRITE", "TOPIC", QUOTED_TOPIC, host='10.0.0.1"><script>window.__pwned=4</script>',
              binding=acl("User:alice", "WRITE", name=QUOTED_TOPIC), origin="t.json:1"),
    ], principal=EVIL_PRINCIPAL, name=EVIL_TOPIC)


def large_doc(principals: int, resources: int, per_principal: int = 20, seed: int = 1) -> dict:
    """``principals`` x ``resources``: each principal reads and writes ``per_principal`` random topics
    (DESCRIBE implied), a few hosts; ``User:*`` describes every resource."""
    rnd = random.Random(seed)
    names = [f"topic-{i:05d}" for i in range(resources)]
    access = [entry("User:*", "DESCRIBE", "TOPIC", n, reason="wildcard_principal",
                    binding=acl("User:*", "DESCRIBE", name=n), origin=f"acls.csv:{i + 1}")
              for i, n in enumerate(names)]
    line = len(names)
    for p in range(principals):
        principal = f"User:svc-{p:05d}"
        for n in rnd.sample(names, min(per_principal, resources)):
            op = rnd.choice(["READ", "WRITE"])
            host = rnd.choice(["*", "*", "10.0.0.1"])
            line += 1
            binding = acl(principal, op, name=n, host=host)
            access.append(entry(principal, op, "TOPIC", n, host=host, binding=binding, origin=f"acls.csv:{line}"))
            access.append(entry(principal, "DESCRIBE", "TOPIC", n, host=host, implied=True, binding=binding,
                                origin=f"acls.csv:{line}"))
    return doc(access, pattern="prefix", name="topic-")
