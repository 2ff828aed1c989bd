#!/usr/bin/env bash
# `make demo`: what authz does, on the bundled examples, in well under a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${1:-.venv/bin}
. examples/demo-lib.sh
export BIN DEMO_OUT=$OUT COLUMNS=${COLUMNS:-150}

step "One request, decided exactly as Kafka's StandardAuthorizer decides it" \
     "authz simulate examples/acls/cluster.json --principal User:analytics --operation Read --topic orders-audit --host 10.2.0.7"
"$BIN/authz" simulate examples/acls/cluster.json --principal User:analytics --operation Read --topic orders-audit --host 10.2.0.7

step "An ACL test suite: requests with an expected decision (exit 1 on any mismatch)" \
     "authz simulate examples/acls/cluster.json --requests examples/acls/requests.csv --broker-config examples/acls/server.properties"
"$BIN/authz" simulate examples/acls/cluster.json --requests examples/acls/requests.csv --broker-config examples/acls/server.properties

step "What may User:orders-svc do on topic orders-eu? (KIP-430 authorized operations)" \
     "authz simulate examples/acls/cluster.json --principal User:orders-svc --topic orders-eu --authorized-operations"
"$BIN/authz" simulate examples/acls/cluster.json --principal User:orders-svc --topic orders-eu --authorized-operations

step "The same ACLs as kafka-acls --list prints them" \
     "authz convert examples/acls/cluster.json --to kafka-acls | head -8"
out=$(mktemp)
"$BIN/authz" convert examples/acls/cluster.json --to kafka-acls > "$out"
head -8 "$out"; rm -f "$out"

for extra in examples/*/demo-part.sh; do
  [ -f "$extra" ] && bash "$extra"
done
printf '\nWhat the demo wrote is kept in %s/:\n' "$OUT"
(cd "$OUT" && find . -type f | sort | sed 's|^\./|  |')
printf '\nMore: %s/authz --help, and man authz (with %s on PATH)\n' "$BIN" "$BIN"
