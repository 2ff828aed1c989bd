#!/usr/bin/env bash
# Part of `make demo`: KIP-226 dynamic broker configuration and the password encoder.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../demo-lib.sh"
step "Which value does broker 1 really use, and from where? (exit 1: some dynamic configs are ignored)" \
     "authz config resolve --broker-config examples/config/server.properties --dynamic examples/config/dynamic.json"
"$BIN/authz" config resolve --broker-config examples/config/server.properties --dynamic examples/config/dynamic.json || true
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
(umask 077; printf 'encoder-secret-for-the-demo\n' > "$out/encoder-secret")
step "Encode a dynamic password config as a ZooKeeper-mode broker stores it, then decode it (secrets from files/stdin)" \
     "printf 'keystore-pass\n' | authz config encode-password --broker-config examples/config/server.properties --secret-file encoder-secret --password-stdin"
encoded=$(printf 'keystore-pass\n' | "$BIN/authz" config encode-password --broker-config examples/config/server.properties \
     --secret-file "$out/encoder-secret" --password-stdin)
echo "$encoded"
printf 'keystore-pass\n' | "$BIN/authz" config decode-password "$encoded" --secret-file "$out/encoder-secret" \
     --expect-password-stdin
step "The same string with the wrong secret: Kafka's own error" \
     "printf 'wrong\n' | authz config decode-password ENCODED --secret-stdin"
printf 'wrong\n' | "$BIN/authz" config decode-password "$encoded" --secret-stdin | tail -1 || true
