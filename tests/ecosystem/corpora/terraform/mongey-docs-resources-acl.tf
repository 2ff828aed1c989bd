resource "kafka_acl" "producer" {
  resource_name       = "orders"
  resource_type       = "Topic"
  acl_principal       = "User:producer-service"
  acl_host            = "*"
  acl_operation       = "Write"
  acl_permission_type = "Allow"
}

# Also grant describe permission for producers
resource "kafka_acl" "producer_describe" {
  resource_name       = "orders"
  resource_type       = "Topic"
  acl_principal       = "User:producer-service"
  acl_host            = "*"
  acl_operation       = "Describe"
  acl_permission_type = "Allow"
}

# Allow read access to topic
resource "kafka_acl" "consumer_read" {
  resource_name       = "orders"
  resource_type       = "Topic"
  acl_principal       = "User:consumer-service"
  acl_host            = "*"
  acl_operation       = "Read"
  acl_permission_type = "Allow"
}

# Allow access to consumer group
resource "kafka_acl" "consumer_group" {
  resource_name       = "order-processors"
  resource_type       = "Group"
  acl_principal       = "User:consumer-service"
  acl_host            = "*"
  acl_operation       = "Read"
  acl_permission_type = "Allow"
}

# Grant access to all topics with prefix "logs-"
resource "kafka_acl" "logs_access" {
  resource_name                = "logs-"
  resource_type                = "Topic"
  resource_pattern_type_filter = "Prefixed"
  acl_principal                = "User:log-aggregator"
  acl_host                     = "*"
  acl_operation                = "Read"
  acl_permission_type          = "Allow"
}

# Grant cluster-level admin access
resource "kafka_acl" "admin_cluster" {
  resource_name       = "kafka-cluster"
  resource_type       = "Cluster"
  acl_principal       = "User:admin"
  acl_host            = "*"
  acl_operation       = "All"
  acl_permission_type = "Allow"
}

