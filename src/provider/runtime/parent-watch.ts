import type { Logger } from "./hclog.js";

/**
 * Ends the plugin when terraform goes away without calling Shutdown (killed, crashed): the process
 * is then re-parented, which a check every half second notices. SIGINT is ignored, as go-plugin's
 * servers do: a Ctrl-C reaches the whole process group, and terraform, which handles it, stops the
 * provider through StopProvider and Shutdown instead; SIGTERM ends it as terraform's going away does. (Standard input says nothing here: terraform
 * passes its own, which may be a terminal or /dev/null.)
 */
export function watchParent(log: Logger, onGone: () => void): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    log.warn("terraform went away without shutting the plugin down: exiting", { parent, now: process.ppid });
    clearInterval(timer);
    onGone();
  }, 500);
  timer.unref();
  process.on("SIGINT", () => log.debug("ignoring SIGINT: terraform stops the plugin through StopProvider and Shutdown"));
  // ended through exit, so that what the process made goes with it (its socket's directory)
  process.once("SIGTERM", () => {
    log.debug("terminated (SIGTERM): exiting");
    onGone();
  });
}
