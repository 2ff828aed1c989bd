"""How a connection becomes a principal: Kafka's TLS and Kerberos name mapping, exactly.

* :class:`SslPrincipalMapper` is ``ssl.principal.mapping.rules`` (``SslPrincipalMapper``): the rule
  string is split and parsed with Kafka's own regexes, a rule fires when its pattern *matches the whole
  DN*, and then the DN goes through ``String.replaceAll`` (so every match is replaced, not only the
  whole-DN one), after Kafka's ``escapeLiteralBackReferences`` (with its position bug: a second
  out-of-range reference is escaped one character too early).
* :class:`KerberosShortNamer` is ``sasl.kerberos.principal.to.local.rules`` (``KerberosShortNamer`` /
  ``KerberosRule`` / ``KerberosName``): ``RULE:[n:format](match)s/from/to/g/L``, ``DEFAULT`` for the
  default realm only, names without a realm returned untouched, non-simple results refused.

Every outcome Kafka has is a value here: a mapped name, or the Java exception Kafka would throw
(:class:`~kafka_authz_cli._java.JavaException` with Kafka's class and message). Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kafka_authz_cli._java import (
    IllegalArgumentException,
    JavaException,
    JavaPattern,
    JavaRegexUnsupported,
    NumberFormatException,
    PatternSyntaxException,
    compile_java,
    java_list_string,
    java_lower,
    java_parse_int,
    java_trim,
    java_upper,
    kafka_list,
)
from kafka_authz_cli.errors import AuthzError

SSL_RULES_CONFIG = "ssl.principal.mapping.rules"
KERBEROS_RULES_CONFIG = "sasl.kerberos.principal.to.local.rules"
DEFAULT_SSL_RULES = "DEFAULT"


class NoMatchingRule(JavaException):
    """``SslPrincipalMapper$NoMatchingRule``: no rule maps this DN (the TLS handshake's principal
    building fails and the connection is closed)."""

    java_class = "org.apache.kafka.common.security.ssl.SslPrincipalMapper$NoMatchingRule"


class KerberosNoMatchingRule(JavaException):
    java_class = "org.apache.kafka.common.security.kerberos.NoMatchingRule"


class BadFormatString(JavaException):
    java_class = "org.apache.kafka.common.security.kerberos.BadFormatString"


class MappingRulesError(Exception):
    """A rule set the broker refuses at start-up (or one authz cannot reproduce exactly)."""

    def __init__(self, error: JavaException | JavaRegexUnsupported):
        self.error = error
        super().__init__(error.message if isinstance(error, JavaException) else str(error))

    @property
    def java(self) -> JavaException | None:
        return self.error if isinstance(self.error, JavaException) else None

    def as_dict(self) -> dict:
        if isinstance(self.error, JavaException):
            return self.error.as_dict()
        return {"class": None, "message": str(self.error), "unsupported": True}


def _first_rule_that_applies(rules, argument, original: str) -> "Mapping | None":
    """Both mappers' loop: the first rule whose ``apply`` gives a name, or the exception Kafka throws
    in a rule (which ends the mapping: the rules after it are never tried); None when no rule applies."""
    for i, rule in enumerate(rules):
        try:
            name = rule.apply(argument)
        except JavaException as exc:
            return Mapping(original, error=exc, rule_index=i, rule=str(rule))
        except JavaRegexUnsupported as exc:
            raise AuthzError(f"rule {i + 1} ({rule}): {exc}") from None
        if name is not None:
            return Mapping(original, name=name, rule_index=i, rule=str(rule))
    return None


@dataclass(frozen=True)
class Mapping:
    """The outcome of mapping one name: ``name`` or ``error``, and which rule decided."""

    input: str
    name: str | None = None
    error: JavaException | None = None
    #: index (0-based) of the rule that produced the name, or raised the error; None if none applied
    rule_index: int | None = None
    rule: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def principal(self) -> str | None:
        return None if self.name is None else f"User:{self.name}"


# -- TLS ------------------------------------------------------------------------------------------

_SSL_RULE_PATTERN = r"(DEFAULT)|RULE:((\\.|[^\\/])*)/((\\.|[^\\/])*)/([LU]?).*?|(.*?)"
_SSL_RULE_SPLITTER = compile_java(r"\s*(" + _SSL_RULE_PATTERN + r")\s*(,\s*|$)")
_SSL_RULE_PARSER = compile_java(_SSL_RULE_PATTERN)
_BACK_REFERENCE = compile_java(r"\$(\d+)")


def escape_literal_back_references(unescaped: str, group_count: int) -> str:
    """Kafka's ``Rule.escapeLiteralBackReferences`` (taken from Apache NiFi), bug for bug.

    ``$n`` naming a group that does not exist becomes ``\\$n`` (a literal), after dropping trailing
    digits while the number is above the group count (``$12`` with one group is ``$1`` then ``2``).
    The matcher runs over the *original* string while insertions shift the copy, so a second
    escape lands one character early."""
    if group_count == 0:
        return unescaped
    value = unescaped
    for m in _BACK_REFERENCE.find_all(unescaped):
        num = m.group(1)
        if num.startswith("0"):
            continue
        index = java_parse_int(num)
        while index > group_count and index >= 10:
            index //= 10
        if index > group_count:
            start = m.start(1)
            value = value[:start - 1] + "\\" + value[start - 1:]
    return value


@dataclass(frozen=True)
class SslRule:
    is_default: bool
    pattern: JavaPattern | None = None
    replacement: str | None = None
    to_lower: bool = False
    to_upper: bool = False
    #: the rule as written in the configuration (after splitting)
    text: str = ""

    def __str__(self) -> str:
        if self.is_default:
            return "DEFAULT"
        out = "RULE:"
        if self.pattern is not None:
            out += self.pattern.source
        if self.replacement is not None:
            out += "/" + self.replacement
        if self.to_lower:
            out += "/L"
        elif self.to_upper:
            out += "/U"
        return out

    def apply(self, dn: str) -> str | None:
        """The mapped name, None when the rule does not match; Java exceptions propagate."""
        if self.is_default:
            return dn
        assert self.pattern is not None and self.replacement is not None
        result = None
        if self.pattern.matches(dn):
            replacement = escape_literal_back_references(self.replacement, self.pattern.group_count)
            result = self.pattern.replace_all(dn, replacement)
        if self.to_lower and result is not None:
            result = java_lower(result)
        elif self.to_upper and result is not None:
            result = java_upper(result)
        return result


def split_ssl_rules(rules: str | None) -> list[str]:
    """``SslPrincipalMapper.splitRules``: the rule strings Kafka sees (empty ones are dropped later)."""
    if rules is None:
        rules = DEFAULT_SSL_RULES
    return [m.group(1) for m in _SSL_RULE_SPLITTER.find_all(java_trim(rules))]


@dataclass(frozen=True)
class SslPrincipalMapper:
    rules: tuple[SslRule, ...]
    source: str | None = None

    @classmethod
    def from_rules(cls, rules: str | None) -> "SslPrincipalMapper":
        """Parse as Kafka does; raises :class:`MappingRulesError` with Kafka's exception."""
        parsed: list[SslRule] = []
        for rule in split_ssl_rules(rules):
            m = _SSL_RULE_PARSER.looking_at(rule)
            if m is None:
                raise MappingRulesError(IllegalArgumentException(f"Invalid rule: {rule}"))
            if len(rule) != m.end():
                raise MappingRulesError(IllegalArgumentException(
                    f"Invalid rule: `{rule}`, unmatched substring: `{rule[m.end():]}`"))
            if m.group(1) is not None:
                parsed.append(SslRule(True, text=rule))
            elif m.group(2) is not None:
                try:
                    pattern = compile_java(m.group(2))
                except (PatternSyntaxException, JavaRegexUnsupported) as exc:
                    raise MappingRulesError(exc) from None
                parsed.append(SslRule(False, pattern, m.group(4), m.group(6) == "L", m.group(6) == "U", text=rule))
            # an empty rule (group 7) is ignored
        return cls(tuple(parsed), rules)

    def __str__(self) -> str:
        return f"SslPrincipalMapper(rules = {java_list_string(self.rules)})"

    def map(self, dn: str) -> Mapping:
        """``getName(dn)`` as a value: the name, or the exception Kafka throws."""
        return _first_rule_that_applies(self.rules, dn, dn) or Mapping(dn, error=NoMatchingRule(f"No rules apply to {dn}, rules {java_list_string(self.rules)}"))


# -- Kerberos -------------------------------------------------------------------------------------

_KRB_RULE_PARSER = compile_java(
    r"((DEFAULT)|((RULE:\[(\d*):([^\]]*)](\(([^)]*)\))?(s/([^/]*)/([^/]*)/(g)?)?/?(L|U)?)))")
_KRB_PARAMETER = compile_java(r"([^$]*)(\$(\d*))?")
_KRB_NON_SIMPLE = compile_java(r"[/@]")
_KRB_NAME_PARSER = compile_java(r"([^/@]*)(/([^/@]*))?@([^/@]*)")


@dataclass(frozen=True)
class KerberosName:
    service_name: str
    host_name: str | None = None
    realm: str | None = None

    @classmethod
    def parse(cls, principal: str) -> "KerberosName":
        """``KerberosName.parse``; raises IllegalArgumentException for a malformed name with ``@``."""
        m = _KRB_NAME_PARSER.matches(principal)
        if m is None:
            if "@" in principal:
                raise IllegalArgumentException(f"Malformed Kerberos name: {principal}")
            return cls(principal)
        return cls(m.group(1), m.group(3), m.group(4))

    def __str__(self) -> str:
        out = self.service_name
        if self.host_name is not None:
            out += "/" + self.host_name
        if self.realm is not None:
            out += "@" + self.realm
        return out


def replace_parameters(fmt: str, params: list[str]) -> str:
    """``KerberosRule.replaceParameters``: ``$n`` in the ``[n:format]`` part."""
    start = 0
    out: list[str] = []
    while start < len(fmt):
        m = _KRB_PARAMETER.regex.search(fmt, start)
        if m is None:
            break
        out.append(m.group(1))
        num = m.group(3)
        if num is not None:
            try:
                n = java_parse_int(num)
            except NumberFormatException as nfe:
                raise BadFormatString(f"bad format in username mapping in {num}", nfe) from None
            if n < 0 or n >= len(params):
                raise BadFormatString(f"index {n} from {fmt} is outside of the valid range 0 to {len(params) - 1}")
            out.append(params[n])
        start = m.end()
    return "".join(out)


@dataclass(frozen=True)
class KerberosRule:
    default_realm: str
    is_default: bool
    num_components: int = 0
    format: str | None = None
    match: JavaPattern | None = None
    from_pattern: JavaPattern | None = None
    to_pattern: str | None = None
    repeat: bool = False
    to_lower: bool = False
    to_upper: bool = False
    text: str = ""

    def __str__(self) -> str:
        if self.is_default:
            return "DEFAULT"
        out = f"RULE:[{self.num_components}:{self.format}]"
        if self.match is not None:
            out += f"({self.match.source})"
        if self.from_pattern is not None:
            out += f"s/{self.from_pattern.source}/{self.to_pattern}/"
            if self.repeat:
                out += "g"
        if self.to_lower:
            out += "/L"
        if self.to_upper:
            out += "/U"
        return out

    def apply(self, params: list[str]) -> str | None:
        result = None
        if self.is_default:
            if self.default_realm == params[0]:
                result = params[1]
        elif len(params) - 1 == self.num_components:
            base = replace_parameters(self.format or "", params)
            if self.match is None or self.match.matches(base):
                if self.from_pattern is None:
                    result = base
                elif self.repeat:
                    result = self.from_pattern.replace_all(base, self.to_pattern or "")
                else:
                    result = self.from_pattern.replace_first(base, self.to_pattern or "")
        if result is not None and _KRB_NON_SIMPLE.find(result):
            raise KerberosNoMatchingRule(f"Non-simple name {result} after auth_to_local rule {self}")
        if self.to_lower and result is not None:
            result = java_lower(result)
        elif self.to_upper and result is not None:
            result = java_upper(result)
        return result


def split_kerberos_rules_config(value: str) -> list[str]:
    """The LIST-type config value as Kafka's ``ConfigDef`` splits it (``\\s*,\\s*``, keeping empties)."""
    return kafka_list(value)


def _kerberos_rule_parses(rule: str) -> bool:
    """``KerberosShortNamer.parseRules`` accepts ``rule`` as it is (the grammar; not its regexes)."""
    m = _KRB_RULE_PARSER.looking_at(rule)
    return m is not None and m.end() == len(rule)


def kerberos_rules_value_form(value: str) -> tuple[str, list[str]]:
    """What one rule given on the command line is: ``("rule", [value])``; ``("property", rules)``
    when it is the whole ``sasl.kerberos.principal.to.local.rules`` value as Kafka's docs write it
    (``RULE:...,RULE:...,DEFAULT``: split at the commas it is a list of valid rules, and as one rule
    it is not); ``("comma-rule", [value])`` for one valid rule with a comma inside (the property
    cannot hold it: Kafka's ConfigDef splits a LIST at every comma); ``("neither", rules)`` when it
    is no rule and its comma-split has an invalid item (``rules`` is the split, what the broker
    would read). Both readings can never be valid at once: a comma inside a rule always sits in a
    ``[...]``, ``(...)`` or ``s/.../.../`` part that its first comma-split item leaves unclosed."""
    if "," not in value:
        return "rule", [value]
    whole = _kerberos_rule_parses(value)
    items = kafka_list(value)
    if all(_kerberos_rule_parses(item) for item in items):
        return "property", items
    return ("comma-rule" if whole else "neither"), ([value] if whole else items)


@dataclass(frozen=True)
class KerberosShortNamer:
    rules: tuple[KerberosRule, ...]
    default_realm: str = ""
    source: tuple[str, ...] | None = field(default=None, compare=False)

    @classmethod
    def from_rules(cls, default_realm: str, rules: list[str] | None) -> "KerberosShortNamer":
        """``fromUnparsedRules``: None means unset (``[DEFAULT]``)."""
        texts = ["DEFAULT"] if rules is None else list(rules)
        parsed: list[KerberosRule] = []
        for rule in texts:
            m = _KRB_RULE_PARSER.looking_at(rule)
            if m is None:
                raise MappingRulesError(IllegalArgumentException(f"Invalid rule: {rule}"))
            if len(rule) != m.end():
                raise MappingRulesError(IllegalArgumentException(
                    f"Invalid rule: `{rule}`, unmatched substring: `{rule[m.end():]}`"))
            if m.group(2) is not None:
                parsed.append(KerberosRule(default_realm, True, text=rule))
                continue
            try:
                n = java_parse_int(m.group(5))
                match = None if m.group(8) is None else compile_java(m.group(8))
                from_pattern = None if m.group(10) is None else compile_java(m.group(10))
            except (JavaException, JavaRegexUnsupported) as exc:
                raise MappingRulesError(exc) from None
            parsed.append(KerberosRule(default_realm, False, n, m.group(6), match, from_pattern, m.group(11),
                                       m.group(12) == "g", m.group(13) == "L", m.group(13) == "U", text=rule))
        return cls(tuple(parsed), default_realm, tuple(texts))

    def __str__(self) -> str:
        return f"KerberosShortNamer(principalToLocalRules = {java_list_string(self.rules)})"

    def map_name(self, name: KerberosName, original: str | None = None) -> Mapping:
        original = str(name) if original is None else original
        if name.host_name is None:
            if name.realm is None:
                return Mapping(original, name=name.service_name)
            params = [name.realm, name.service_name]
        else:
            # parse() never builds a host without a realm; Kafka would compare null with the realm.
            params = [name.realm or "", name.service_name, name.host_name]
        return _first_rule_that_applies(self.rules, params, original) or Mapping(original, error=KerberosNoMatchingRule(
            f"No rules apply to {name}, rules {java_list_string(self.rules)}"))

    def map(self, principal: str) -> Mapping:
        """``KerberosName.parse`` then ``shortName``: the short name or Kafka's exception."""
        try:
            name = KerberosName.parse(principal)
        except IllegalArgumentException as exc:
            return Mapping(principal, error=exc)
        return self.map_name(name, principal)


# -- what the broker does around the mappers -------------------------------------------------------


def ssl_broker_error(dn: str, error: JavaException) -> str:
    """``DefaultKafkaPrincipalBuilder``: the KafkaException wrapping a mapping failure."""
    return f"Failed to map name for '{dn}' based on SSL principal mapping rules."


def kerberos_broker_error(name: str, error: JavaException) -> str:
    return f"Failed to set name for '{name}' based on Kerberos authentication rules."


def listener_key(key: str, listener: str | None, mechanism: str | None = None) -> list[str]:
    """Where a broker looks for ``key``: ``listener.name.<l>.[<mech>.]key`` first, then ``key``."""
    keys = []
    if listener:
        prefix = f"listener.name.{listener.lower()}."
        if mechanism:
            keys.append(prefix + mechanism.lower() + "." + key)
        keys.append(prefix + key)
    keys.append(key)
    return keys


def rules_from_config(props: dict[str, str], key: str, listener: str | None = None) -> tuple[str | None, str | None]:
    """The configured value of ``key`` for a listener and the property it came from (None if unset)."""
    for k in listener_key(key, listener):
        if k in props:
            return props[k], k
    return None, None
