#!/usr/bin/env bash
# Part of `make demo`: KIP-458 connector client config overrides.
set -euo pipefail
BIN=${BIN:-.venv/bin}
step() { printf '\n\033[1m== %s\033[0m\n$ %s\n' "$1" "$2"; }
step "Which overrides does the worker's Principal policy allow, who does the connector connect as, and do its ACLs suffice?" \
     "authz connect check-overrides examples/connect/orders-sink.json --worker examples/connect/worker.properties --acls examples/connect/acls.json"
"$BIN/authz" connect check-overrides examples/connect/orders-sink.json --worker examples/connect/worker.properties \
     --acls examples/connect/acls.json || true
