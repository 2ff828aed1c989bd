"""Hostile inputs for every kind of file authz reads, and the commands that read them.

``SLOTS`` says, for each kind of input (an ACL set, a requests file, a SCRAM record...), what a
valid one looks like and what its format-specific hostile variants are; ``COMMANDS`` says which
command reads it where. The suite (test_hostile_inputs.py) crosses the two.
"""

from __future__ import annotations

import functools
import json
import os
import random
from pathlib import Path

HUGE = 10 * 1024 * 1024  # a 10 MB line
DEEP = 200_000  # nesting levels

ACL = {"resource_type": "TOPIC", "resource_name": "orders", "pattern_type": "LITERAL", "principal": "User:alice",
       "host": "*", "operation": "READ", "permission": "ALLOW"}
REQUEST = {"principal": "User:alice", "host": "10.0.0.1", "operation": "READ", "resource_type": "TOPIC",
           "resource_name": "orders"}
KSM_HEADER = "KafkaPrincipal,ResourceType,PatternType,ResourceName,Operation,PermissionType,Host"
RULES = ("from io.kroxylicious.filter.authorization import TopicResource as Topic;\n"
         'allow User with name = "alice" to READ Topic with name = "orders";\notherwise deny;\n')
TYPES = {"principal_types": [{"short": "ServiceAccount", "class": "com.example.ServiceAccount"}]}


def _acl_json(**changes) -> str:
    return json.dumps({"version": 1, "acls": [dict(ACL, **changes)]}, indent=2) + "\n"


@functools.lru_cache(maxsize=None)
def _record_cached() -> str:
    from kafka_authz_cli.scram.credential import ScramCredential, ScramMechanism

    return json.dumps(ScramCredential.from_password(ScramMechanism.SCRAM_SHA_256, "alice-secret", b"salt-of-alice",
                                                    4096).record("alice"))


def _record() -> dict:
    return json.loads(_record_cached())


def _invalid_utf8(text: str) -> bytes:
    data = text.encode()
    cut = len(data) // 2
    return data[:cut] + b"\xff\xfe" + data[cut:]


# -- per slot: valid content and format-specific hostile variants (name -> bytes, expected) ---------
# expected: "ok" (exit 0), "error" (exit 2, one line naming the file), or an int exit code.

@functools.lru_cache(maxsize=None)
def slot_variants() -> dict[str, dict[str, tuple[bytes, str | int]]]:
    record = _record()
    rec_text = json.dumps(record, indent=2) + "\n"
    return {
        "acls": {
            "valid": (_acl_json().encode(), "ok"),
            "valid-10mb-name": (_acl_json(resource_name="n" * HUGE).encode(), "ok"),
            "valid-csv": ((KSM_HEADER + "\nUser:alice,Topic,LITERAL,orders,Read,Allow,*\n").encode(), "ok"),
            "valid-kafka-acls": ((
                "Current ACLs for resource `ResourcePattern(resourceType=TOPIC, name=orders, patternType=LITERAL)`: \n"
                " \t(principal=User:alice, host=*, operation=READ, permissionType=ALLOW) \n\n").encode(), "ok"),
            "empty": (b"", "ok"),  # no ACLs at all: a valid, empty set
            "null-field": (_acl_json(principal=None).encode(), "error"),
            "number-field": (_acl_json(host=1).encode(), "error"),
            "list-field": (_acl_json(operation=[["READ"]]).encode(), "error"),
            "acls-null": (b'{"version": 1, "acls": null}', "error"),
            "version-string": (b'{"version": "1", "acls": []}', "error"),
            "duplicate-key": (b'{"version": 1, "acls": [{"resource_type": "TOPIC", "resource_type": "GROUP"}]}',
                              "error"),
            "csv-missing-column": ((KSM_HEADER.rsplit(",", 1)[0] + "\nUser:a,Topic,LITERAL,t,Read,Allow\n").encode(),
                                   "error"),
            "csv-extra-column": ((KSM_HEADER + ",Extra\nUser:a,Topic,LITERAL,t,Read,Allow,*,x\n").encode(), "error"),
            "csv-short-row": ((KSM_HEADER + "\nUser:a,Topic\n").encode(), "error"),
            "csv-huge-field": ((KSM_HEADER + '\nUser:a,Topic,LITERAL,"' + "n" * 300_000 + '",Read,Allow,*\n').encode(),
                               "ok"),
            "scram-record": (rec_text.encode(), "error"),  # the wrong kind of file
        },
        "requests": {
            "valid": ((json.dumps(REQUEST) + "\n").encode(), "ok"),
            "valid-csv": (("principal,host,operation,resource_type,resource_name\n"
                           "User:alice,10.0.0.1,READ,TOPIC,orders\n").encode(), "ok"),
            "valid-10mb-name": ((json.dumps(dict(REQUEST, resource_name="n" * HUGE)) + "\n").encode(), "ok"),
            "empty": (b"", "error"),
            "null-field": ((json.dumps(dict(REQUEST, host=None)) + "\n").encode(), "error"),
            "number-field": ((json.dumps(dict(REQUEST, principal=7)) + "\n").encode(), "error"),
            "list-field": ((json.dumps(dict(REQUEST, operation=["READ"])) + "\n").encode(), "error"),
            "bool-ref-count": ((json.dumps(dict(REQUEST, resource_ref_count=True)) + "\n").encode(), "error"),
            "not-an-object": (b"[1, 2, 3]\n", "error"),
            "duplicate-key": (b'{"principal": "User:a", "principal": "User:b", "host": "10.0.0.1"}\n', "error"),
            "csv-missing-column": (b"principal,host,operation,resource_type\nUser:a,10.0.0.1,READ,TOPIC\n", "error"),
            "csv-extra-column": (b"principal,host,operation,resource_type,resource_name,colour\n"
                                 b"User:a,10.0.0.1,READ,TOPIC,t,red\n", "error"),
            "csv-short-row": (b"principal,host,operation,resource_type,resource_name\nUser:a,10.0.0.1\n", "error"),
            "csv-huge-field": (("principal,host,operation,resource_type,resource_name\nUser:a,10.0.0.1,READ,TOPIC,\""
                                + "n" * 300_000 + "\"\n").encode(), "ok"),
        },
        "types": {
            "valid": (json.dumps(TYPES).encode(), "ok"),
            "empty": (b"", "error"),
            "null-field": (b'{"principal_types": [{"short": null, "class": "a.B"}]}', "error"),
            "number-field": (b'{"resource_types": [{"short": "T", "class": "a.T", "operations": [1]}]}', "error"),
            "wrong-container": (b'{"default_imports": ["User"]}', "error"),
            "duplicate-key": (b'{"principal_types": [], "principal_types": []}', "error"),
            "acl-set": (_acl_json().encode(), "error"),  # the wrong kind of file
        },
        "record": {
            "valid": (rec_text.encode(), 0),
            "empty": (b"", "error"),
            "null-field": (json.dumps(dict(record, salt=None)).encode(), "error"),
            "number-field": (json.dumps(dict(record, storedKey=12)).encode(), "error"),
            "string-iterations": (json.dumps(dict(record, iterations="4096")).encode(), "error"),
            "huge-iterations": (json.dumps(dict(record, iterations=2**31 - 1)).encode(), "error"),
            "duplicate-key": (rec_text.replace('"name": "alice"', '"name": "alice", "name": "bob"').encode(),
                              "error"),
            "acl-set": (_acl_json().encode(), "error"),
            "types-file": (json.dumps(TYPES).encode(), "error"),
        },
        "users": {
            "valid": (b"user,mechanism\nalice,SCRAM-SHA-256\n", "ok"),
            "empty": (b"", "error"),
            "csv-missing-column": (b"name\nalice\n", "error"),
            "csv-extra-column": (b"user,colour\nalice,red\n", "error"),
            "csv-short-row": (b"user,mechanism\nalice\n", "error"),
            "csv-huge-field": (('user\n"' + "u" * 300_000 + '"\n').encode(), "ok"),
            "bad-mechanism": (b"user,mechanism\nalice,MD5\n", "error"),
        },
        "properties": {
            "valid": (b"super.users=User:admin\nallow.everyone.if.no.acl.found=false\n"
                      b"authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer\n", "ok"),
            "empty": (b"", "ok"),
            "bad-boolean": (b"allow.everyone.if.no.acl.found=maybe\n", "error"),
            "bad-super-users": (b"super.users=admin\n", "error"),
            "bad-unicode-escape": (b"super.users=\\uZZZZ\n", "error"),
        },
        "rules": {
            "valid": (RULES.encode(), "ok"),
            "empty": (b"", "rules-refused"),
        },
        "names": {
            "valid": (b"topic orders\ngroup g1\nuser alice\n", "ok"),
            "empty": (b"", "ok"),  # nothing to expand against: the rules need no expansion here
            "bad-line": (b"topic orders\nqueue q1\n", "error"),
        },
        "passwordfile": {
            "valid": (b"alice-secret\n", 0),
            "empty": (b"", "error"),
        },
    }


# -- generic hostile variants, for every slot --------------------------------------------------------

@functools.lru_cache(maxsize=None)
def generic_variants(slot: str) -> dict[str, bytes | None]:
    """name -> content (None: made specially: a directory, a missing file, an unreadable file)."""
    rng = random.Random(10)
    valid = slot_variants()[slot]["valid"][0].decode()
    return {
        "binary": bytes(rng.randrange(256) for _ in range(4096)),
        "nul-bytes": b"\x00" * 1000 + b"\x01\x02\x1b[31m",
        "10mb-line": b"x" * HUGE,
        "deep-nesting": b"[" * DEEP + b"]" * DEEP,
        "deep-objects": b'{"a":' * DEEP + b"1" + b"}" * DEEP,
        "invalid-utf8": _invalid_utf8(valid),
        "directory": None,
        "missing": None,
        "unreadable": None,
    }


def unreadable_path(tmp: Path) -> tuple[Path | None, str]:
    """A path open() accepts but reading fails on, as this user can make one (root ignores chmod)."""
    path = tmp / "unreadable"
    path.write_text("x")
    path.chmod(0)
    try:
        with open(path, "rb") as fh:
            fh.read()
    except PermissionError:
        return path, ""
    # Root reads a 0000 file. /proc/self/mem opens, then fails with EIO at offset 0: a real
    # unreadable file for every user (reading it here would be the reading process's memory).
    if os.path.exists("/proc/self/mem"):
        try:
            with open("/proc/self/mem", "rb") as fh:
                fh.read(1)
        except OSError:
            return Path("/proc/self/mem"), ""
    return None, "running as root without /proc: no file can be made unreadable"


def materialise(tmp: Path, slot: str, name: str, content: bytes | None) -> Path | None:
    path = tmp / f"{slot}-{name}"
    if name == "directory":
        path.mkdir(exist_ok=True)
        return path
    if name == "missing":
        return tmp / f"{slot}-does-not-exist"
    if name == "unreadable":
        return unreadable_path(tmp)[0]
    path.write_bytes(content)
    if slot == "passwordfile":
        path.chmod(0o600)
    return path


# -- commands: which slot each reads, and how to build the rest of its arguments ------------------------

def commands(base: dict[str, Path]) -> dict[str, dict]:
    """name -> {"slot", "argv": f(path) -> argv, "stdin": bytes or None, "ok_code"}."""
    acls, rules, record = base["acls"], base["rules"], base["record"]
    logs = base["logs"]
    single = ["--principal", "User:alice", "--operation", "Read", "--topic", "orders"]
    return {
        "simulate ACLS": {"slot": "acls", "argv": lambda p: ["simulate", p, *single]},
        "simulate --requests": {"slot": "requests", "argv": lambda p: ["simulate", acls, "--requests", p]},
        "simulate --broker-config": {"slot": "properties",
                                     "argv": lambda p: ["simulate", acls, *single, "--broker-config", p]},
        "simulate --rules": {"slot": "rules", "argv": lambda p: ["simulate", "--rules", p, *single]},
        "simulate --types": {"slot": "types", "argv": lambda p: ["simulate", "--rules", rules, "--types", p,
                                                                 *single]},
        "convert": {"slot": "acls", "argv": lambda p: ["convert", p, "--to", "csv"]},
        "lint": {"slot": "rules", "argv": lambda p: ["lint", p]},
        "lint --types": {"slot": "types", "argv": lambda p: ["lint", rules, "--types", p]},
        "compile": {"slot": "rules", "argv": lambda p: ["compile", p, "--to", "json"]},
        "compile --types": {"slot": "types", "argv": lambda p: ["compile", rules, "--types", p]},
        "compile --expand-against": {"slot": "names", "argv": lambda p: ["compile", rules, "--expand-against", p]},
        "decompile": {"slot": "acls", "argv": lambda p: ["decompile", p]},
        "diff OLD": {"slot": "acls", "argv": lambda p: ["diff", p, acls]},
        "diff NEW": {"slot": "acls", "argv": lambda p: ["diff", acls, p, "--format", "json"]},
        "scram verify --record": {"slot": "record", "argv": lambda p: ["scram", "verify", "--record", p,
                                                                      "--password-stdin"],
                                  "stdin": b"alice-secret\n"},
        "scram exchange --record": {"slot": "record", "argv": lambda p: ["scram", "exchange", "--user", "alice",
                                                                        "--record", p, "--password-stdin"],
                                    "stdin": b"alice-secret\n"},
        "scram verify --password-file": {"slot": "passwordfile",
                                         "argv": lambda p: ["scram", "verify", "--record", record,
                                                            "--password-file", p]},
        "scram create-users": {"slot": "users",
                               "argv": lambda p: ["scram", "create-users", "--input", p, "--generate",
                                                  "--generated-passwords", base["out"] / "pw.csv",
                                                  "-o", base["out"] / "creds.jsonl", "--workers", "1"]},
        # alice is a super user here so that any ACL set, the empty one included, lets the consumer work
        "app check ACLS": {"slot": "acls", "argv": lambda p: ["app", "check", p, "consumer", "--principal", "User:alice",
                                                              "--topic", "orders", "--super-users", "User:alice"]},
        "app check --broker-config": {"slot": "properties",
                                      "argv": lambda p: ["app", "check", acls, "consumer", "--principal", "User:alice",
                                                         "--topic", "orders", "--broker-config", p]},
        "app acls --broker-config": {"slot": "properties",
                                     "argv": lambda p: ["app", "acls", "consumer", "--principal", "User:alice",
                                                        "--topic", "orders", "--broker-config", p]},
        "whatif --proposed": {"slot": "acls", "argv": lambda p: ["whatif", "--logs", logs, "--proposed", p]},
        "whatif --current": {"slot": "acls", "argv": lambda p: ["whatif", "--logs", logs, "--proposed", acls,
                                                                "--current", p]},
    }
