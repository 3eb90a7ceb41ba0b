import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { inflateRawSync } from "node:zlib";
import { collect, type Clients } from "../../src/clients/index.js";
import { DEMO_WORLD, type RunningService, type WorldInput } from "../../src/service/index.js";
import type { RequestRecord } from "../../src/service/request-log.js";
import type { Integration, Route } from "../../src/contract/gateway.js";
import { runProcess, type ProcessResult } from "../support/run-process.js";
import { assertTerraformAvailable, runProviderInstall, TERRAFORM, terraformEnv, type TerraformResult } from "../support/terraform.js";
import type { WorldOptions } from "../support/world.js";

/**
 * Real terraform 1.11 with the real provider: `converge provider install` (the compiled CLI) into a
 * temporary HOME, `terraform init` from that implied local mirror with an empty CLI configuration,
 * and every command in a temporary directory of its own, against the embedded service the test
 * file starts on port 0. The token reaches the provider through CONVERGE_TOKEN only.
 */

export { describeTerraform, planLine, TERRAFORM, type TerraformResult } from "../support/terraform.js";
/** The token every test's provider uses: distinctive enough to search for in state, plans and logs. */
export const TOKEN = "tok-tfprovider-SECRET-8d41c7e2";
/** The demo world's quick-created HTTP API "orders" (its `$default` route and integration are managed by the service). */
export const ORDERS_API = "a1b2c3d4e5";
/** The demo world's WebSocket API "chat". */
export const CHAT_API = "w5s0ck3t01";
/** The demo world's management account (the token's caller) and a member account. */
export const MANAGEMENT_ACCOUNT = "111111111111";
export const MEMBER_ACCOUNT = "222222222222";
/** A `converge_alternate_contact.billing` resource: MEMBER_ACCOUNT's BILLING contact, Ana Billing, Controller, with `phoneNumber`. */
export function memberBillingContact(phoneNumber: string): string {
  return `resource "converge_alternate_contact" "billing" {
  account_id             = "${MEMBER_ACCOUNT}"
  alternate_contact_type = "BILLING"
  name                   = "Ana Billing"
  title                  = "Controller"
  email_address          = "billing@example.com"
  phone_number           = "${phoneNumber}"
}
`;
}

/** examples/terraform-hcl. */
export const EXAMPLE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), "../../examples/terraform-hcl");
/** A test's budget: a few terraform commands of 1 to 3 s each, on 2 busy cores. */
export const TERRAFORM_TEST_TIMEOUT_MS = 180_000;

/** The `terraform { required_providers }` block and an (empty unless given) provider block: every configuration starts with it. */
export function providerBlock(provider = ""): string {
  return `terraform {\n  required_providers {\n    converge = { source = "converge/converge", version = "0.1.0" }\n  }\n}\n\nprovider "converge" {\n${provider}}\n`;
}

/** The demo world, with TOKEN an administrator of the management account and Region transitions of 50 ms. */
export function providerWorld(overrides: Partial<WorldInput> = {}): WorldInput {
  return {
    ...DEMO_WORLD,
    identities: [...(DEMO_WORLD.identities ?? []), { token: TOKEN, accountId: MANAGEMENT_ACCOUNT, allow: ["*"] }],
    regionTransitionMs: 50,
    ...overrides,
  };
}

/**
 * The provider tests' world (useWorld, startWorld): providerWorld with `overrides`, recording every
 * request, and clients with TOKEN: how the tests make changes behind terraform's back and read live state.
 */
export function providerService(overrides: Partial<WorldInput> = {}): WorldOptions {
  return { world: providerWorld(overrides), recordRequests: true, token: TOKEN, retry: { maxAttempts: 6, baseDelayMs: 20, maxDelayMs: 500 } };
}

export const liveRoutes = (clients: Clients, apiId: string): Promise<Route[]> => collect(clients.gateway.routes(apiId));
export const liveIntegrations = (clients: Clients, apiId: string): Promise<Integration[]> => collect(clients.gateway.integrations(apiId));

/** The requests the service answered while `task` ran (the log must record them: providerService's does). */
export async function requestsDuring<T>(service: RunningService, task: () => Promise<T>): Promise<{ readonly result: T; readonly requests: RequestRecord[] }> {
  const before = service.requests.records().length;
  const result = await task();
  return { result, requests: service.requests.records().slice(before) };
}

/** `Operation` for each request, sorted: what a command sent, in a form a test can compare. */
export function operations(requests: ReadonlyArray<RequestRecord>, options: { readonly writesOnly?: boolean } = {}): string[] {
  return requests.filter((request) => !options.writesOnly || request.write).map((request) => request.operation).sort();
}

/** The temporary HOME the provider is installed in, and an empty CLI configuration file beside it. */
export interface ProviderHome {
  readonly root: string;
  readonly home: string;
  readonly cliConfig: string;
  /** The executable `converge provider install` wrote. */
  readonly executable: string;
  /** What `converge provider install` printed and how it exited. */
  readonly install: ProcessResult;
  /** Whether it installed the packaged single executable (CONVERGE_TEST_PROVIDER=packaged), not the development wrapper. */
  readonly packaged: boolean;
  remove(): void;
}

/** terraform's implied local mirror path of the provider under `home`. */
export function mirroredExecutable(home: string): string {
  return join(home, ".terraform.d/plugins/registry.terraform.io/converge/converge/0.1.0/linux_amd64/terraform-provider-converge_v0.1.0");
}

/** Runs `converge provider install` (the compiled CLI) with HOME a new temporary directory. */
export async function installProvider(label: string): Promise<ProviderHome> {
  assertTerraformAvailable();
  const root = mkdtempSync(join(tmpdir(), `converge-tf-${label}-`));
  const home = join(root, "home");
  mkdirSync(home);
  const cliConfig = join(root, "empty.tfrc");
  writeFileSync(cliConfig, "");
  const { result: install, packaged } = await runProviderInstall(home, 60_000);
  return { root, home, cliConfig, executable: mirroredExecutable(home), install, packaged, remove: () => rmSync(root, { recursive: true, force: true }) };
}

/** One diagnostic of terraform's human output (`-no-color`): its severity, summary line and the whole block. */
export interface HumanDiagnostic {
  readonly severity: "Error" | "Warning";
  readonly summary: string;
  readonly text: string;
}

/** The diagnostics terraform printed, in order: each block from its `Error: ` / `Warning: ` line to the next. */
export function diagnosticsOf(output: string): HumanDiagnostic[] {
  const starts = [...output.matchAll(/^(Error|Warning): (.*)$/gm)];
  return starts.map((match, index) => ({
    severity: match[1] as "Error" | "Warning",
    summary: match[2]!,
    text: output.slice(match.index, starts[index + 1]?.index ?? output.length).trimEnd(),
  }));
}

export const errorsOf = (result: TerraformResult) => diagnosticsOf(`${result.stdout}\n${result.stderr}`).filter((diagnostic) => diagnostic.severity === "Error");

/** A terraform resource in state: its address and attributes. */
export type StateAttributes = Record<string, unknown>;

/**
 * One terraform working directory with its own environment: PATH, the provider's HOME, the empty
 * CLI configuration, CHECKPOINT_DISABLE, the service's endpoint and TOKEN as CONVERGE_ENDPOINT and
 * CONVERGE_TOKEN (unless `env` says otherwise). Every command gets `-input=false -no-color` where
 * terraform takes them.
 */
export class TerraformDir {
  readonly dir: string;
  readonly env: Readonly<Record<string, string>>;

  constructor(home: Pick<ProviderHome, "root" | "home" | "cliConfig">, name: string, env: Readonly<Record<string, string>>) {
    this.dir = join(home.root, name);
    mkdirSync(this.dir, { recursive: true });
    this.env = terraformEnv(home.home, home.cliConfig, env);
  }

  /** A directory whose provider talks to `service` with TOKEN. */
  static for(home: ProviderHome, name: string, service: RunningService, env: Readonly<Record<string, string>> = {}): TerraformDir {
    return new TerraformDir(home, name, { CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: TOKEN, ...env });
  }

  /** Writes main.tf. */
  write(mainTf: string): void {
    writeFileSync(join(this.dir, "main.tf"), mainTf);
  }

  path(file: string): string {
    return join(this.dir, file);
  }

  async run(args: ReadonlyArray<string>, options: { readonly env?: Readonly<Record<string, string>>; readonly timeoutMs?: number } = {}): Promise<TerraformResult> {
    const result = await runProcess(TERRAFORM, args, { cwd: this.dir, env: { ...this.env, ...options.env }, timeoutMs: options.timeoutMs ?? 150_000 });
    return { ...result, args };
  }

  init(env: Readonly<Record<string, string>> = {}): Promise<TerraformResult> {
    return this.run(["init", "-input=false", "-no-color"], { env });
  }

  apply(...args: string[]): Promise<TerraformResult> {
    return this.run(["apply", "-auto-approve", "-input=false", "-no-color", ...args]);
  }

  /** `terraform plan -detailed-exitcode`: exit 0 no changes, 2 changes, 1 error. */
  plan(...args: string[]): Promise<TerraformResult> {
    return this.run(["plan", "-detailed-exitcode", "-input=false", "-no-color", ...args]);
  }

  destroy(...args: string[]): Promise<TerraformResult> {
    return this.run(["destroy", "-auto-approve", "-input=false", "-no-color", ...args]);
  }

  /**
   * Starts a command in a process group of its own (terraform and the provider it starts), to be
   * killed as a whole; `exited` resolves when terraform has exited.
   */
  start(args: ReadonlyArray<string>): { readonly child: ChildProcess; readonly exited: Promise<number | null> } {
    const child = spawn(TERRAFORM, [...args], { cwd: this.dir, env: { ...this.env }, stdio: "ignore", detached: true });
    const exited = new Promise<number | null>((resolveExit) => child.once("exit", (code) => resolveExit(code)));
    return { child, exited };
  }

  /**
   * The resources of terraform.tfstate by address (`converge_route.get_orders`), with their
   * attributes; none when there is no state file, or an empty one (what a killed terraform leaves).
   */
  state(): Record<string, StateAttributes> {
    const file = this.path("terraform.tfstate");
    const text = existsSync(file) ? readFileSync(file, "utf8") : "";
    if (text === "") return {};
    const state = JSON.parse(text) as {
      resources: Array<{ mode: string; type: string; name: string; instances: Array<{ index_key?: string | number; attributes: StateAttributes }> }>;
    };
    const out: Record<string, StateAttributes> = {};
    for (const resource of state.resources) {
      const prefix = `${resource.mode === "data" ? "data." : ""}${resource.type}.${resource.name}`;
      for (const instance of resource.instances) {
        const key = instance.index_key === undefined ? "" : `[${JSON.stringify(instance.index_key)}]`;
        out[`${prefix}${key}`] = instance.attributes;
      }
    }
    return out;
  }

  /** One resource's attributes in state; throws when the state has no such resource. */
  attributes(address: string): StateAttributes {
    const found = this.state()[address];
    if (!found) throw new Error(`terraform.tfstate in ${this.dir} has no ${address}`);
    return found;
  }
}

/** The entries of a zip archive (a terraform plan file), each inflated: what a grep of its contents must search. */
export function zipEntries(archive: Buffer): Array<{ readonly name: string; readonly data: Buffer }> {
  // the end of central directory record: signature, then the directory's size and offset
  const end = archive.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (end < 0) throw new Error("not a zip archive: no end of central directory record");
  const count = archive.readUInt16LE(end + 10);
  let offset = archive.readUInt32LE(end + 16);
  const entries: Array<{ name: string; data: Buffer }> = [];
  for (let index = 0; index < count; index += 1) {
    if (archive.readUInt32LE(offset) !== 0x02014b50) throw new Error(`zip central directory entry ${index} is not where it should be`);
    const method = archive.readUInt16LE(offset + 10);
    const compressedSize = archive.readUInt32LE(offset + 20);
    const nameLength = archive.readUInt16LE(offset + 28);
    const extraLength = archive.readUInt16LE(offset + 30);
    const commentLength = archive.readUInt16LE(offset + 32);
    const localOffset = archive.readUInt32LE(offset + 42);
    const name = archive.toString("utf8", offset + 46, offset + 46 + nameLength);
    const dataStart = localOffset + 30 + archive.readUInt16LE(localOffset + 26) + archive.readUInt16LE(localOffset + 28);
    const raw = archive.subarray(dataStart, dataStart + compressedSize);
    if (method !== 0 && method !== 8) throw new Error(`zip entry ${name} uses compression method ${method}, not stored (0) or deflate (8)`);
    entries.push({ name, data: method === 8 ? inflateRawSync(raw) : Buffer.from(raw) });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** Waits until the service has answered no request for `quietMs` (requests of a killed process still in flight land first). */
export async function untilQuiet(service: RunningService, quietMs: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let seen = service.requests.count();
  let since = Date.now();
  while (Date.now() - since < quietMs) {
    if (Date.now() > deadline) throw new Error(`the service still answered requests ${timeoutMs} ms later`);
    await new Promise((resolveWait) => setTimeout(resolveWait, 50));
    const now = service.requests.count();
    if (now !== seen) {
      seen = now;
      since = Date.now();
    }
  }
}
