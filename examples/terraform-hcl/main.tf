# converge's terraform provider against the demo world (`converge serve`): the orders HTTP API and
# the chat WebSocket API, alternate contacts, and a Region opt-in. See README.md here.
#
# The token is never written here: the provider reads it from CONVERGE_TOKEN.

terraform {
  required_version = ">= 1.5.0"
  required_providers {
    converge = {
      source  = "converge/converge"
      version = "0.1.0"
    }
  }
}

variable "endpoint" {
  description = "Origin of the services (e.g. http://127.0.0.1:4566); null reads CONVERGE_ENDPOINT."
  type        = string
  default     = null
}

variable "orders_api_name" {
  description = "Name of the HTTP API the orders routes belong to."
  type        = string
  default     = "orders"
}

variable "chat_api_name" {
  description = "Name of the WebSocket API the chat routes belong to."
  type        = string
  default     = "chat"
}

variable "orders_backend_origin" {
  description = "Origin of the orders and inventory backends."
  type        = string
  default     = "https://orders.internal.example"
}

variable "chat_function_arn" {
  description = "The function that handles chat messages."
  type        = string
  default     = "arn:cloud:function:us-east-1:111111111111:function:chat-handler"
}

variable "jwt_authorizer_id" {
  description = "The JWT authorizer of the orders API."
  type        = string
  default     = "jwtauth1"
}

variable "member_account_id" {
  description = "A member account of the organization, managed through the organization."
  type        = string
  default     = "222222222222"
}

variable "member_opt_in_region" {
  description = "An opt-in Region to enable for the member account."
  type        = string
  default     = "ap-east-1"
}

variable "security_email" {
  description = "Where security notices for the caller's own account go."
  type        = string
  default     = "security@example.com"
}

provider "converge" {
  endpoint = var.endpoint
}

data "converge_api" "orders" {
  name = var.orders_api_name
}

data "converge_api" "chat" {
  name = var.chat_api_name
}

# The member account's opt-in Regions (those not enabled by default), whatever their status.
data "converge_regions" "member_opt_in" {
  account_id                 = var.member_account_id
  region_opt_status_contains = ["DISABLED", "DISABLING", "ENABLED", "ENABLING"]
}

# --- orders (HTTP API) ---------------------------------------------------------------------------

resource "converge_integration" "orders_backend" {
  api_id                 = data.converge_api.orders.api_id
  integration_type       = "HTTP_PROXY"
  integration_uri        = "${var.orders_backend_origin}/v2"
  integration_method     = "ANY"
  payload_format_version = "1.0"
  timeout_in_millis      = 10000
  description            = "orders service"
  request_parameters = {
    "overwrite:header.x-tenant" = "$context.authorizer.claims.tenant"
  }

  # converge never deletes an integration a route still targets, and terraform deletes a removed
  # integration before it retargets the routes: made this way, it is deleted after them instead.
  lifecycle {
    create_before_destroy = true
  }
}

resource "converge_integration" "inventory_backend" {
  api_id                 = data.converge_api.orders.api_id
  integration_type       = "HTTP_PROXY"
  integration_uri        = "${var.orders_backend_origin}/inventory"
  integration_method     = "GET"
  payload_format_version = "1.0"
  description            = "read-only inventory lookups"
  lifecycle {
    create_before_destroy = true
  }
}

resource "converge_route" "get_orders" {
  api_id               = data.converge_api.orders.api_id
  route_key            = "GET /orders"
  target               = "integrations/${converge_integration.orders_backend.integration_id}"
  authorization_type   = "JWT"
  authorizer_id        = var.jwt_authorizer_id
  authorization_scopes = ["orders.read"]
}

resource "converge_route" "post_orders" {
  api_id               = data.converge_api.orders.api_id
  route_key            = "POST /orders"
  target               = "integrations/${converge_integration.orders_backend.integration_id}"
  authorization_type   = "JWT"
  authorizer_id        = var.jwt_authorizer_id
  authorization_scopes = ["orders.write"]
  operation_name       = "CreateOrder"
}

resource "converge_route" "get_inventory_item" {
  api_id             = data.converge_api.orders.api_id
  route_key          = "GET /inventory/{sku}"
  target             = "integrations/${converge_integration.inventory_backend.integration_id}"
  authorization_type = "CLOUD_IAM"
}

# --- chat (WebSocket API) ------------------------------------------------------------------------

resource "converge_integration" "chat_handler" {
  api_id                    = data.converge_api.chat.api_id
  integration_type          = "CLOUD_PROXY"
  integration_uri           = var.chat_function_arn
  integration_method        = "POST"
  timeout_in_millis         = 29000
  content_handling_strategy = "CONVERT_TO_TEXT"
  lifecycle {
    create_before_destroy = true
  }
}

resource "converge_integration" "disconnect_mock" {
  api_id                        = data.converge_api.chat.api_id
  integration_type              = "MOCK"
  template_selection_expression = "$default"
  passthrough_behavior          = "WHEN_NO_MATCH"
  request_templates = {
    "application/json" = jsonencode({ statusCode = 200 })
  }
  lifecycle {
    create_before_destroy = true
  }
}

resource "converge_route" "chat_connect" {
  api_id             = data.converge_api.chat.api_id
  route_key          = "$connect"
  target             = "integrations/${converge_integration.chat_handler.integration_id}"
  authorization_type = "CUSTOM"
  authorizer_id      = "wsauth01"
  api_key_required   = true
  request_parameters = {
    "route.request.querystring.token" = { required = true }
  }
}

resource "converge_route" "chat_send_message" {
  api_id                              = data.converge_api.chat.api_id
  route_key                           = "sendMessage"
  target                              = "integrations/${converge_integration.chat_handler.integration_id}"
  route_response_selection_expression = "$default"
}

resource "converge_route" "chat_disconnect" {
  api_id    = data.converge_api.chat.api_id
  route_key = "$disconnect"
  target    = "integrations/${converge_integration.disconnect_mock.integration_id}"
}

# --- the account ---------------------------------------------------------------------------------

# The caller's own account (no account_id).
resource "converge_alternate_contact" "security" {
  alternate_contact_type = "SECURITY"
  name                   = "Security Operations"
  title                  = "CISO"
  email_address          = var.security_email
  phone_number           = "+1 555 0100"
}

resource "converge_alternate_contact" "member_operations" {
  account_id             = var.member_account_id
  alternate_contact_type = "OPERATIONS"
  name                   = "Payments On-Call"
  title                  = "SRE Lead"
  email_address          = "payments-oncall@example.com"
  phone_number           = "+1 (555) 0111"
}

resource "converge_region_opt_in" "member_region" {
  account_id  = var.member_account_id
  region_name = var.member_opt_in_region
  enabled     = true

  lifecycle {
    precondition {
      condition     = contains(data.converge_regions.member_opt_in.regions[*].region_name, var.member_opt_in_region)
      error_message = "member_opt_in_region must be an opt-in Region of the member account (not one enabled by default)."
    }
  }
}

output "orders_route_ids" {
  description = "The orders API's routes by key."
  value = {
    for route in [converge_route.get_orders, converge_route.post_orders, converge_route.get_inventory_item] : route.route_key => route.route_id
  }
}
