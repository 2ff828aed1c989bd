#!/usr/bin/env bash
# Part of `make demo`: KIP-458 connector client config overrides.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../demo-lib.sh"
step "Which overrides does the worker's Principal policy allow, who does the connector connect as, and do its ACLs suffice?" \
     "authz connect check-overrides examples/connect/orders-sink.json --worker examples/connect/worker.properties --acls examples/connect/acls.json"
"$BIN/authz" connect check-overrides examples/connect/orders-sink.json --worker examples/connect/worker.properties \
     --acls examples/connect/acls.json || true
