import type { BenchCase, BenchService, LoadRequest } from "../bench-case.js";

function accountRequest(service: BenchService, path: string, body: unknown): LoadRequest {
  return {
    method: "POST",
    path,
    headers: { authorization: `Bearer ${service.token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  };
}

const CONTACT = {
  AlternateContactType: "SECURITY",
  EmailAddress: "security@example.com",
  Name: "Security Team",
  PhoneNumber: "+1 555 0100",
  Title: "Security lead",
};

/** Account service cases: the read the issue sets a goal for, and the write in memory and on disk. */
export const ACCOUNT_CASES = [
  {
    name: "ListRegions",
    description: "POST /listRegions {MaxResults: 50}, the whole catalog in one page",
    goal: { minRequestsPerSecond: 5_000, maxP99Ms: 20 },
    setup: (service) => accountRequest(service, "/listRegions", { MaxResults: 50 }),
  },
  {
    name: "PutAlternateContact",
    description: "POST /putAlternateContact overwriting one contact, state in memory",
    setup: (service) => accountRequest(service, "/putAlternateContact", CONTACT),
  },
  {
    name: "PutAlternateContact (state file)",
    description: "POST /putAlternateContact with --state-file: answered after fsync, concurrent writes share one",
    durable: true,
    setup: (service) => accountRequest(service, "/putAlternateContact", CONTACT),
  },
] as const satisfies ReadonlyArray<BenchCase>;
