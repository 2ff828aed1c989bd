#!/usr/bin/env bash
# Part of `make demo`: the Kroxylicious rules language.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../demo-lib.sh"
step "Lint a rules file: it loads on the proxy, but does not do what it says" "authz lint examples/rules/every-finding.acl"
"$BIN/authz" lint examples/rules/every-finding.acl || true
step "Decide with a rules file as the proxy would (an ACL test suite again)" \
     "authz simulate --rules examples/rules/multi-team.acl --requests examples/rules/requests.csv"
"$BIN/authz" simulate --rules examples/rules/multi-team.acl --requests examples/rules/requests.csv
step "Compile it to Kafka ACLs (deny READ also denies DESCRIBE: emitted explicitly)" \
     "authz compile examples/rules/virtual-cluster.acl --to kafka-acls"
"$BIN/authz" compile examples/rules/virtual-cluster.acl --to kafka-acls
