/**
 * The time a release's archive entries carry, in seconds since 1970-01-01T00:00:00Z
 * (reproducible-builds.org's SOURCE_DATE_EPOCH): 2000-01-01T00:00:00Z unless one is given.
 */
export const DEFAULT_SOURCE_DATE_EPOCH = 946_684_800;

/** The first and last times a zip's MS-DOS date and time fields can hold: 1980-01-01T00:00:00Z, 2107-12-31T23:59:58Z. */
const DOS_FIRST_EPOCH = 315_532_800;
const DOS_LAST_EPOCH = 4_354_819_198;

/**
 * The archive time of a release: `--source-date-epoch` when given, else the SOURCE_DATE_EPOCH
 * environment variable when set and not empty, else DEFAULT_SOURCE_DATE_EPOCH. A value that is not
 * a whole number of seconds a zip entry can carry is refused, naming where it came from.
 */
export function sourceDateEpoch(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): number {
  if (flag !== undefined) return parseEpoch(flag, "--source-date-epoch");
  const fromEnv = env.SOURCE_DATE_EPOCH;
  if (fromEnv !== undefined && fromEnv !== "") return parseEpoch(fromEnv, "SOURCE_DATE_EPOCH");
  return DEFAULT_SOURCE_DATE_EPOCH;
}

function parseEpoch(value: string, source: string): number {
  const expected = `expected whole seconds since 1970-01-01T00:00:00Z from ${DOS_FIRST_EPOCH} (1980-01-01, the first time a zip entry can carry) to ${DOS_LAST_EPOCH} (2107-12-31T23:59:58Z), e.g. $(git log -1 --format=%ct)`;
  if (!/^\d+$/.test(value)) throw new Error(`${source} ${JSON.stringify(value)} is not a number of seconds: ${expected}`);
  const epoch = Number(value);
  if (epoch < DOS_FIRST_EPOCH || epoch > DOS_LAST_EPOCH) throw new Error(`${source} ${value} is outside what a zip entry's time can hold: ${expected}`);
  return epoch;
}

/**
 * A Date for yazl's `mtime` that makes the zip's MS-DOS date and time fields the UTC time of
 * `epoch`. The DOS fields have no time zone, and yazl fills them from a Date's local-time fields
 * (getHours, …): this Date answers those with its UTC ones, so the fields are the same in every
 * time zone and never shifted by a daylight saving change. DOS time counts 2-second steps: an odd
 * second is written as the even one before it.
 */
export function dosTimeOfEpoch(epoch: number): Date {
  const date = new Date(epoch * 1000);
  return Object.assign(date, {
    getFullYear: () => date.getUTCFullYear(),
    getMonth: () => date.getUTCMonth(),
    getDate: () => date.getUTCDate(),
    getHours: () => date.getUTCHours(),
    getMinutes: () => date.getUTCMinutes(),
    getSeconds: () => date.getUTCSeconds(),
  });
}
