import puppeteer, { type Browser } from "puppeteer-core";
import { firstExecutable } from "./executables.js";

/**
 * Debian's Chromium (`apt-get install chromium`), driven by puppeteer-core, which never downloads a
 * browser. `.ci/run` installs the package when it is missing; locally a test without it is skipped
 * with the reason printed, and under CI (CI=true) it fails instead.
 */

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];

/** The Chromium executable: `CHROMIUM_PATH` when set, else Debian's; `undefined` when there is none. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return firstExecutable(env.CHROMIUM_PATH ? [env.CHROMIUM_PATH] : CANDIDATES);
}

/** Why a browser test cannot run here, or `undefined` when it can. Throws under CI, where it must run. */
export function chromiumMissingReason(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (findChromium(env)) return undefined;
  const reason = `Chromium not found (${env.CHROMIUM_PATH ? `CHROMIUM_PATH=${env.CHROMIUM_PATH}` : CANDIDATES.join(", ")}): install it with \`apt-get install chromium\` (.ci/run does)`;
  if (env.CI === "true") throw new Error(`${reason}; CI must run the browser tests`);
  return reason;
}

/** Headless Chromium; the caller closes it. `--no-sandbox`: these machines run as root. */
export function launchChromium(): Promise<Browser> {
  const executablePath = findChromium();
  if (!executablePath) throw new Error(chromiumMissingReason() ?? "Chromium not found");
  return puppeteer.launch({
    executablePath,
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run", "--no-default-browser-check"],
  });
}
