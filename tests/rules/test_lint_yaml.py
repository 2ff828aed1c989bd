"""Rules in a proxy configuration, a ConfigMap, a KafkaProtocolFilter: linted where they are, at the
YAML's own line:col, and aclFiles followed as the proxy (Path.of, from its working directory) and the
operator (${configmap:NAME:KEY}) follow them."""


import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.errors import InputError
from kafka_authz_cli.rules.embedded import read_kroxylicious_yaml
from kafka_authz_cli.rules.lint import lint_text
from kafka_authz_cli.services import rules as service

BROKEN = 'allow User with name = "alice" READ Topic with name *;\notherwise deny;\n'  # proxy: 1:31 missing 'to'
CONFIGMAP = """\
# a comment
apiVersion: v1
kind: ConfigMap
metadata:
  name: acl-rules
  namespace: my-proxy
data:
  acl-rules.txt: |
    from io.kroxylicious.filter.authorization import TopicResource as Topic;
    allow User with name = "alice" READ Topic with name *;
    otherwise deny;
  other.properties: |
    a=b
"""
FILTER = """\
kind: KafkaProtocolFilter
apiVersion: kroxylicious.io/v1alpha1
metadata:
  name: authorization
  namespace: my-proxy
spec:
  type: Authorization
  configTemplate:
    authorizer: AclAuthorizerService
    authorizerConfig:
      aclFile: ${configmap:acl-rules:%s}
"""
PROXY = """\
filterDefinitions:
  - name: authz
    type: Authorization
    config:
      authorizer: AclAuthorizerService
      authorizerConfig:
        aclFile: %s
"""


def codes(result):
    return [(f.code, f.line, f.col) for f in result.findings]


def test_rules_in_a_configmap_are_placed_at_the_yaml_s_line_and_column(tmp_path):
    f = tmp_path / "cm.yaml"
    f.write_text(CONFIGMAP)
    [result] = service.lint_paths([f], None).results
    # The proxy reads the mounted key: line 2, column 31 (0-based); in the YAML: line 10, 4 more columns.
    assert codes(result) == [("AZ001", 10, 35)]
    assert result.findings[0].message.endswith("(ConfigMap acl-rules, key acl-rules.txt: 2:31 as the proxy reports it)")
    assert result.path == str(f)


def test_a_flow_scalar_is_placed_at_its_start_with_the_proxy_s_position_in_the_message(tmp_path):
    f = tmp_path / "cm.yaml"
    f.write_text('kind: ConfigMap\nmetadata: {name: r}\ndata:\n  rules: "otherwise deny;\\nallow x"\n')
    [result] = service.lint_paths([f], None).results
    assert [(f.code, f.line, f.col) for f in result.findings] == [("AZ101", 4, 9)]
    assert "2:0 as the proxy reports it" in result.findings[0].message


def test_a_kafkaprotocolfilter_leads_to_the_configmap_key_it_names(tmp_path):
    (tmp_path / "02.cm.yaml").write_text(CONFIGMAP.replace("acl-rules.txt: |", "acl-rules: |"))
    (tmp_path / "03.filter.yaml").write_text(FILTER % "acl-rules")
    run = service.lint_paths([tmp_path], None)
    assert [codes(r) for r in run.results] == [[("AZ001", 10, 35)], []]
    assert run.followed == [f"{tmp_path / '03.filter.yaml'}:11:15: KafkaProtocolFilter authorization -> "
                            f"ConfigMap acl-rules, key acl-rules ({tmp_path / '02.cm.yaml'})"]


def test_a_key_the_configmap_lacks_is_an_error_and_a_missing_configmap_a_warning(tmp_path):
    (tmp_path / "cm.yaml").write_text(CONFIGMAP)
    (tmp_path / "filter.yaml").write_text(FILTER % "acl-rules")  # the ConfigMap's key is acl-rules.txt
    [_, filt] = service.lint_paths([tmp_path], None).results
    [(code, line, col)] = codes(filt)
    assert (code, line, col) == ("AZ004", 11, 15) and "has no key 'acl-rules'" in filt.findings[0].message
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "filter.yaml").write_text(FILTER % "x")
    [result] = service.lint_paths([alone], None).results
    assert codes(result) == [("AZ112", 11, 15)]


def test_a_placeholder_with_text_around_it_is_refused_as_the_operator_does(tmp_path):
    f = tmp_path / "filter.yaml"
    f.write_text((FILTER % "k").replace("${configmap", "/x/${configmap"))
    [result] = service.lint_paths([f], None).results
    assert codes(result) == [("AZ004", 11, 15)] and "SecureConfigInterpolator" in result.findings[0].message


def test_a_proxy_configuration_s_relative_aclfile_is_opened_from_the_working_directory(tmp_path, monkeypatch):
    conf = tmp_path / "conf"
    conf.mkdir()
    (conf / "proxy.yaml").write_text(PROXY % "acl-rules.txt")
    (conf / "acl-rules.txt").write_text(BROKEN)
    monkeypatch.chdir(tmp_path)  # the proxy, started here, would not find conf/acl-rules.txt
    run = service.lint_paths([conf / "proxy.yaml"], None)
    assert [r.path for r in run.results] == [str(conf / "acl-rules.txt"), str(conf / "proxy.yaml")]
    assert codes(run.results[0]) == [("AZ001", 1, 31)]
    [relative] = run.results[1].findings
    assert relative.code == "AZ113" and f"linted {conf / 'acl-rules.txt'}" in relative.message
    (tmp_path / "acl-rules.txt").write_text("otherwise deny;\n")  # now the working directory's wins
    run = service.lint_paths([conf / "proxy.yaml"], None)
    assert [r.path for r in run.results] == [str(tmp_path / "acl-rules.txt"), str(conf / "proxy.yaml")]


def test_an_absolute_aclfile_missing_here_is_a_warning_and_inline_rules_an_error(tmp_path):
    f = tmp_path / "proxy.yaml"
    f.write_text(PROXY % "/nonexistent/acl-rules.txt")
    [result] = service.lint_paths([f], None).results
    assert codes(result) == [("AZ112", 7, 17)]
    f.write_text((PROXY % "/nonexistent/r.txt").replace("        aclFile:", "        rules: |\n          "
                                                            + BROKEN.replace("\n", "\n          ") + "\n        aclFile:"))
    [result] = service.lint_paths([f], None).results
    assert ("AZ004", 7, 8) in codes(result)  # AclAuthorizerConfig has only aclFile: the proxy refuses it
    assert ("AZ001", 8, 41) in codes(result)  # and the inline rules are linted all the same


def test_a_directory_of_yaml_without_rules_is_an_input_error_and_broken_yaml_given_by_name_too(tmp_path):
    (tmp_path / "ns.yaml").write_text("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: x\n")
    with pytest.raises(InputError, match="no Kroxylicious rules file"):
        service.lint_paths([tmp_path], None)
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: ConfigMap\ndata: [\n")
    with pytest.raises(InputError) as exc:
        service.lint_paths([bad], None)
    assert "not valid YAML" in str(exc.value)


def test_another_authorizer_or_filter_is_not_the_rules_language():
    found = read_kroxylicious_yaml(PROXY.replace("AclAuthorizerService", "OpaAuthorizerService") % "x")
    assert not found and not read_kroxylicious_yaml("filterDefinitions:\n- name: a\n  type: RecordEncryption\n")


def test_lint_cli_verbose_lists_skipped_files_and_followed_references(tmp_path):
    (tmp_path / "acl-rules.txt").write_text("otherwise deny;\n")
    (tmp_path / "notes.md").write_text("# notes\n")
    res = CliRunner().invoke(app, ["lint", str(tmp_path), "--verbose"])
    assert res.exit_code == 0
    assert f"skipped {tmp_path / 'notes.md'}: its first statement is no rules statement" in res.stderr
    assert "1 file(s): 0 error(s), 0 warning(s), 0 info; 1 file(s) skipped" in res.stdout


def test_a_secret_s_base64_data_is_decoded_as_the_kubelet_mounts_it(tmp_path):
    import base64

    encoded = base64.b64encode(BROKEN.encode()).decode()
    (tmp_path / "secret.yaml").write_text(f"kind: Secret\nmetadata:\n  name: acl\ndata:\n  rules: {encoded}\n")
    (tmp_path / "filter.yaml").write_text((FILTER % "rules").replace("configmap:acl-rules", "secret:acl")
                                          .replace("  namespace: my-proxy\n", ""))
    run = service.lint_paths([tmp_path], None)
    [filt, secret] = run.results
    assert codes(secret) == [("AZ001", 5, 9)] and "(base64): 1:31 as the proxy reports it" in secret.findings[0].message
    assert codes(filt) == [] and "-> Secret acl, key rules" in run.followed[0]


statement = st.sampled_from([
    "from io.kroxylicious.filter.authorization import TopicResource as Topic;",
    'allow User with name = "alice" to READ Topic with name like "pay*";',
    'allow User with name = "bob" READ Topic with name *;',  # missing 'to'
    'deny User with name in {"a", "b"} to * Topic with name matching /x+/;',
    "otherwise deny;", "// a comment", "", "allow ALLOW;", 'allow User with name = "caf\u00e9" to @ Topic;'])


@settings(max_examples=40)
@given(st.lists(statement, min_size=1, max_size=8).filter(lambda ls: ls[-1] != ""), st.integers(3, 10))
def test_every_finding_in_a_configmap_points_at_the_same_text_as_the_proxy_s_position(lines, indent):
    rules = "\n".join(lines) + "\n"  # under `  k: |` (content indented past the key; `|` clips to one \n)
    pad = " " * indent
    text = "kind: ConfigMap\nmetadata:\n  name: r\ndata:\n  k: |\n" + "".join(
        (pad + line if line else "") + "\n" for line in rules.splitlines())
    found = read_kroxylicious_yaml(text)
    [embedded] = found.maps[("ConfigMap", None, "r")].values()
    assert embedded.text == rules
    yaml_lines, rules_lines = text.splitlines(), rules.splitlines()
    for f in lint_text(rules, "k").findings:
        line, col = embedded.place(f.line, f.col)
        if f.line <= len(rules_lines):
            assert yaml_lines[line - 1][col:] == rules_lines[f.line - 1][f.col:]


OPERATOR_OUTPUT = """\
apiVersion: "v1"
kind: "ConfigMap"
metadata:
  name: "example-proxy-config"
  namespace: "my-proxy"
data:
  proxy-config.yaml: |-
    ---
    filterDefinitions:
    - name: "authorization.KafkaProtocolFilter.kroxylicious.io"
      type: "Authorization"
      config:
        authorizer: "AclAuthorizerService"
        authorizerConfig:
          aclFile: "/opt/kroxylicious/secure/configmap/acl-rules/%s"
"""


def test_a_proxy_configuration_inside_a_configmap_follows_the_operator_s_mount_path(tmp_path):
    # The operator's own output: the proxy configuration as a ConfigMap key, aclFile the mount path of
    # ${configmap:acl-rules:KEY}. Given the rules ConfigMap too, the path leads back to it.
    (tmp_path / "proxy-config.yaml").write_text(OPERATOR_OUTPUT % "acl-rules.txt")
    (tmp_path / "rules.yaml").write_text(CONFIGMAP)
    run = service.lint_paths([tmp_path], None)
    assert [codes(r) for r in run.results] == [[], [("AZ001", 10, 35)]]
    assert "-> ConfigMap acl-rules, key acl-rules.txt" in run.followed[0]
    assert run.followed[0].startswith(f"{tmp_path / 'proxy-config.yaml'}:15:19: filter authorization.")
    (tmp_path / "proxy-config.yaml").write_text(OPERATOR_OUTPUT % "missing")
    [conf, _] = service.lint_paths([tmp_path], None).results
    assert codes(conf) == [("AZ004", 15, 19)] and "has no key 'missing'" in conf.findings[0].message
