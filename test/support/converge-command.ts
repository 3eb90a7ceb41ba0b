import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { BUN_VERSION } from "../../src/cli/release/release-platform.js";

/**
 * The package root (the checkout), found from this file, so that this works both from `test/support/`
 * under vitest and from `dist/test/support/` under node.
 */
export const PACKAGE_ROOT = packageRootAbove(dirname(fileURLToPath(import.meta.url)));
/** Where the tests' release is packaged, once per build of dist/ (the tests share it: test/cli/release/release-fixture.ts makes it). */
export const TEST_RELEASE_DIR = join(PACKAGE_ROOT, ".converge-test", "provider-release");

/**
 * Which converge the tests run as a process, from CONVERGE_TEST_CLI: `node` (the default: this
 * checkout's compiled CLI on this Node.js, `node dist/src/cli/main.js`) or `packaged` (the single
 * executable `converge` of the tests' release, as a user who downloads it runs it). vitest's
 * `packaged` project sets it (vitest.config.ts), and its setup file waits for the release before a suite's file is imported.
 */
export type CliUnderTest = "node" | "packaged";

export function cliUnderTest(): CliUnderTest {
  const choice = process.env.CONVERGE_TEST_CLI ?? "node";
  if (choice !== "node" && choice !== "packaged") throw new Error(`CONVERGE_TEST_CLI is ${JSON.stringify(choice)}: expected "node" (the default) or "packaged"`);
  return choice;
}

/** A program that runs converge: the file to execute and the arguments before converge's own. */
export interface ConvergeCommand {
  readonly file: string;
  readonly args: ReadonlyArray<string>;
  /** Whether it is the release's single executable (CONVERGE_TEST_CLI=packaged). */
  readonly packaged: boolean;
}

/** The stamp of a release packaged from this build of dist/: the newest file under dist/src and the release's Bun. */
export function releaseStamp(): string {
  let newest = 0;
  const directory = join(PACKAGE_ROOT, "dist", "src");
  for (const entry of readdirSync(directory, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return `${newest} bun ${BUN_VERSION}`;
}

/** The tests' release's single executable `converge`, when the release there was packaged from this build of dist/; throws saying how to make it otherwise. */
export function packagedCliExecutable(): string {
  const executable = join(TEST_RELEASE_DIR, "executables", "linux_amd64", "converge");
  const stampFile = join(TEST_RELEASE_DIR, "stamp");
  if (!existsSync(executable) || !existsSync(stampFile) || readFileSync(stampFile, "utf8") !== releaseStamp()) {
    throw new Error(`CONVERGE_TEST_CLI=packaged: no release packaged from this build of dist/ in ${TEST_RELEASE_DIR}: run the tests through vitest's packaged project (vitest run --project packaged), whose setup file packages it`);
  }
  return executable;
}

/** The converge the tests run (cliUnderTest): `node dist/src/cli/main.js`, or the release's executable. */
export function convergeCommand(): ConvergeCommand {
  if (cliUnderTest() === "packaged") return { file: packagedCliExecutable(), args: [], packaged: true };
  return { file: process.execPath, args: [builtCliPath()], packaged: false };
}

/** convergeCommand as one line of a POSIX shell (each word quoted): what a provisioner or a wrapper script runs. */
export function convergeCommandLine(): string {
  const { file, args } = convergeCommand();
  return [file, ...args].map((word) => `'${word.replaceAll("'", "'\\''")}'`).join(" ");
}

function packageRootAbove(start: string): string {
  let directory = start;
  while (!existsSync(join(directory, "package.json"))) {
    const parent = dirname(directory);
    if (parent === directory) throw new Error(`cannot find the package root above ${start}`);
    directory = parent;
  }
  return directory;
}

/**
 * The compiled CLI, `dist/src/cli/main.js` of the package root. Throws a message saying how to
 * build it when it is missing.
 */
export function builtCliPath(): string {
  const cli = join(PACKAGE_ROOT, "dist", "src", "cli", "main.js");
  if (!existsSync(cli)) {
    throw new Error(`the compiled CLI ${cli} is missing: run "npm run build" first ("npm test" builds in pretest, "npx vitest" alone does not)`);
  }
  return cli;
}
