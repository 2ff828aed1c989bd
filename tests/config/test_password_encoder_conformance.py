"""Every password-encoder sample recorded from Kafka's EncryptingPasswordEncoder, and its format."""

import json
from pathlib import Path

import pytest

from kafka_authz_cli._java.lang import JavaException, java_base64_decode
from kafka_authz_cli.config.password_encoder import (
    KEY_ORDER_GCM,
    KEY_ORDER_IV,
    EncoderConfig,
    decode,
    encode,
    parse_csv_map,
)

DATA = Path(__file__).parents[1] / "conformance" / "kafka-security"
ROWS = [json.loads(line) for line in (DATA / "password_encoder_decode.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()]
FORMAT = json.loads((DATA / "password_encoder_format.json").read_text(encoding="utf-8"))


def _config(c):
    return EncoderConfig(c["key_factory_algorithm"], c["cipher_algorithm"], c["key_length"], c["iterations"])


@pytest.mark.parametrize("row", ROWS, ids=[r["id"] for r in ROWS])
def test_decode(row):
    expected = row["result"]
    try:
        password = decode(row["secret"], row["encoded"], _config(row["decoder_config"]))
    except JavaException as exc:
        assert not expected["ok"], exc
        assert exc.java_class == expected["error"]["class"]
        assert exc.message == expected["error"]["message"]
        return
    assert expected["ok"], expected
    assert password == expected["password"]


def test_encoding_is_byte_identical_to_kafkas_given_the_same_salt_and_iv():
    # "wrong-secret" carries Kafka's own encoding of "test-password" (see drop-keyFactoryAlgorithm).
    recorded = next(r for r in ROWS if r["id"] == "wrong-secret")["encoded"]
    fields = parse_csv_map(recorded)
    again = encode("password-encoder-secret", "test-password", EncoderConfig(),
                   salt=java_base64_decode(fields["salt"]), iv=java_base64_decode(fields["initializationVector"]))
    assert again == recorded


def test_key_order_and_defaults_match_the_recorded_facts():
    assert KEY_ORDER_IV == FORMAT["key_order"]["CBC/CFB/OFB (IvParamsEncoder)"]
    assert KEY_ORDER_GCM == FORMAT["key_order"]["GCM (GcmParamsEncoder)"]
    d = FORMAT["defaults"]
    cfg = EncoderConfig()
    assert (cfg.key_factory_algorithm, cfg.cipher_algorithm, cfg.key_length, cfg.iterations) == (
        d["password.encoder.keyfactory.algorithm"], d["password.encoder.cipher.algorithm"],
        d["password.encoder.key.length"], d["password.encoder.iterations"])
