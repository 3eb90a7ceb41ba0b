import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";
import { marked } from "marked";
import { convergeCommandLine } from "./converge-command.js";
import { runProcess } from "./run-process.js";

/**
 * The commands of a README (or a manual page) run as a reader types them, so that the next drift
 * between a doc and the code fails a test: every line of its ```sh blocks, in order, in one bash
 * session, each line's exit code checked against its `# exit N` note (0 when it has none).
 */

/** One command line of a doc's shell blocks: its text (continuations joined) and the exit codes its note allows. */
export interface CommandLine {
  readonly text: string;
  /** From `# exit 2` (or `# exit 0 in sync, 2 drift, 3 unknown`: every code named); `[0]` without a note. */
  readonly exits: ReadonlyArray<number>;
}

/** The texts of a markdown text's code blocks of `lang` (```sh, ```hcl), in order, as a markdown reader sees them. */
export function codeBlocks(markdown: string, lang: string): string[] {
  return marked.lexer(markdown).flatMap(function codeOf(token): string[] {
    if (token.type === "code" && token.lang === lang) return [token.text as string];
    const children = (token as { tokens?: typeof token[] }).tokens ?? (token as { items?: typeof token[] }).items ?? [];
    return children.flatMap(codeOf);
  });
}

/** The command lines of the ```sh blocks of a markdown text, in order; `blocks` picks blocks by their index among them. */
export function commandLines(markdown: string, blocks?: ReadonlyArray<number>): CommandLine[] {
  const shell = codeBlocks(markdown, "sh");
  const chosen = blocks === undefined ? shell : blocks.map((index) => {
    if (shell[index] === undefined) throw new Error(`no sh block ${index}: the doc has ${shell.length}`);
    return shell[index]!;
  });
  return chosen.flatMap((block) => block.replace(/\\\n\s*/g, "").split("\n")).filter((line) => line.trim() !== "" && !line.trim().startsWith("#")).map((text) => {
    const note = /#\s*exit ([0-9][^#]*)$/.exec(text);
    const exits = note ? [...note[1]!.matchAll(/(?:^|, |or )(\d)\b/g)].map((match) => Number(match[1])) : [0];
    return { text, exits };
  });
}

/** How one line ran: its exit code and what it printed (stdout and stderr together, terminal escapes removed). */
export interface LineResult {
  readonly line: CommandLine;
  readonly code: number;
  readonly output: string;
}

export interface ReadmeRunOptions {
  /** Where the session starts (a copy of what the doc's paths name: never the checkout). */
  readonly cwd: string;
  /** A scratch directory of the test's own: HOME, the terraform CLI configuration, each line's output. */
  readonly scratch: string;
  /** Lines not run, each (a part of its text) with the reason; each must be in the doc. */
  readonly skip?: Readonly<Record<string, string>>;
  /** Lines (a part of their text) run on a terminal with this answer typed, as a reader answers a prompt. */
  readonly answers?: Readonly<Record<string, string>>;
  /** Files the doc says to have in the working directory (a configuration it shows), written there first, 4566 replaced as in the lines. */
  readonly files?: Readonly<Record<string, string>>;
  /** More environment of the session. */
  readonly env?: Readonly<Record<string, string>>;
  /** @default 240000 */
  readonly timeoutMs?: number;
}

/** A port no one listens on now, for the doc's 4566 (the machine is shared: 4566 may be taken). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

const SCRIPT = "/usr/bin/script";

/**
 * Runs `lines` in one bash session in `cwd`, as a reader would type them, with these changes only:
 * `converge` and `npx converge` (`npx --no converge`) run the converge under test
 * (convergeCommandLine); the ports 4566 (`converge serve`'s) and 8474 (`converge reconcile`'s) are
 * free ones; after a line that starts `converge serve … &` or `converge reconcile … &` the session
 * waits for its `listening on` line (a reader sees it before typing on); HOME is a
 * scratch directory, terraform runs with an empty CLI configuration and no checkpoint calls.
 * Lines in `answers` run on a pseudo-terminal (util-linux `script`) with their answer typed.
 * Background jobs are killed at the end. Resolves with every line's code and output.
 */
export async function runReadmeLines(lines: ReadonlyArray<CommandLine>, options: ReadmeRunOptions): Promise<LineResult[]> {
  const port = String(await freePort());
  const reconcilePort = String(await freePort());
  const ports = (text: string) => text.replaceAll("4566", port).replaceAll("8474", reconcilePort);
  const bin = join(options.scratch, "bin");
  const steps = join(options.scratch, "steps");
  const home = join(options.scratch, "home");
  await Promise.all([mkdir(bin, { recursive: true }), mkdir(steps, { recursive: true }), mkdir(home, { recursive: true })]);
  await writeFile(join(bin, "converge"), `#!/bin/sh\nexec ${convergeCommandLine()} "$@"\n`, { mode: 0o755 });
  await writeFile(join(bin, "npx"), [
    "#!/bin/sh",
    '[ "$1" = "--no" ] && shift',
    'if [ "$1" = converge ]; then shift; exec converge "$@"; fi',
    'echo "npx $*: only npx converge is run by the doc tests" >&2',
    "exit 127",
    "",
  ].join("\n"), { mode: 0o755 });
  await writeFile(join(options.scratch, "terraformrc"), "");
  for (const [name, text] of Object.entries(options.files ?? {})) await writeFile(join(options.cwd, name), ports(text));
  const run: Array<{ readonly line: CommandLine; readonly index: number }> = [];
  const script = ["set +e", "trap 'kill $(jobs -p) 2>/dev/null; wait 2>/dev/null' EXIT"];
  for (const [index, line] of lines.entries()) {
    if (Object.keys(options.skip ?? {}).some((part) => line.text.includes(part))) continue;
    run.push({ line, index });
    const text = ports(line.text);
    const out = join(steps, `${index}.out`);
    const answer = Object.entries(options.answers ?? {}).find(([part]) => line.text.includes(part))?.[1];
    if (answer !== undefined) {
      await writeFile(join(steps, `${index}.sh`), `${text}\n`);
      await writeFile(join(steps, `${index}.answer`), `${answer}\n`);
      script.push(`${SCRIPT} -qfec "bash -e ${join(steps, `${index}.sh`)}" /dev/null < ${join(steps, `${index}.answer`)} > ${out} 2>&1`);
    } else {
      script.push(`{ ${text}\n} > ${out} 2>&1 < /dev/null`);
    }
    script.push(`echo $? > ${join(steps, `${index}.code`)}`);
    if (/^(npx (--no )?)?converge (serve|reconcile) .*&\s*(#.*)?$/.test(line.text.trim())) {
      script.push(`for _ in $(seq 300); do grep -q '^listening on' ${out} && break; sleep 0.1; done`);
    }
  }
  for (const part of Object.keys(options.skip ?? {})) {
    if (!lines.some((line) => line.text.includes(part))) throw new Error(`skip ${JSON.stringify(part)}: no such line in the doc`);
  }
  const env: Record<string, string> = {
    PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`, HOME: home, NO_COLOR: "1", CHECKPOINT_DISABLE: "1",
    TF_CLI_CONFIG_FILE: join(options.scratch, "terraformrc"), TERM: "dumb", TMPDIR: process.env.TMPDIR ?? "/tmp", ...options.env,
  };
  const session = await runProcess("bash", ["-c", script.join("\n")], { cwd: options.cwd, env, timeoutMs: options.timeoutMs ?? 240_000 });
  if (session.code !== 0) throw new Error(`the doc's session ended with ${session.code}: ${session.stderr}`);
  return Promise.all(run.map(async ({ line, index }) => ({
    line,
    code: Number((await readFile(join(steps, `${index}.code`), "utf8")).trim()),
    // terraform colors its output whatever NO_COLOR says: what a reader sees, without the escapes
    output: (await readFile(join(steps, `${index}.out`), "utf8")).replaceAll(port, "4566").replaceAll(reconcilePort, "8474").replace(/\u001b\[[0-9;?]*[A-Za-z]/g, ""),
  })));
}

/** A line's result for an assertion's message. */
export function describeLine(result: LineResult): string {
  return `$ ${result.line.text}\nexit ${result.code}\n${result.output}`;
}
