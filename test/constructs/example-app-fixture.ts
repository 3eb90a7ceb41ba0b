import { copyFile, mkdir, mkdtemp, readFile, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { expect } from "vitest";
import { runProcess } from "../support/run-process.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
/** The example cdktf app of the repository. */
export const EXAMPLE = join(ROOT, "examples/cdktf-app");

/**
 * A copy of examples/cdktf-app in a new temporary directory, installed beside converge as its README
 * installs it (node_modules linking to this checkout and its cdktf, cdktn, constructs and null
 * provider); returns its directory (the caller removes it).
 */
export async function copyExampleApp(): Promise<string> {
  const app = await mkdtemp(join(tmpdir(), "converge-cdktf-example-"));
  for (const file of ["main.ts", "main-cdktn.ts", "shop.ts", "package.json", "cdktf.json"]) await copyFile(join(EXAMPLE, file), join(app, file));
  await mkdir(join(app, "node_modules/@cdktf"), { recursive: true });
  await symlink(ROOT, join(app, "node_modules/converge"));
  for (const name of ["cdktf", "cdktn", "constructs", "@cdktf/provider-null"]) await symlink(join(ROOT, "node_modules", name), join(app, "node_modules", name));
  return app;
}

/**
 * Runs an entry of the example copied to `app` (copyExampleApp) as `cdktf synth` / `cdktn synth` do
 * (CDKTF_OUTDIR, the terraform_data vehicle unless `env` says otherwise, CONVERGE_ENDPOINT from
 * `env`); returns the stack's directory. The synth runs in a directory
 * of its own inside `out`, where cdktf's default local backend keeps the stack's state.
 */
export async function synthExampleApp(app: string, entry: string, out: string, env: Readonly<Record<string, string>>): Promise<string> {
  for (const file of ["shop.ts", entry]) {
    const source = await readFile(join(app, file), "utf8");
    await writeFile(join(app, file.replace(/\.ts$/, ".mjs")), ts.transpileModule(source.replace('from "./shop.js"', 'from "./shop.mjs"'), { compilerOptions: { module: ts.ModuleKind.ES2022, target: ts.ScriptTarget.ES2022 } }).outputText);
  }
  const outdir = join(app, out);
  const cwd = join(outdir, "work");
  await mkdir(cwd, { recursive: true });
  const synth = await runProcess(process.execPath, [join(app, entry.replace(/\.ts$/, ".mjs"))], { cwd, env: { PATH: process.env.PATH ?? "", CDKTF_OUTDIR: outdir, CONVERGE_VEHICLE: "terraform_data", ...env } });
  expect(synth.code, synth.stdout + synth.stderr).toBe(0);
  return join(outdir, "stacks/shop");
}
