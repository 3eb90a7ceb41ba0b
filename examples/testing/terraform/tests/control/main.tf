# A helper module of the tests: one request to converge's control interface (/_converge/), made with
# curl when a run block applies it. The endpoint and the admin token come from CONVERGE_ENDPOINT and
# CONVERGE_ADMIN_TOKEN, never from a file; the answer is written to `save_to` when given.

variable "step" {
  description = "Names the request (each run block's request runs again when its step differs)."
  type        = string
}

variable "method" {
  description = "GET, POST, PUT or DELETE."
  type        = string
  default     = "POST"
}

variable "path" {
  description = "The operation's path under /_converge/, with its query (e.g. requests?operation=CreateRoute)."
  type        = string
}

variable "body" {
  description = "The JSON body; empty for none."
  type        = string
  default     = ""
}

variable "save_to" {
  description = "A file for the answer; empty to drop it."
  type        = string
  default     = ""
}

resource "terraform_data" "request" {
  triggers_replace = [var.step, var.method, var.path, var.body]

  provisioner "local-exec" {
    command = <<-SH
      set -eu
      if [ -n "$BODY" ]; then set -- --data "$BODY"; else set --; fi
      curl -fsS -X "$METHOD" "$CONVERGE_ENDPOINT/_converge/$CONTROL_PATH" \
        -H "authorization: Bearer $CONVERGE_ADMIN_TOKEN" -H "content-type: application/json" \
        -o "$${SAVE_TO:-/dev/null}" "$@"
    SH
    environment = {
      METHOD       = var.method
      CONTROL_PATH = var.path
      BODY         = var.body
      SAVE_TO      = var.save_to
    }
  }
}
