"""KIP-226 password encoder: ``EncryptingPasswordEncoder`` exactly (ZooKeeper-mode brokers).

Dynamic password configs (``listener.name.x.ssl.keystore.password`` ...) were stored in ZooKeeper
encrypted with ``password.encoder.secret``::

    initializationVector:<b64>,keyLength:128,salt:<b64 of 256 bytes>,keyFactoryAlgorithm:PBKDF2WithHmacSHA512,
    cipherAlgorithm:AES/CBC/PKCS5Padding,iterations:4096,passwordLength:<UTF-16 units>,encryptedPassword:<b64>

The key is PBKDF2(keyFactoryAlgorithm, UTF-8(secret), salt, iterations, keyLength bits); GCM adds
``authenticationTagLength:128`` after ``cipherAlgorithm`` and uses a 12-byte IV. The decoder splits on
``\\s*,\\s*`` and each item at its last ``:``, takes every parameter from the string (its own
configuration only chooses GCM or IV parameters), and checks ``passwordLength`` against
``String.length()`` (UTF-16 units). Failures are Kafka's exceptions, messages included. KRaft
clusters use ``PasswordEncoder.NOOP`` (values are stored as given).

Pure: no I/O. Uses ``cryptography`` for PBKDF2 and AES.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from kafka_authz_cli._java import (
    IllegalArgumentException,
    JavaException,
    java_base64_decode,
    java_base64_encode,
    java_new_string_utf8,
    java_parse_int,
    java_utf8,
    split_at_commas,
    utf16_length,
)

KEY_FACTORY_ALGORITHM = "keyFactoryAlgorithm"
CIPHER_ALGORITHM = "cipherAlgorithm"
INITIALIZATION_VECTOR = "initializationVector"
KEY_LENGTH = "keyLength"
SALT = "salt"
ITERATIONS = "iterations"
ENCRYPTED_PASSWORD = "encryptedPassword"
PASSWORD_LENGTH = "passwordLength"
AUTHENTICATION_TAG_LENGTH = "authenticationTagLength"

# java.util.HashMap iteration order of these key sets (recorded from Kafka).
KEY_ORDER_IV = [INITIALIZATION_VECTOR, KEY_LENGTH, SALT, KEY_FACTORY_ALGORITHM, CIPHER_ALGORITHM, ITERATIONS,
                PASSWORD_LENGTH, ENCRYPTED_PASSWORD]
KEY_ORDER_GCM = [INITIALIZATION_VECTOR, KEY_LENGTH, SALT, KEY_FACTORY_ALGORITHM, CIPHER_ALGORITHM,
                 AUTHENTICATION_TAG_LENGTH, ITERATIONS, PASSWORD_LENGTH, ENCRYPTED_PASSWORD]

DEFAULT_KEY_FACTORY = "PBKDF2WithHmacSHA512"
DEFAULT_CIPHER = "AES/CBC/PKCS5Padding"
DEFAULT_KEY_LENGTH = 128
DEFAULT_ITERATIONS = 4096

CONFIG_SECRET = "password.encoder.secret"
CONFIG_OLD_SECRET = "password.encoder.old.secret"
CONFIG_KEY_FACTORY = "password.encoder.keyfactory.algorithm"
CONFIG_CIPHER = "password.encoder.cipher.algorithm"
CONFIG_KEY_LENGTH = "password.encoder.key.length"
CONFIG_ITERATIONS = "password.encoder.iterations"

# cryptography's hash class for each SecretKeyFactory name (imported when used: `authz config resolve`
# and `--help` need no cryptography).
_PRFS = {"PBKDF2WITHHMACSHA1": "SHA1", "PBKDF2WITHHMACSHA224": "SHA224",
         "PBKDF2WITHHMACSHA256": "SHA256", "PBKDF2WITHHMACSHA384": "SHA384",
         "PBKDF2WITHHMACSHA512": "SHA512", "PBKDF2WITHHMACSHA512/224": "SHA512_224",
         "PBKDF2WITHHMACSHA512/256": "SHA512_256"}
_MODES_WITH_IV = {"CBC", "CFB", "CFB8", "OFB", "CTR"}


# -- Java exceptions ------------------------------------------------------------------------------

class ConfigException(JavaException):
    java_class = "org.apache.kafka.common.config.ConfigException"


class NoSuchAlgorithmException(JavaException):
    java_class = "java.security.NoSuchAlgorithmException"


class InvalidAlgorithmParameterException(JavaException):
    java_class = "java.security.InvalidAlgorithmParameterException"


class InvalidKeyException(JavaException):
    java_class = "java.security.InvalidKeyException"


class IllegalStateException(JavaException):
    java_class = "java.lang.IllegalStateException"


class BadPaddingException(JavaException):
    java_class = "javax.crypto.BadPaddingException"


class AEADBadTagException(BadPaddingException):
    java_class = "javax.crypto.AEADBadTagException"


class IllegalBlockSizeException(JavaException):
    java_class = "javax.crypto.IllegalBlockSizeException"


class StringIndexOutOfBoundsException(JavaException):
    java_class = "java.lang.StringIndexOutOfBoundsException"


class UnsupportedByAuthz(Exception):
    """A cipher the JDK has but authz does not reproduce (DES, DESede, ...)."""


_BAD_PADDING = ("Given final block not properly padded. Such issues can arise if a bad key is used during "
                "decryption.")


# -- Java helpers ------------------------------------------------------------------------------------

def parse_csv_map(text: str | None) -> dict[str, str]:
    """``Csv.parseCsvMap``: split on ``\\s*,\\s*``, each item at its last ``:``, trimmed; later wins."""
    from kafka_authz_cli._java import java_trim
    out: dict[str, str] = {}
    if not text:
        return out
    for item in split_at_commas(text):
        lio = item.rfind(":")
        if lio < 0:
            # substring(0, -1) in Java: StringIndexOutOfBoundsException
            raise StringIndexOutOfBoundsException(f"begin 0, end -1, length {utf16_length(item)}")
        out[java_trim(item[:lio])] = java_trim(item[lio + 1:])
    return out


# -- cipher plumbing ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Transformation:
    text: str
    algorithm: str
    mode: str
    padding: str

    @property
    def gcm(self) -> bool:
        return self.mode == "GCM"


def parse_transformation(text: str | None) -> Transformation:
    """``Cipher.getInstance(transformation)`` for the AES transformations authz reproduces."""
    if not text:
        raise NoSuchAlgorithmException("Null or empty transformation")
    parts = text.split("/")
    if len(parts) not in (1, 3) or any(not p.strip() for p in parts):
        raise NoSuchAlgorithmException(f"Invalid transformation format:{text}")
    alg = parts[0].strip().upper()
    mode, pad = (parts[1].strip().upper(), parts[2].strip().upper()) if len(parts) == 3 else ("ECB", "PKCS5PADDING")
    if alg != "AES" and alg not in ("AES_128", "AES_192", "AES_256"):
        if alg in ("DES", "DESEDE", "TRIPLEDES", "BLOWFISH", "RC2", "ARCFOUR", "CHACHA20"):
            raise UnsupportedByAuthz(f"authz reproduces the password encoder with AES ciphers only, not {parts[0]}")
        raise NoSuchAlgorithmException(f"Cannot find any provider supporting {text}")
    if mode == "GCM":
        if pad != "NOPADDING":
            raise NoSuchAlgorithmException(f"Cannot find any provider supporting {text}")
    elif mode in _MODES_WITH_IV | {"ECB"}:
        if pad not in ("NOPADDING", "PKCS5PADDING"):
            raise NoSuchAlgorithmException(f"Cannot find any provider supporting {text}")
    else:
        raise NoSuchAlgorithmException(f"Cannot find any provider supporting {text}")
    return Transformation(text, "AES", mode, pad)


def _prf(name: str):
    prf = _PRFS.get(name.upper())
    if prf is None:
        raise NoSuchAlgorithmException(f"{name} SecretKeyFactory not available")
    from cryptography.hazmat.primitives import hashes

    return getattr(hashes, prf)


def derive_key(secret: str, salt: bytes, iterations: int, key_length_bits: int, key_factory: str) -> bytes:
    """``PBEKeySpec`` + ``SecretKeyFactory.generateSecret``: PBKDF2 over UTF-8(secret)."""
    prf = _prf(key_factory)
    if not salt:
        raise IllegalArgumentException("the salt parameter must be non-empty")
    if iterations <= 0:
        raise IllegalArgumentException("invalid iterationCount value")
    if key_length_bits <= 0:
        raise IllegalArgumentException("invalid keyLength value")
    length = key_length_bits // 8
    if length == 0:
        raise IllegalArgumentException("Empty key")
    from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC

    return PBKDF2HMAC(algorithm=prf(), length=length, salt=salt, iterations=iterations).derive(java_utf8(secret))


def _check_aes_key(key: bytes) -> None:
    if len(key) not in (16, 24, 32):
        raise InvalidKeyException(f"Invalid AES key length: {len(key)} bytes")


def _mode(t: Transformation, iv: bytes, tag: bytes | None = None, tag_bits: int = 128):
    from cryptography.hazmat.primitives.ciphers import modes

    if t.mode == "CBC":
        return modes.CBC(iv)
    if t.mode == "CFB":
        return modes.CFB(iv)
    if t.mode == "CFB8":
        return modes.CFB8(iv)
    if t.mode == "OFB":
        return modes.OFB(iv)
    if t.mode == "CTR":
        return modes.CTR(iv)
    if t.mode == "GCM":
        return modes.GCM(iv, tag, min_tag_length=tag_bits // 8) if tag is not None else modes.GCM(iv)
    return modes.ECB()


@dataclass(frozen=True)
class EncoderConfig:
    """The ``password.encoder.*`` settings (key factory None = the default, PBKDF2WithHmacSHA512)."""

    key_factory_algorithm: str | None = None
    cipher_algorithm: str = DEFAULT_CIPHER
    key_length: int = DEFAULT_KEY_LENGTH
    iterations: int = DEFAULT_ITERATIONS

    def validation_errors(self) -> list[str]:
        """What the broker's ConfigDef refuses (key.length >= 8, iterations >= 1024)."""
        out = []
        if self.key_length < 8:
            out.append(f"Invalid value {self.key_length} for configuration {CONFIG_KEY_LENGTH}: "
                       "Value must be at least 8")
        if self.iterations < 1024:
            out.append(f"Invalid value {self.iterations} for configuration {CONFIG_ITERATIONS}: "
                       "Value must be at least 1024")
        return out


def encode(secret: str, password: str, config: EncoderConfig = EncoderConfig(), salt: bytes | None = None,
           iv: bytes | None = None) -> str:
    """``EncryptingPasswordEncoder.encode``: random 256-byte salt and cipher-chosen IV unless given."""
    from cryptography.hazmat.primitives import padding
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes

    t = parse_transformation(config.cipher_algorithm)
    key_factory = config.key_factory_algorithm or DEFAULT_KEY_FACTORY
    _prf(key_factory)
    salt = os.urandom(256) if salt is None else salt
    key = derive_key(secret, salt, config.iterations, config.key_length, key_factory)
    _check_aes_key(key)
    data = java_utf8(password)
    fields: dict[str, str] = {}
    if t.mode == "ECB":
        raise IllegalStateException("Could not determine initialization vector for cipher")
    if t.gcm:
        iv = os.urandom(12) if iv is None else iv
        enc = Cipher(algorithms.AES(key), modes.GCM(iv)).encryptor()
        ciphertext = enc.update(data) + enc.finalize() + enc.tag
        fields[AUTHENTICATION_TAG_LENGTH] = "128"
        order = KEY_ORDER_GCM
    else:
        iv = os.urandom(16) if iv is None else iv
        if t.padding == "PKCS5PADDING":
            padder = padding.PKCS7(128).padder()
            data = padder.update(data) + padder.finalize()
        elif t.mode == "CBC" and len(data) % 16:
            raise IllegalBlockSizeException("Input length not multiple of 16 bytes")
        enc = Cipher(algorithms.AES(key), _mode(t, iv)).encryptor()
        ciphertext = enc.update(data) + enc.finalize()
        order = KEY_ORDER_IV
    fields.update({
        KEY_FACTORY_ALGORITHM: key_factory,
        CIPHER_ALGORITHM: config.cipher_algorithm,
        KEY_LENGTH: str(config.key_length),
        SALT: java_base64_encode(salt),
        ITERATIONS: str(config.iterations),
        ENCRYPTED_PASSWORD: java_base64_encode(ciphertext),
        PASSWORD_LENGTH: str(utf16_length(password)),
        INITIALIZATION_VECTOR: java_base64_encode(iv),
    })
    return ",".join(f"{k}:{fields[k]}" for k in order)


def decode(secret: str, encoded: str, config: EncoderConfig = EncoderConfig()) -> str:
    """``EncryptingPasswordEncoder.decode``: the password, or Kafka's exception (raised)."""
    gcm_decoder = (config.cipher_algorithm or "").startswith("AES/GCM/")
    params = parse_csv_map(encoded)
    key_factory = params.get(KEY_FACTORY_ALGORITHM)
    cipher_alg = params.get(CIPHER_ALGORITHM)
    key_length = java_parse_int(params.get(KEY_LENGTH))
    salt = java_base64_decode(params.get(SALT))
    iterations = java_parse_int(params.get(ITERATIONS))
    encrypted = java_base64_decode(params.get(ENCRYPTED_PASSWORD))
    password_length = java_parse_int(params.get(PASSWORD_LENGTH))
    t = parse_transformation(cipher_alg)
    key_factory = key_factory if key_factory is not None else DEFAULT_KEY_FACTORY
    _prf(key_factory)
    key = derive_key(secret, salt, iterations, key_length, key_factory)
    # cipher.init(DECRYPT_MODE, key, cipherParamsEncoder.toParameterSpec(params)): outside the try. The
    # parameter spec is built first, then the cipher checks the IV, then the key.
    if gcm_decoder:
        tag_bits = java_parse_int(params.get(AUTHENTICATION_TAG_LENGTH))
        iv = java_base64_decode(params.get(INITIALIZATION_VECTOR))
        if not t.gcm:
            raise InvalidAlgorithmParameterException("Unsupported parameter: javax.crypto.spec.GCMParameterSpec")
        if tag_bits not in (96, 104, 112, 120, 128):
            raise InvalidAlgorithmParameterException(
                "Unsupported TLen value.  Must be one of {128, 120, 112, 104, 96}")
        if not 8 <= len(iv) <= 128:
            raise UnsupportedByAuthz(f"authz cannot decrypt GCM with a {len(iv)}-byte IV")
    else:
        iv = java_base64_decode(params.get(INITIALIZATION_VECTOR))
        tag_bits = 128
        if t.gcm:
            raise InvalidAlgorithmParameterException("Unsupported parameter: javax.crypto.spec.IvParameterSpec")
        if t.mode == "ECB":
            raise InvalidAlgorithmParameterException("ECB mode cannot use IV")
        if len(iv) != 16:
            raise InvalidAlgorithmParameterException("Wrong IV length: must be 16 bytes long")
    _check_aes_key(key)
    try:
        plain = _decrypt(t, key, iv, encrypted, tag_bits)
        password = java_new_string_utf8(plain)
        if utf16_length(password) != password_length:
            raise ConfigException("Password could not be decoded, sanity check of length failed")
        return password
    except JavaException as exc:
        raise ConfigException(f"Invalid value {exc.to_string()} for configuration Password could not be decoded",
                              exc) from None


def _decrypt(t: Transformation, key: bytes, iv: bytes, data: bytes, tag_bits: int) -> bytes:
    from cryptography.hazmat.primitives.ciphers import Cipher, algorithms

    if t.gcm:
        tag_len = tag_bits // 8
        if len(data) < tag_len:
            raise AEADBadTagException("Input data too short to contain an expected tag length of "
                                      f"{tag_len}bytes")
        body, tag = data[:-tag_len], data[-tag_len:]
        try:
            dec = Cipher(algorithms.AES(key), _mode(t, iv, tag, tag_bits)).decryptor()
            return dec.update(body) + dec.finalize()
        except Exception:  # cryptography.exceptions.InvalidTag
            raise AEADBadTagException("Tag mismatch") from None
    if t.padding == "PKCS5PADDING" and t.mode in ("CBC", "ECB") and len(data) % 16:
        raise IllegalBlockSizeException("Input length must be multiple of 16 when decrypting with padded cipher")
    dec = Cipher(algorithms.AES(key), _mode(t, iv)).decryptor()
    plain = dec.update(data) + dec.finalize()
    if t.padding == "PKCS5PADDING":
        if not plain:
            return b""
        n = plain[-1]
        if not 1 <= n <= 16 or n > len(plain) or plain[-n:] != bytes([n]) * n:
            raise BadPaddingException(_BAD_PADDING)
        plain = plain[:-n]
    return plain


def describe(encoded: str) -> dict[str, str]:
    """The fields of an encoded password (what a reader wants to see; nothing secret in it)."""
    return parse_csv_map(encoded)
