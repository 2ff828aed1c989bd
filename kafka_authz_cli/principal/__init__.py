"""How a connection becomes a principal: Kafka's TLS and Kerberos name mapping, and checks of it.

``mapping`` is ``ssl.principal.mapping.rules`` (``SslPrincipalMapper``) and
``sasl.kerberos.principal.to.local.rules`` (``KerberosShortNamer``) exactly as the broker applies them,
every outcome a value (a name, or the exception Kafka throws); ``x500`` is the DN string the broker
really maps (``X500Principal.getName()``, from a certificate's DER or a DN written by hand); ``mapping_check``
lints a rule set against the names it will meet, with the PM codes of ``codes``; ``mapping_files`` reads name
lists, certificates and the rules and super users of a server.properties.

Pure but for ``mapping_files``, which reads the files it is given: no terminal, no network. Other packages
import what is listed here.
"""

from typing import TYPE_CHECKING

from kafka_authz_cli import lazy_face

if TYPE_CHECKING:  # the names for type checkers and editors; at run time each is loaded on first use
    from kafka_authz_cli.principal.codes import CODES
    from kafka_authz_cli.principal.mapping import (
        KERBEROS_RULES_CONFIG,
        SSL_RULES_CONFIG,
        KerberosName,
        KerberosShortNamer,
        Mapping,
        MappingRulesError,
        SslPrincipalMapper,
        kerberos_broker_error,
        kerberos_rules_value_form,
        listener_key,
        rules_from_config,
        split_kerberos_rules_config,
        ssl_broker_error,
    )
    from kafka_authz_cli.principal.mapping_check import CheckFinding, CheckReport, NameInput, check_kerberos, check_tls
    from kafka_authz_cli.principal.mapping_files import (
        ConfiguredRules,
        read_cert_subjects,
        read_names,
        rules_from_broker_config,
        super_users_from_broker_config,
    )
    from kafka_authz_cli.principal.x500 import DnError, dn_form_problems, normalize_dn, rfc2253_from_der

__getattr__, __all__ = lazy_face(__name__, {
    # mapping
    "SslPrincipalMapper": "mapping", "KerberosShortNamer": "mapping", "KerberosName": "mapping",
    "Mapping": "mapping", "MappingRulesError": "mapping", "SSL_RULES_CONFIG": "mapping",
    "KERBEROS_RULES_CONFIG": "mapping", "split_kerberos_rules_config": "mapping",
    "kerberos_rules_value_form": "mapping", "ssl_broker_error": "mapping",
    "kerberos_broker_error": "mapping", "listener_key": "mapping", "rules_from_config": "mapping",
    # x500
    "DnError": "x500", "normalize_dn": "x500", "rfc2253_from_der": "x500", "dn_form_problems": "x500",
    # mapping_check and its codes
    "CheckFinding": "mapping_check", "CheckReport": "mapping_check", "NameInput": "mapping_check",
    "check_kerberos": "mapping_check", "check_tls": "mapping_check", "CODES": "codes",
    # mapping_files
    "ConfiguredRules": "mapping_files", "read_cert_subjects": "mapping_files", "read_names": "mapping_files",
    "rules_from_broker_config": "mapping_files", "super_users_from_broker_config": "mapping_files",
})
