#!/usr/bin/env bash
# Part of `make demo`: the smallest ACL set a window of audit logs shows two services need, with the proof.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../demo-lib.sh"
out=$(demo_out generate)
step "Least privilege from observed traffic: prefixes only where they reach no other known topic or group, proven by replay, and what it takes away from today's ACLs" \
     "authz generate --logs examples/generate/kafka-authorizer.log --names examples/generate/names.txt --current examples/generate/current.json --to kafka-acls -o $out/generated.acl"
"$BIN/authz" generate --logs examples/generate/kafka-authorizer.log --names examples/generate/names.txt \
    --current examples/generate/current.json --to kafka-acls -o "$out/generated.acl"
