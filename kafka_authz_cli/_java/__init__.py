"""Java and Kafka parsing semantics, written once: the only place they are written.

Kafka reads its configuration with Java's own functions, and their edges differ from Python's. A value
authz reads must mean what it means to the broker or the client, so every such reading lives here,
tested against what Kafka itself did (tests/conformance/kafka-security):

``lang``        Java's exceptions, ``Integer.parseInt``, ``String.trim``, case mapping, ``String.length``,
                ``Base64.getDecoder()``, ``getBytes(UTF_8)``,
                ``ConfigDef``'s LIST type (``kafka_list``), ``split("\\s*,\\s*")``, ``List.toString``;
``configdef``   a config value as ``ConfigDef.parseType`` reads it (``Long.parseLong``,
                ``Double.parseDouble``, ...) and ``Range`` validators, with ``ConfigException``'s messages;
``jaas``        ``sasl.jaas.config`` as ``JaasConfig`` reads it (a port of ``java.io.StreamTokenizer``);
``properties``  ``.properties`` files as ``java.util.Properties`` reads them;
``regex``       ``java.util.regex`` translated onto Python's ``re`` (a package: the translator and
                Java's ``Matcher``).

Pure: no I/O. Other packages import what is listed here; nothing else in authz trims, splits lists,
parses integers, tokenizes JAAS or translates regexes.
"""

from typing import TYPE_CHECKING

from kafka_authz_cli import lazy_face

if TYPE_CHECKING:  # the names for type checkers and editors; at run time each is loaded on first use
    from kafka_authz_cli._java.configdef import (
        ConfigException,
        check_range,
        java_number_string,
        java_parse_double,
        java_parse_long,
        java_parse_short,
        parse_config_value,
        parse_number,
        range_bounds,
    )
    from kafka_authz_cli._java.jaas import JaasEntry, JaasError, client_login, parse_jaas_config, quote
    from kafka_authz_cli._java.lang import (
        IllegalArgumentException,
        IndexOutOfBoundsException,
        JavaException,
        NullPointerException,
        NumberFormatException,
        from_java_chars,
        is_blank,
        java_base64_decode,
        java_base64_encode,
        java_chars,
        java_double_string,
        java_list_string,
        java_lower,
        java_new_string_utf8,
        java_parse_int,
        java_split,
        java_trim,
        java_upper,
        java_utf8,
        kafka_list,
        split_at_commas,
        utf16_key,
        utf16_length,
        utf16_units,
    )
    from kafka_authz_cli._java.properties import UTF8_BOM_READ_AS_LATIN1, parse_properties, parse_properties_with_lines
    from kafka_authz_cli._java.regex import JavaPattern, JavaRegexUnsupported, PatternSyntaxException, compile_java

__getattr__, __all__ = lazy_face(__name__, {
    # lang
    "JavaException": "lang", "IllegalArgumentException": "lang", "IndexOutOfBoundsException": "lang",
    "NumberFormatException": "lang", "java_parse_int": "lang", "java_trim": "lang", "java_lower": "lang",
    "java_upper": "lang", "utf16_length": "lang", "utf16_key": "lang", "utf16_units": "lang", "java_chars": "lang",
    "from_java_chars": "lang", "is_blank": "lang", "split_at_commas": "lang", "java_split": "lang",
    "kafka_list": "lang", "java_list_string": "lang", "NullPointerException": "lang",
    "java_base64_decode": "lang", "java_base64_encode": "lang", "java_utf8": "lang", "java_new_string_utf8": "lang",
    "java_double_string": "lang",
    # jaas (quote: a JAAS option value, double-quoted so that it reads back unchanged)
    "JaasEntry": "jaas", "JaasError": "jaas", "client_login": "jaas", "parse_jaas_config": "jaas", "quote": "jaas",
    # configdef: a value as ConfigDef.parseType reads it, Range validators
    "ConfigException": "configdef", "check_range": "configdef", "java_number_string": "configdef",
    "java_parse_double": "configdef", "java_parse_long": "configdef", "java_parse_short": "configdef",
    "parse_config_value": "configdef", "parse_number": "configdef", "range_bounds": "configdef",
    # properties
    "parse_properties": "properties", "parse_properties_with_lines": "properties",
    "UTF8_BOM_READ_AS_LATIN1": "properties",
    # regex
    "compile_java": "regex", "JavaPattern": "regex", "JavaRegexUnsupported": "regex",
    "PatternSyntaxException": "regex",
})
