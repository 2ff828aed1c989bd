#!/usr/bin/env bash
# Part of `make demo`: what an ACL change really does.
set -euo pipefail
BIN=${BIN:-.venv/bin}
printf '\n\033[1m== %s\033[0m\n$ %s\n' "Who gains or loses what with a proposed change (exact, with witnesses)" \
       "authz diff examples/diff/old.json examples/diff/new.json"
"$BIN/authz" diff examples/diff/old.json examples/diff/new.json
