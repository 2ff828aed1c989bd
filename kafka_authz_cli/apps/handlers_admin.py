"""Layer 1, administration: topics, configs, ACLs, quotas, SCRAM users, tokens and the cluster, as Kafka
4.1 checks them. In KRaft mode the broker forwards most of these to the controller in the client's name
(an envelope), and ``kafka.server.ControllerApis`` makes the checks with the same ACLs (the metadata
log's); the rest are ``KafkaApis``', ``ConfigHelper``'s and ``AclApis``' (a 3.x ZooKeeper broker makes
the same checks in ``KafkaApis`` and ``ZkAdminManager``).
"""

from __future__ import annotations

from kafka_authz_cli.acl import CLUSTER_NAME, AclOperation, ResourceType
from kafka_authz_cli.apps.calls import ApiRequest, OnDeny, Recorder
from kafka_authz_cli.apps.handlers_data import TOPIC, TOPIC_FAILED, UNKNOWN_TOPIC
from kafka_authz_cli.apps.handlers_groups import CLUSTER_FAILED, GROUP_FAILED, _require


def create_topics(r: Recorder, q: ApiRequest) -> None:
    # ControllerApis.handleCreateTopics / createTopics: CREATE on the cluster (a denial not logged), else
    # CREATE on each topic (TOPIC_AUTHORIZATION_FAILED per topic); DESCRIBE_CONFIGS on each topic (a
    # denial not logged) only decides whether the answer carries the topic's configs (KIP-525).
    if r.authorize_cluster(AclOperation.CREATE, OnDeny.FALLBACK, None, "create topics: CREATE on the cluster, "
                           "else on each topic", log_if_denied=False):
        allowed = list(q.topics)
    else:
        allowed = r.filter(AclOperation.CREATE, TOPIC, q.topics, OnDeny.RESOURCE, TOPIC_FAILED, "create the topic")
    for topic in dict.fromkeys(q.topics):
        if topic not in allowed:
            r.call.resource_errors[topic] = TOPIC_FAILED
        elif r.cluster.exists(topic):
            r.call.resource_errors[topic] = "TOPIC_ALREADY_EXISTS"
    shown = r.filter(AclOperation.DESCRIBE_CONFIGS, TOPIC, q.topics, OnDeny.INFORMATIONAL, None,
                     "the answer carries the new topic's configs (KIP-525)", log_if_denied=False)
    hidden = [t for t in dict.fromkeys(q.topics) if t in allowed and t not in shown]
    if hidden:
        r.call.notes.append("created without its configs in the answer (no DESCRIBE_CONFIGS): "
                            + ", ".join(hidden) + "; CreateTopicsResult.config() fails, all() succeeds")


def delete_topics(r: Recorder, q: ApiRequest) -> None:
    # ControllerApis.handleDeleteTopics / deleteTopics: DELETE on the cluster (a denial not logged), else
    # DESCRIBE and DELETE on each topic; a topic named but not describable or not deletable gets
    # TOPIC_AUTHORIZATION_FAILED (before its existence is looked up).
    if r.authorize_cluster(AclOperation.DELETE, OnDeny.FALLBACK, None, "delete topics: DELETE on the cluster, "
                           "else DESCRIBE and DELETE on each topic", log_if_denied=False):
        describable = deletable = list(q.topics)
    else:
        describable = r.filter(AclOperation.DESCRIBE, TOPIC, q.topics, OnDeny.RESOURCE, TOPIC_FAILED,
                               "look up the topic's id")
        deletable = r.filter(AclOperation.DELETE, TOPIC, q.topics, OnDeny.RESOURCE, TOPIC_FAILED, "delete the topic")
    if not r.cluster.delete_topic_enable:
        r.call.error = "TOPIC_DELETION_DISABLED"
        return
    for topic in dict.fromkeys(q.topics):
        if topic not in describable or topic not in deletable:
            r.call.resource_errors[topic] = TOPIC_FAILED
        elif not r.cluster.exists(topic):
            r.call.resource_errors[topic] = UNKNOWN_TOPIC


def create_partitions(r: Recorder, q: ApiRequest) -> None:
    # ControllerApis.createPartitions: ALTER on each topic.
    allowed = r.filter(AclOperation.ALTER, TOPIC, q.topics, OnDeny.RESOURCE, TOPIC_FAILED, "add partitions")
    for topic in dict.fromkeys(q.topics):
        if topic not in allowed:
            r.call.resource_errors[topic] = TOPIC_FAILED


#: Config resource type -> (ACL resource type, the error a denial gives): ConfigHelper and
#: ControllerApis.authorizeAlterResource. BROKER_LOGGER and CLIENT_METRICS are checked on the cluster.
_CONFIG_RESOURCES = {
    "TOPIC": (ResourceType.TOPIC, TOPIC_FAILED),
    "GROUP": (ResourceType.GROUP, GROUP_FAILED),
    "BROKER": (ResourceType.CLUSTER, CLUSTER_FAILED),
    "BROKER_LOGGER": (ResourceType.CLUSTER, CLUSTER_FAILED),
    "CLIENT_METRICS": (ResourceType.CLUSTER, CLUSTER_FAILED),
}


def _configs(r: Recorder, q: ApiRequest, operation: AclOperation, why: str) -> None:
    for kind, name in dict.fromkeys(q.config_resources):
        rtype, error = _CONFIG_RESOURCES[kind]
        acl_name = name if rtype is not ResourceType.CLUSTER else CLUSTER_NAME
        if not r.authorize(operation, rtype, acl_name, OnDeny.RESOURCE, error, f"{why} of {kind} {name}"):
            r.call.resource_errors[f"{kind}:{name}"] = error
        elif kind == "TOPIC" and not r.cluster.exists(name):
            r.call.resource_errors[f"{kind}:{name}"] = UNKNOWN_TOPIC


def describe_configs(r: Recorder, q: ApiRequest) -> None:
    # ConfigHelper.handleDescribeConfigsRequest: DESCRIBE_CONFIGS on the cluster (BROKER, BROKER_LOGGER,
    # CLIENT_METRICS), the topic or the group; an error per resource.
    _configs(r, q, AclOperation.DESCRIBE_CONFIGS, "read the configs")


def alter_configs(r: Recorder, q: ApiRequest) -> None:
    # ControllerApis.handleIncrementalAlterConfigs / handleLegacyAlterConfigs (authorizeAlterResource) and
    # ConfigAdminManager.preprocess for BROKER_LOGGER: ALTER_CONFIGS, an error per resource.
    _configs(r, q, AclOperation.ALTER_CONFIGS, "change the configs")


def _cluster_operation(operation: AclOperation, why: str):
    def handler(r: Recorder, q: ApiRequest) -> None:
        # AuthHelper.authorizeClusterOperation: the request fails with CLUSTER_AUTHORIZATION_FAILED.
        _require(r, operation, ResourceType.CLUSTER, CLUSTER_NAME, CLUSTER_FAILED, why)
    return handler


def describe_cluster(r: Recorder, q: ApiRequest) -> None:
    # AuthHelper.computeDescribeClusterResponse: nothing is required; DESCRIBE on the cluster only decides
    # whether the authorized operations are filled in (when asked).
    r.authorize_cluster(AclOperation.DESCRIBE, OnDeny.INFORMATIONAL, None,
                        "the cluster's authorized operations, when asked (includeClusterAuthorizedOperations)")


def create_delegation_token(r: Recorder, q: ApiRequest) -> None:
    # ControllerApis.handleCreateDelegationTokenRequest: a token for another owner needs CREATE_TOKENS on
    # that USER.
    if q.owner is not None and q.owner != r.caller.principal:
        _require(r, AclOperation.CREATE_TOKENS, ResourceType.USER, q.owner, "DELEGATION_TOKEN_AUTHORIZATION_FAILED",
                 "create a token for another user")


HANDLERS = {
    "CreateTopics": ("ControllerApis.handleCreateTopics", create_topics),
    "DeleteTopics": ("ControllerApis.handleDeleteTopics", delete_topics),
    "CreatePartitions": ("ControllerApis.handleCreatePartitions", create_partitions),
    "DescribeConfigs": ("ConfigHelper.handleDescribeConfigsRequest", describe_configs),
    "AlterConfigs": ("ControllerApis.handleLegacyAlterConfigs", alter_configs),
    "IncrementalAlterConfigs": ("ControllerApis.handleIncrementalAlterConfigs", alter_configs),
    "DescribeAcls": ("AclApis.handleDescribeAcls", _cluster_operation(AclOperation.DESCRIBE, "list ACLs")),
    "CreateAcls": ("AclApis.handleCreateAcls", _cluster_operation(AclOperation.ALTER, "create ACLs")),
    "DeleteAcls": ("AclApis.handleDeleteAcls", _cluster_operation(AclOperation.ALTER, "delete ACLs")),
    "DescribeCluster": ("AuthHelper.computeDescribeClusterResponse", describe_cluster),
    "DescribeLogDirs": ("KafkaApis.handleDescribeLogDirsRequest",
                        _cluster_operation(AclOperation.DESCRIBE, "describe log directories")),
    "AlterReplicaLogDirs": ("KafkaApis.handleAlterReplicaLogDirsRequest",
                            _cluster_operation(AclOperation.ALTER, "move replicas between log directories")),
    "ElectLeaders": ("ControllerApis.handleElectLeaders", _cluster_operation(AclOperation.ALTER, "elect leaders")),
    "AlterPartitionReassignments": ("ControllerApis.handleAlterPartitionReassignments",
                                    _cluster_operation(AclOperation.ALTER, "reassign partitions")),
    "ListPartitionReassignments": ("ControllerApis.handleListPartitionReassignments",
                                   _cluster_operation(AclOperation.DESCRIBE, "list reassignments")),
    "DescribeClientQuotas": ("KafkaApis.handleDescribeClientQuotasRequest",
                             _cluster_operation(AclOperation.DESCRIBE_CONFIGS, "read client quotas")),
    "AlterClientQuotas": ("ControllerApis.handleAlterClientQuotas",
                          _cluster_operation(AclOperation.ALTER_CONFIGS, "change client quotas")),
    "DescribeUserScramCredentials": ("KafkaApis.handleDescribeUserScramCredentialsRequest",
                                     _cluster_operation(AclOperation.DESCRIBE, "list SCRAM users")),
    "AlterUserScramCredentials": ("ControllerApis.handleAlterUserScramCredentials",
                                  _cluster_operation(AclOperation.ALTER, "change SCRAM users")),
    "UpdateFeatures": ("ControllerApis.handleUpdateFeatures", _cluster_operation(AclOperation.ALTER, "update features")),
    "DescribeQuorum": ("ControllerApis.handleDescribeQuorum", _cluster_operation(AclOperation.DESCRIBE,
                                                                                  "describe the KRaft quorum")),
    "CreateDelegationToken": ("ControllerApis.handleCreateDelegationTokenRequest", create_delegation_token),
}
