"""Readers and writers of everything authz takes in or puts out (the only modules touching files)."""

from kafka_authz_cli.formats.acls import (  # noqa: F401
    ACL_FORMATS,
    AclSet,
    detect_format,
    dump_acls,
    load_acl_set,
    load_acls,
    parse_acls,
    read_text,
)
