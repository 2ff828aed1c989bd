"""Interoperability with an independent SCRAM implementation (scramp), both directions."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

scramp = pytest.importorskip("scramp")

from kafka_authz_cli.scram.credential import KafkaScramClient, KafkaScramServer, ScramCredential, ScramMechanism  # noqa: E402

ascii_passwords = st.text(st.characters(min_codepoint=0x21, max_codepoint=0x7E), min_size=1, max_size=20)


@settings(max_examples=20, deadline=None)
@given(password=ascii_passwords, mech=st.sampled_from(list(ScramMechanism)))
def test_our_server_accepts_scramp_client(password, mech):
    cred = ScramCredential.from_password(mech, password, b"0123456789abcdef", 4096)
    server = KafkaScramServer(mech, {"alice": cred})
    client = scramp.ScramClient([mech.mechanism_name], "alice", password)
    server_first = server.client_first(client.get_client_first())
    client.set_server_first(server_first)
    server_final = server.client_final(client.get_client_final())
    client.set_server_final(server_final)  # raises if our signature is wrong
    assert server.complete


@settings(max_examples=20, deadline=None)
@given(password=ascii_passwords, mech=st.sampled_from(list(ScramMechanism)))
def test_scramp_server_accepts_our_client(password, mech):
    m = scramp.ScramMechanism(mech.mechanism_name)
    auth_info = m.make_auth_info(password, iteration_count=4096)
    server = m.make_server(lambda username: auth_info)
    client = KafkaScramClient(mech, "alice", password)
    server.set_client_first(client.first())
    final = client.final(server.get_server_first())
    server.set_client_final(final)
    client.verify_server_final(server.get_server_final())
    assert client.complete


def test_scramp_stored_keys_equal_ours():
    m = scramp.ScramMechanism("SCRAM-SHA-256")
    salt, stored, server_key, iterations = m.make_auth_info("pencil", iteration_count=4096, salt=b"saltsaltsalt")
    ours = ScramCredential.from_password(ScramMechanism.SCRAM_SHA_256, "pencil", b"saltsaltsalt", 4096)
    assert (ours.stored_key, ours.server_key) == (stored, server_key)
