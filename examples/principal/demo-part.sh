#!/usr/bin/env bash
# Part of `make demo`: how a connection becomes a principal (TLS and Kerberos mapping rules).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../demo-lib.sh"
step "Which principal does each client certificate become? (ssl.principal.mapping.rules, exactly as the broker)" \
     "authz principal tls --broker-config examples/principal/server.properties --names examples/principal/client-dns.txt --check"
"$BIN/authz" principal tls --broker-config examples/principal/server.properties \
     --names examples/principal/client-dns.txt --check || true
step "Kerberos names through sasl.kerberos.principal.to.local.rules" \
     "authz principal kerberos --broker-config examples/principal/server.properties --realm EXAMPLE.COM --names examples/principal/kerberos-names.txt"
"$BIN/authz" principal kerberos --broker-config examples/principal/server.properties --realm EXAMPLE.COM \
     --names examples/principal/kerberos-names.txt || true
step "Decide a request for a certificate: mapping first, then the ACLs" \
     "authz simulate examples/acls/cluster.json --broker-config examples/principal/server.properties --tls-dn 'CN=analytics,OU=ServiceUsers,O=Acme,C=US' --operation Read --topic orders-audit"
"$BIN/authz" simulate examples/acls/cluster.json --broker-config examples/principal/server.properties \
     --tls-dn 'CN=analytics,OU=ServiceUsers,O=Acme,C=US' --operation Read --topic orders-audit --host 10.2.0.7
