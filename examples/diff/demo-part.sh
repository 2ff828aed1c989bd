#!/usr/bin/env bash
# Part of `make demo`: what an ACL change really does.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../demo-lib.sh"
step "Who gains or loses what with a proposed change (exact, with witnesses)" \
     "authz diff examples/diff/old.json examples/diff/new.json"
"$BIN/authz" diff examples/diff/old.json examples/diff/new.json
