# https://github.com/confluentinc/terraform-provider-confluent/issues/241
resource "confluent_kafka_acl" "app-producer-write-on-topic" {
  provider = confluent.kafka

  resource_type = "TOPIC"
  resource_name = confluent_kafka_topic.orders.topic_name
  pattern_type  = "LITERAL"
  principal     = "User:${confluent_identity_pool.this.id}"
  host          = "*"
  operation     = "WRITE"
  permission    = "ALLOW"
}
