# Topic for user data
resource "kafka_topic" "user_data" {
  name               = "user-data"
  replication_factor = 3
  partitions         = 20
}

# Producer ACL
resource "kafka_acl" "producer" {
  resource_name       = kafka_topic.user_data.name
  resource_type       = "Topic"
  acl_principal       = "User:producer-service"
  acl_host           = "*"
  acl_operation      = "Write"
  acl_permission_type = "Allow"
}

# Consumer ACL
resource "kafka_acl" "consumer" {
  resource_name       = kafka_topic.user_data.name
  resource_type       = "Topic"
  acl_principal       = "User:consumer-service"
  acl_host           = "*"
  acl_operation      = "Read"
  acl_permission_type = "Allow"
}

# Consumer group ACL
resource "kafka_acl" "consumer_group" {
  resource_name       = "consumer-group-*"
  resource_type       = "Group"
  resource_pattern_type_filter = "Prefixed"
  acl_principal       = "User:consumer-service"
  acl_host           = "*"
  acl_operation      = "Read"
  acl_permission_type = "Allow"
}
