"""What a connector file is, by content: the real shapes read as Connect reads them, the rest refused."""

import json
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.connect import read_connectors
from kafka_authz_cli.connect.overrides import infer_type
from kafka_authz_cli.connect.shapes import CREATE, PROPERTIES, PUT, STRIMZI_FORBIDDEN, looks_like_yaml
from kafka_authz_cli.errors import InputError

SINK = "org.apache.kafka.connect.file.FileStreamSinkConnector"


def read(text, name=None):
    return read_connectors(text, "f", name)


def refused(text, name=None) -> str:
    with pytest.raises(InputError) as info:
        read(text, name)
    return str(info.value)


def test_a_bom_before_json_is_skipped_as_jackson_skips_it():
    body = json.dumps({"name": "orders", "config": {"connector.class": SINK, "topics": "t"}})
    [c] = read("\ufeff" + body)
    assert (c.name, c.shape, c.config["name"]) == ("orders", CREATE, "orders")


def test_put_body_takes_its_name_from_the_url():
    body = json.dumps({"connector.class": SINK, "topics": "t"})
    assert "PUT /connectors/<name>/config" in refused(body) and "--name" in refused(body)
    [c] = read(body, "orders")
    assert (c.name, c.shape, c.config["name"]) == ("orders", PUT, "orders")
    same = json.dumps({"connector.class": SINK, "name": "orders"})
    assert read(same, "orders")[0].name == "orders"
    assert read(same)[0].name == "orders"  # connect-standalone's flat JSON names itself
    # ConnectorsResource.checkAndPutConnectorConfigName: the URL's name and the body's must agree.
    assert "Connector name configuration (orders) doesn't match connector name in the URL (other)" in refused(
        same, "other")


def test_create_body_name_is_trimmed_and_must_match_the_configs():
    [c] = read(json.dumps({"name": " orders ", "config": {"connector.class": SINK, "name": "orders"}}))
    assert c.name == "orders"
    message = refused(json.dumps({"name": "a", "config": {"connector.class": SINK, "name": "b"}}))
    assert "Connector name configuration (b) doesn't match connector name in the URL (a)" in message
    assert "--name 'x': the file names the connector 'a'" in refused(
        json.dumps({"name": "a", "config": {"connector.class": SINK}}), "x")


def test_json_values_bind_as_jackson_binds_them_and_null_is_refused():
    # Jackson binds a number to a String by its text (checked with jackson-databind 2.16: 1.50 stays 1.50).
    [c] = read('{"name": "n", "config": {"connector.class": "S", "tasks.max": 2, "x": false, "y": 1.50, "z": 1E3}}')
    assert (c.config["tasks.max"], c.config["x"], c.config["y"], c.config["z"]) == ("2", "false", "1.50", "1E3")
    assert "Null value can not be supplied" in refused(json.dumps({"name": "n", "config": {"connector.class": None}}))
    assert "is a JSON array" in refused(json.dumps({"name": "n", "config": {"connector.class": SINK, "x": [1]}}))


KAFKA_CONNECTOR = """\
apiVersion: kafka.strimzi.io/v1beta2
kind: KafkaConnector
metadata:
  name: my-sink
spec:
  class: FileStreamSink
  tasksMax: 3
  config:
    file: "/tmp/out"
    topics: 'a, b'
    tasks.max: 9
    Name: ignored
    batch: 100
    enabled: true
    since: 2024-01-31
    ratio: 1.50
    huge: 1.0e+20
"""


def test_kafka_connector_yaml_is_what_strimzi_puts_to_connect():
    [c] = read(KAFKA_CONNECTOR)
    assert c.name == "my-sink" and c.shape.startswith("a Strimzi KafkaConnector resource")
    assert c.config == {"file": "/tmp/out", "topics": "a, b", "batch": "100", "enabled": "true", "since": "2024-01-31",
                        "ratio": "1.5", "huge": "1.0E20", "tasks.max": "3",
                        "connector.class": "FileStreamSink", "name": "my-sink"}
    assert any("'tasks.max'" in n for n in c.notes) and any("'Name'" in n for n in c.notes)
    assert infer_type(c.config)[0] == "sink"
    assert "A null value is not allowed" in refused(KAFKA_CONNECTOR.replace("batch: 100", "batch: null"))
    assert "has no 'connector.class'" in refused(KAFKA_CONNECTOR.replace("  class: FileStreamSink\n", ""))


def test_a_json_kafka_connector_gets_strimzis_doubles():
    doc = {"apiVersion": "kafka.strimzi.io/v1", "kind": "KafkaConnector", "metadata": {"name": "k"},
           "spec": {"class": SINK, "tasksMax": 1, "config": {"r": 1.50}}}
    [c] = read(json.dumps(doc).replace("1.5", "1.50"))
    assert c.config["r"] == "1.5"  # Strimzi's Double, String.valueOf


def test_a_yaml_stream_holds_several_connectors_and_name_picks_one():
    other = KAFKA_CONNECTOR.replace("name: my-sink", "name: second")
    connect = "apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaConnect\nmetadata:\n  name: cluster\n"
    stream = "---\n".join([KAFKA_CONNECTOR, connect, other])
    found = read(stream)
    assert [c.name for c in found] == ["my-sink", "second"]
    assert any("skipped a Strimzi KafkaConnect resource 'cluster'" in n for n in found[0].notes)
    assert [c.name for c in read(stream, "second")] == ["second"]
    assert "no connector named 'third' here (it holds 'my-sink', 'second')" in refused(stream, "third")
    as_list = json.dumps({"apiVersion": "v1", "kind": "List", "items": [yaml.safe_load(KAFKA_CONNECTOR)]}, default=str)
    assert [c.name for c in read(as_list)] == ["my-sink"]


def test_rest_listings():
    info = {"name": "s", "config": {"connector.class": "com.example.Weird", "topics": "t"}, "tasks": [],
            "type": "source"}
    found = read(json.dumps({"s": {"info": info, "status": {}}}))
    assert [(c.name, c.declared_type) for c in found] == [("s", "source")]
    assert infer_type(found[0].config, found[0].declared_type)[0] == "source"  # Connect's own word wins
    assert "list of connector names (GET /connectors)" in refused('["a", "b"]')
    assert "GET /connectors?expand=status" in refused(json.dumps({"s": {"status": {}}}))
    bodies = [{"name": n, "config": {"connector.class": SINK}} for n in ("a", "b")]
    assert [c.name for c in read(json.dumps(bodies))] == ["a", "b"]


@pytest.mark.parametrize("text,what", [
    ("broker.id=0\nlog.dirs=/tmp\nzookeeper.connect=z:2181\n", "a Kafka broker configuration (server.properties)"),
    ("group.id=g\nconfig.storage.topic=c\nbootstrap.servers=b:9092\n", "distributed worker configuration"),
    ("apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaUser\nmetadata:\n  name: u\n", "a Strimzi KafkaUser resource 'u'"),
    ("", "an empty file"),
    ("# only a comment\n", "an empty file"),
    ("a=1\nb=2\n", "settings with neither 'name' nor 'connector.class' (keys: a, b)"),
    ('name: "x"\nconnector.class: "y"\n', "a flat YAML map of settings"),
    ("services:\n  web:\n    image: x\n", "YAML that is no Kubernetes resource"),
    ("name=orphan\n", "has no 'connector.class'"),
    ('{"a": {"b": 1}}', "a JSON object that is no connector configuration"),
    ("kind: x\nspec: " + "[" * 5000 + "]" * 5000 + "\n", "YAML nested too deeply"),
    ("[1, 2]", "element 0 is a JSON number"),
])
def test_files_that_are_no_connector_are_refused_saying_what_they_are(text, what):
    assert what in refused(text)


def test_names_connect_refuses():
    assert "String may not be empty" in refused(json.dumps({"name": "  ", "connector.class": "b"}))
    assert "without a connector name" in refused("name=  \nconnector.class=b\n")
    assert "control sequences" in refused(json.dumps({"name": "a\u0007b", "config": {"connector.class": "b"}}))


def test_a_bom_before_properties_is_part_of_the_first_key_as_in_java():
    assert "byte-order mark" in refused("\ufeffname=a\nconnector.class=b\n")


def test_yaml_and_properties_are_told_apart():
    assert looks_like_yaml(KAFKA_CONNECTOR)
    assert not looks_like_yaml("name=a\nconnector.class=b\nfile: \"x\"\n")  # properties: '=' is used
    assert not looks_like_yaml("name: a\nconnector.class: b\n")  # the same either way: read as properties
    [c] = read("name: a\nconnector.class: b\n")
    assert (c.shape, c.config) == (PROPERTIES, {"name": "a", "connector.class": "b"})


@pytest.mark.parametrize("cls,topics,expected", [
    ("FileStreamSink", None, "sink"), ("FileStreamSource", "t", "source"),
    ("io.debezium.connector.postgresql.PostgresConnector", None, "source"),
    ("io.debezium.connector.jdbc.JdbcSinkConnector", None, "sink"),
    ("org.apache.kafka.connect.mirror.MirrorCheckpointConnector", None, "source"),
    ("MirrorHeartbeat", None, "source"),
    ("com.example.Unknown", "t", "sink"), ("com.example.Unknown", None, "source"),
])
def test_source_or_sink(cls, topics, expected):
    config = {"connector.class": cls} | ({"topics.regex": topics} if topics else {})
    assert infer_type(config)[0] == expected


def test_an_invalid_security_protocol_override_fails_the_task(tmp_path):
    path = tmp_path / "c.properties"
    path.write_text("name=c\nconnector.class=FileStreamSink\ntopics=t\nconsumer.override.security.protocol=SASL\n")
    res = CliRunner().invoke(app, ["connect", "check-overrides", str(path), "-f", "json"])
    assert res.exit_code == 1
    [consumer] = json.loads(res.stdout)["clients"]
    assert consumer["start_error"].startswith("Invalid value SASL for configuration security.protocol")


def test_the_cli_refuses_a_kafka_user_with_exit_2(tmp_path):
    path = tmp_path / "user.yaml"
    path.write_text("apiVersion: kafka.strimzi.io/v1beta2\nkind: KafkaUser\nmetadata:\n  name: alice\n")
    res = CliRunner().invoke(app, ["connect", "check-overrides", str(path)])
    assert res.exit_code == 2 and "a Strimzi KafkaUser resource 'alice'" in res.output
    assert "Traceback" not in res.output


# -- properties: one configuration, written in every shape, reads back the same ------------------------------

_KEY = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=12)
_VALUE = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=20)


def _escape_properties(s: str, key: bool) -> str:
    out = []
    for i, ch in enumerate(s):
        if ch == "\\":
            out.append("\\\\")
        elif ch in "=:#!" or (ch == " " and (key or i == 0)) or (key and i == 0 and ch in "{["):
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def _shapes(name: str, config: dict[str, str]) -> dict[str, tuple[str, str | None]]:
    full = {**config, "name": name}
    spec_config = {k: v for k, v in config.items() if k.lower() not in STRIMZI_FORBIDDEN}
    resource = {"apiVersion": "kafka.strimzi.io/v1beta2", "kind": "KafkaConnector", "metadata": {"name": name},
                "spec": {"class": config["connector.class"], "config": spec_config}}
    props = "".join(f"{_escape_properties(k, True)}={_escape_properties(v, False)}\n" for k, v in full.items())
    return {
        "create": (json.dumps({"name": name, "config": config}), None),
        "create+bom": ("\ufeff" + json.dumps({"name": name, "config": config}, indent=2), None),
        "put": (json.dumps(config), name),
        "yaml": (yaml.safe_dump(resource, allow_unicode=True), None),
        "json-resource": (json.dumps(resource), None),
        "properties": (props, None),
    }


@given(name=_KEY, cls=_KEY, extra=st.dictionaries(_KEY, _VALUE, max_size=6))
def test_every_shape_of_one_connector_reads_back_the_same(name, cls, extra):
    config = {k: v for k, v in extra.items() if k.lower() not in STRIMZI_FORBIDDEN} | {"connector.class": cls}
    for shape, (text, url_name) in _shapes(name, config).items():
        [c] = read_connectors(text, shape, url_name)
        assert (shape, c.name) == (shape, name)
        assert (shape, c.config) == (shape, {**config, "name": name})


@given(st.one_of(
    st.text(max_size=200),
    st.lists(st.sampled_from(["name=x\n", "connector.class=y\n", "kind: KafkaConnector\n", "apiVersion: v\n",
                              "metadata:\n", "  name: m\n", "spec:\n", "  class: C\n", "---\n", "{", "}", "[", "\"",
                              ": ", "\ufeff", "config:\n", "  k: null\n", "  k: [1]\n", "- a\n"]),
             max_size=12).map("".join),
))
def test_any_text_is_read_or_refused_never_a_crash(text):
    try:
        found = read_connectors(text, "f")
    except InputError:
        return
    for c in found:
        assert c.name and c.config["name"] == c.name and c.config.get("connector.class") is not None


def test_real_corpus_shapes_are_recognised():
    corpus = Path(__file__).parents[1] / "realworld" / "connect"
    [c] = read_connectors((corpus / "strimzi-docs-sink-connector.yaml").read_text(), "f")
    assert c.config["file"] == "/tmp/my-file" and infer_type(c.config)[0] == "sink"


@pytest.mark.parametrize("x,java", [  # Double.toString, printed by OpenJDK 17
    (1.5, "1.5"), (1e20, "1.0E20"), (1.5e-5, "1.5E-5"), (12345678.0, "1.2345678E7"), (1234567.0, "1234567.0"),
    (0.001, "0.001"), (0.0001, "1.0E-4"), (100.0, "100.0"), (-2.25, "-2.25"), (0.0, "0.0"), (-0.0, "-0.0"),
    (1e7, "1.0E7"), (9999999.999, "9999999.999"), (0.1 + 0.2, "0.30000000000000004"), (2e-3, "0.002"),
    (1.7976931348623157e308, "1.7976931348623157E308"), (123456.789e3, "1.23456789E8"),
])
def test_java_double_string(x, java):
    from kafka_authz_cli._java import java_double_string

    assert java_double_string(x) == java
