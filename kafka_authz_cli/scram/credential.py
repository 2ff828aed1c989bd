"""SCRAM-SHA-256/512 exactly as Kafka computes, stores, parses and exchanges it.

All hashing goes through the ``cryptography`` package. Kafka differs from generic SCRAM
libraries: passwords are plain UTF-8 (no SASLprep, so NFC and NFD spellings give different keys),
an empty password is refused ("Empty key"), PBKDF2 with one iteration or fewer yields U1, and
iteration limits are enforced only in some places (``ITERATION_LIMITS_ENFORCED_BY``).

Nothing in this module prints, logs or puts a password in an exception message.
"""

from __future__ import annotations

import base64
import enum
import hmac as std_hmac
import re
import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from kafka_authz_cli._java import (
    IllegalArgumentException,
    JavaException,
    NumberFormatException,
    java_base64_decode,
    java_parse_int,
    java_split,
    java_trim,
    java_utf8,
    utf16_units,
)

if TYPE_CHECKING:  # cryptography is imported where it is used (`authz scram --help` needs none of it)
    from cryptography.hazmat.primitives import hashes


class ScramError(ValueError):
    """A SCRAM input Kafka would refuse; the message is Kafka's own where it has one."""


class ScramMechanism(enum.Enum):
    SCRAM_SHA_256 = ("SCRAM-SHA-256", 1, "SHA256")
    SCRAM_SHA_512 = ("SCRAM-SHA-512", 2, "SHA512")

    def __init__(self, mechanism_name: str, type_code: int, hash_name: str):
        self.mechanism_name = mechanism_name
        self.type_code = type_code
        self._hash_name = hash_name

    @property
    def min_iterations(self) -> int:
        return 4096

    @property
    def max_iterations(self) -> int:
        return 16384

    def hash_algorithm(self) -> hashes.HashAlgorithm:
        from cryptography.hazmat.primitives import hashes

        return hashes.SHA256() if self._hash_name == "SHA256" else hashes.SHA512()

    @property
    def digest_size(self) -> int:
        return 32 if self._hash_name == "SHA256" else 64

    @classmethod
    def for_mechanism_name(cls, name: str) -> "ScramMechanism | None":
        """Exact, case-sensitive lookup as ``ScramMechanism.forMechanismName``."""
        for m in cls:
            if m.mechanism_name == name:
                return m
        return None

    @classmethod
    def parse(cls, text: str) -> "ScramMechanism":
        """For people: SCRAM-SHA-256, scram-sha-512, SHA-512, 256 ..."""
        key = text.strip().upper().replace("_", "-")
        for m in cls:
            if key in (m.mechanism_name, m.mechanism_name.replace("SCRAM-", ""), m.mechanism_name[-3:]):
                return m
        raise ScramError(f"unknown SCRAM mechanism {text!r} (expected SCRAM-SHA-256 or SCRAM-SHA-512)")

    @classmethod
    def for_type(cls, code: int) -> "ScramMechanism":
        for m in cls:
            if m.type_code == code:
                return m
        raise ScramError(f"unknown SCRAM mechanism type {code}")


# -- primitives (cryptography) ------------------------------------------------------------------

def _hmac(mechanism: ScramMechanism, key: bytes, data: bytes) -> bytes:
    if not key:
        raise ScramError("Empty key")
    from cryptography.hazmat.primitives import hmac as crypto_hmac

    mac = crypto_hmac.HMAC(key, mechanism.hash_algorithm())
    mac.update(data)
    return mac.finalize()


def _hash(mechanism: ScramMechanism, data: bytes) -> bytes:
    from cryptography.hazmat.primitives import hashes

    digest = hashes.Hash(mechanism.hash_algorithm())
    digest.update(data)
    return digest.finalize()


def salted_password(mechanism: ScramMechanism, password: bytes, salt: bytes, iterations: int) -> bytes:
    """``Hi(password, salt, i)``: PBKDF2-HMAC; Kafka's ScramFormatter returns U1 for i <= 1."""
    if not password:
        raise ScramError("Empty key")
    if iterations <= 1:
        return _hmac(mechanism, password, salt + b"\x00\x00\x00\x01")
    from cryptography.hazmat.primitives.kdf.pbkdf2 import PBKDF2HMAC

    kdf = PBKDF2HMAC(algorithm=mechanism.hash_algorithm(), length=mechanism.digest_size, salt=salt,
                     iterations=iterations)
    return kdf.derive(password)


def client_key(mechanism: ScramMechanism, salted: bytes) -> bytes:
    return _hmac(mechanism, salted, b"Client Key")


def server_key(mechanism: ScramMechanism, salted: bytes) -> bytes:
    return _hmac(mechanism, salted, b"Server Key")


def stored_key(mechanism: ScramMechanism, ckey: bytes) -> bytes:
    return _hash(mechanism, ckey)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


# -- credentials ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class ScramCredential:
    """What Kafka stores for a SCRAM user: never the password."""

    mechanism: ScramMechanism
    salt: bytes
    stored_key: bytes
    server_key: bytes
    iterations: int

    @classmethod
    def from_password(cls, mechanism: ScramMechanism, password: str | bytes, salt: bytes | None = None,
                      iterations: int = 4096) -> "ScramCredential":
        if salt is None:
            salt = new_salt()
        salted = salted_password(mechanism, _utf8(password), salt, iterations)
        return cls.from_salted_password(mechanism, salted, salt, iterations)

    @classmethod
    def from_salted_password(cls, mechanism: ScramMechanism, salted: bytes, salt: bytes,
                             iterations: int) -> "ScramCredential":
        return cls(mechanism, salt, stored_key(mechanism, client_key(mechanism, salted)),
                   server_key(mechanism, salted), iterations)

    def credential_string(self) -> str:
        """``ScramCredentialUtils.credentialToString``: ``salt=...,stored_key=...,server_key=...,iterations=...``."""
        return (f"salt={b64(self.salt)},stored_key={b64(self.stored_key)},server_key={b64(self.server_key)},"
                f"iterations={self.iterations}")

    @classmethod
    def from_credential_string(cls, text: str, mechanism: ScramMechanism) -> "ScramCredential":
        fields = {}
        for part in text.strip().split(","):
            key, sep, value = part.partition("=")
            if not sep:
                raise ScramError(f"malformed credential string: {part!r} has no '='")
            fields[key] = value
        expected = {"salt", "stored_key", "server_key", "iterations"}
        if set(fields) != expected:
            raise ScramError("credential string must have exactly salt, stored_key, server_key and iterations")
        try:
            return cls(mechanism, java_base64_decode(fields["salt"]), java_base64_decode(fields["stored_key"]),
                       java_base64_decode(fields["server_key"]), int(fields["iterations"]))
        except (ValueError, JavaException) as exc:
            raise ScramError(f"malformed credential string: {exc}") from None

    def record(self, name: str) -> dict:
        """The ``UserScramCredentialRecord`` (version 0) Kafka writes to the metadata log."""
        return {"name": name, "mechanism": self.mechanism.type_code, "salt": b64(self.salt),
                "storedKey": b64(self.stored_key), "serverKey": b64(self.server_key), "iterations": self.iterations}

    @classmethod
    def from_record(cls, record: dict) -> "ScramCredential":
        try:
            mechanism = record["mechanism"]
            mech = (ScramMechanism.for_type(mechanism) if isinstance(mechanism, int)
                    else ScramMechanism.parse(str(mechanism)))
            keys = [record[k] for k in ("salt", "storedKey", "serverKey")]
            if not all(isinstance(k, str) for k in keys):
                raise TypeError("salt, storedKey and serverKey must be base64 strings")
            salt, stored_key, server_key = map(java_base64_decode, keys)
            return cls(mech, salt, stored_key, server_key, int(record["iterations"]))
        except (KeyError, ValueError, TypeError, JavaException) as exc:
            raise ScramError(f"not a UserScramCredentialRecord: {exc}") from None

    def verify(self, password: str | bytes) -> bool:
        """True when ``password`` produces this credential; constant-time comparison."""
        try:
            salted = salted_password(self.mechanism, _utf8(password), self.salt, self.iterations)
        except ScramError:
            return False
        ok_stored = std_hmac.compare_digest(stored_key(self.mechanism, client_key(self.mechanism, salted)), self.stored_key)
        ok_server = std_hmac.compare_digest(server_key(self.mechanism, salted), self.server_key)
        return ok_stored and ok_server


def new_salt() -> bytes:
    """A salt like Kafka's tools make: the UTF-8 of a base-36 130-bit random number."""
    return _base36(secrets.randbits(130)).encode("ascii")


def new_nonce() -> str:
    """A nonce like Kafka's ScramFormatter.secureRandomString(): base-36 of 130 random bits."""
    return _base36(secrets.randbits(130))


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = []
    while True:
        n, r = divmod(n, 36)
        out.append(digits[r])
        if n == 0:
            return "".join(reversed(out))


def _utf8(password: str | bytes) -> bytes:
    # Java's String.getBytes(UTF_8): no normalisation; a lone surrogate becomes '?'.
    return password if isinstance(password, bytes) else java_utf8(password)


# -- kafka-storage --add-scram -----------------------------------------------------------------------

@dataclass
class AddScramResult:
    name: str
    credential: ScramCredential
    salt_was_generated: bool

    def record(self) -> dict:
        return self.credential.record(self.name)


def parse_add_scram(argument: str) -> AddScramResult:
    """One ``kafka-storage format --add-scram`` argument, accepted and refused as Kafka's ScramParser does."""
    mechanism, values = _add_scram_components(argument)
    if "name" not in values:
        raise ScramError("You must supply 'name' to add-scram")
    salt = None
    if "salt" in values:
        try:
            salt = java_base64_decode(values["salt"])
        except IllegalArgumentException:
            raise ScramError(f"Failed to decode given salt: {values['salt']}") from None
    iterations = 4096
    if "iterations" in values:
        try:
            iterations = java_parse_int(values["iterations"])
        except NumberFormatException:
            raise ScramError(f"Failed to parse iterations count: {values['iterations']}") from None
    password = values.get("password")
    salted = _given_salted_password(values, salt) if password is None else None
    unknown = sorted(set(values) - {"name", "password", "salt", "saltedpassword", "iterations"})
    if unknown:
        raise ScramError("Unknown SCRAM configurations: " + ", ".join(unknown))
    enum_name = mechanism.name
    if iterations < mechanism.min_iterations:
        raise ScramError(f"The 'iterations' value must be >= {mechanism.min_iterations} for add-scram using {enum_name}")
    if iterations > mechanism.max_iterations:
        raise ScramError(f"The 'iterations' value must be <= {mechanism.max_iterations} for add-scram using {enum_name}")
    generated = salt is None
    if salt is None:
        salt = new_salt()
    if password is not None:
        salted = salted_password(mechanism, _utf8(password), salt, iterations)
    elif not salted:
        raise ScramError("Empty key")
    return AddScramResult(values["name"], ScramCredential.from_salted_password(mechanism, salted, salt, iterations),
                          generated)


def _add_scram_components(argument: str) -> tuple[ScramMechanism, dict[str, str]]:
    """The mechanism and the ``key=value`` components of an argument, as ScramParser splits them: the
    whole ``[...]`` at every comma (quotes protect none), each component at its first ``=``, one pair
    of double quotes around a value stripped."""
    arg = java_trim(argument)
    mech_name, sep, config = arg.partition("=")
    if not sep:
        raise ScramError(f"Failed to find equals sign in SCRAM argument '{arg}'")
    mechanism = ScramMechanism.for_mechanism_name(mech_name)
    if mechanism is None:
        raise ScramError(f"The add-scram mechanism {mech_name} is not supported.")
    if not config.startswith("["):
        raise ScramError("Expected configuration string to start with [")
    if not config.endswith("]"):
        raise ScramError("Expected configuration string to end with ]")
    parts = java_split(config[1:-1], ",")
    values: dict[str, str] = {}
    for part in parts:
        key, sep, value = part.partition("=")
        if not sep:
            raise ScramError(f"No equals sign found in SCRAM component: {part}")
        if len(value) >= 2 and value.startswith('"') and value.endswith('"'):
            value = value[1:-1]
        values[key] = value
    return mechanism, values


def _given_salted_password(values: dict[str, str], salt: bytes | None) -> bytes:
    """``saltedpassword``, when the argument has no ``password``: it needs ``salt`` too."""
    if "saltedpassword" not in values:
        raise ScramError("You must supply one of 'password' or 'saltedpassword' to add-scram")
    if salt is None:
        raise ScramError("You must supply 'salt' with 'saltedpassword' to add-scram")
    try:
        return java_base64_decode(values["saltedpassword"])
    except IllegalArgumentException:
        raise ScramError(f"Failed to decode given saltedPassword: {values['saltedpassword']}") from None


def add_scram_name_problem(name: str) -> str | None:
    """Why Kafka's ScramParser cannot carry ``name`` in an --add-scram argument (None: it can).

    The parser splits the whole ``[...]`` at every comma (quotes do not protect one) and strips one
    pair of double quotes around a value; ``=`` and ``]`` inside the name are read back intact.
    """
    if "," in name:
        return ("Kafka's ScramParser splits --add-scram at every ',' (quotes do not protect it), so this "
                "name cannot be written; create the user with kafka-configs --alter --add-config or the "
                "AlterUserScramCredentials API instead")
    if len(name) >= 2 and name.startswith('"') and name.endswith('"'):
        return ("Kafka's ScramParser strips the double quotes around a value, so the credential would be "
                f"stored for {name[1:-1]!r}; create the user with kafka-configs or the AlterUserScramCredentials "
                "API instead")
    return None


def add_scram_argument(name: str, salted: bytes, credential: ScramCredential) -> str:
    """The ``--add-scram`` argument that recreates ``credential`` without the password (the salted
    password in it lets its holder log in: it is a secret too)."""
    problem = add_scram_name_problem(name)
    if problem is not None:
        raise ScramError(problem)
    return (f"{credential.mechanism.mechanism_name}=[name={name},iterations={credential.iterations},"
            f"salt=\"{b64(credential.salt)}\",saltedpassword=\"{b64(salted)}\"]")


def client_properties(mechanism: ScramMechanism, username: str, password: str) -> str:
    """A client's ``sasl.mechanism`` and ``sasl.jaas.config`` lines for this user: they hold the password.

    JAAS quoting (``\\"`` and ``\\\\``), then .properties escaping of the whole value: java.util.Properties
    turns ``\\\\`` back into ``\\`` and reads files as ISO-8859-1 (so non-ASCII goes as ``\\uXXXX``): the
    file logs in as the Java client and authz both read it.
    """
    from kafka_authz_cli._java import quote

    jaas = (f"org.apache.kafka.common.security.scram.ScramLoginModule required username={quote(username)} "
            f"password={quote(password)};")
    value = "".join(c if " " <= c <= "~" else "".join(f"\\u{u:04x}" for u in utf16_units(c))
                    for c in jaas.replace("\\", "\\\\"))
    return f"sasl.mechanism={mechanism.mechanism_name}\nsasl.jaas.config={value}\n"


# -- SASL names and messages ----------------------------------------------------------------------------

def sasl_name(username: str) -> str:
    return username.replace("=", "=3D").replace(",", "=2C")


def username_from_sasl_name(name: str) -> str:
    if re.search(r"=(?!2C|3D)", name):
        raise ScramError(f"Invalid username: {name}")
    return name.replace("=2C", ",").replace("=3D", "=")


# Kafka's server-side regexes (ScramMessages): ASCII-only sasl names, printable nonces.
_CLIENT_FIRST = re.compile(
    r"n,(?:a=(?P<authzid>(?:[\x01-\x2B\x2D-\x3C\x3E-\x7F]|=2C|=3D)+))?,"
    r"(?P<bare>n=(?P<saslname>(?:[\x01-\x2B\x2D-\x3C\x3E-\x7F]|=2C|=3D)+),r=(?P<nonce>[\x21-\x2B\x2D-\x7E]+)"
    r"(?P<extensions>(?:,[A-Za-z]+=[\x01-\x7F]*)*))")
_SERVER_FIRST = re.compile(r"r=(?P<nonce>[\x21-\x2B\x2D-\x7E]+),s=(?P<salt>[A-Za-z0-9+/]+={0,2}),i=(?P<iterations>[0-9]+)(?:,.*)?")
_CLIENT_FINAL = re.compile(r"c=(?P<channel>[A-Za-z0-9+/]+={0,2}),r=(?P<nonce>[\x21-\x2B\x2D-\x7E]+)(?:,.*)?,p=(?P<proof>[A-Za-z0-9+/]+={0,2})")
_SERVER_FINAL = re.compile(r"(?:e=(?P<error>[\x21-\x2B\x2D-\x7E]+)|v=(?P<signature>[A-Za-z0-9+/]+={0,2}))(?:,.*)?")


class ScramAuthError(ScramError):
    """A failed SCRAM step; ``str()`` is Kafka's SaslException message."""

    def __init__(self, message: str, diagnosis: str):
        super().__init__(message)
        self.diagnosis = diagnosis


def _xor(a: bytes, b: bytes) -> bytes:
    return bytes(x ^ y for x, y in zip(a, b))


class KafkaScramServer:
    """The broker side (``ScramSaslServer``): one conversation with a stored credential."""

    def __init__(self, mechanism: ScramMechanism, credentials: dict[str, ScramCredential], nonce: str | None = None):
        self.mechanism = mechanism
        self.credentials = credentials
        self.nonce_part = nonce or new_nonce()
        self.complete = False
        self.authorization_id: str | None = None

    def client_first(self, message: str) -> str:
        parsed = _CLIENT_FIRST.fullmatch(message)
        if parsed is None:
            raise ScramAuthError(f"Invalid SCRAM client first message format: {message}",
                                 "the broker accepts only ASCII user names in SCRAM (refused before any password check)")
        username = username_from_sasl_name(parsed["saslname"])
        if parsed["authzid"] and parsed["authzid"] != parsed["saslname"]:
            raise ScramAuthError("Authentication failed: Client requested an authorization id that is different "
                                 "from username", "the client asked for another authorization id")
        credential = self.credentials.get(username)
        if credential is None or credential.mechanism is not self.mechanism:
            raise ScramAuthError("Authentication failed: Invalid user credentials",
                                 f"the broker has no {self.mechanism.mechanism_name} credential for {username!r}")
        if credential.iterations < self.mechanism.min_iterations:
            raise ScramAuthError(f"Iterations {credential.iterations} is less than the minimum "
                                 f"{self.mechanism.min_iterations} for {self.mechanism.name}",
                                 "the stored credential has too few iterations: the broker refuses to use it")
        self._bare = parsed["bare"]
        self._credential = credential
        self._username = username
        self._nonce = parsed["nonce"] + self.nonce_part
        self._server_first = f"r={self._nonce},s={b64(credential.salt)},i={credential.iterations}"
        return self._server_first

    def client_final(self, message: str) -> str:
        final = _CLIENT_FINAL.fullmatch(message)
        if final is None:
            raise ScramAuthError(f"Invalid SCRAM client final message format: {message}", "malformed client final message")
        if final["nonce"] != self._nonce:
            raise ScramAuthError("Invalid client nonce in the final client message.", "the nonce was altered in transit")
        auth_message = f"{self._bare},{self._server_first},{message[:message.rindex(',p=')]}".encode()
        expected_signature = _hmac(self.mechanism, self._credential.stored_key, auth_message)
        proof = base64.b64decode(final["proof"])
        computed_key = _xor(proof, expected_signature)
        if len(proof) != len(expected_signature) or not std_hmac.compare_digest(
                _hash(self.mechanism, computed_key), self._credential.stored_key):
            raise ScramAuthError("Invalid client credentials",
                                 "the password does not match the stored credential (Kafka does no Unicode "
                                 "normalisation: check NFC/NFD forms, trailing spaces, the mechanism and iterations)")
        self.complete = True
        self.authorization_id = self._username
        return f"v={b64(_hmac(self.mechanism, self._credential.server_key, auth_message))}"


class KafkaScramClient:
    """The client side (``ScramSaslClient``)."""

    def __init__(self, mechanism: ScramMechanism, username: str, password: str | bytes | None,
                 nonce: str | None = None, extensions: dict[str, str] | None = None):
        self.mechanism = mechanism
        self.username = username
        self.password = password
        self.nonce = nonce or new_nonce()
        self.extensions = extensions or {}
        self.complete = False
        self.derived: dict[str, str] = {}

    def first(self) -> str:
        ext = "".join(f",{k}={v}" for k, v in self.extensions.items())
        self._bare = f"n={sasl_name(self.username)},r={self.nonce}{ext}"
        return "n,," + self._bare

    def final(self, server_first: str) -> str:
        parsed = _SERVER_FIRST.fullmatch(server_first)
        if parsed is None:
            raise ScramAuthError(f"Invalid SCRAM server first message format: {server_first}",
                                 "malformed server first message")
        iterations = int(parsed["iterations"])
        if iterations < self.mechanism.min_iterations:
            raise ScramAuthError(f"Requested iterations {iterations} is less than the minimum "
                                 f"{self.mechanism.min_iterations} for {self.mechanism.name}",
                                 "the server asked for too few iterations")
        if not parsed["nonce"].startswith(self.nonce):
            raise ScramAuthError("Invalid server nonce: does not start with client nonce",
                                 "the server nonce does not extend the client nonce")
        if self.password is None:
            raise ScramAuthError("User name could not be obtained", "the client has no password configured")
        salt = base64.b64decode(parsed["salt"])
        salted = salted_password(self.mechanism, _utf8(self.password), salt, iterations)
        ckey = client_key(self.mechanism, salted)
        without_proof = f"c=biws,r={parsed['nonce']}"
        auth_message = f"{self._bare},{server_first},{without_proof}"
        signature = _hmac(self.mechanism, stored_key(self.mechanism, ckey), auth_message.encode())
        proof = _xor(ckey, signature)
        self._expected = _hmac(self.mechanism, server_key(self.mechanism, salted), auth_message.encode())
        self.derived = {"auth_message": auth_message, "salted_password_b64": b64(salted),
                        "client_key_b64": b64(ckey), "stored_key_b64": b64(stored_key(self.mechanism, ckey)),
                        "server_key_b64": b64(server_key(self.mechanism, salted)),
                        "client_signature_b64": b64(signature), "client_proof_b64": b64(proof),
                        "server_signature_b64": b64(self._expected)}
        return f"{without_proof},p={b64(proof)}"

    def verify_server_final(self, message: str) -> None:
        parsed = _SERVER_FINAL.fullmatch(message)
        if parsed is None:
            raise ScramAuthError(f"Invalid SCRAM server final message format: {message}", "malformed server final")
        if parsed["error"]:
            raise ScramAuthError(f"Sasl authentication using {self.mechanism.mechanism_name} failed with error: "
                                 f"{parsed['error']}", "the server reported an error")
        if not std_hmac.compare_digest(base64.b64decode(parsed["signature"]), self._expected):
            raise ScramAuthError("Invalid server signature in server final message",
                                 "the server proved a different credential")
        self.complete = True


@dataclass
class TranscriptStep:
    sender: str  # client | server
    step: str  # client-first | server-first | client-final | server-final
    message: str


@dataclass
class ExchangeResult:
    ok: bool
    transcript: list[TranscriptStep]
    failed_at_step: int | None = None
    error: str | None = None
    #: Why, in words, for people debugging a failed login.
    diagnosis: str | None = None
    derived: dict = field(default_factory=dict)


def exchange(mechanism: ScramMechanism, username: str, password: str | None, server_credential: ScramCredential | None,
             client_nonce: str | None = None, server_nonce: str | None = None,
             client_mechanism: ScramMechanism | None = None, tamper: dict | None = None) -> ExchangeResult:
    """A whole conversation between Kafka's client and server, as a transcript.

    ``server_credential`` is what the broker stores for ``username`` (None: unknown user); the
    client may speak another mechanism (``client_mechanism``); ``tamper`` replaces a message in
    transit (``{"client-final": "..."}``) to see how the server reacts.
    """
    client = KafkaScramClient(client_mechanism or mechanism, username, password, client_nonce)
    credentials = {username: server_credential} if server_credential is not None else {}
    # The broker runs the mechanism the client asked for and looks the user up under it.
    server = KafkaScramServer(client.mechanism, credentials, server_nonce)
    tamper = tamper or {}
    steps: list[TranscriptStep] = []
    step_no = 0
    try:
        step_no = 1
        message = client.first()
        steps.append(TranscriptStep("client", "client-first", message))
        reply = server.client_first(tamper.get("client-first", message))
        steps.append(TranscriptStep("server", "server-first", reply))
        step_no = 2
        message = client.final(tamper.get("server-first", reply))
        steps.append(TranscriptStep("client", "client-final", message))
        step_no = 3
        reply = server.client_final(tamper.get("client-final", message))
        steps.append(TranscriptStep("server", "server-final", reply))
        step_no = 4
        client.verify_server_final(tamper.get("server-final", reply))
    except ScramAuthError as exc:
        return ExchangeResult(False, steps, step_no, str(exc), exc.diagnosis, client.derived)
    except ScramError as exc:
        return ExchangeResult(False, steps, step_no, str(exc), "the client's password is empty", client.derived)
    return ExchangeResult(True, steps, None, None, None, client.derived)
