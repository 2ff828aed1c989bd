"""`authz config encode-password` / `decode-password` as a user runs them: secrets never on argv or
stdout unless asked, Kafka's errors for a wrong secret."""

import json
import os
import stat

from kafka_authz_cli.config.password_encoder import decode
from tests.cli_runner import run


def test_encode_from_stdin_decodes_with_kafkas_algorithm():
    res = run("config", "encode-password", "--secret-stdin", "--password-stdin", input="s3cret\nks-pass\n")
    assert res.exit_code == 0, res.output
    encoded = res.stdout.strip()
    assert "ks-pass" not in res.stdout and "s3cret" not in res.stdout
    assert decode("s3cret", encoded) == "ks-pass"


def test_settings_from_broker_config_and_flags(tmp_path):
    props = tmp_path / "server.properties"
    props.write_text("password.encoder.secret=from-props\npassword.encoder.cipher.algorithm=AES/GCM/NoPadding\n"
                     "password.encoder.iterations=2048\n")
    res = run("config", "encode-password", "--broker-config", props, "--password-stdin", "--key-length", "256",
              "-f", "json", input="pw\n")
    assert res.exit_code == 0, res.output
    fields = json.loads(res.stdout)["fields"]
    assert (fields["cipherAlgorithm"], fields["iterations"], fields["keyLength"], fields["authenticationTagLength"]) \
        == ("AES/GCM/NoPadding", "2048", "256", "128")
    bad = tmp_path / "bad.properties"
    bad.write_text("password.encoder.iterations=lots\n")
    res = run("config", "encode-password", "--broker-config", bad, "--secret-stdin", "--password-stdin", input="a\nb\n")
    assert res.exit_code == 2 and f"{bad}:1: password.encoder.iterations: not an int" in res.output


def test_output_file_is_private(tmp_path):
    out = tmp_path / "enc.txt"
    res = run("config", "encode-password", "--secret-stdin", "--password-stdin", "-o", out, input="a\nb\n")
    assert res.exit_code == 0
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600


def test_decode_keeps_the_password_hidden_unless_asked():
    encoded = run("config", "encode-password", "--secret-stdin", "--password-stdin", input="s\nhidden-pw\n").stdout.strip()
    res = run("config", "decode-password", encoded, "--secret-stdin", input="s\n")
    assert res.exit_code == 0 and "hidden-pw" not in res.stdout and "9 character(s)" in res.stdout
    res = run("config", "decode-password", encoded, "--secret-stdin", "--reveal", input="s\n")
    assert "hidden-pw" in res.stdout
    res = run("config", "decode-password", encoded, "--secret-stdin", "--expect-password-stdin", input="s\nnope\n")
    assert res.exit_code == 1 and "does not match" in res.stdout


def test_wrong_secret_is_kafkas_error_and_old_secret_rotation():
    encoded = run("config", "encode-password", "--secret-stdin", "--password-stdin", input="old\npw\n").stdout.strip()
    res = run("config", "decode-password", encoded, "--secret-stdin", "-f", "json", input="new\n")
    assert res.exit_code == 1
    err = json.loads(res.stdout)["error"]
    assert err["class"] == "org.apache.kafka.common.config.ConfigException"
    assert err["message"].startswith("Invalid value ")
    res = run("config", "decode-password", encoded, "--secret-stdin", "--old-secret-stdin", "-f", "json",
              input="new\nold\n")
    assert res.exit_code == 0 and json.loads(res.stdout)["decoded_with"] == "password.encoder.old.secret"


def test_no_secret_source_in_a_pipe_is_an_error():
    res = run("config", "encode-password", input="")
    assert res.exit_code == 2 and "no source for the encoder secret" in res.output


def test_the_decoded_document_holds_the_password_only_when_revealed():
    from kafka_authz_cli.services.config import Decoded

    decoded = Decoded({"keyLength": "128"}, password="hidden-pw", decoded_with="password.encoder.secret", matches=True)
    assert "hidden-pw" not in json.dumps(decoded.document())
    assert decoded.document(reveal=True) == {"fields": {"keyLength": "128"}, "ok": True,
                                             "decoded_with": "password.encoder.secret", "password_length_utf16": 9,
                                             "matches_expected": True, "password": "hidden-pw"}
    encoded = run("config", "encode-password", "--secret-stdin", "--password-stdin", input="s\nhidden-pw\n").stdout.strip()
    res = run("config", "decode-password", encoded, "--secret-stdin", "-f", "json", input="s\n")
    assert res.exit_code == 0 and "hidden-pw" not in res.stdout and json.loads(res.stdout)["ok"] is True
