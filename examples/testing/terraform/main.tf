# A small module under test: a status route of an HTTP API, the integration it targets, and the
# security contact of the caller's account, through converge's provider. Its tests are
# tests/module.tftest.hcl, run with `terraform test` against `converge serve` (see ../README.md).
#
# The endpoint and the token come from CONVERGE_ENDPOINT and CONVERGE_TOKEN: never from a file.

terraform {
  required_version = ">= 1.7.0"
  required_providers {
    converge = {
      source  = "converge/converge"
      version = "0.1.0"
    }
  }
}

variable "api_name" {
  description = "Name of the HTTP API the status route belongs to."
  type        = string
  default     = "orders"
}

variable "backend_origin" {
  description = "Origin of the backend that answers the status route."
  type        = string
  default     = "https://orders.internal.example"
}

variable "security_email" {
  description = "Where security notices for the caller's own account go."
  type        = string
  default     = "security@example.com"
}

provider "converge" {}

data "converge_api" "this" {
  name = var.api_name
}

resource "converge_integration" "status" {
  api_id                 = data.converge_api.this.api_id
  integration_type       = "HTTP_PROXY"
  integration_uri        = "${var.backend_origin}/status"
  integration_method     = "GET"
  payload_format_version = "1.0"
  lifecycle {
    create_before_destroy = true
  }
}

resource "converge_route" "status" {
  api_id    = data.converge_api.this.api_id
  route_key = "GET /status"
  target    = "integrations/${converge_integration.status.integration_id}"
}

resource "converge_alternate_contact" "security" {
  alternate_contact_type = "SECURITY"
  name                   = "Security Operations"
  title                  = "CISO"
  email_address          = var.security_email
  phone_number           = "+1 555 0100"
}

output "route_id" {
  description = "The status route's ID."
  value       = converge_route.status.route_id
}
