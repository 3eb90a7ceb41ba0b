# `terraform test` of this module against converge serve (see ../../README.md): apply runs with
# assertions, a fault rule added through the control interface before a run, so that its apply meets
# a 429 and succeeds through the provider's retries, and the request journal showing both calls.
# terraform test destroys what the runs made at the end.

run "start_from_the_seed" {
  module {
    source = "./tests/control"
  }
  variables {
    step = "reset"
    path = "reset"
    body = "{}"
  }
}

run "creates_the_route_and_the_contact" {
  assert {
    condition     = converge_route.status.route_key == "GET /status"
    error_message = "the status route has key ${converge_route.status.route_key}"
  }
  assert {
    condition     = converge_route.status.target == "integrations/${converge_integration.status.integration_id}"
    error_message = "the status route targets ${converge_route.status.target}, not its integration"
  }
  assert {
    condition     = converge_alternate_contact.security.email_address == "security@example.com"
    error_message = "the security contact's email is ${converge_alternate_contact.security.email_address}"
  }
}

run "throttle_the_next_contact_write" {
  module {
    source = "./tests/control"
  }
  variables {
    step = "throttle"
    path = "faults"
    body = jsonencode({
      operation = "PutAlternateContact"
      calls     = { nth = 1 }
      effect    = { status = 429, errorType = "TooManyRequestsException", retryAfterSeconds = 1 }
    })
  }
}

run "changes_the_contact_through_a_429" {
  variables {
    security_email = "secops@example.com"
  }
  assert {
    condition     = converge_alternate_contact.security.email_address == "secops@example.com"
    error_message = "the security contact's email is ${converge_alternate_contact.security.email_address}"
  }
}

run "read_the_journal" {
  module {
    source = "./tests/control"
  }
  variables {
    step    = "journal"
    method  = "GET"
    path    = "requests?operation=PutAlternateContact"
    save_to = ".terraform/converge-journal.json"
  }
}

run "the_journal_shows_the_429_and_the_retry" {
  module {
    source = "./tests/journal"
  }
  variables {
    journal_file = ".terraform/converge-journal.json"
  }
  assert {
    condition     = output.statuses == "200,429,200"
    error_message = "PutAlternateContact was answered ${output.statuses}: expected the first apply's 200, then the 429 and the retry's 200"
  }
  assert {
    condition     = output.faults == "none,error,none"
    error_message = "the faults of PutAlternateContact were ${output.faults}"
  }
}
