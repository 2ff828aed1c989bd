"""The password encoder beyond the samples: round trips, a naive re-implementation, Java's errors."""

import base64
import hashlib

import pytest
from cryptography.hazmat.primitives import padding
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from hypothesis import given, settings
from hypothesis import strategies as st

from kafka_authz_cli._java.lang import JavaException, java_base64_decode
from kafka_authz_cli.config.password_encoder import (
    EncoderConfig,
    decode,
    encode,
    parse_csv_map,
)

GCM = EncoderConfig(None, "AES/GCM/NoPadding", 128, 1024)
FAST = EncoderConfig(None, "AES/CBC/PKCS5Padding", 128, 1024)
passwords = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)


def naive_encode(secret, password, salt, iv, iterations=1024, key_bits=128, prf="sha512"):
    key = hashlib.pbkdf2_hmac(prf, secret.encode(), salt, iterations, key_bits // 8)
    padder = padding.PKCS7(128).padder()
    data = padder.update(password.encode()) + padder.finalize()
    enc = Cipher(algorithms.AES(key), modes.CBC(iv)).encryptor()
    ct = enc.update(data) + enc.finalize()
    b = lambda x: base64.b64encode(x).decode()  # noqa: E731
    return (f"initializationVector:{b(iv)},keyLength:{key_bits},salt:{b(salt)},keyFactoryAlgorithm:"
            f"PBKDF2WithHmac{prf.upper()},cipherAlgorithm:AES/CBC/PKCS5Padding,iterations:{iterations},"
            f"passwordLength:{len(password.encode('utf-16-le')) // 2},encryptedPassword:{b(ct)}")


@settings(max_examples=40, deadline=None)
@given(st.text(max_size=12), passwords, st.binary(min_size=256, max_size=256),
       st.binary(min_size=16, max_size=16))
def test_cbc_encoding_agrees_with_a_naive_implementation(secret, password, salt, iv):
    secret = secret.encode("utf-8", "replace").decode("utf-8")
    assert encode(secret, password, FAST, salt=salt, iv=iv) == naive_encode(secret, password, salt, iv)


@settings(max_examples=30, deadline=None)
@given(passwords, st.sampled_from([FAST, GCM, EncoderConfig("PBKDF2WithHmacSHA256", "AES/CBC/PKCS5Padding", 256, 1024),
                                   EncoderConfig(None, "AES/CTR/NoPadding", 192, 1024)]))
def test_round_trip(password, config):
    encoded = encode("s3cr3t", password, config)
    assert decode("s3cr3t", encoded, config) == password
    fields = parse_csv_map(encoded)
    assert len(java_base64_decode(fields["salt"])) == 256
    assert len(java_base64_decode(fields["initializationVector"])) == (12 if config is GCM else 16)


def test_password_length_is_utf16_units_and_order_is_kafkas():
    encoded = encode("s", "a😀", FAST)
    assert "passwordLength:3," in encoded
    assert [item.split(":")[0] for item in encoded.split(",")] == [
        "initializationVector", "keyLength", "salt", "keyFactoryAlgorithm", "cipherAlgorithm", "iterations",
        "passwordLength", "encryptedPassword"]
    gcm = encode("s", "x", GCM)
    assert ",cipherAlgorithm:AES/GCM/NoPadding,authenticationTagLength:128,iterations:1024," in gcm


def test_decoder_accepts_any_order_and_spaces_and_ignores_unknown_keys():
    encoded = encode("s", "pw", FAST)
    items = encoded.split(",")
    shuffled = " , ".join(reversed([i.replace(":", " : ", 1) if i.startswith("key") else i for i in items]))
    assert decode("s", shuffled + ",extra:1", FAST) == "pw"


def _error(secret, encoded, config=FAST):
    with pytest.raises(JavaException) as info:
        decode(secret, encoded, config)
    return info.value


def test_wrong_secret_errors_are_kafkas():
    cbc = _error("wrong", encode("right", "password", FAST))
    assert cbc.java_class == "org.apache.kafka.common.config.ConfigException"
    # 1 in 256 wrong keys yields valid padding: then the length check fails instead.
    assert cbc.message in (
        "Invalid value javax.crypto.BadPaddingException: Given final block not properly padded. Such issues can "
        "arise if a bad key is used during decryption. for configuration Password could not be decoded",
        "Invalid value org.apache.kafka.common.config.ConfigException: Password could not be decoded, sanity "
        "check of length failed for configuration Password could not be decoded")
    gcm = _error("wrong", encode("right", "password", GCM), GCM)
    assert gcm.message == ("Invalid value javax.crypto.AEADBadTagException: Tag mismatch for configuration "
                           "Password could not be decoded")


def test_gcm_string_with_a_cbc_decoder():
    err = _error("s", encode("s", "pw", GCM), FAST)
    assert err.java_class == "java.security.InvalidAlgorithmParameterException"


@pytest.mark.parametrize("text,message", [
    ("a", "Input byte[] should at least have 2 bytes for base64 bytes"),
    ("ab=c", "Input byte array has wrong 4-byte ending unit"),
    ("=abc", "Input byte array has wrong 4-byte ending unit"),
    ("abcde", "Last unit does not have enough valid bits"),
    ("ab==cd", "Input byte array has incorrect ending byte at 4"),
    ("ab-d", "Illegal base64 character 2d"),
    ("abé=", "Illegal base64 character -17"),
    ("ab€=", "Illegal base64 character 3f"),
])
def test_java_base64_errors(text, message):
    with pytest.raises(JavaException) as info:
        java_base64_decode(text)
    assert info.value.message == message


def test_java_base64_accepts_missing_padding():
    assert java_base64_decode("YWI") == b"ab" and java_base64_decode("YWI=") == b"ab" and java_base64_decode("") == b""


def test_missing_fields_fail_as_in_kafka():
    encoded = encode("s", "pw", FAST)
    fields = parse_csv_map(encoded)
    no_iv = ",".join(f"{k}:{v}" for k, v in fields.items() if k != "initializationVector")
    assert _error("s", no_iv).java_class == "java.lang.NullPointerException"
    bad_len = encoded.replace("keyLength:128", "keyLength:abc")
    assert _error("s", bad_len).message == 'For input string: "abc"'
    odd_key = encoded.replace("keyLength:128", "keyLength:100")
    assert _error("s", odd_key).message == "Invalid AES key length: 12 bytes"
    unknown_kdf = encoded.replace("PBKDF2WithHmacSHA512", "PBKDF2WithHmacMD5")
    assert _error("s", unknown_kdf).message == "PBKDF2WithHmacMD5 SecretKeyFactory not available"
    assert _error("s", "nocolon").java_class == "java.lang.StringIndexOutOfBoundsException"


def test_config_validation_is_the_brokers():
    assert EncoderConfig(key_length=4, iterations=10).validation_errors() == [
        "Invalid value 4 for configuration password.encoder.key.length: Value must be at least 8",
        "Invalid value 10 for configuration password.encoder.iterations: Value must be at least 1024"]
