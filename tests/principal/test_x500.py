"""The DN string the broker maps: X500Principal.getName() from a certificate, and from DN text."""

import datetime

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from kafka_authz_cli.principal.x500 import DnError, dn_form_problems, normalize_dn, parse_name_der, rfc2253_from_der


def _name(*rdns):
    return x509.Name([x509.RelativeDistinguishedName(r) if isinstance(r, list) else
                      x509.RelativeDistinguishedName([r]) for r in rdns])


A = x509.NameAttribute


def test_order_is_most_specific_first_without_spaces():
    name = _name(A(NameOID.COUNTRY_NAME, "US"), A(NameOID.ORGANIZATION_NAME, "Sun Microsystems"),
                 A(NameOID.ORGANIZATIONAL_UNIT_NAME, "JavaSoft"), A(NameOID.COMMON_NAME, "Duke"))
    assert rfc2253_from_der(name.public_bytes()) == "CN=Duke,OU=JavaSoft,O=Sun Microsystems,C=US"


def test_email_address_is_an_oid_with_der_hex():
    name = _name(A(NameOID.ORGANIZATION_NAME, "Org"), A(NameOID.EMAIL_ADDRESS, "alice@example.com"),
                 A(NameOID.COMMON_NAME, "alice"))
    assert rfc2253_from_der(name.public_bytes()) == \
        "CN=alice,1.2.840.113549.1.9.1=#1611616c696365406578616d706c652e636f6d,O=Org"


def test_escapes_and_multi_valued_rdn():
    name = _name(A(NameOID.ORGANIZATION_NAME, "A+B"),
                 [A(NameOID.COMMON_NAME, "Tkac, Adam"), A(NameOID.USER_ID, "tkac")],
                 A(NameOID.ORGANIZATIONAL_UNIT_NAME, " lead;trail "))
    dn = rfc2253_from_der(name.public_bytes())
    assert dn == "OU=\\ lead\\;trail\\ ,CN=Tkac\\, Adam+UID=tkac,O=A\\+B"


def test_non_ascii_is_kept_and_serial_number_is_hex():
    name = _name(A(NameOID.SERIAL_NUMBER, "42"), A(NameOID.COMMON_NAME, "Zoë"))
    assert rfc2253_from_der(name.public_bytes()) == "CN=Zoë,2.5.4.5=#13023432"


def test_from_a_real_certificate_and_through_the_cli(tmp_path):
    from typer.testing import CliRunner

    from kafka_authz_cli.cli.app import app

    key = ec.generate_private_key(ec.SECP256R1())
    subject = _name(A(NameOID.COUNTRY_NAME, "US"), A(NameOID.ORGANIZATIONAL_UNIT_NAME, "ServiceUsers"),
                    A(NameOID.COMMON_NAME, "orders-svc"))
    now = datetime.datetime(2026, 1, 1)
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
            .sign(key, hashes.SHA256()))
    from cryptography.hazmat.primitives.serialization import Encoding

    pem = tmp_path / "client.pem"
    pem.write_bytes(cert.public_bytes(Encoding.PEM))
    der = tmp_path / "client.der"
    der.write_bytes(cert.public_bytes(Encoding.DER))
    runner = CliRunner()
    for path in (pem, der):
        res = runner.invoke(app, ["principal", "tls", "--cert", str(path), "--format", "json",
                                  "--rules", "RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/"])
        assert res.exit_code == 0, res.output
        assert '"principal": "User:orders-svc"' in res.output
        assert '"input": "CN=orders-svc,OU=ServiceUsers,C=US"' in res.output


@pytest.mark.parametrize("text,expected", [
    ("CN=Duke, OU=JavaSoft, O=Sun Microsystems, C=US", "CN=Duke,OU=JavaSoft,O=Sun Microsystems,C=US"),
    ("cn=duke;ou=x", "CN=duke,OU=x"),
    ("EMAILADDRESS=alice@example.com, CN=alice", "1.2.840.113549.1.9.1=#1611616c696365406578616d706c652e636f6d,CN=alice"),
    ('CN="Tkac, Adam", O=x', "CN=Tkac\\, Adam,O=x"),
    ("CN=Tkac\\, Adam ,O=x", "CN=Tkac\\, Adam,O=x"),
    ("CN=caf\\c3\\a9", "CN=café"),
    ("CN=a+UID=b,DC=example,DC=com", "CN=a+UID=b,DC=example,DC=com"),
    ("OID.2.5.4.3=x", "CN=x"),
    ("ST=CA,S=CA", "ST=CA,ST=CA"),
    ("", ""),
])
def test_normalize_dn(text, expected):
    assert normalize_dn(text) == expected


@pytest.mark.parametrize("text", ["CN", "FOO=bar", "CN=a\\qb"])
def test_normalize_dn_errors(text):
    with pytest.raises(DnError):
        normalize_dn(text)


def test_dn_form_problems():
    assert dn_form_problems("CN=alice,O=org") == []
    problems = dn_form_problems("CN=alice, O=org")
    assert any("spaces after commas" in p for p in problems) and problems[-1] == "the broker would map: CN=alice,O=org"
    assert any("OID" in p for p in dn_form_problems("CN=a,EMAILADDRESS=a@b.c"))
    assert any("OpenSSL" in p for p in dn_form_problems("/C=US/O=x/CN=y"))
    assert any("order" in p for p in dn_form_problems("C=US,O=x,CN=y"))


def test_parse_name_der_rejects_garbage():
    with pytest.raises(DnError):
        parse_name_der(b"\x31\x00")
