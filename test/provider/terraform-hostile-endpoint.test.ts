import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runProcess } from "../support/run-process.js";
import { startHostileServer, type HostileBehaviour, type HostileOperation, type HostileServer } from "../support/hostile-server.js";
import {
  describeTerraform,
  errorsOf,
  installProvider,
  providerBlock,
  TERRAFORM,
  TerraformDir,
  TERRAFORM_TEST_TIMEOUT_MS,
  TOKEN,
  type ProviderHome,
  type TerraformResult,
} from "./terraform-fixture.js";

/**
 * Issue 27 through terraform: `terraform plan` with the real provider against an endpoint that
 * misbehaves on one operation (test/support/hostile-server.ts). Every plan ends by itself with
 * exit 1 and one error diagnostic naming what went wrong, the token nowhere. Peak memory is GNU
 * time's %M of terraform, which waits for the provider it starts: the larger of the two.
 */

let home: ProviderHome;
let work: TerraformDir;
const servers: HostileServer[] = [];

/** A route (GetApis in configure, then GetRoutes and GetIntegrations), a contact, and the Regions data source (ListRegions). */
function configuration(provider = ""): string {
  return `${providerBlock(provider)}
resource "converge_route" "orders" {
  api_id    = "a1b2c3d4e5"
  route_key = "GET /orders"
}

resource "converge_alternate_contact" "security" {
  alternate_contact_type = "SECURITY"
  name                   = "Security Team"
  title                  = "CISO"
  email_address          = "security@example.com"
  phone_number           = "+1 555 0100"
}

data "converge_regions" "all" {}
`;
}

beforeAll(async () => {
  home = await installProvider("hostile");
  work = new TerraformDir(home, "hostile", { CONVERGE_TOKEN: TOKEN });
  work.write(configuration());
  const init = await work.init();
  expect(init.code, describeTerraform(init)).toBe(0);
}, TERRAFORM_TEST_TIMEOUT_MS);

afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  home?.remove();
});

interface Planned extends TerraformResult {
  /** GNU time's %M: the peak resident memory of terraform or of the provider it waited for, in KiB. */
  readonly maxRssKib: number;
}

/** `terraform plan` against a hostile server, under /usr/bin/time, with `provider` in the provider block. */
async function planAgainst(attack: HostileOperation, behaviour: HostileBehaviour, provider = "", timeoutMs = 120_000): Promise<{ result: Planned; server: HostileServer }> {
  const server = await startHostileServer({ attack, behaviour });
  servers.push(server);
  work.write(configuration(provider));
  const args = ["plan", "-input=false", "-no-color", "-refresh=true"];
  const result = await runProcess("/usr/bin/time", ["-f", "max-rss-kib=%M", TERRAFORM, ...args], {
    cwd: work.dir,
    env: { ...work.env, CONVERGE_ENDPOINT: server.url },
    timeoutMs,
  });
  const rss = /(Command exited with non-zero status \d+\n)?max-rss-kib=(\d+)\n?$/.exec(result.stderr);
  expect(rss, result.stderr).not.toBeNull();
  return { result: { ...result, stderr: result.stderr.slice(0, rss!.index), args, maxRssKib: Number(rss![2]) }, server };
}

/** Exit 1, one error diagnostic (for the one failing read) saying `says`, the token nowhere. */
function expectOneDiagnostic(result: Planned, says: string): void {
  expect(result.code, describeTerraform(result)).toBe(1);
  const errors = errorsOf(result);
  expect(errors, describeTerraform(result)).toHaveLength(1);
  // terraform wraps a diagnostic's detail at 78 columns
  const unwrapped = (text: string) => text.replace(/\s+/g, " ");
  expect(errors.some((error) => unwrapped(error.text).includes(unwrapped(says))), describeTerraform(result)).toBe(true);
  expect(`${result.stdout}${result.stderr}`).not.toContain(TOKEN);
  expect(`${result.stdout}${result.stderr}`).not.toMatch(/plugin (crashed|exited)|panic:|unexpected EOF/i);
}

describe("terraform plan through the provider against a hostile endpoint", { timeout: TERRAFORM_TEST_TIMEOUT_MS }, () => {
  it("an answer that never ends (1 GiB): exit 1 within seconds, the diagnostic names the size limit, under 300 MiB resident", async () => {
    const { result, server } = await planAgainst("GetRoutes", "endless");
    expectOneDiagnostic(result, "the answer is larger than the limit of 64 MiB");
    expect(result.maxRssKib, describeTerraform(result)).toBeLessThan(300 * 1024);
    expect(server.received.filter((operation) => operation === "GetRoutes")).toHaveLength(1);
    console.info(`terraform plan, endless answer: exit ${result.code} after ${Math.round(result.wallMs)} ms, peak RSS ${Math.round(result.maxRssKib / 1024)} MiB`);
  });

  /** request_timeout = 2: 6 attempts of 2 s and at most 3.1 s of back-off: 15.1 s, plus terraform's own start (asserted: 40 s). */
  it("a slow drip with request_timeout = 2: exit 1 within the deadline plus the back-off, the diagnostic says the deadline passed", async () => {
    const { result, server } = await planAgainst("GetRoutes", "drip", "  request_timeout = 2\n");
    expectOneDiagnostic(result, "the answer was not complete within the deadline of 2 s per attempt");
    expect(result.wallMs, describeTerraform(result)).toBeLessThan(40_000);
    expect(server.received.filter((operation) => operation === "GetRoutes").length).toBeLessThanOrEqual(6);
    console.info(`terraform plan, slow drip, request_timeout = 2: exit ${result.code} after ${Math.round(result.wallMs)} ms`);
  });

  it.each(["GetApis", "GetRoutes", "GetIntegrations", "ListRegions"] as const)("a next token of %s that never changes: exit 1 quickly after two pages, naming the repetition", async (operation) => {
    const { result, server } = await planAgainst(operation, "repeat-token");
    expectOneDiagnostic(result, "repeats the one page 1 answered: the listing would never end");
    expect(server.received.filter((received) => received === operation).length).toBeLessThanOrEqual(2 * 2);
    expect(result.wallMs, describeTerraform(result)).toBeLessThan(60_000);
  });

  it("refuses request_timeout out of range, naming the value, before any request", async () => {
    const { result, server } = await planAgainst("GetRoutes", "html", "  request_timeout = -1\n");
    expectOneDiagnostic(result, "request_timeout -1 is not valid: expected seconds, a number above 0 and at most 86400");
    expect(server.received).toEqual([]);
  });

  it("keeps what held: a redirect is not followed, an HTML answer is a contract violation naming the operation", async () => {
    const redirected = await planAgainst("GetRoutes", "redirect");
    expectOneDiagnostic(redirected.result, "apigateway GetRoutes failed: 307 HTTP307");
    const html = await planAgainst("GetRoutes", "html");
    expectOneDiagnostic(html.result, "apigateway GetRoutes answered outside its contract: body is not JSON");
  });
});
