import type { ServiceName } from "./service-error.js";

/** One request as the service saw it (never its credentials). */
export interface RequestRecord {
  readonly service: ServiceName | "unknown";
  readonly operation: string;
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly write: boolean;
  /** The parsed JSON body, kept only when recording bodies. */
  readonly body?: unknown;
}

/**
 * What the service answered, for tests and benchmarks: counts per operation and status, and when
 * enabled, every request with its body (so a test can check what a client really sent).
 */
export class RequestLog {
  readonly #counts = new Map<string, number>();
  readonly #records: RequestRecord[] = [];
  recordBodies: boolean;

  constructor(recordBodies = false) {
    this.recordBodies = recordBodies;
  }

  add(record: RequestRecord): void {
    const key = `${record.operation} ${record.status}`;
    this.#counts.set(key, (this.#counts.get(key) ?? 0) + 1);
    if (this.recordBodies) this.#records.push(record);
  }

  /** Requests answered, optionally only of one operation and/or status. */
  count(filter: { operation?: string; status?: number; writesOnly?: boolean } = {}): number {
    if (filter.writesOnly) return this.#records.filter((r) => r.write && matches(r, filter)).length;
    let total = 0;
    for (const [key, count] of this.#counts) {
      const [operation, status] = key.split(" ");
      if (filter.operation !== undefined && operation !== filter.operation) continue;
      if (filter.status !== undefined && Number(status) !== filter.status) continue;
      total += count;
    }
    return total;
  }

  /** Recorded requests (requires `recordBodies`). */
  records(filter: { operation?: string; status?: number } = {}): RequestRecord[] {
    return this.#records.filter((r) => matches(r, filter));
  }

  reset(): void {
    this.#counts.clear();
    this.#records.length = 0;
  }
}

function matches(record: RequestRecord, filter: { operation?: string; status?: number }): boolean {
  return (filter.operation === undefined || record.operation === filter.operation) && (filter.status === undefined || record.status === filter.status);
}
