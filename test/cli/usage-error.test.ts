import { Command, Option } from "commander";
import { describe, expect, it } from "vitest";
import { installUsageErrors } from "../../src/cli/usage-error.js";

/**
 * Usage errors as commander raises them (the pinned commander's texts), reworded by
 * installUsageErrors: the mistake, the hint, one line to --help, never the help itself.
 */

function program(): { program: Command; written: () => string } {
  let text = "";
  const root = new Command().name("converge").exitOverride();
  root.command("drift")
    .option("-f, --file <path>", "files", (value: string, previous: string[]) => [...previous, value], [])
    .addOption(new Option("--output <format>", "format").choices(["text", "json", "markdown"]).default("text"))
    .option("--report <file>", "report file")
    .action(() => undefined);
  root.command("apply").argument("[plan]").option("--auto-approve", "approve").action(() => undefined);
  installUsageErrors(root);
  for (const command of [root, ...root.commands]) command.configureOutput({ writeErr: (chunk) => (text += chunk), writeOut: () => undefined });
  return { program: root, written: () => text };
}

function usageError(args: string[]): string {
  const { program: root, written } = program();
  expect(() => root.parse(["node", "converge", ...args])).toThrow();
  return written();
}

describe("usage errors", () => {
  it.each([
    [["drift", "--output", "junit"], [
      'converge: --output "junit" is not valid: expected one of text, json, markdown',
      "  a report file is written with --report drift.xml (its extension names the format: .xml JUnit, .json, .md, .html); --output is what is printed on stdout",
      "Run 'converge drift --help' for usage.",
    ]],
    [["drift", "--output", "jsn"], ['converge: --output "jsn" is not valid: expected one of text, json, markdown', "  did you mean --output json?", "Run 'converge drift --help' for usage."]],
    [["apply", "--auto-aprove"], ["converge: unknown option --auto-aprove", "  did you mean --auto-approve?", "Run 'converge apply --help' for usage."]],
    [["drift", "examples/desired-state"], [
      "converge: unexpected argument examples/desired-state",
      "  desired-state files and directories are given with -f: converge drift -f examples/desired-state",
      "Run 'converge drift --help' for usage.",
    ]],
    [["drift", "--report"], ["converge: --report needs a value: --report <file>", "Run 'converge drift --help' for usage."]],
    [["drif"], ["converge: unknown command drif", "  did you mean drift?", "Run 'converge --help' for usage."]],
  ])("refuses %j in one screen: the mistake, the hint, one line to --help", (args, lines) => {
    expect(usageError(args).trimEnd().split("\n")).toEqual(lines);
  });
});
