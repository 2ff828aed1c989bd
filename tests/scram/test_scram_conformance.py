"""SCRAM credentials, the --add-scram parser and exchanges against Kafka's recorded results."""

import base64
import json
from pathlib import Path

import pytest

from kafka_authz_cli.scram.credential import (
    ScramCredential,
    ScramError,
    ScramMechanism,
    exchange,
    parse_add_scram,
    salted_password,
)

DATA = Path(__file__).parents[1] / "conformance" / "kafka-security"


def rows(name):
    return [json.loads(line) for line in (DATA / name).read_text(encoding="utf-8").splitlines() if line.strip()]


CREDENTIALS = rows("scram_credentials.jsonl")
PARSER = rows("scram_parser.jsonl")
EXCHANGES = rows("scram_exchanges.jsonl")


@pytest.mark.parametrize("row", CREDENTIALS, ids=[r["id"] for r in CREDENTIALS])
def test_credentials_match_kafka(row):
    mech = ScramMechanism.for_mechanism_name(row["mechanism"])
    password = bytes.fromhex(row["password_utf8_hex"]) if row.get("password_utf8_hex") is not None else b""
    salt = bytes.fromhex(row["salt_hex"])
    if not row["ok"]:
        with pytest.raises(ScramError) as info:
            salted_password(mech, password, salt, row["iterations"])
        assert row["error"]["message"] == str(info.value)
        return
    salted = salted_password(mech, password, salt, row["iterations"])
    assert base64.b64encode(salted).decode() == row["salted_password_b64"]
    cred = ScramCredential.from_salted_password(mech, salted, salt, row["iterations"])
    assert base64.b64encode(cred.stored_key).decode() == row["stored_key_b64"]
    assert base64.b64encode(cred.server_key).decode() == row["server_key_b64"]
    assert cred.credential_string() == row["zk_credential_string"]
    assert ScramCredential.from_credential_string(row["zk_credential_string"], mech) == cred
    if row["password"]:
        assert cred.verify(row["password"])
        assert not cred.verify(row["password"] + "x")


@pytest.mark.parametrize("row", PARSER, ids=[r["id"] for r in PARSER])
def test_add_scram_parser_matches_kafka(row):
    if not row["ok"]:
        assert len(row["arguments"]) == 1
        with pytest.raises(ScramError) as info:
            parse_add_scram(row["arguments"][0])
        assert str(info.value) == row["error"]["message"]
        return
    for argument, record in zip(row["arguments"], row["records"], strict=True):
        got = parse_add_scram(argument)
        assert got.name == record["name"]
        assert got.credential.mechanism.type_code == record["mechanism"]
        assert got.credential.iterations == record["iterations"]
        assert got.salt_was_generated == record["salt_was_generated"]
        if record["salt_was_generated"]:
            # A random salt: check its shape, then the keys recomputed from Kafka's own salt.
            assert got.credential.salt.isalnum() and 20 <= len(got.credential.salt) <= 27
            salt = base64.b64decode(record["salt_b64"])
            inside = argument.strip()[argument.strip().index("[") + 1:-1]
            password = dict(p.split("=", 1) for p in inside.split(","))["password"].strip('"')
            cred = ScramCredential.from_password(got.credential.mechanism, password, salt, record["iterations"])
        else:
            cred = got.credential
            assert base64.b64encode(cred.salt).decode() == record["salt_b64"]
        assert base64.b64encode(cred.stored_key).decode() == record["stored_key_b64"]
        assert base64.b64encode(cred.server_key).decode() == record["server_key_b64"]


@pytest.mark.parametrize("row", [r for r in EXCHANGES if r["mode"] == "client-server" and "token" not in r],
                         ids=lambda r: r["id"])
def test_exchanges_reproduce_kafka_transcripts(row):
    mech = ScramMechanism.for_mechanism_name(row["mechanism"])
    salt = base64.b64decode(row["salt_b64"])
    server = ScramCredential.from_password(mech, row["server_password"], salt, row["stored_iterations"])
    tamper = {}
    for step in row["transcript"]:
        if "tampered_to" in step:
            tamper[step["step"]] = step["tampered_to"]
    result = exchange(mech, row["username"], row["password"], server, client_nonce=row["client_nonce"],
                      server_nonce=row["server_nonce_random_part"], tamper=tamper)
    assert [(s.step, s.message) for s in result.transcript] == [(s["step"], s["message"]) for s in row["transcript"]]
    assert result.ok == row["outcome"]["ok"]
    if not result.ok:
        assert result.failed_at_step == row["outcome"]["failed_at_step"]
        assert result.error == row["outcome"]["error"]["message"]
    else:
        for key, value in row["derived"].items():
            assert result.derived[key] == value, key


def test_rfc7677_example():
    # RFC 7677 section 3: user "user", password "pencil".
    mech = ScramMechanism.SCRAM_SHA_256
    salt = base64.b64decode("W22ZaJ0SNY7soEsUEjb6gQ==")
    server = ScramCredential.from_password(mech, "pencil", salt, 4096)
    result = exchange(mech, "user", "pencil", server, client_nonce="rOprNGfwEbeRWgbNEkqO",
                      server_nonce="%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0")
    assert [s.message for s in result.transcript] == [
        "n,,n=user,r=rOprNGfwEbeRWgbNEkqO",
        "r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096",
        "c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=",
        "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=",
    ]
    assert result.ok


def test_mechanism_lookup_is_exact_like_kafka():
    facts = json.loads((DATA / "scram_mechanisms.json").read_text())
    for name, expected in facts["forMechanismName"].items():
        got = ScramMechanism.for_mechanism_name(name)
        assert (got.name if got else None) == expected
    for m in facts["internal_enum"]:
        mech = ScramMechanism[m["enum_name"]]
        assert (mech.mechanism_name, mech.type_code, mech.min_iterations, mech.max_iterations) == \
               (m["mechanism_name"], m["type"], m["min_iterations"], m["max_iterations"])


@pytest.mark.parametrize("row", [r for r in EXCHANGES if r["mode"] in ("server-script", "client-script")],
                         ids=lambda r: r["id"])
def test_scripted_exchanges(row):
    from kafka_authz_cli.scram.credential import KafkaScramClient, KafkaScramServer, ScramAuthError

    mech = ScramMechanism.for_mechanism_name(row["mechanism"])
    salt = base64.b64decode(row["salt_b64"])
    failed_step = row["outcome"]["failed_at_step"]
    with pytest.raises(ScramAuthError) as info:
        if row["mode"] == "server-script":
            cred = ScramCredential.from_password(mech, row["server_password"], salt, row["stored_iterations"])
            server = KafkaScramServer(mech, {row["server_user"]: cred}, row["server_nonce_random_part"])
            for i, step in enumerate(row["transcript"], 1):
                if step["from"] == "script":
                    reply = (server.client_first if step["step"] == "client-first" else server.client_final)(step["message"])
                else:
                    assert reply == step["message"]
        else:
            client = KafkaScramClient(mech, row["username"], row["password"], row["client_nonce"])
            for step in row["transcript"]:
                if step["from"] == "client" and step["step"] == "client-first":
                    assert client.first() == step["message"]
                elif step["from"] == "script" and step["step"] == "server-first":
                    client.final(step["message"])
    assert str(info.value) == row["outcome"]["error"]["message"]
    assert failed_step >= 1


def test_wrong_mechanism_is_diagnosed():
    cred = ScramCredential.from_password(ScramMechanism.SCRAM_SHA_256, "pw", b"salt", 4096)
    result = exchange(ScramMechanism.SCRAM_SHA_256, "alice", "pw", cred, client_mechanism=ScramMechanism.SCRAM_SHA_512)
    assert not result.ok and "no SCRAM-SHA-512 credential" in result.diagnosis


def test_nfd_password_does_not_match_nfc_credential():
    import unicodedata

    nfc = unicodedata.normalize("NFC", "café")
    cred = ScramCredential.from_password(ScramMechanism.SCRAM_SHA_512, nfc, b"s", 4096)
    assert cred.verify(nfc)
    assert not cred.verify(unicodedata.normalize("NFD", nfc))


def test_usernames_are_escaped_in_messages():
    from kafka_authz_cli.scram.credential import sasl_name, username_from_sasl_name

    assert sasl_name("a,b=c") == "a=2Cb=3Dc"
    assert username_from_sasl_name("a=2Cb=3Dc") == "a,b=c"
    cred = ScramCredential.from_password(ScramMechanism.SCRAM_SHA_256, "pw", b"salt", 4096)
    assert exchange(ScramMechanism.SCRAM_SHA_256, "a,b=c", "pw", cred).ok
