import { DiagnosticsError, errorDiagnostic } from "./diagnostics.js";
import type { Logger } from "./hclog.js";
import type { CallContext } from "./provider-definition.js";

/**
 * One provider process's state, shared by its concurrent calls: what `configure` returned (set once
 * by ConfigureProvider) and the signal StopProvider aborts.
 */
export class ProcessState<P> {
  readonly #stop = new AbortController();
  #configured: Promise<P> | undefined;

  constructor(readonly log: Logger) {}

  get signal(): AbortSignal {
    return this.#stop.signal;
  }

  /** Records what `configure` makes of the configuration (a failed configure leaves the provider unconfigured). */
  configure(provider: Promise<P>): void {
    this.#configured = provider;
    provider.catch(() => {
      if (this.#configured === provider) this.#configured = undefined;
    });
  }

  /** What a resource or data source call receives; refuses when ConfigureProvider has not succeeded. */
  async context(): Promise<CallContext<P>> {
    if (this.#configured === undefined) {
      throw new DiagnosticsError(errorDiagnostic("provider is not configured", "terraform called a resource before ConfigureProvider succeeded"));
    }
    return { provider: await this.#configured, signal: this.#stop.signal, log: this.log };
  }

  stop(): void {
    this.#stop.abort(new Error("terraform asked the provider to stop"));
  }
}
