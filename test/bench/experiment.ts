/** What an experiment is told about the run. */
export interface ExperimentConfig {
  /** Measured rounds (BENCH_ROUNDS). */
  readonly rounds: number;
}

export interface ExperimentReport {
  /** A markdown block (heading, one-line method, a table) for docs/manual/benchmarks.md. */
  readonly markdown: string;
  /** Every measurement, for bench-results.json. */
  readonly data: unknown;
  /** Why the measurement is not valid (failures during the run); empty when it is. */
  readonly problems: ReadonlyArray<string>;
}

/**
 * A benchmark that compares two ways of doing one job in the same run (the client against
 * autocannon, a reconcile against its lower bound and a naive baseline, …). Listed in
 * `experiments/index.ts`; selected with BENCH_CASES like the load cases.
 */
export interface BenchExperiment {
  readonly name: string;
  readonly description: string;
  run(config: ExperimentConfig): Promise<ExperimentReport>;
}
