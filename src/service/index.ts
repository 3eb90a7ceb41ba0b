export { startService, type RunningService, type ServiceOptions } from "./server.js";
export { DEMO_WORLD, parseWorld, loadWorldFile, WorldFileError, type World, type WorldInput } from "./world.js";
export type { RequestLog, RequestRecord } from "./request-log.js";
