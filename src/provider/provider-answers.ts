import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { ConstantAnswers } from "./runtime/constant-answers.js";

/**
 * The converge provider's constant answers (GetProviderSchema, GetMetadata and the empty ones) as
 * the runtime encodes them, written by `npm run build` from the definition itself
 * (`writeProviderAnswers`) beside the compiled provider, as base64 by RPC name, and served as they
 * are (src/provider/main.ts): a process terraform starts only for schemas encodes nothing.
 */
const ANSWERS_FILE = fileURLToPath(new URL("./provider-answers.json", import.meta.url));

/** The answers the build wrote (an error naming the file and what it holds when it is not such a file). */
export function readProviderAnswers(): Partial<ConstantAnswers> {
  const written: unknown = JSON.parse(readFileSync(ANSWERS_FILE, "utf8"));
  if (typeof written !== "object" || written === null || Array.isArray(written) || !Object.values(written).every((value) => typeof value === "string")) {
    throw new Error(`${ANSWERS_FILE} holds ${JSON.stringify(written).slice(0, 80)}: expected base64 answers by RPC name, as \`npm run build\` writes them`);
  }
  return Object.fromEntries(Object.entries(written as Record<string, string>).map(([name, base64]) => [name, Buffer.from(base64, "base64")]));
}

/** Writes the answers of the definition as it is now (the build runs this once the provider is compiled). */
export async function writeProviderAnswers(): Promise<string> {
  const [{ convergeProvider }, { constantAnswers }] = await Promise.all([import("./converge-provider.js"), import("./runtime/constant-answers.js")]);
  const answers = await constantAnswers(convergeProvider);
  writeFileSync(ANSWERS_FILE, `${JSON.stringify(Object.fromEntries(Object.entries(answers).map(([name, bytes]) => [name, Buffer.from(bytes).toString("base64")])))}\n`);
  return ANSWERS_FILE;
}
