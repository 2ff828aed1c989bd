#!/usr/bin/env bash
# Part of `make demo`: fewer ACLs, provably deciding alike.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../demo-lib.sh"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
step "Fewer ACLs deciding every request alike: duplicates, shadowed and moot ACLs, proved by the exact diff" \
     "authz compact examples/compact/acls.json --super-users User:admin -o compacted.json"
"$BIN/authz" compact examples/compact/acls.json --super-users User:admin -o "$out/compacted.json"
step "With the cluster's names: literal grants merged into a prefix, the widening outside them stated" \
     "authz compact examples/compact/acls.json --super-users User:admin --names examples/compact/topics.txt --to kafka-acls -o compacted.acl"
"$BIN/authz" compact examples/compact/acls.json --super-users User:admin --names examples/compact/topics.txt \
     --to kafka-acls -o "$out/compacted.acl"
