# A helper module of the tests: reads what the control module saved of the request journal
# (GET /_converge/requests), so that a run block can assert on the requests converge's provider made.

variable "journal_file" {
  description = "The journal's answer, saved by a run of the control module."
  type        = string
}

locals {
  requests = jsondecode(file(var.journal_file)).requests
}

output "statuses" {
  description = "The status of each request, oldest first, comma-separated."
  value       = join(",", [for request in local.requests : tostring(request.status)])
}

output "faults" {
  description = "What a fault rule did to each request (error, latency, dropAnswer, errorAfterWrite), or none."
  value       = join(",", [for request in local.requests : request.fault == null ? "none" : request.fault.effect])
}
