import { startEndpoints, type RunningEndpoints } from "./endpoints.js";
import { Reconciler, type ReconcilerDeps } from "./reconciler.js";
import { statusDocument, statusPage } from "./status.js";

/** A reconciler at work with its endpoints. */
export interface RunningReconciler {
  readonly reconciler: Reconciler;
  readonly endpoints: RunningEndpoints;
  /** Resolves when the loop ends (after stop()). */
  readonly done: Promise<void>;
  /** Stops the loop (writes under way finish), releases the lock, closes the endpoints. */
  stop(): Promise<void>;
}

/**
 * Starts the continuous reconciler and its endpoints on `host:port` (0 picks a free port): the
 * endpoints answer before the first cycle (/healthz at once, /readyz once it ends).
 */
export async function startReconciling(deps: ReconcilerDeps & { readonly lockFile?: string | undefined }, host: string, port: number): Promise<RunningReconciler> {
  const reconciler = new Reconciler(deps);
  const endpoints = await startEndpoints(host, port, {
    alive: () => reconciler.alive,
    ready: () => reconciler.ready,
    metrics: async () => ({ contentType: deps.metrics.contentType, text: await deps.metrics.text() }),
    status: () => statusDocument(reconciler, deps.options, deps.lockFile),
    page: () => statusPage(reconciler, deps.options),
    trigger: (reason) => {
      reconciler.trigger(reason);
      return { accepted: true, phase: reconciler.state.phase, cycle: reconciler.state.cycle };
    },
  });
  const done = reconciler.start();
  let stopping: Promise<void> | undefined;
  return {
    reconciler,
    endpoints,
    done,
    stop() {
      stopping ??= (async () => {
        try {
          await reconciler.stop();
        } finally {
          await endpoints.close();
        }
      })();
      return stopping;
    },
  };
}
