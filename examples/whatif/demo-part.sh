#!/usr/bin/env bash
# Part of `make demo`: whose real traffic would a proposed ACL change break? (local Spark)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../demo-lib.sh"
out=$(demo_out whatif)
step "Replay audit logs (several formats, a rotation, a gzipped file) against a proposal, on local Spark" \
     "authz whatif --logs examples/whatif/logs --proposed examples/whatif/proposed.json --current examples/whatif/current.json --spark --out $out --report $out/report.html"
"$BIN/authz" whatif --logs examples/whatif/logs --proposed examples/whatif/proposed.json \
    --current examples/whatif/current.json --spark --out "$out" --report "$out/report.html" 2> >(grep -v -E "WARN|log4j|setLogLevel" >&2)
printf 'kept: %s (open it in a browser), and in %s/:\n' "$out/report.html" "$out"
ls "$out" | grep -v '^report.html$' | sed 's/^/  /'
