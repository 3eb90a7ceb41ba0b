import { appendFileSync, readFileSync } from "node:fs";
import { relative } from "node:path";
import { afterAll } from "vitest";

/**
 * A setup file of every project (vitest.config.ts): with CONVERGE_TEST_CPU_LOG=FILE, appends one
 * line per test file to FILE when the file's last hook has run, `SECONDS PROJECT PATH`: the CPU
 * its worker process spent (its start, the imports, the tests) and every process it started and
 * waited for (terraform, converge, the provider, packaging), from /proc/self/stat. How to find
 * where the suite's CPU goes on a machine of few cores (docs/manual/contributing.md). Without the
 * variable it does nothing.
 */

const LOG = process.env.CONVERGE_TEST_CPU_LOG;

/** utime + stime + cutime + cstime of this process, in seconds (Linux; clock ticks of 1/100 s). */
function cpuSeconds(): number {
  const stat = readFileSync("/proc/self/stat", "utf8");
  // the fields after the command name in parentheses (which may hold spaces): state is field 3
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0) / 100;
}

if (LOG) {
  // vitest reads the first parameter's pattern (its fixtures): an empty one asks for none
  // eslint-disable-next-line no-empty-pattern
  afterAll(({}, suite) => {
    appendFileSync(LOG, `${cpuSeconds().toFixed(2)} ${suite.file.projectName ?? "?"} ${relative(process.cwd(), suite.file.filepath)}\n`);
  });
}
