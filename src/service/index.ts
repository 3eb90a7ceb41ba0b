export { MAX_JOURNAL_SIZE, startService, type RunningService, type ServiceOptions } from "./server.js";
export { DEFAULT_JOURNAL_SIZE } from "./request-journal.js";
export { DEMO_WORLD, parseWorld, loadWorldFile, WorldFileError, type World, type WorldInput } from "./world.js";
export type { RequestLog, RequestRecord } from "./request-log.js";
