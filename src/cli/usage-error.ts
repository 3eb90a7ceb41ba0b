import type { Command } from "commander";
import { closestMatch } from "../contract/closest-match.js";

/**
 * Usage errors in one screen (docs/manual/reference.md, "Errors a newcomer meets"): what was
 * wrong in converge's words, the close match when there is one ("did you mean"), the flag that does
 * what was meant when the mistake is a known one (`drift --output junit` → `--report FILE.xml`), and
 * one line pointing to the command's `--help` — never the whole help around it, as cargo, gh and
 * kubectl print them.
 *
 * commander writes each usage error through its `outputError` (the message of the pinned commander,
 * test/cli/usage-error.test.ts checks every form used here); this rewrites that text, per command.
 */
export function installUsageErrors(program: Command): void {
  for (const command of commandsOf(program)) {
    command.configureOutput({ outputError: (text, write) => write(describeUsageError(command, text)) });
  }
}

function commandsOf(command: Command): Command[] {
  return [command, ...command.commands.flatMap(commandsOf)];
}

/** A command's path as typed: `converge provider package`. */
function pathOf(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at; at = at.parent) names.unshift(at.name());
  return names.join(" ");
}

/** A choice that is not one, when what was meant is another flag: its value and the flag. */
interface ChoiceHint {
  readonly commands: ReadonlyArray<string>;
  readonly flag: string;
  readonly values: ReadonlyArray<string>;
  readonly hint: (value: string) => string;
}

const REPORT_FILE: Readonly<Record<string, string>> = { junit: "drift.xml", xml: "drift.xml", html: "drift.html", htm: "drift.html", md: "drift.md" };

const CHOICE_HINTS: ReadonlyArray<ChoiceHint> = [
  {
    commands: ["drift", "drift-merge"],
    flag: "--output",
    values: Object.keys(REPORT_FILE),
    hint: (value) => `a report file is written with --report ${REPORT_FILE[value.toLowerCase()]} (its extension names the format: .xml JUnit, .json, .md, .html); `
      + "--output is what is printed on stdout",
  },
];

/** The text of one usage error of `command`, from the text commander would have written. */
export function describeUsageError(command: Command, text: string): string {
  const message = text.trim().replace(/^error: /, "");
  const { said, hints } = reworded(command, message);
  return `converge: ${said}\n${hints.map((hint) => `  ${hint}\n`).join("")}Run '${pathOf(command)} --help' for usage.\n`;
}

function reworded(command: Command, message: string): { said: string; hints: string[] } {
  const suggestion = /\n\(Did you mean (.+)\?\)$/.exec(message);
  const base = suggestion ? message.slice(0, suggestion.index) : message;
  const hints = suggestion ? [`did you mean ${suggestion[1]}?`] : [];
  const invalid = /^option '([^']+)' argument '(.*)' is invalid\. (.*)$/s.exec(base);
  if (invalid) return invalidValue(command, invalid[1]!, invalid[2]!, invalid[3]!);
  const missing = /^option '([^']+)' argument missing$/.exec(base);
  if (missing) return { said: `${longFlag(missing[1]!)} needs a value: ${missing[1]}`, hints };
  const unknown = /^unknown (option|command) '([^']+)'$/.exec(base);
  if (unknown) return { said: `unknown ${unknown[1]} ${unknown[2]}`, hints };
  if (/^too many arguments/.test(base)) return { said: `unexpected argument${command.args.length === 1 ? "" : "s"} ${command.args.join(" ")}`, hints: positionalHints(command) };
  return { said: base, hints };
}

/** `--output "junit" is not valid: expected one of text, json, markdown`, with the close choice or the flag meant. */
function invalidValue(command: Command, flags: string, value: string, reason: string): { said: string; hints: string[] } {
  const flag = longFlag(flags);
  const choices = command.options.find((option) => option.flags === flags)?.argChoices;
  if (!choices) return { said: `${flag} ${JSON.stringify(value)} is not valid: ${reason.replace(/\.$/, "")}`, hints: [] };
  const said = `${flag} ${JSON.stringify(value)} is not valid: expected one of ${choices.join(", ")}`;
  const known = CHOICE_HINTS.find((hint) => hint.flag === flag && hint.commands.includes(command.name()) && hint.values.includes(value.toLowerCase()));
  if (known) return { said, hints: [known.hint(value)] };
  const close = closestMatch(value, choices);
  return { said, hints: close ? [`did you mean ${flag} ${close}?`] : [] };
}

/** `--output` of `--output <format>`, `-o, --out <dir>`. */
function longFlag(flags: string): string {
  return /--[\w-]+/.exec(flags)?.[0] ?? flags.split(/[ ,]/)[0]!;
}

/** A positional argument where a flag was meant: files and directories of desired state go after -f. */
function positionalHints(command: Command): string[] {
  if (!command.options.some((option) => option.short === "-f")) return [];
  const files = command.args.map((arg) => `-f ${arg}`).join(" ");
  return [`desired-state files and directories are given with -f: ${pathOf(command)} ${files}`];
}
