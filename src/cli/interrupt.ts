/** What a writing command does on Ctrl-C, while its writes are under way (`onInterrupt`). */
export interface Interrupt {
  /** Aborted by the first SIGINT or SIGTERM: start no further write. */
  readonly signal: AbortSignal;
  /** The exit code the interrupting signal calls for (130 for SIGINT, 143 for SIGTERM), once interrupted. */
  exitCode(): number | undefined;
  /** Stops listening: the signals' default action again. */
  dispose(): void;
}

/** The exit code of a process ended by each signal: 128 + its number, as shells report it. */
const EXIT_CODES = { SIGINT: 130, SIGTERM: 143 } as const;

/**
 * Listens for Ctrl-C (SIGINT, and SIGTERM, which CI runners and Kubernetes send to cancel) while a
 * command writes, as terraform does: the first one lets the writes under way finish (their outcome
 * is then known, never left half-made) and starts no other; the command then reports what was done
 * and what was not started, releases its lock and exits 130 (143). A second one ends the process at
 * once, saying that the writes under way may or may not have been made (the next apply converges
 * them: docs/manual/plan-and-apply.md).
 */
export function onInterrupt(write: (text: string) => void = (text) => process.stderr.write(text)): Interrupt {
  const controller = new AbortController();
  let received: keyof typeof EXIT_CODES | undefined;
  const handle = (signal: keyof typeof EXIT_CODES) => {
    if (received === undefined) {
      received = signal;
      write(`converge: ${signal === "SIGINT" ? "interrupt" : "SIGTERM"} received: the writes under way finish, no other starts (Ctrl-C again to stop at once)\n`);
      controller.abort();
      return;
    }
    write("converge: stopped at once: a write under way may or may not have been made; apply again to converge\n");
    process.exit(EXIT_CODES[received]);
  };
  const onSigint = () => handle("SIGINT");
  const onSigterm = () => handle("SIGTERM");
  process.on("SIGINT", onSigint);
  process.on("SIGTERM", onSigterm);
  return {
    signal: controller.signal,
    exitCode: () => (received === undefined ? undefined : EXIT_CODES[received]),
    dispose() {
      process.off("SIGINT", onSigint);
      process.off("SIGTERM", onSigterm);
    },
  };
}
