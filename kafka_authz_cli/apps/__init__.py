"""Applications, not requests: will an application work with these ACLs, and what exactly does it need?

Two layers. Layer 1 (``api_requests`` and its ``handlers_*``) checks one client request as the broker's
handler for its type does (``KafkaApis``, ``AuthHelper``, the coordinators', ``ControllerApis``): every
authorization in order with the engine's decision, which denials fail the request, which fail one
resource and which only leave something out, and the error codes the client gets; ``bytype`` is
``authorizeByResourceType``; ``calls`` the types; ``versions`` the Kafka releases covered.

Layer 2: ``clientconfig`` reads an application's client configuration as the Java clients read it (and
who it connects as); ``catalogue`` expands each kind of application into the client calls it makes and
the requests behind each call (``catalogue_streams`` for Kafka Streams, ``catalogue_connect`` for Kafka
Connect; ``kinds`` is the catalogue's list); ``verdict`` runs an application's calls through layer 1 and says where it
fails, with the exception the real client surfaces; ``minimal`` derives the smallest ACL set that makes it
work, with the proof.

Pure: no terminal, no network. Decisions come from the ACL engine (``kafka_authz_cli.acl``).
"""

from typing import TYPE_CHECKING

from kafka_authz_cli import lazy_face

if TYPE_CHECKING:  # the names for type checkers and editors; at run time each is loaded on first use
    from kafka_authz_cli.apps.api_requests import HANDLERS, NEEDS, UnknownApi, canonical_api, handle
    from kafka_authz_cli.apps.bytype import authorize_by_resource_type
    from kafka_authz_cli.apps.calls import ApiRequest, Call, Caller, Check, Cluster, OnDeny
    from kafka_authz_cli.apps.catalogue import AppSpec, SpecError, Step, Workflow
    from kafka_authz_cli.apps.clientconfig import ClientConfig, ClientConfigError
    from kafka_authz_cli.apps.kinds import KINDS
    from kafka_authz_cli.apps.minimal import prove, repair
    from kafka_authz_cli.apps.verdict import Verdict, evaluate
    from kafka_authz_cli.apps.versions import COVERED, DEFAULT, KafkaVersion, VersionError

__getattr__, __all__ = lazy_face(__name__, {
    "ApiRequest": "calls", "Call": "calls", "Caller": "calls", "Check": "calls", "Cluster": "calls",
    "OnDeny": "calls",
    "HANDLERS": "api_requests", "NEEDS": "api_requests", "UnknownApi": "api_requests", "canonical_api": "api_requests",
    "handle": "api_requests",
    "authorize_by_resource_type": "bytype",
    "COVERED": "versions", "DEFAULT": "versions", "KafkaVersion": "versions", "VersionError": "versions",
    "ClientConfig": "clientconfig", "ClientConfigError": "clientconfig",
    "AppSpec": "catalogue", "SpecError": "catalogue", "Step": "catalogue", "Workflow": "catalogue",
    "KINDS": "kinds", "Verdict": "verdict", "evaluate": "verdict", "prove": "minimal", "repair": "minimal",
})
