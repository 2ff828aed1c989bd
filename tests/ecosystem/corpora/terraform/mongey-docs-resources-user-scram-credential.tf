resource "kafka_user_scram_credential" "producer" {
  username        = "producer-service"
  scram_mechanism = "SCRAM-SHA-256"
  password        = var.producer_password
}

resource "kafka_user_scram_credential" "admin" {
  username         = "kafka-admin"
  scram_mechanism  = "SCRAM-SHA-512"
  scram_iterations = 8192
  password         = var.admin_password
}

# Generate random passwords for better security
resource "random_password" "service_passwords" {
  for_each = toset(["order-service", "payment-service", "shipping-service"])

  length  = 32
  special = true
}

# Create SCRAM credentials for each service
resource "kafka_user_scram_credential" "services" {
  for_each = random_password.service_passwords

  username        = each.key
  scram_mechanism = "SCRAM-SHA-256"
  password        = each.value.result
}

# Create user credentials
resource "kafka_user_scram_credential" "analytics" {
  username        = "analytics-processor"
  scram_mechanism = "SCRAM-SHA-256"
  password        = var.analytics_password
}

# Grant permissions to the user
resource "kafka_acl" "analytics_read" {
  resource_name                = "events-*"
  resource_type                = "Topic"
  resource_pattern_type_filter = "Prefixed"
  acl_principal                = "User:${kafka_user_scram_credential.analytics.username}"
  acl_host                     = "*"
  acl_operation                = "Read"
  acl_permission_type          = "Allow"
}

