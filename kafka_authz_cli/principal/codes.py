"""The PM finding codes of ``authz principal tls|kerberos --check`` (:mod:`.mapping_check`), as a registry.

Each code is one :class:`~kafka_authz_cli.codes.FindingCode`: its stable code and name, severity,
summary, the ``--explain`` text, and an example that produces exactly that code and no other. An
example is a dict: ``kind`` (``tls`` or ``kerberos``), ``rules`` (the ``ssl.principal.mapping.rules``
string, or the list of Kerberos rules), ``realm`` (Kerberos), ``names`` (the DNs or Kerberos names
checked) and ``super_users`` (principals, when the code needs them).
"""

from __future__ import annotations

from kafka_authz_cli.codes import CodeRegistry, FindingCode

NO_RULE_APPLIES = FindingCode(
    "PM001", "no-rule-applies", "error",
    "No rule maps this name: the broker fails principal building and closes the connection.",
    "Every rule was tried in order and none matched the name (a TLS rule must match the whole DN; a "
    "Kerberos rule must have the name's number of components and match its format), so Kafka throws "
    "NoMatchingRule; a Kerberos name that does not parse (an '@' in the wrong place) fails the same way. The TLS handshake or SASL authentication fails: the client never reaches the "
    "authorizer, whatever the ACLs say. Add a rule for these names, or end the list with DEFAULT.",
    {"kind": "tls", "rules": "RULE:^CN=([^,]*),OU=ops$/$1/", "names": ["CN=a,OU=ops", "CN=b,OU=dev"]},
)
MAPPING_THROWS = FindingCode(
    "PM002", "mapping-throws", "error",
    "A rule throws while mapping this name (a bad back reference, a non-simple Kerberos result ...): "
    "the connection fails.",
    "The rule matched, but applying it threw: a replacement naming a group the pattern does not have "
    "(after Kafka's escaping of literal references), a Kerberos format index outside the name's "
    "components, or a Kerberos result that still contains '/' or '@' (a non-simple name). Kafka does "
    "not go on to the next rule: the connection fails. Fix the rule so that its result is a plain "
    "name for every name it matches.",
    {"kind": "kerberos", "rules": ["RULE:[1:$1@$0](.*)s/@EXAMPLE.COM//"], "realm": "EXAMPLE.COM",
     "names": ["alice@EXAMPLE.COM", "bob@OTHER.COM"]},
)
NAMES_COLLAPSE = FindingCode(
    "PM003", "names-collapse", "warning",
    "Different names become the same principal: they share every ACL and cannot be told apart.",
    "Two or more of the names checked map to one principal. The authorizer, quotas and audit logs only "
    "see the principal, so these clients get each other's permissions and cannot be told apart. That "
    "is intended when several certificates belong to one service; otherwise keep more of the name in "
    "the rule's replacement.",
    {"kind": "tls", "rules": "RULE:^CN=([^,]*),.*$/$1/", "names": ["CN=a,OU=x", "CN=a,OU=y"]},
)
RULE_NEVER_FIRES = FindingCode(
    "PM004", "rule-never-fires", "warning",
    "A rule maps none of the names checked (or only names an earlier rule already took).",
    "No name checked was mapped by this rule: either it matches none of them, or every name it matches "
    "was already mapped by an earlier rule (the first rule that applies wins). It is dead for these "
    "names: a typo in its pattern, a rule in the wrong place, or names missing from the check.",
    {"kind": "tls", "rules": "RULE:^CN=(.*),OU=ops$/$1/,RULE:^CN=(.*),OU=dev$/$1/", "names": ["CN=a,OU=ops"]},
)
UNREACHABLE_AFTER_DEFAULT = FindingCode(
    "PM005", "unreachable-after-default", "warning",
    "A TLS rule after DEFAULT never applies: DEFAULT maps every DN.",
    "In ssl.principal.mapping.rules, DEFAULT maps every DN to itself, so the rules after it are never "
    "reached, whatever the names. Move DEFAULT to the end of the list. The rule set alone shows it: the "
    "example needs no name.",
    {"kind": "tls", "rules": "DEFAULT,RULE:^CN=(.*)$/$1/", "names": []},
)
DN_NOT_BROKER_FORM = FindingCode(
    "PM006", "dn-not-broker-form", "warning",
    "This DN is not the string the broker maps (X500Principal.getName(): RFC 2253, no spaces after "
    "commas, most specific RDN first, emailAddress as an OID with DER hex).",
    "The broker maps the JDK's RFC 2253 rendering of the certificate's subject, not the text written in "
    "the check: no spaces after commas or around '=', most specific RDN first (the reverse of OpenSSL's "
    "order), keywords only for CN, C, L, ST, O, OU, STREET, DC and UID (others as their OID and DER hex). "
    "A rule tested on another form may not match the real certificate. Map the subjects of the "
    "certificates themselves (--cert) or the DNs as the broker renders them (--normalize).",
    {"kind": "tls", "rules": "RULE:^CN=([^,]*).*$/$1/", "names": ["CN=a, O=b"]},
)
ANONYMOUS_OR_EMPTY = FindingCode(
    "PM007", "anonymous-or-empty", "warning",
    "The mapped principal is User:ANONYMOUS (the principal of unauthenticated PLAINTEXT clients) or "
    "empty: it shares ACLs it should not.",
    "The name maps to User:ANONYMOUS, the principal every unauthenticated client (PLAINTEXT, or TLS "
    "without a client certificate) gets, or to the empty name. Whatever ACLs exist for that principal "
    "apply to this authenticated client too, and the other way round. Make the rule produce a name of "
    "its own.",
    {"kind": "tls", "rules": "RULE:^CN=([^,]*),.*$/$1/", "names": ["CN=ANONYMOUS,O=x"]},
)
MAPS_TO_SUPER_USER = FindingCode(
    "PM008", "maps-to-super-user", "info",
    "The name maps to a super user: every ACL, DENY included, is bypassed for it.",
    "The principal this name becomes is in super.users (from --super-users or the broker's "
    "server.properties). The authorizer allows it every operation without looking at ACLs, DENY "
    "ones included. Worth a look when the name is not an administrator's.",
    {"kind": "tls", "rules": "RULE:^CN=([^,]*),.*$/$1/", "names": ["CN=admin,O=x"],
     "super_users": ["User:admin"]},
)
FULL_DN_PRINCIPAL = FindingCode(
    "PM009", "full-dn-principal", "info",
    "DEFAULT keeps the whole DN as the principal name: ACLs must spell it exactly (User:CN=...,O=...).",
    "These names were mapped by DEFAULT, which keeps the DN as it is: the principal is User: followed by "
    "the full RFC 2253 DN. ACLs must name it character for character, and a renewed certificate with "
    "another subject is another principal.",
    {"kind": "tls", "rules": "DEFAULT", "names": ["CN=a,O=x"]},
)
LITERAL_BACK_REFERENCE = FindingCode(
    "PM010", "literal-back-reference", "info",
    "The replacement names a group the pattern does not have: Kafka escapes it and emits '$n' "
    "literally (a second such reference is escaped one character early and may throw).",
    "Before String.replaceAll, Kafka escapes every $n whose group does not exist (dropping trailing "
    "digits first: $12 with one group is $1 then 2), so the principal contains '$n' as text. Its "
    "escaping has a position bug: a second such reference is escaped one character early, which can "
    "make the mapping throw. Use only the pattern's groups.",
    {"kind": "tls", "rules": "RULE:^CN=([^,]*),.*$/$1$2/", "names": ["CN=a,O=x"]},
)

CODES = CodeRegistry("PM", [
    NO_RULE_APPLIES, MAPPING_THROWS, NAMES_COLLAPSE, RULE_NEVER_FIRES, UNREACHABLE_AFTER_DEFAULT,
    DN_NOT_BROKER_FORM, ANONYMOUS_OR_EMPTY, MAPS_TO_SUPER_USER, FULL_DN_PRINCIPAL, LITERAL_BACK_REFERENCE,
])
