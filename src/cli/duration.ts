import { CliError } from "./cli-error.js";

const UNITS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * A duration as Go, Kubernetes and Prometheus write them: `500ms`, `30s`, `5m`, `1h30m`; a bare
 * number is seconds. Refuses anything else, and values outside [minMs, maxMs], naming the flag.
 */
export function parseDuration(text: string, flag: string, minMs: number, maxMs: number): number {
  const trimmed = text.trim();
  let ms: number | undefined;
  if (/^\d+(\.\d+)?$/.test(trimmed)) ms = Number(trimmed) * 1000;
  else if (/^(\d+(\.\d+)?(ms|s|m|h))+$/.test(trimmed)) {
    ms = 0;
    for (const [, amount, unit] of trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)) ms += Number(amount) * UNITS[unit!]!;
  }
  if (ms === undefined || !Number.isFinite(ms)) {
    throw new CliError(`${flag} ${JSON.stringify(text)} is not valid: expected a duration such as 30s, 5m or 1h30m (a bare number is seconds)`);
  }
  if (ms < minMs || ms > maxMs) {
    throw new CliError(`${flag} ${JSON.stringify(text)} is not valid: expected from ${describeMs(minMs)} to ${describeMs(maxMs)}`);
  }
  return Math.round(ms);
}

function describeMs(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}
