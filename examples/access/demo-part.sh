#!/usr/bin/env bash
# Part of `make demo`: who can do what, exactly, and the same as an HTML matrix.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../demo-lib.sh"
out=$(demo_out access)
step "Who can read or write topic orders-eu, and why (the deciding ACL and where it is written)" \
     "authz access examples/whatif/proposed.json --topic orders-eu"
"$BIN/authz" access examples/whatif/proposed.json --topic orders-eu
step "Every topic starting with orders, as a principal x resource matrix to open in a browser" \
     "authz access examples/whatif/proposed.json --resource-prefix orders --format html -o $out/access.html"
"$BIN/authz" access examples/whatif/proposed.json --resource-prefix orders --format html -o "$out/access.html"
