import { createConnection, createServer, type Server, type Socket } from "node:net";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { liveContact, liveIntegrations } from "../e2e/e2e-fixture.js";
import { ORDERS_API, buildShop, type ShopOptions } from "./shop-stack.js";
import { synthStack } from "./synth-fixture.js";
import { cdktfSuite } from "./terraform-suite.js";
import { CLI_COMMAND, READ_ONLY_TOKEN, SECRET_TOKEN, Terraform, describeTerraform, planLine } from "./terraform-fixture.js";

/**
 * Issue "cdktf deploy at the engine's speed": a deploy that fails part-way (the token variable
 * unset, a 403, the service down, the desired-state file edited after synth) says why, naming what
 * to fix, and leaves terraform state such that the next deploy, once the cause is fixed, converges.
 * The provisioners reach the service through a proxy the test can take down without losing state.
 */

const suite = cdktfSuite("cdktf-failures");
let proxy: Proxy;

/** A TCP proxy to the service that can refuse connections, as a service that is down does. */
class Proxy {
  down = false;
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  constructor(target: number) {
    this.#server = createServer((client) => {
      if (this.down) return void client.destroy();
      const upstream = createConnection(target, "127.0.0.1");
      for (const socket of [client, upstream]) {
        this.#sockets.add(socket);
        socket.on("close", () => this.#sockets.delete(socket));
        socket.on("error", () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
  }
  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, "127.0.0.1", resolve));
    return `http://127.0.0.1:${(this.#server.address() as { port: number }).port}`;
  }
  close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}

let endpoint: string;

/** A fresh stack directory: synthesized, terraform initialized; terraform runs with `env` (the token variable or not). */
async function stack(label: string, options: ShopOptions = {}): Promise<{ outdir: string; synth: (next: ShopOptions) => void; terraform: (env: Record<string, string>) => Terraform }> {
  const directory = await mkdtemp(join(suite.home, `${label}-`));
  const outdir = join(directory, "cdktf.out");
  const synth = (next: ShopOptions) => void synthStack((scope) => buildShop(scope, next), { vehicle: "terraform_data", endpoint, cli: CLI_COMMAND }, { outdir });
  synth(options);
  const terraform = (env: Record<string, string>) => new Terraform(join(outdir, "stacks/shop"), directory, env);
  const init = await terraform({}).init();
  expect(init.code, describeTerraform(init)).toBe(0);
  return { outdir, synth, terraform };
}

async function deploy(terraform: Terraform, expected: "fails" | "succeeds") {
  suite.service.requests.reset();
  const result = await terraform.apply();
  if (expected === "succeeds") expect(result.code, describeTerraform(result)).toBe(0);
  else expect(result.code, describeTerraform(result)).not.toBe(0);
  return result;
}

/** After a fix: the deploy converges, and one more finds nothing to change. */
async function convergesAfterFix(terraform: Terraform): Promise<void> {
  await deploy(terraform, "succeeds");
  const again = await deploy(terraform, "succeeds");
  expect(planLine(again)).toBe("No changes.");
  expect(suite.service.requests.count()).toBe(0);
}

beforeAll(async () => {
  proxy = new Proxy(Number(new URL(suite.service.url).port));
  endpoint = await proxy.listen();
}, 60_000);

afterAll(async () => {
  await proxy?.close();
});

describe("a deploy that fails part-way, then the fix", { timeout: 120_000 }, () => {
  it("the token variable unset: the error names the variable, nothing is sent; with it set, the next deploy converges", async () => {
    const { terraform } = await stack("no-token");
    const failed = await deploy(terraform({}), "fails");
    expect(failed.stdout + failed.stderr).toContain("no token: set CONVERGE_TOKEN or pass --token-file FILE");
    expect(suite.service.requests.count()).toBe(0);
    await convergesAfterFix(terraform({ CONVERGE_TOKEN: SECRET_TOKEN }));
    expect(await liveContact(suite.service, "SECURITY")).toMatchObject({ Title: "CISO" });
  });

  it("a 403: the error names the operation and the denial; with a token allowed to write, the next deploy converges", async () => {
    const { terraform } = await stack("forbidden", { contact: { title: "Forbidden Title" } });
    const failed = await deploy(terraform({ CONVERGE_TOKEN: READ_ONLY_TOKEN }), "fails");
    expect(failed.stdout + failed.stderr).toMatch(/403 AccessDenied/);
    expect(failed.stdout + failed.stderr).not.toContain(READ_ONLY_TOKEN);
    expect(await liveContact(suite.service, "SECURITY")).toMatchObject({ Title: "CISO" });
    await convergesAfterFix(terraform({ CONVERGE_TOKEN: SECRET_TOKEN }));
    expect(await liveContact(suite.service, "SECURITY")).toMatchObject({ Title: "Forbidden Title" });
  });

  it("the service down during a change: the error names the endpoint; once it is up, the next deploy converges", async () => {
    const { synth, terraform } = await stack("down");
    const tf = terraform({ CONVERGE_TOKEN: SECRET_TOKEN });
    await deploy(tf, "succeeds");
    synth({ contact: { title: "Title While Down" } });
    proxy.down = true;
    try {
      const failed = await deploy(tf, "fails");
      expect(failed.stdout + failed.stderr).toContain(endpoint);
    } finally {
      proxy.down = false;
    }
    await convergesAfterFix(tf);
    expect(await liveContact(suite.service, "SECURITY")).toMatchObject({ Title: "Title While Down" });
  });

  it("the service down while a removed construct is deleted: once it is up, the next deploy deletes it", async () => {
    const uri = "https://removed-while-down.example/orders";
    const { synth, terraform } = await stack("removal", { integration: { integrationUri: uri } });
    const tf = terraform({ CONVERGE_TOKEN: SECRET_TOKEN });
    await deploy(tf, "succeeds");
    expect((await liveIntegrations(suite.service, ORDERS_API)).filter((item) => item.integrationUri === uri)).toHaveLength(1);
    // the route and the integration leave the stack: the inventory's destroy provisioner deletes them
    synth({ integration: { integrationUri: "https://kept.example/orders" } });
    proxy.down = true;
    try {
      const failed = await deploy(tf, "fails");
      expect(failed.stdout).toMatch(/converge_inventory: Destroying/);
    } finally {
      proxy.down = false;
    }
    expect((await liveIntegrations(suite.service, ORDERS_API)).filter((item) => item.integrationUri === uri)).toHaveLength(1);
    await convergesAfterFix(tf);
    expect((await liveIntegrations(suite.service, ORDERS_API)).filter((item) => item.integrationUri === uri)).toEqual([]);
  });

  it("the desired-state file edited after synth: refused with nothing sent; synthesized again, the next deploy converges", async () => {
    const { outdir, synth, terraform } = await stack("edited", { contact: { title: "Edited Title" } });
    const file = join(outdir, "stacks/shop/converge.desired.json");
    await writeFile(file, (await readFile(file, "utf8")).replace("Edited Title", "Injected Title"));
    const tf = terraform({ CONVERGE_TOKEN: SECRET_TOKEN });
    const failed = await deploy(tf, "fails");
    expect(failed.stdout + failed.stderr).toContain("is not the desired state terraform planned with");
    expect(suite.service.requests.count()).toBe(0);
    synth({ contact: { title: "Edited Title" } });
    await convergesAfterFix(tf);
    expect(await liveContact(suite.service, "SECURITY")).toMatchObject({ Title: "Edited Title" });
  });
});
