#!/usr/bin/env bash
# Part of `make demo`: whose real traffic would a proposed ACL change break? (local Spark)
set -euo pipefail
BIN=${BIN:-.venv/bin}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
printf '\n\033[1m== %s\033[0m\n$ %s\n' "Replay audit logs (several formats, a rotation, a gzipped file) against a proposal, on local Spark" \
       "authz whatif --logs examples/whatif/logs --proposed examples/whatif/proposed.json --current examples/whatif/current.json --spark --report report.html"
"$BIN/authz" whatif --logs examples/whatif/logs --proposed examples/whatif/proposed.json \
    --current examples/whatif/current.json --spark --out "$out/whatif" --report "$out/report.html" 2> >(grep -v -E "WARN|log4j|setLogLevel" >&2)
ls "$out/whatif" | sed 's/^/  out: /'
