"""One resolution of an Authorization filter's aclFile (kafka_authz_cli.rules.acl_file), which reading
a Kroxylicious configuration and linting it both follow: they cannot drift apart again."""

import os
from pathlib import Path

import pytest

from kafka_authz_cli.errors import InputError
from kafka_authz_cli.rules.acl_file import MapKey, acl_file_target, find_map, local_acl_file
from kafka_authz_cli.rules.embedded import AclFileRef
from kafka_authz_cli.services import rules as lint_service
from kafka_authz_cli.services.acl_sources import load_acl_set


def ref(value: str, operator: bool, namespace=None) -> AclFileRef:
    return AclFileRef(value, 3, 4, "authz", operator, namespace)


@pytest.mark.parametrize("value, operator, expected", [
    ("${configmap:acl-rules:rules.txt}", True, ("map", "ConfigMap", "acl-rules", "rules.txt")),
    ("${secret:s:k}", True, ("map", "Secret", "s", "k")),
    ("${vault:s:k}", True, ("map", None, "s", "k")),  # an unknown provider: the caller says so
    ("x${configmap:a:b}", True, ("refused",)),  # SecureConfigInterpolator: nothing around the placeholder
    ("${configmap:a:b}/more", True, ("refused",)),
    ("/etc/rules.acl", True, ("pod", "/etc/rules.acl")),
    # A run of ^ quotes the placeholder after it: odd, it stays text; every run is halved.
    ("^${configmap:a:b}", True, ("pod", "${configmap:a:b}")),
    ("^^${configmap:a:b}", True, ("pod", "^/opt/kroxylicious/secure/configmap/a/b")),
    ("^^^${configmap:a:b}", True, ("pod", "^${configmap:a:b}")),
    ("/x/^${configmap:a:b}.acl", True, ("pod", "/x/${configmap:a:b}.acl")),
    ("^${configmap:a:b}${configmap:c:d}", True, ("refused",)),  # the second, not quoted, has text before it
    ("^^${vault:a:b}", True, ("map", None, "a", "b")),  # the operator knows no such provider
    ("/opt/kroxylicious/secure/configmap/acl-rules/rules.txt", False, ("map", "ConfigMap", "acl-rules", "rules.txt")),
    ("/opt/kroxylicious/secure/configmap/acl-rules/rules.txt/x", False, ("path",)),
    ("rules.acl", False, ("path",)),
])
def test_what_an_acl_file_names(value, operator, expected):
    t = acl_file_target(ref(value, operator))
    got = ("map", t.map_key.kind, t.map_key.name, t.map_key.key) if t.map_key else \
        ("refused",) if t.refused else ("pod", t.pod_path) if t.pod_path is not None else ("path",)
    assert got == expected
    assert t.label == ("KafkaProtocolFilter authz" if operator else "filter authz")


def test_a_map_is_found_by_kind_and_name_and_namespace_where_both_say_one():
    maps = [(("ConfigMap", "prod", "acl-rules"), 1), (("ConfigMap", "dev", "acl-rules"), 2), (("Secret", None, "x"), 3)]
    assert find_map(maps, MapKey("configmap", "ConfigMap", "acl-rules", "k", "dev"))[1] == 2
    assert find_map(maps, MapKey("configmap", "ConfigMap", "acl-rules", "k", None))[1] == 1
    assert find_map(maps, MapKey("secret", "Secret", "x", "k", "any"))[1] == 3
    assert find_map(maps, MapKey("secret", "Secret", "acl-rules", "k", None)) is None


def test_a_relative_file_is_looked_for_where_the_proxy_starts_then_beside_the_configuration(tmp_path):
    cwd, conf = tmp_path / "cwd", tmp_path / "repo"
    cwd.mkdir(), conf.mkdir()
    (conf / "rules.acl").write_text("otherwise deny;")
    local = local_acl_file("rules.acl", conf / "proxy.yaml", cwd)
    assert (local.found, local.relative, local.looked_in) == (conf / "rules.acl", True, (cwd / "rules.acl",
                                                                                      conf / "rules.acl"))
    (cwd / "rules.acl").write_text("otherwise deny;")
    assert local_acl_file("rules.acl", conf / "proxy.yaml", cwd).found == cwd / "rules.acl"


def test_the_first_place_that_holds_something_decides_even_if_it_is_no_regular_file(tmp_path):
    cwd, conf = tmp_path / "cwd", tmp_path / "repo"
    cwd.mkdir(), conf.mkdir()
    (conf / "rules.acl").write_text("otherwise deny;")
    os.mkfifo(cwd / "rules.acl")
    local = local_acl_file("rules.acl", conf / "proxy.yaml", cwd)
    assert local.found is None and local.special == (cwd / "rules.acl", "a FIFO")
    assert local_acl_file(str(tmp_path / "missing.acl"), conf / "proxy.yaml", cwd) == \
        type(local)(None, None, (Path(tmp_path / "missing.acl"),), False)


def test_a_placeholder_quoted_by_a_caret_is_a_path_in_the_pod_for_reading_and_lint_alike(tmp_path):
    """The operator leaves ``^${configmap:...}`` as the text ``${configmap:...}`` (SecureConfigInterpolator's
    quoting): the proxy is given that path, no ConfigMap is mounted. Both said the operator refused it."""
    (tmp_path / "cm.yaml").write_text("kind: ConfigMap\nmetadata:\n  name: acl-rules\ndata:\n  k: |\n"
                                      "    otherwise deny;\n")
    (tmp_path / "filter.yaml").write_text(
        "kind: KafkaProtocolFilter\nmetadata:\n  name: authz\nspec:\n  type: Authorization\n  configTemplate:\n"
        "    authorizer: AclAuthorizerService\n    authorizerConfig:\n      aclFile: ^${configmap:acl-rules:k}\n")
    unquoted = "(the operator gives the proxy '${configmap:acl-rules:k}': ^ before ${ quotes it, SecureConfigInterpolator)"
    with pytest.raises(InputError) as exc:
        load_acl_set(tmp_path, "kroxylicious")
    assert exc.value.reason == ("KafkaProtocolFilter authz: aclFile '^${configmap:acl-rules:k}' " + unquoted +
                                " is a path inside the proxy pod, which this input does not hold (keep the rules in a "
                                "ConfigMap and name it as ${configmap:NAME:KEY})")
    assert (exc.value.line, exc.value.col) == (9, 15)
    [_, linted] = lint_service.lint_paths([tmp_path], None).results
    [finding] = linted.findings
    assert (finding.code, finding.line, finding.col) == ("AZ112", 9, 15)
    assert finding.message == ("KafkaProtocolFilter authz: aclFile '^${configmap:acl-rules:k}' " + unquoted +
                               " is a path inside the proxy pod: not linted (keep the rules in a ConfigMap and name "
                               "it as ${configmap:NAME:KEY})")
