import { createLogUpdate } from "log-update";
import { Progress, describeProgress, type ProgressPhase } from "../reconcile/progress.js";

/** How often the line is redrawn at most: reads may finish thousands of times a second. */
const REDRAW_INTERVAL_MS = 100;

/**
 * The progress of plan, apply and drift on one updating line of stderr (`reading · reads 412/880`,
 * `writing · reads 880/880 · writes 3/15 · creating Route/…`), drawn by log-update. Shown only on an
 * interactive terminal: nothing at all when stderr is not a TTY (a file, a pipe, CI logs), when
 * `TERM=dumb`, or when `CI` is set (a CI that gives its job a pseudo-terminal still keeps every
 * frame in its log). Notices (adopting a twin, waiting for a Region) are printed above the line
 * and stay, as plain lines.
 *
 * Call {@link pause} before writing results to stdout: the last frame stays on screen as it was,
 * and the next phase starts a new line below the results. Call {@link close} when the command ends,
 * also when it fails (in `finally`): reads still in flight then draw nothing over the error.
 */
export class ProgressLine {
  /** The counters the reconciler updates; `undefined` when there is no line to draw. */
  readonly progress: Progress | undefined;
  readonly #stream: NodeJS.WriteStream;
  readonly #log: ReturnType<typeof createLogUpdate> | undefined;
  #timer: NodeJS.Timeout | undefined;
  #drawn = "";
  #showing = false;
  #closed = false;

  constructor(stream: NodeJS.WriteStream = process.stderr, env: NodeJS.ProcessEnv = process.env) {
    this.#stream = stream;
    if (!showsProgress(stream, env)) return;
    this.#log = createLogUpdate(stream);
    this.progress = new Progress(() => this.#schedule());
  }

  /** Enters a phase of the run: draws the last counts of the phase that ends, then the new phase, at once. */
  phase(phase: ProgressPhase): void {
    if (this.#showing) this.#draw();
    this.progress?.phase(phase);
    this.#draw();
  }

  /** A line that stays above the progress line; nothing when progress is not shown. */
  notice(message: string): void {
    if (!this.#log || this.#closed) return;
    this.#above(`  … ${message}`);
  }

  /** A line for people that always appears, on stderr: above the progress line where one is drawn. */
  say(message: string): void {
    if (!this.#log || this.#closed) process.stderr.write(`${message}\n`);
    else this.#above(message);
  }

  /** Writes `line` where the progress line is, then draws the progress line again below it. */
  #above(line: string): void {
    this.#log!.clear();
    this.#stream.write(`${line}\n`);
    this.#drawn = "";
    if (this.#showing) this.#draw();
  }

  /** Draws the final counts and leaves them on screen; the next phase draws a new line. */
  pause(): void {
    if (!this.#log || !this.#showing) return;
    this.#draw();
    this.#log.done();
    this.#showing = false;
    this.#drawn = "";
  }

  /** Leaves the last counts on screen and draws nothing more. */
  close(): void {
    this.pause();
    this.#closed = true;
  }

  #schedule(): void {
    if (this.#timer) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#draw();
    }, REDRAW_INTERVAL_MS);
    this.#timer.unref();
  }

  #draw(): void {
    if (!this.#log || !this.progress || this.#closed) return;
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    const text = fitToWidth(describeProgress(this.progress.snapshot), this.#stream.columns ?? 80);
    if (text === this.#drawn) return;
    this.#log(text);
    this.#drawn = text;
    this.#showing = true;
  }
}

/** A progress line only on an interactive terminal that can move its cursor, and never under CI. */
export function showsProgress(stream: Pick<NodeJS.WriteStream, "isTTY">, env: NodeJS.ProcessEnv): boolean {
  const ci = env.CI;
  return stream.isTTY === true && env.TERM !== "dumb" && (ci === undefined || ci === "" || ci === "false" || ci === "0");
}

/** One terminal line: cut with an ellipsis rather than wrapped. */
function fitToWidth(text: string, columns: number): string {
  const width = Math.max(20, columns - 1);
  const characters = [...text];
  return characters.length <= width ? text : `${characters.slice(0, width - 1).join("")}…`;
}
