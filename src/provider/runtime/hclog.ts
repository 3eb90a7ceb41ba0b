/** Log fields: written as JSON next to the message. */
export type LogFields = Readonly<Record<string, string | number | boolean | null | undefined>>;

/** A logger for provider code; terraform shows its lines in its own log (`TF_LOG=debug`) at their level. */
export interface Logger {
  trace(message: string, fields?: LogFields): void;
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

export type LogLevel = "trace" | "debug" | "info" | "warn" | "error";
const LEVELS: ReadonlyArray<LogLevel> = ["trace", "debug", "info", "warn", "error"];

/**
 * The level to write from: `TF_LOG_PROVIDER`, else `TF_LOG` (terraform passes its environment to
 * the plugin; `JSON` means trace, as in terraform), else warn.
 */
export function logLevelFromEnvironment(env: Readonly<Record<string, string | undefined>>): LogLevel {
  const setting = (env["TF_LOG_PROVIDER"] || env["TF_LOG"] || "").toLowerCase();
  if (setting === "json") return "trace";
  return LEVELS.find((level) => level === setting) ?? "warn";
}

/**
 * A logger writing hclog's JSON lines (`{"@level":...,"@message":...,"@timestamp":...}`), which
 * go-plugin's client reads from the plugin's stderr and logs at their level. The timestamp has the
 * six fractional digits go-plugin's parser requires.
 */
export function hclogLogger(write: (line: string) => void, level: LogLevel, module = "provider"): Logger {
  const from = LEVELS.indexOf(level);
  const line = (at: LogLevel) => (message: string, fields?: LogFields) => {
    if (LEVELS.indexOf(at) < from) return;
    const timestamp = new Date().toISOString().replace("Z", "000Z");
    write(`${JSON.stringify({ "@level": at, "@message": message, "@module": module, "@timestamp": timestamp, ...fields })}\n`);
  };
  return { trace: line("trace"), debug: line("debug"), info: line("info"), warn: line("warn"), error: line("error") };
}
