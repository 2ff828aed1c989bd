"""The Kroxylicious ACL rules language: parse, check, decide, lint, compile to Kafka ACLs and back."""
