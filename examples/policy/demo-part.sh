#!/usr/bin/env bash
# Part of `make demo`: a KIP-201 topic management policy, combined with the ACLs.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../demo-lib.sh"
step "Topic create/alter/delete requests: authorized by the ACLs, then allowed by the KIP-201 policy?" \
     "authz policy check examples/policy/requests.jsonl --policy examples/policy/topic-policy.json --cluster-state examples/policy/cluster-state.json --acls examples/policy/acls.json --super-users User:admin"
"$BIN/authz" policy check examples/policy/requests.jsonl --policy examples/policy/topic-policy.json \
     --cluster-state examples/policy/cluster-state.json --acls examples/policy/acls.json --super-users User:admin
