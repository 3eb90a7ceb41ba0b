/** A step of a GitHub Actions job, as the example workflows under examples/ write them (the fields the tests read). */
export interface WorkflowStep {
  readonly name?: string;
  readonly uses?: string;
  readonly run?: string;
  readonly if?: string;
  readonly env?: Record<string, string>;
  readonly with?: Record<string, unknown>;
}
