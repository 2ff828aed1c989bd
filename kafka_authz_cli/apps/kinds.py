"""The catalogue's kinds of application: what each is, the configuration keys it reads, the releases it
covers and how it was verified (`authz app list`)."""

from __future__ import annotations

from kafka_authz_cli.apps.catalogue import (
    ADMIN_BUILDERS,
    Kind,
    build_consume_transform_produce,
    build_consumer,
    build_producer,
    build_share_consumer,
)
from kafka_authz_cli.apps.catalogue_connect import build_connect_sink, build_connect_source, build_connect_worker
from kafka_authz_cli.apps.catalogue_mirror import build_mirror_checkpoint, build_mirror_heartbeat, build_mirror_source
from kafka_authz_cli.apps.catalogue_streams import build_streams
from kafka_authz_cli.apps.catalogue_ui import build_akhq, build_kafka_ui
from kafka_authz_cli.apps.versions import COVERED

PRODUCER_KEYS = ("transactional.id", "enable.idempotence", "acks", "retries",
                 "max.in.flight.requests.per.connection", "transaction.two.phase.commit.enable")
CONSUMER_KEYS = ("group.id", "group.protocol", "isolation.level", "allow.auto.create.topics")
LIVE = "live (tests/live/test_apps_live.py, Kafka 4.1.1)"
FROM_CODE = "from the code (connect-runtime 4.1's classes, cited in apps/catalogue_connect.py); not run live"
FROM_MIRROR = ("from the code (connect/mirror's classes, 4.x, cited in apps/catalogue_mirror.py); not run live")
MIRROR_KEYS = ("cluster (source|target: which side this check is)", "source.cluster.alias", "target.cluster.alias",
               "topics", "replication.policy.separator", "replication.policy.internal.topic.separator.enabled",
               "offset-syncs.topic.location", "emit.offset-syncs.enabled")
UI_FROM_CODE = "from the code ({}, cited in apps/catalogue_ui.py); not run live"

KINDS = {k.name: k for k in (
    Kind("producer", "a producer writing --topic: plain, idempotent (the default since 3.0) or transactional",
         PRODUCER_KEYS, COVERED, LIVE, build_producer),
    Kind("consumer", "a consumer reading --topic: in a group (classic or KIP-848) with commits, or assign() "
         "without a group", CONSUMER_KEYS, COVERED, LIVE, build_consumer),
    Kind("share-consumer", "a share consumer (KIP-932) reading --topic in share group group.id",
         ("group.id",), "4.0 to 4.1", LIVE, build_share_consumer),
    Kind("consume-transform-produce", "reads --input in a group, writes --output and commits the offsets in "
         "one transaction", CONSUMER_KEYS + PRODUCER_KEYS + ("consumer.*", "producer.*"), COVERED, LIVE,
         build_consume_transform_produce),
    Kind("streams", "a Kafka Streams application from --input to --output (--stateful: with a repartition and a "
         "changelog topic)", ("application.id", "processing.guarantee", "producer.*", "consumer.*"), COVERED, LIVE,
         build_streams),
    Kind("connect-worker", "a Kafka Connect distributed worker: its three internal topics (read at start, then written) "
         "and its Connect group", ("group.id", "offset.storage.topic", "status.storage.topic", "config.storage.topic",
                                   "exactly.once.source.support"), COVERED, FROM_CODE, build_connect_worker),
    Kind("connect-sink", "a sink connector's tasks reading --topic in group connect-<name> (and its dead letter queue)",
         ("name", "topics", "errors.deadletterqueue.topic.name", "consumer.override.*"), COVERED, FROM_CODE,
         build_connect_sink),
    Kind("connect-source", "a source connector's tasks writing --topic (topic.creation.*, exactly-once source)",
         ("name", "topic.creation.default.partitions", "exactly.once.source.support", "group.id",
          "producer.override.*"), COVERED, FROM_CODE, build_connect_source),
    Kind("mirror-source", "MirrorMaker 2's MirrorSourceConnector and tasks on one side (cluster=source: list, "
         "describe, read configs and ACLs of --topic, consume them without a group, write the offset syncs; "
         "cluster=target: create <alias>.<topic>, their partitions, configs and ACLs, produce to them)",
         MIRROR_KEYS + ("sync.topic.acls.enabled", "sync.topic.configs.enabled", "producer.override.*"), COVERED,
         FROM_MIRROR, build_mirror_source),
    Kind("mirror-checkpoint", "MirrorMaker 2's MirrorCheckpointConnector and tasks on one side (cluster=source: list "
         "and read --group's offsets, read the offset syncs; cluster=target: write <alias>.checkpoints.internal and, "
         "with sync.group.offsets.enabled, the groups' offsets)",
         MIRROR_KEYS + ("groups", "emit.checkpoints.enabled", "sync.group.offsets.enabled", "producer.override.*"),
         COVERED, FROM_MIRROR, build_mirror_checkpoint),
    Kind("mirror-heartbeat", "MirrorMaker 2's MirrorHeartbeatConnector and task: create and write heartbeats on the "
         "target", ("source.cluster.alias", "target.cluster.alias", "emit.heartbeats.enabled",
                    "heartbeats.topic.replication.factor", "producer.override.*"), COVERED, FROM_MIRROR,
         build_mirror_heartbeat),
    Kind("ui-kafka-ui", "kafka-ui (provectus, kafbat) for a read-only user: topic list, a topic's configs and "
         "messages of --topic, the groups list and detail of --group", (), "3.0 to 4.1 (its admin client's calls)",
         UI_FROM_CODE.format("ReactiveAdminClient, TopicsService, ConsumerGroupService"), build_kafka_ui),
    Kind("ui-akhq", "AKHQ for a read-only user: topic list, a topic's configs and messages of --topic, the groups "
         "list and detail of --group", (), "3.0 to 4.1 (its admin client's calls)",
         UI_FROM_CODE.format("AbstractKafkaWrapper and the repositories"), build_akhq),
    Kind("admin-create-topics", "Admin.createTopics of --topic", (), COVERED, LIVE,
         ADMIN_BUILDERS["admin-create-topics"]),
    Kind("admin-delete-topics", "Admin.deleteTopics of --topic", (), COVERED, LIVE,
         ADMIN_BUILDERS["admin-delete-topics"]),
    Kind("admin-describe-topics", "Admin.describeTopics of --topic", (), COVERED, LIVE,
         ADMIN_BUILDERS["admin-describe-topics"]),
    Kind("admin-describe-configs", "Admin.describeConfigs of --topic", (), COVERED, LIVE,
         ADMIN_BUILDERS["admin-describe-configs"]),
    Kind("admin-alter-configs", "Admin.incrementalAlterConfigs of --topic", (), COVERED, LIVE,
         ADMIN_BUILDERS["admin-alter-configs"]),
    Kind("admin-delete-records", "Admin.deleteRecords of --topic", (), COVERED, LIVE,
         ADMIN_BUILDERS["admin-delete-records"]),
    Kind("admin-list-groups", "Admin.listGroups, which must show --group", (), COVERED, LIVE,
         ADMIN_BUILDERS["admin-list-groups"]),
    Kind("admin-describe-groups", "Admin.describeConsumerGroups of --group", ("group.protocol",), COVERED, LIVE,
         ADMIN_BUILDERS["admin-describe-groups"]),
    Kind("admin-list-offsets", "Admin.listConsumerGroupOffsets of --group, which must show --topic", (), COVERED,
         LIVE, ADMIN_BUILDERS["admin-list-offsets"]),
    Kind("admin-reset-offsets", "kafka-consumer-groups --reset-offsets --to-earliest: Admin.listOffsets and "
         "alterConsumerGroupOffsets of --group on --topic", (), COVERED, LIVE, ADMIN_BUILDERS["admin-reset-offsets"]),
)}
