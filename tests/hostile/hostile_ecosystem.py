"""Hostile inputs for the ecosystem formats (Strimzi, KSM, JulieOps, Jikkou, kafka-gitops, Terraform), a few
kilobytes each, as an attacker writes them into a pull request that ``authz lint`` or ``authz diff`` reads.

``cases()`` lists them by class (YAML aliases, depth, expansion, quadratic work, special files, valid files
that must be read); each case builds its files in a directory and says the command line (after ``authz``)
and what must come of it: ``"ok"`` (exit 0), ``"error"`` (exit 2, one located line naming the file) or an
exit code, and a fragment the output must hold. ``worst`` marks the worst case of its class, which
tests/bench/hostile_worst.py measures (time, peak memory) against any ``authz``.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

KB = 1024
#: apps/appsfile.py's MAX_APPS (the test names the bound rather than importing the module under test)
MAX_APPS = 10_000
#: a valid file of each YAML format, the base of the hostile variants
STRIMZI_USER = ("apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaUser\nmetadata:\n  name: {name}\n  labels:\n"
                "    strimzi.io/cluster: c\nspec:\n  authorization:\n    type: simple\n    acls:\n"
                "      - resource: {{type: topic, name: orders}}\n        operations: [Read]\n")
KSM = "users:\n  alice:\n    topics:\n      orders:\n        - Read\n"
JULIEOPS = 'context: "c"\nprojects:\n  - name: "p"\n    consumers:\n      - principal: "User:app"\n        group: "g"\n' \
           '    topics:\n      - name: "t"\n'
JIKKOU = ('apiVersion: kafka.jikkou.io/v1\nkind: KafkaPrincipalAuthorization\nmetadata:\n  name: "User:alice"\nspec:\n'
          '  acls:\n    - resource: {type: TOPIC, pattern: orders, patternType: LITERAL}\n      type: ALLOW\n'
          '      operations: [READ]\n      host: "*"\n')
GITOPS = "services:\n  orders:\n    type: application\n    principal: User:orders\n    produces: [orders]\n"
TERRAFORM = ('resource "kafka_acl" "a" {{\n  resource_name       = {name}\n  resource_type       = "Topic"\n'
             '  acl_principal       = "User:alice"\n  acl_host            = "*"\n  acl_operation       = "Read"\n'
             '  acl_permission_type = "Allow"\n{extra}}}\n')
TFSTATE = ('{{"version": 4, "terraform_version": "1.5.7", "serial": 1, "lineage": "x", "outputs": {{}}, "resources": '
           '[{{"mode": "managed", "type": "kafka_acl", "name": "a", "provider": "provider[\\"x\\"]", "instances": '
           '[{{"schema_version": 0, "attributes": {attributes}}}]}}]}}\n')
ACL_ATTRIBUTES = ('{"resource_name": "orders", "resource_type": "Topic", "acl_principal": "User:alice", "acl_host": "*", '
                  '"acl_operation": "Read", "acl_permission_type": "Allow", "resource_pattern_type_filter": "Literal"}')
VALID = {"strimzi": STRIMZI_USER.format(name="alice"), "ksm-yaml": KSM, "julieops": JULIEOPS, "jikkou": JIKKOU,
         "kafka-gitops": GITOPS, "terraform": TERRAFORM.format(name='"orders"', extra="")}
SUFFIX = {"strimzi": ".yaml", "ksm-yaml": ".yaml", "julieops": ".yaml", "jikkou": ".yaml", "kafka-gitops": ".yaml",
          "terraform": ".tf"}


@dataclass(frozen=True)
class Case:
    name: str
    klass: str
    #: (directory) -> the command line after ``authz``, its files made in the directory
    build: Callable[[Path], list[str]]
    expect: object = "error"
    says: str = ""
    worst: bool = False


def _convert(fmt: str, *extra: str) -> Callable[[Path], list[str]]:
    def argv(path: Path) -> list[str]:
        return ["convert", str(path), "--to", "json", "--acls-format", fmt, *extra]
    return argv


def _file(fmt: str, text: str | bytes, name: str = "", *extra: str, auto: bool = False) -> Callable[[Path], list[str]]:
    """A case reading one file of ``text`` (as --acls-format says, or by content when ``auto``)."""
    def build(tmp: Path) -> list[str]:
        path = tmp / (name or f"input{SUFFIX.get(fmt, '.yaml')}")
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
        return ["convert", str(path), "--to", "json"] + ([] if auto else ["--acls-format", fmt]) + list(extra)
    return build


# -- YAML aliases ----------------------------------------------------------------------------------------

def strimzi_alias_list(users: int = 5000, rules: int = 5000) -> str:
    """A ``kind: List`` of aliases to one KafkaUser whose acls are aliases to one rule (80 KB)."""
    head = ("apiVersion: v1\nkind: List\nitems:\n- &u\n  apiVersion: kafka.strimzi.io/v1beta2\n  kind: KafkaUser\n"
            "  metadata:\n    name: u\n    labels: {strimzi.io/cluster: c}\n  spec:\n    authorization:\n"
            "      type: simple\n      acls:\n      - &r {resource: {type: topic, name: t}, operations: [Read]}\n")
    return head + "      - *r\n" * rules + "- *u\n" * users


def ksm_alias_users(users: int = 2500, topics: int = 2000) -> str:
    """KSM users that alias one permission map."""
    return ("users:\n  u0: &p\n    topics:\n" + "".join(f"      t{i}: [Read]\n" for i in range(topics))
            + "".join(f"  u{i}: *p\n" for i in range(1, users)))


def gitops_alias_services(services: int = 3000, topics: int = 2000) -> str:
    """kafka-gitops services that alias one service."""
    return ("services:\n  s0: &s\n    type: application\n    principal: User:s\n    produces: ["
            + ", ".join(f"t{i}" for i in range(topics)) + "]\n"
            + "".join(f"  s{i}: *s\n" for i in range(1, services)))


def laughs(indent: str, levels: int = 10) -> str:
    """A billion laughs: level n is ten aliases of level n-1 (10^levels strings)."""
    out = f"{indent}l0: &l0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
    for n in range(1, levels):
        out += f"{indent}l{n}: &l{n} [" + ", ".join([f"*l{n - 1}"] * 10) + "]\n"
    return out


def julieops_laughs() -> str:
    """A billion laughs under a project's ``rbac`` (no ACL reads it)."""
    return ('context: "c"\nprojects:\n  - name: "p"\n    rbac:\n' + laughs("      ")
            + '    topics:\n      - name: "t"\n')


def jikkou_alias_acls(principals: int = 2000, acls: int = 2000) -> str:
    """A KafkaPrincipalAuthorizationList whose authorizations alias one spec of aliased acls."""
    out = ("apiVersion: kafka.jikkou.io/v1\nkind: KafkaPrincipalAuthorizationList\nitems:\n"
           "- apiVersion: kafka.jikkou.io/v1\n  kind: KafkaPrincipalAuthorization\n  metadata: {name: 'User:u0'}\n"
           "  spec: &s\n    acls:\n    - &a {resource: {type: TOPIC, pattern: t, patternType: LITERAL}, type: ALLOW, "
           "operations: [READ], host: '*'}\n" + "    - *a\n" * acls)
    return out + "".join(f"- apiVersion: kafka.jikkou.io/v1\n  kind: KafkaPrincipalAuthorization\n"
                         f"  metadata: {{name: 'User:u{i}'}}\n  spec: *s\n" for i in range(1, principals))


def _alias_cases() -> list[Case]:
    return [
        Case("strimzi|aliases-list", "aliases", _file("strimzi", strimzi_alias_list()), "error",
             "document contains excessive aliasing", worst=True),
        Case("strimzi|aliases-few", "aliases",
             _file("strimzi", "apiVersion: v1\nkind: List\nitems:\n- &u\n" + _indent(STRIMZI_USER.format(name="a"))
                   + "- *u\n"), "ok"),
        Case("ksm-yaml|aliases-users", "aliases", _file("ksm-yaml", ksm_alias_users()), "error",
             "Number of aliases for non-scalar nodes exceeds the specified max=50", worst=True),
        Case("ksm-yaml|aliases-50", "aliases", _file("ksm-yaml", ksm_alias_users(users=51, topics=3)), "ok"),
        Case("kafka-gitops|aliases-services", "aliases", _file("kafka-gitops", gitops_alias_services()), "error",
             "which the tool's YAML parser, Jackson's, reads as the text", worst=True),
        Case("julieops|aliases-laughs", "aliases", _file("julieops", julieops_laughs()), "ok"),
        Case("julieops|aliases-laughs-lint", "aliases", lambda tmp: ["lint", _write(tmp, "t.yaml", julieops_laughs())],
             0, worst=True),
        Case("jikkou|aliases-acls", "aliases", _file("jikkou", jikkou_alias_acls()), "error",
             "which the tool's YAML parser, Jackson's, reads as the text", worst=True),
        Case("strimzi|aliases-recursive", "aliases",
             _file("strimzi", "apiVersion: v1\nkind: List\nitems:\n- &u\n  apiVersion: kafka.strimzi.io/v1beta2\n"
                   "  kind: KafkaUser\n  metadata: {name: a, labels: {x: *u}}\n"), "error", "contains itself"),
        Case("ksm-yaml|aliases-recursive", "aliases",
             _file("ksm-yaml", "users:\n  a: &u\n    topics:\n      t: [Read]\n    groups:\n      g: *u\n"), "error",
             "contains itself"),
    ]


def _indent(text: str) -> str:
    return "".join("  " + line for line in text.splitlines(keepends=True))


def _write(tmp: Path, name: str, text: str) -> str:
    (tmp / name).write_text(text)
    return str(tmp / name)


# -- Terraform evaluation ----------------------------------------------------------------------------------

def terraform_doubling(levels: int = 34, string: bool = False) -> str:
    """``local.a{n+1} = [local.a{n}, local.a{n}]`` (or the string form), used as the resource name."""
    if string:
        body = '  a0 = "x"\n' + "".join(f'  a{n + 1} = "${{local.a{n}}}${{local.a{n}}}"\n' for n in range(levels))
    else:
        body = '  a0 = "x"\n' + "".join(f"  a{n + 1} = [local.a{n}, local.a{n}]\n" for n in range(levels))
    return "locals {\n" + body + "}\n" + TERRAFORM.format(name=f"local.a{levels}", extra="")


def _terraform_cases() -> list[Case]:
    tf = "terraform"
    return [
        Case("terraform|locals-doubling", "expansion", _file(tf, terraform_doubling()), "error",
             "must be a string", worst=True),
        Case("terraform|locals-doubling-string", "expansion", _file(tf, terraform_doubling(string=True)), "error",
             "characters", worst=True),
        Case("terraform|count-literal", "expansion",
             _file(tf, TERRAFORM.format(name='"orders"', extra="  count = 100000000\n")), "error",
             "count = 100,000,000", worst=True),
        Case("terraform|count-variable", "expansion",
             _file(tf, 'variable "n" {\n  default = 100000000\n}\n'
                   + TERRAFORM.format(name='"orders"', extra="  count = var.n\n")), "error", "100,000,000"),
        Case("terraform|count-within-cap", "expansion",
             _file(tf, TERRAFORM.format(name='"t-${count.index}"', extra="  count = 1000\n")), "ok"),
        Case("terraform|int-5000-digits", "depth",
             _file(tf, TERRAFORM.format(name='"orders"', extra=f"  count = {'9' * 5000}\n")), "error", "digits"),
        Case("terraform|parens-5000", "depth", _file(tf, TERRAFORM.format(name="(" * 5000 + '"x"' + ")" * 5000,
                                                                          extra="")), "error", "nested", worst=True),
        Case("terraform|brackets-3000", "depth",
             _file(tf, "locals {\n  b = " + "[" * 3000 + '"x"' + "]" * 3000 + "\n}\n"
                   + TERRAFORM.format(name="local.b", extra="")), "error", "nested"),
        Case("terraform|conditionals-3000", "depth",
             _file(tf, "locals {\n  c = " + "true ? " * 3000 + '"x"' + ' : "y"' * 3000 + "\n}\n"
                   + TERRAFORM.format(name="local.c", extra="")), "error", "nested"),
        Case("terraform|attribute-chain-20000", "depth",
             _file(tf, "locals {\n  o = {a = \"x\"}\n}\n"
                   + TERRAFORM.format(name="local.o" + ".a" * 20000, extra="")), "error", "", worst=True),
    ]


def _tfstate_cases() -> list[Case]:
    tf = "terraform"
    deep = TFSTATE.format(attributes=ACL_ATTRIBUTES[:-1] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}")
    return [
        Case("terraform|tfstate-deep", "depth", _file(tf, deep, "terraform.tfstate"), "error", "nested too deeply",
             worst=True),
        Case("terraform|tfstate-duplicate-key", "strict-json",
             _file(tf, TFSTATE.format(attributes=ACL_ATTRIBUTES[:-1] + ', "acl_principal": "User:*"}'),
                   "terraform.tfstate"), "error", "duplicate key 'acl_principal'"),
        Case("terraform|tfstate-number", "strict-json",
             _file(tf, TFSTATE.format(attributes=ACL_ATTRIBUTES.replace('"acl_host": "*"', '"acl_host": 1')),
                   "terraform.tfstate"), "error", "must be a string"),
        Case("terraform|show-json-duplicate", "strict-json",
             _file(tf, '{"format_version": "1.0", "values": {"root_module": {"resources": [{"address": "kafka_acl.a", '
                   '"mode": "managed", "type": "kafka_acl", "name": "a", "values": '
                   + ACL_ATTRIBUTES[:-1] + ', "acl_principal": "User:*"}}]}}}\n', "show.json"), "error",
             "duplicate key"),
        Case("terraform|tfstate-wrong-container", "strict-json",
             _file(tf, '{"version": 4, "terraform_version": "1.5.7", "serial": 1, "resources": [1]}\n',
                   "terraform.tfstate"), "error", "resources[0]"),
    ]


# -- Jikkou MATCH --------------------------------------------------------------------------------------------

def jikkou_match(pattern: str) -> str:
    return JIKKOU.replace("pattern: orders, patternType: LITERAL", f"pattern: '{pattern}', patternType: MATCH")


def _match(pattern: str, topics: list[str]) -> Callable[[Path], list[str]]:
    def build(tmp: Path) -> list[str]:
        (tmp / "topics.txt").write_text("".join(t + "\n" for t in topics))
        return _file("jikkou", jikkou_match(pattern))(tmp) + ["--option", f"topics={tmp / 'topics.txt'}"]
    return build


def _jikkou_cases() -> list[Case]:
    return [
        Case("jikkou|match-nested-groups", "depth", _match("(" * 5000 + "a" + ")" * 5000, ["a"]), "error",
             "nested", worst=True),
        Case("jikkou|match-backtracking-re2", "time", _match("(a+)+$", ["a" * 40 + "b", "a" * 10]), "ok",
             worst=True),
        Case("jikkou|match-backtracking-java-only", "time", _match(r"(a+)+\1x", ["a" * 40 + "b"]), "error",
             "backtrack", worst=True),
        Case("jikkou|match-ordinary", "time", _match("orders-.*", ["orders-eu", "payments"]), "ok"),
    ]


# -- quadratic work --------------------------------------------------------------------------------------------

KSM_HEADER = "KafkaPrincipal,ResourceType,PatternType,ResourceName,Operation,PermissionType,Host"


def julieops_big_context(context: int = 10 * KB * KB, consumers: int = 1000) -> str:
    """A topology whose prefix holds a ``context``-long top-level value (after the projects: every other
    top-level key is a component of the project prefix), and ``consumers`` consumers of its topic."""
    return ('context: "c"\nprojects:\n  - name: "p"\n    consumers:\n'
            + "".join(f'      - principal: "User:u{i}"\n' for i in range(consumers))
            + '    streams:\n      - principal: "User:s"\n        topics:\n          read: ["x"]\n'
            + '    topics:\n      - name: "t"\n' + f'source: "{"s" * context}"\n')


def _directory(fmt: str, count: int) -> Callable[[Path], list[str]]:
    def build(tmp: Path) -> list[str]:
        root = tmp / f"{fmt}-{count}"
        root.mkdir()
        for i in range(count):
            text = (STRIMZI_USER.format(name=f"u{i}") if fmt == "strimzi"
                    else JULIEOPS.replace('name: "p"', f'name: "p{i}"'))
            (root / f"f{i:06d}.yaml").write_text(text)
        return ["convert", str(root), "--to", "json", "--acls-format", fmt]
    return build


def _quadratic_cases() -> list[Case]:
    header = KSM_HEADER + "".join(f",c{i}" for i in range(150_000))
    return [
        Case("ksm-csv|header-150k-columns", "quadratic",
             _file("csv", header + "\nUser:a,Topic,LITERAL,t,Read,Allow,*\n", "acls.csv"), "error",
             "unknown column", worst=True),
        Case("julieops|context-10mb-1000-consumers", "quadratic", _file("julieops", julieops_big_context()), "error",
             "longer than Kafka's 249 characters", worst=True),
        Case("julieops|context-200-1000-consumers", "quadratic",
             _file("julieops", julieops_big_context(context=200, consumers=1000)), "ok"),
        Case("julieops|directory-50000", "quadratic", _directory("julieops", 50_000), "ok", worst=True),
        Case("strimzi|directory-50000", "quadratic", _directory("strimzi", 50_000), "ok", worst=True),
    ]


# -- special files -------------------------------------------------------------------------------------------------

def _fifo(tmp: Path, name: str = "fifo.yaml") -> Path:
    path = tmp / name
    os.mkfifo(path)
    return path


def _special_cases() -> list[Case]:
    out = []
    for fmt in VALID:
        out.append(Case(f"{fmt}|fifo", "special-file", lambda tmp, f=fmt: _convert(f)(_fifo(tmp)), "error",
                        "not a regular file", worst=fmt == "strimzi"))
        out.append(Case(f"{fmt}|dev-zero", "special-file", lambda tmp, f=fmt: _convert(f)(Path("/dev/zero")),
                        "error", "not a regular file", worst=fmt == "strimzi"))
    out += [
        Case("jikkou|topics-dev-zero", "special-file",
             lambda tmp: _file("jikkou", jikkou_match("t.*"))(tmp) + ["--option", "topics=/dev/zero"], 2,
             "not a regular file", worst=True),
        Case("jikkou|topics-fifo", "special-file",
             lambda tmp: _file("jikkou", jikkou_match("t.*"))(tmp) + ["--option", f"topics={_fifo(tmp, 't')}"], 2,
             "not a regular file"),
        Case("kroxylicious|aclfile-fifo", "special-file", _kroxylicious_fifo, "error", "not a regular file"),
        Case("strimzi|directory-with-fifo", "special-file", _directory_with_fifo, "error", "not a regular file"),
    ]
    return out


def _kroxylicious_fifo(tmp: Path) -> list[str]:
    fifo = _fifo(tmp, "rules.txt")
    config = tmp / "proxy.yaml"
    config.write_text("filterDefinitions:\n- name: authz\n  type: Authorization\n  config:\n"
                      f"    authorizer: AclAuthorizerService\n    authorizerConfig:\n      aclFile: {fifo}\n")
    return ["convert", str(config), "--to", "json"]


def _directory_with_fifo(tmp: Path) -> list[str]:
    root = tmp / "users"
    root.mkdir()
    (root / "a.yaml").write_text(STRIMZI_USER.format(name="a"))
    _fifo(root, "b.yaml")
    return ["convert", str(root), "--to", "json"]


# -- valid files that must be read ------------------------------------------------------------------------------

def _crlf(text: str) -> str:
    return text.replace("\n", "\r\n")


def _directory_crlf(tmp: Path) -> list[str]:
    root = tmp / "users"
    root.mkdir()
    (root / "a.yaml").write_text(STRIMZI_USER.format(name="a"))
    (root / "b.yaml").write_bytes(_crlf(STRIMZI_USER.format(name="b")).encode())
    return ["convert", str(root), "--to", "kafka-acls"]


def _valid_cases() -> list[Case]:
    user = STRIMZI_USER.format(name="alice")
    return [
        Case("strimzi|crlf-forced", "valid", _file("strimzi", _crlf(user)), "ok", "User:alice"),
        Case("strimzi|crlf-detected", "valid", _file("strimzi", _crlf(user), auto=True), "ok", "User:alice"),
        Case("strimzi|crlf-in-directory", "valid", _directory_crlf, "ok", "User:b"),
        Case("strimzi|bom", "valid", _file("strimzi", "\ufeff" + user, auto=True), "ok", "User:alice"),
        Case("strimzi|bom-forced", "valid", _file("strimzi", "\ufeff" + user), "ok", "User:alice"),
        Case("jikkou|bom", "valid", _file("jikkou", "\ufeff" + JIKKOU, auto=True), "ok", "User:alice"),
        Case("jikkou|bom-crlf-forced", "valid", _file("jikkou", "\ufeff" + _crlf(JIKKOU)), "ok", "User:alice"),
        Case("ksm-yaml|crlf", "valid", _file("ksm-yaml", _crlf(KSM), auto=True), "ok", "User:alice"),
        Case("kafka-gitops|bom-crlf", "valid", _file("kafka-gitops", "\ufeff" + _crlf(GITOPS), auto=True), "ok",
             "User:orders"),
        Case("julieops|crlf", "valid", _file("julieops", _crlf(JULIEOPS), auto=True), "ok", "User:app"),
        Case("strimzi|empty-documents", "valid", _file("strimzi", "---\n---\n" + user + "---\n# nothing\n---\n",
                                                       auto=True), "ok", "User:alice"),
        Case("julieops|projects-after-64kb", "valid",
             _file("julieops", 'context: "c"\n' + "# padding\n" * (7 * KB) + JULIEOPS.split("\n", 1)[1]), "ok",
             "User:app"),
        Case("julieops|projects-after-64kb-detected", "valid",
             _file("julieops", 'context: "c"\n' + "# padding\n" * (7 * KB) + JULIEOPS.split("\n", 1)[1], auto=True),
             "ok", "User:app"),
    ]


# -- generic hostile text, for every format ----------------------------------------------------------------------

def _generic_cases() -> list[Case]:
    out = []
    for fmt in VALID:
        out += [
            Case(f"{fmt}|deep-flow", "depth", _file(fmt, "a: " + "[" * 200_000 + "]" * 200_000 + "\n"), "error"),
            Case(f"{fmt}|deep-block", "depth", _file(fmt, "".join(" " * i + "a:\n" for i in range(3000))), "error"),
            Case(f"{fmt}|10mb-line", "size", _file(fmt, "x" * (10 * KB * KB)), "error"),
            Case(f"{fmt}|nul-bytes", "size", _file(fmt, b"\x00" * 1000), "error"),
            Case(f"{fmt}|huge-int", "depth", _file(fmt, VALID[fmt] + ("z: " + "9" * 5000 + "\n" if fmt != "terraform"
                                                                     else "")), "any"),
        ]
    return out


# -- apps files (authz access --apps, authz lint; apps/appsfile.py) -----------------------------------------------

APPS_ACLS = "User:orders,Topic,LITERAL,orders,Read,Allow,*\n"
APP = "  - name: r{n}\n    kind: consumer\n    principal: User:orders\n    topics: [orders]\n"


def _apps(text: str | bytes, command: str = "access", fifo: bool = False) -> Callable[[Path], list[str]]:
    """``authz access ACLS --apps FILE`` (or ``authz lint FILE``) on an apps file of ``text``."""
    def build(tmp: Path) -> list[str]:
        acls = tmp / "acls.csv"
        acls.write_text("KafkaPrincipal,ResourceType,PatternType,ResourceName,Operation,PermissionType,Host\n"
                        + APPS_ACLS)
        path = _fifo(tmp, "apps.yaml") if fifo else tmp / "apps.yaml"
        if not fifo:
            path.write_bytes(text if isinstance(text, bytes) else text.encode())
        return ["lint", str(path)] if command == "lint" else ["access", str(acls), "--apps", str(path)]
    return build


def _apps_cases() -> list[Case]:
    laughs_apps = ("apps:\n  - name: x\n    kind: consumer\n    principal: User:orders\n    topics: [orders]\n"
                   "    config:\n" + laughs("      "))
    deep = "apps:\n  - kind: consumer\n    topics: " + "[" * 10_000 + "]" * 10_000 + "\n"
    big_name = "apps:\n  - name: " + "n" * (10 * KB * KB) + "\n    kind: consumer\n    principal: User:orders\n" \
        "    topics: [orders]\n"
    many = "apps:\n" + "".join(APP.format(n=n) for n in range(MAX_APPS + 1))
    return [
        Case("apps|alias-laughs", "aliases", _apps(laughs_apps), "error", worst=True),
        Case("apps|alias-laughs-lint", "aliases", _apps(laughs_apps, "lint"), 1, "AP001"),
        Case("apps|deep-lists", "nesting", _apps(deep), "error", worst=True),
        Case("apps|10mb-name", "size", _apps(big_name), "ok", worst=True),
        Case("apps|too-many", "expansion", _apps(many), "error", f"more than {MAX_APPS:,} applications", worst=True),
        Case("apps|fifo", "special-file", _apps("", fifo=True), "error", "not a regular file", worst=True),
        Case("apps|binary", "garbage", _apps(b"\x00\xff" * 1000), "error"),
        Case("apps|crlf-bom", "valid", _apps("\ufeff" + ("apps:\n" + APP.format(n=1)).replace("\n", "\r\n")), "ok",
             "1 of 1 application(s) work"),
    ]


def cases() -> list[Case]:
    return (_alias_cases() + _terraform_cases() + _tfstate_cases() + _jikkou_cases() + _quadratic_cases()
            + _special_cases() + _valid_cases() + _generic_cases() + _apps_cases())
