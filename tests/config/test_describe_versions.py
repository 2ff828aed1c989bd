"""`kafka-configs --describe --entity-type brokers` output of every form ConfigCommand has printed
(kafka.admin.ConfigCommand at 1.1.0, 2.0.0, 2.4.0, 2.5.0, 3.8.0; --zookeeper and --bootstrap-server)."""

from __future__ import annotations

import pytest

from kafka_authz_cli.config.broker_files import read_dynamic
from kafka_authz_cli.errors import InputError

ENTRY = "  log.cleaner.threads=2 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.cleaner.threads=2}\n"
DEFAULT_ENTRY = ("  max.connections=100 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:"
                 "max.connections=100}\n")

FORMS = {
    # 2.5+ (describeResourceConfig)
    "2.5+": f"Dynamic configs for broker 0 are:\n{ENTRY}Default configs for brokers in the cluster are:\n"
            f"{DEFAULT_ENTRY}",
    # 1.1-2.4 (describeBrokerConfig)
    "1.1-2.4": f"Configs for broker 0 are:\n{ENTRY}Default config for brokers in the cluster are:\n{DEFAULT_ENTRY}",
    # --zookeeper (describeConfig / describeConfigWithZk: "Configs for %s are %s", Entity.toString)
    "zookeeper": "Warning: --zookeeper is deprecated and will be removed in a future version of Kafka.\n"
                 "Use --bootstrap-server instead to specify a broker to connect to.\n"
                 "Configs for brokers '0' are log.cleaner.threads=2\nConfigs for default brokers are max.connections=100\n",
}


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("bom,newline", [("", "\n"), ("\ufeff", "\r\n")])
def test_every_describe_form_is_read(tmp_path, form, bom, newline):
    f = tmp_path / "describe.txt"
    f.write_bytes((bom + FORMS[form]).replace("\n", newline).encode("utf-8"))
    default, mine, ids = read_dynamic(f, "0")
    assert {k: v.value for k, v in mine.items()} == {"log.cleaner.threads": "2"}
    assert {k: v.value for k, v in default.items()} == {"max.connections": "100"}
    assert ids == ["0"]


def test_zookeeper_values_with_commas_stay_whole(tmp_path):
    f = tmp_path / "zk.txt"
    f.write_text("Configs for brokers '1' are listener.security.protocol.map=A:SSL,B:SASL_SSL,"
                 "ssl.cipher.suites=X,Y,log.cleaner.threads=3\nConfigs for brokers '2' are \n")
    _, mine, ids = read_dynamic(f, "1")
    assert {k: v.value for k, v in mine.items()} == {"listener.security.protocol.map": "A:SSL,B:SASL_SSL",
                                                      "ssl.cipher.suites": "X,Y", "log.cleaner.threads": "3"}
    assert ids == ["1", "2"]


def test_all_output_gives_the_dynamic_layers_of_each_entry(tmp_path):
    f = tmp_path / "all.txt"
    f.write_text("All configs for broker 0 are:\n"
                 "  advertised.listeners=null sensitive=false synonyms={}\n"
                 "  log.cleaner.threads=2 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.cleaner.threads=2, "
                 "DYNAMIC_DEFAULT_BROKER_CONFIG:log.cleaner.threads=3, DEFAULT_CONFIG:log.cleaner.threads=1}\n"
                 "  log.retention.ms=100 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=100, "
                 "STATIC_BROKER_CONFIG:log.retention.hours=168, DEFAULT_CONFIG:log.retention.hours=168}\n"
                 "  ssl.key.password=null sensitive=true synonyms={DYNAMIC_BROKER_CONFIG:ssl.key.password=null}\n"
                 "  num.io.threads=8 sensitive=false synonyms={STATIC_BROKER_CONFIG:num.io.threads=8, "
                 "DEFAULT_CONFIG:num.io.threads=8}\n")
    default, mine, ids = read_dynamic(f, "0")
    assert {k: v.value for k, v in mine.items()} == {"log.cleaner.threads": "2",
                                                      "ssl.key.password": "[hidden by kafka-configs]"}
    assert {k: v.value for k, v in default.items()} == {"log.cleaner.threads": "3", "log.retention.ms": "100"}


def test_a_server_properties_given_as_dynamic_configs_says_what_it_is(tmp_path):
    f = tmp_path / "server.properties"
    f.write_text("broker.id=0\nlisteners=PLAINTEXT://:9092\nlog.dirs=/tmp/kafka-logs\n")
    with pytest.raises(InputError, match=r"this looks like a Kafka broker configuration \(server.properties\), "
                                         "expected dynamic broker configs"):
        read_dynamic(f, "0")


def test_topic_configs_are_refused_saying_so(tmp_path):
    f = tmp_path / "topic.txt"
    f.write_text("Dynamic configs for topic orders are:\n  retention.ms=1000 sensitive=false "
                 "synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=1000}\n")
    with pytest.raises(InputError, match=r"topic.txt:1: these are the configs of a topic, not of brokers"):
        read_dynamic(f, "0")
