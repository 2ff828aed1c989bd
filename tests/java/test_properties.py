""".properties read as Kafka reads them (Utils.loadProps: Properties.load(InputStream), ISO-8859-1),
checked against the real java.util.Properties, and the warnings where the result is surely not meant."""

from __future__ import annotations

import base64
import logging
import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_authz_cli._java import parse_properties
from kafka_authz_cli.errors import InputError

HERE = Path(__file__).parent
ALPHABET = ["a", "b", "k.x", "=", ":", " ", "\t", "\f", "\\", "\\u0041", "\\u00", "#", "!", "\n", "\r", "\r\n",
            "\ufeff", "é", "\u2028", "\x0b", "\x85", "\\n", "\\t", "\\ ", "  "]
texts = st.lists(st.sampled_from(ALPHABET), max_size=25).map("".join)


def _java_load(inputs: list[str]) -> list[object]:
    """What the JVM's Properties.load makes of each input (one JVM for all)."""
    lines = "\n".join(base64.b64encode(t.encode("utf-8")).decode() for t in inputs) + "\n"
    out = subprocess.run(["java", str(HERE / "LoadProps.java")], input=lines, capture_output=True, text=True,
                         check=True, timeout=120).stdout.splitlines()
    results, i = [], 0
    while i < len(out):
        if out[i].startswith("error"):
            results.append("error")
            i += 1
            continue
        i += 1
        props = {}
        while out[i] != "end":
            k, _, v = out[i].partition("\t")
            props[base64.b64decode(k).decode()] = base64.b64decode(v).decode()
            i += 1
        results.append(props)
        i += 1
    return results


def _ours(text: str) -> object:
    try:
        got = parse_properties(text, "p")
    except InputError:
        return "error"
    fix = lambda s: s.encode("utf-8", "replace").decode("utf-8")  # noqa: E731 - lone surrogates as Java's getBytes
    return {fix(k): fix(v) for k, v in got.items()}


@pytest.mark.skipif(shutil.which("java") is None, reason="needs Java 17+")
def test_agrees_with_java_util_properties():
    collected: list[str] = []

    @settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
    @given(texts)
    def collect(text):
        collected.append(text)

    collect()
    fixed = ["\ufeffsuper.users=User:admin\n", "a=b\\\n   c\n", "a=b\\\\\nc=d", "# x \\\nk=v", "k=\\u12", "k=\\u12G4",
             "a\\\r\n b\r\nc:d\re f", "key\fvalue", "x=\u2028y\x85z\x0bw", "k=v\\", "\r\\\r\r", "\\\n#x=1", "\\\n\n#y=2"]
    inputs = fixed + collected
    want = _java_load(inputs)
    mismatches = [(t, w, _ours(t)) for t, w in zip(inputs, want) if w != _ours(t)]
    assert not mismatches, "\n".join(repr(m) for m in mismatches[:5])


def _warnings(caplog, text: str) -> list[str]:
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="kafka_authz_cli._java.properties"):
        parse_properties(text, "server.properties")
    return [r.getMessage() for r in caplog.records]


def test_a_bom_renames_the_first_key_as_on_the_broker_and_says_so(caplog):
    text = "\ufeffsuper.users=User:admin\nbroker.id=1\n"
    assert "super.users" not in parse_properties(text, "s")
    (warning,) = _warnings(caplog, text)
    assert warning.startswith("server.properties:1: the file starts with a UTF-8 byte-order mark")
    assert "the broker sees 'ï»¿super.users', not 'super.users', so 'super.users' is NOT set" in warning


def test_non_ascii_is_read_as_iso_8859_1_with_one_warning(caplog):
    text = "super.users=User:CN=José\nsasl.x=ü\nb=é\nc=ö\n"
    assert parse_properties(text, "s")["super.users"] == "User:CN=JosÃ©"
    (warning,) = _warnings(caplog, text)
    assert "4 line(s) with non-ASCII text" in warning and "server.properties:1, server.properties:2, " \
           "server.properties:3 and 1 more" in warning


def test_escaped_non_ascii_is_what_the_user_meant(caplog):
    assert parse_properties("super.users=User:CN=Jos\\u00e9\n", "s")["super.users"] == "User:CN=José"
    assert _warnings(caplog, "super.users=User:CN=Jos\\u00e9\n") == []


def test_a_wrapped_jaas_value_and_a_pasted_pem_are_warned_once(caplog):
    text = ("listener.name.sasl_ssl.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule "
            "required\n    username=\"admin\"\n    password=\"admin-secret\";\n\n"
            "ssl.truststore.certificates=-----BEGIN CERTIFICATE-----\nMIIDXTCCAkWgAwIBAgIJAJC1HiIAZAiIMA0G\n"
            "-----END CERTIFICATE-----\nbroker.id=0\n")
    props = parse_properties(text, "s")
    assert props["username"] == '"admin"' and "MIIDXTCCAkWgAwIBAgIJAJC1HiIAZAiIMA0G" in props
    (warning,) = _warnings(caplog, text)
    assert warning.startswith("server.properties: 4 line(s) after a value became keys of their own")
    assert "line 2 'username', line 3 'password', line 6 'MIIDXTCCAkWgAwIBAgIJAJC1HiIAZAiIMA0G' and 1 more" in warning


def test_continued_values_and_ordinary_files_are_not_warned(caplog):
    text = ("# comment\nsasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required \\\n"
            "    username=\"admin\" \\\n    password=\"x\";\nlisteners=PLAINTEXT://:9092\nlog.dirs=/tmp/k\n"
            "empty=\nnext.key=1\n")
    assert parse_properties(text, "s")["sasl.jaas.config"].endswith('username="admin" password="x";')
    assert _warnings(caplog, text) == []


@pytest.mark.parametrize("text", ["k=\\u12", "k=\\uZZZZ", "k=\\u+123"])
def test_malformed_unicode_escapes_are_refused_as_java_does(text):
    with pytest.raises(InputError, match="malformed \\\\uxxxx encoding"):
        parse_properties(text, "s")


def test_only_cr_lf_and_crlf_end_lines():
    assert parse_properties("a=1\u2028b=2\x0bc\x85d\fe\rf=3\r\ng=4", "s") == {
        "a": "1\u2028b=2\x0bc\x85d\fe".encode().decode("latin-1"), "f": "3", "g": "4"}


def test_template_markup_is_named_as_such(caplog):
    text = "broker.id={{ broker_id }}\n{% if sasl %}\nsasl.enabled.mechanisms=PLAIN\n{% endif %}\n"
    (warning,) = _warnings(caplog, text)
    assert warning == ("server.properties: 2 line(s) of template markup ({% ... %}, {{ ... }}), which "
                       "java.util.Properties reads as keys: render the template first (line 2, line 4)")
