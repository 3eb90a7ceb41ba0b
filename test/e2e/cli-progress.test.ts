import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import type { RunningService } from "../../src/service/index.js";
import { runProcess } from "../support/run-process.js";
import { convergeCommandLine } from "../support/converge-command.js";
import { accountCall } from "../support/http.js";
import { ADMIN_TOKEN, E2E_TIMEOUT_MS, useE2eResources } from "./e2e-fixture.js";

/**
 * The progress line, on a real pseudo-terminal: util-linux `script` runs the CLI with stdin, stdout
 * and stderr on a pty (as a person's terminal), and the test reads every byte written to it. The
 * line's last frame of each phase shows its counts at their totals; with stderr redirected to a
 * file (or under CI, or TERM=dumb) not one byte of it is written.
 */

const SCRIPT = "/usr/bin/script";
const skipReason = existsSync(SCRIPT) ? undefined : `${SCRIPT} not found (Debian's util-linux package provides it)`;
if (skipReason) console.warn(`skipping the progress line's terminal tests: ${skipReason}`);

const { services, dirs } = useE2eResources();
let service: RunningService;
let estate: string;

/** Single-quoted for sh. */
const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/**
 * Runs `converge ARGS` inside `script` on a 40×160 pty (a pty `script` makes without a terminal of
 * its own has no size, and log-update draws nothing on a terminal of 0 rows), with `redirect`
 * appended to the command line; resolves with every byte the pty received.
 */
async function onTerminal(args: ReadonlyArray<string>, options: { redirect?: string; env?: Record<string, string> } = {}) {
  const command = `stty rows 40 cols 160; exec ${convergeCommandLine()} ${args.map(quote).join(" ")}${options.redirect ? ` ${options.redirect}` : ""}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", SHELL: "/bin/sh", TERM: "xterm-256color",
    CONVERGE_ENDPOINT: service.url, CONVERGE_TOKEN: ADMIN_TOKEN, NO_COLOR: "1", ...options.env,
  };
  const result = await runProcess(SCRIPT, ["-qfec", command, "/dev/null"], { cwd: estate, env, timeoutMs: 45_000 });
  return { code: result.code, output: result.stdout, stderr: result.stderr };
}

const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

/** The progress frames the terminal was sent, in order, escape sequences removed. */
function frames(output: string): string[] {
  return output.replace(ANSI, "").split(/\r?\n|\r/).map((line) => line.trim()).filter((line) => /^(reading|writing|verifying) · /.test(line));
}

/** The counts of the last frame of `phase`: `{reads: [done, total], writes: [done, total]}`. */
function lastCounts(all: ReadonlyArray<string>, phase: string): { reads?: [number, number]; writes?: [number, number] } {
  const last = all.filter((frame) => frame.startsWith(`${phase} · `)).at(-1);
  expect(last, `a frame of ${phase} among ${JSON.stringify(all)}`).toBeDefined();
  const count = (name: string) => {
    const match = new RegExp(`${name} (\\d+)/(\\d+)`).exec(last!);
    return match ? ([Number(match[1]), Number(match[2])] as [number, number]) : undefined;
  };
  return { ...(count("reads") ? { reads: count("reads") } : {}), ...(count("writes") ? { writes: count("writes") } : {}) };
}

beforeAll(async () => {
  if (skipReason) return;
  service = await services.start();
  estate = await dirs.copyOfExamples();
});

describe.skipIf(skipReason !== undefined)("the progress line on a terminal", { timeout: E2E_TIMEOUT_MS }, () => {
  it("counts plan's reads to their total, on one updating line", async () => {
    service.requests.reset();
    const result = await onTerminal(["plan", "-f", "."]);
    expect(result.code, result.output).toBe(2);
    const reads = service.requests.count();
    const all = frames(result.output);
    // every listing of the example estate is one page: the reads counted are the requests made
    expect(lastCounts(all, "reading")).toEqual({ reads: [reads, reads] });
    expect(reads).toBeGreaterThan(5);
    // one line updated in place: frames are redrawn over each other (cursor up, erase line), never scrolled
    expect(result.output).toMatch(/\u001b\[1A/);
    expect(result.output).toContain("Plan: ");
  });

  it("counts apply's writes against the plan's actions, then the verifying reads, each to its total", async () => {
    const result = await onTerminal(["apply", "-f", ".", "--auto-approve"]);
    expect(result.code, result.output).toBe(0);
    const applied = /Apply complete: (\d+) done, 0 failed\./.exec(result.output.replace(ANSI, ""));
    expect(applied, result.output).not.toBeNull();
    const writes = Number(applied![1]);
    expect(writes).toBeGreaterThan(10);
    const all = frames(result.output);
    const read = lastCounts(all, "reading").reads!;
    expect(read[0]).toBe(read[1]);
    expect(lastCounts(all, "writing").writes).toEqual([writes, writes]);
    expect(lastCounts(all, "verifying")).toEqual({ reads: [read[1], read[1]], writes: [writes, writes] });
    // the plan printed between reading and writing is not overdrawn: the reading line was left before it
    const text = result.output.replace(ANSI, "");
    expect(text.indexOf("converge will perform these actions:")).toBeGreaterThan(text.lastIndexOf(`reading · reads ${read[1]}/${read[1]}`));
    // one notice per Region waited for, not one per poll
    const waits = text.split(/\r?\n/).filter((line) => line.includes("waiting for Region"));
    expect(new Set(waits).size).toBe(waits.length);
  });

  it("counts drift's reads to their total", async () => {
    const changed = await accountCall(service, "PutAlternateContact", { AlternateContactType: "BILLING", Name: "Someone Else", Title: "Controller", EmailAddress: "billing@example.com", PhoneNumber: "+1 555 0101" }, ADMIN_TOKEN);
    expect(changed.status, changed.text).toBe(200);
    service.requests.reset();
    const result = await onTerminal(["drift", "-f", "."]);
    expect(result.code, result.output).toBe(2);
    const reads = service.requests.count();
    expect(lastCounts(frames(result.output), "reading")).toEqual({ reads: [reads, reads] });
  });

  it("writes no progress byte when stderr is a file, even with stdout on the terminal", async () => {
    const errors = join(await dirs.make("progress-stderr"), "stderr.txt");
    const result = await onTerminal(["apply", "-f", ".", "--auto-approve"], { redirect: `2>${quote(errors)}` });
    expect(result.code, result.output).toBe(0);
    const written = await readFile(errors, "utf8");
    expect(written).not.toMatch(/\u001b/);
    expect(written).not.toMatch(/reading|writing|verifying|reads \d|writes \d/);
    expect(frames(result.output)).toEqual([]);
    // stdout is still the terminal: the results are there
    expect(result.output).toMatch(/Apply complete: \d+ done|No changes\./);
  });

  it.each<{ name: string; env: Record<string, string> }>([
    { name: "CI is set", env: { CI: "true" } },
    { name: "TERM is dumb", env: { TERM: "dumb" } },
  ])("draws no progress line when $name", async ({ env }) => {
    const result = await onTerminal(["plan", "-f", "."], { env });
    expect(result.code, result.output).toBe(0);
    expect(frames(result.output)).toEqual([]);
    expect(result.output).not.toMatch(/\u001b\[1A|\u001b\[2K/);
    expect(result.output).toContain("No changes.");
  });
});
