import type { WorldInput } from "../../src/service/index.js";

/** The service a case runs against, as its setup sees it. */
export interface BenchService {
  /** `http://host:port`, no trailing slash. */
  readonly url: string;
  readonly world: WorldInput;
  /** A token of the world allowed every action. */
  readonly token: string;
}

/** One HTTP request that the load generator repeats. */
export interface LoadRequest {
  readonly method: "GET" | "POST" | "PATCH" | "DELETE";
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: string;
}

/** What a case promises to reach on the reference machine (a 2-core VM); reported, not enforced. */
export interface BenchGoal {
  readonly minRequestsPerSecond?: number;
  readonly maxP99Ms?: number;
}

/**
 * One benchmark case: a name, the service it needs, and a setup that prepares state through the
 * service's API and returns the request to repeat. Cases are listed in `cases/index.ts`.
 */
export interface BenchCase {
  readonly name: string;
  readonly description: string;
  /** Start the service with a state file (every write fsync'ed). @default false */
  readonly durable?: boolean;
  readonly goal?: BenchGoal;
  setup(service: BenchService): Promise<LoadRequest> | LoadRequest;
}
