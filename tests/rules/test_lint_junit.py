"""`authz lint -f junit` fails exactly what the exit code fails under --fail-level."""

from pathlib import Path
from types import SimpleNamespace
from xml.etree import ElementTree

from typer.testing import CliRunner

from kafka_authz_cli.cli.app import app
from kafka_authz_cli.rules.report import to_junit

WARNING_ONLY = Path(__file__).parents[1] / "conformance" / "kroxylicious" / "valid" / "hand-rules-after-otherwise-ignored.acl"
runner = CliRunner()


def _junit(*args):
    res = runner.invoke(app, ["lint", str(WARNING_ONLY), "--format", "junit", *args])
    return res.exit_code, ElementTree.fromstring(res.stdout)


def test_junit_failures_follow_the_fail_level():
    code, suite = _junit()  # default --fail-level error: a warning is not a failure
    assert code == 0 and suite.get("failures") == "0" and suite.find(".//failure") is None
    assert "warning" in suite.find(".//system-out").text
    code, suite = _junit("--fail-level", "warning")
    assert code == 1 and suite.get("failures") == "1"
    failure = suite.find(".//failure")
    assert failure is not None and failure.get("type").startswith("AZ") and "warning" in failure.text
    code, suite = _junit("--fail-level", "info")
    assert code == 1 and suite.get("failures") == "1"


def test_junit_is_well_formed_with_control_characters_in_messages():
    finding = SimpleNamespace(severity="error", code="AZ001", message="bad \x01 byte \x1b[31m", line=1, col=0,
                              name="syntax-error")
    xml = to_junit([SimpleNamespace(path="r\x02.acl", findings=[finding])], {})
    suite = ElementTree.fromstring(xml)
    assert "\\x01" in suite.find(".//failure").get("message")
