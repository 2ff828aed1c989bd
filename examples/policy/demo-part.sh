#!/usr/bin/env bash
# Part of `make demo`: a KIP-201 topic management policy, combined with the ACLs.
set -euo pipefail
BIN=${BIN:-.venv/bin}
step() { printf '\n\033[1m== %s\033[0m\n$ %s\n' "$1" "$2"; }
step "Topic create/alter/delete requests: authorized by the ACLs, then allowed by the KIP-201 policy?" \
     "authz policy check examples/policy/requests.jsonl --policy examples/policy/topic-policy.json --cluster-state examples/policy/cluster-state.json --acls examples/policy/acls.json --super-users User:admin"
"$BIN/authz" policy check examples/policy/requests.jsonl --policy examples/policy/topic-policy.json \
     --cluster-state examples/policy/cluster-state.json --acls examples/policy/acls.json --super-users User:admin
