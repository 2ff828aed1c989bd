#!/usr/bin/env bash
# `make demo`: what authz does, on the bundled examples, in well under a minute.
set -euo pipefail
BIN=${1:-.venv/bin}
cd "$(dirname "$0")/.."
export COLUMNS=${COLUMNS:-150}
step() { printf '\n\033[1m== %s\033[0m\n$ %s\n' "$1" "$2"; }

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
  [ -f "$extra" ] && BIN="$BIN" bash "$extra"
done
printf '\nMore: %s/authz --help\n' "$BIN"
