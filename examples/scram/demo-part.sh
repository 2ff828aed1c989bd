#!/usr/bin/env bash
# Part of `make demo`: SCRAM credentials, computed offline exactly as Kafka stores them.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../demo-lib.sh"
out=$(demo_out scram)
step "A SCRAM credential for kafka-storage format (the password is read from stdin, never printed)" \
     "printf 'demo-password\n' | authz scram create-user --user alice --password-stdin --format kafka-storage"
printf 'demo-password\n' | "$BIN/authz" scram create-user --user alice --password-stdin --format kafka-storage
step "The same user's credential record, kept for the next step (created 0600)" \
     "printf 'demo-password\n' | authz scram create-user --user alice --mechanism SCRAM-SHA-256 --password-stdin --format json -o $out/alice.json"
printf 'demo-password\n' | "$BIN/authz" scram create-user --user alice --mechanism SCRAM-SHA-256 --password-stdin --format json -o "$out/alice.json"
step "Why does a login fail? Replay the conversation with a wrong password" \
     "printf 'wrong\n' | authz scram exchange --user alice --record $out/alice.json --password-stdin --client-nonce democlientnonce --server-nonce demoservernonce"
printf 'wrong\n' | "$BIN/authz" scram exchange --user alice --record "$out/alice.json" --password-stdin \
     --client-nonce democlientnonce --server-nonce demoservernonce || true
step "Bulk: three users with generated passwords (written only to a 0600 file)" \
     "authz scram create-users --input examples/scram/users.csv --generate --generated-passwords $out/pw.csv -o $out/creds.jsonl"
"$BIN/authz" scram create-users --input examples/scram/users.csv --generate --generated-passwords "$out/pw.csv" -o "$out/creds.jsonl"
ls -l "$out/pw.csv" "$out/creds.jsonl" | awk '{print $1, $NF}'
