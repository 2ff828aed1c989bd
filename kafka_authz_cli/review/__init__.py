"""Access review: the answers a Kafka security team is asked for, from the exact engine, the exact
decision diff and the replay of real traffic.

``access``: who can do what (effective permissions per resource or per principal, with the deciding
ACLs and the reason); ``unused``: grants nobody exercised in a window of audit logs; ``generate``: the
smallest ACL set that allows what a window of traffic did and nothing it shows denied; ``compact``:
fewer ACLs that decide every request alike.

Pure: no terminal, no network, no Spark. Above ``whatif`` (it reads its aggregates) and ``acl``;
below the services.
"""

from typing import TYPE_CHECKING

from kafka_authz_cli import lazy_face

if TYPE_CHECKING:  # the names for type checkers and editors; at run time each is loaded on first use
    from kafka_authz_cli.review.access import AccessReview, Grant, ResourceAccess, covered
    from kafka_authz_cli.review.access_html import render_access_html
    from kafka_authz_cli.review.access_scope import (
        access_document,
        access_json,
        merged_principal_access,
        name_classes,
        prefix_classes,
        principal_access,
    )
    from kafka_authz_cli.review.compact import Compaction, Merge, Removal, RemovalReason, compact_acls
    from kafka_authz_cli.review.generate import (
        WIDENINGS,
        Generated,
        GenerateOptions,
        InferredPrefix,
        least_privilege,
        parse_known_names,
        prove,
        widening_text,
    )
    from kafka_authz_cli.review.unused import (
        BindingUse,
        Evidence,
        PrincipalSeen,
        SourceTally,
        UnusedReport,
        Visibility,
        in_window,
        review_unused,
        visibility,
    )

__getattr__, __all__ = lazy_face(__name__, {
    "render_access_html": "access_html",
    # generate: least privilege from observed traffic
    "GenerateOptions": "generate", "Generated": "generate", "InferredPrefix": "generate", "WIDENINGS": "generate",
    "least_privilege": "generate", "parse_known_names": "generate", "prove": "generate", "widening_text": "generate",
    # access: effective permissions
    "AccessReview": "access", "Grant": "access", "ResourceAccess": "access", "covered": "access",
    "access_document": "access_scope", "access_json": "access_scope", "name_classes": "access_scope",
    "prefix_classes": "access_scope", "principal_access": "access_scope", "merged_principal_access": "access_scope",
    # unused: grants nobody exercised
    "BindingUse": "unused", "Evidence": "unused", "PrincipalSeen": "unused", "SourceTally": "unused",
    "UnusedReport": "unused", "Visibility": "unused", "in_window": "unused", "review_unused": "unused",
    "visibility": "unused",
    # compact
    "Compaction": "compact", "Merge": "compact", "Removal": "compact", "RemovalReason": "compact",
    "compact_acls": "compact",
})
