import type { IncomingMessage, ServerResponse } from "node:http";
import FindMyWay from "find-my-way";
import { CONTROL_PREFIX } from "../../contract/control.js";
import { sendError, sendJson, unexpectedError, type RequestIds } from "../http-answer.js";
import { isJsonMediaType, readJsonBody, readRawBody } from "../request-body.js";
import { ServiceError, accountDialect, accountErrors } from "../service-error.js";
import { StateWriteError } from "../store.js";
import { checkAdmin } from "./admin-access.js";
import { CHECKPOINT_OPERATIONS } from "./checkpoint-operations.js";
import type { ControlCall, ControlContext, ControlOperation, ControlReply } from "./control-call.js";
import { FAULT_OPERATIONS } from "./fault-operations.js";
import { WORLD_OPERATIONS } from "./world-operations.js";

/** The largest state file a checkpoint's upload may be. */
const MAX_CHECKPOINT_BYTES = 256 * 1024 * 1024;

/** Whether a path is the control interface's (the services' operations never are). */
export function isControlPath(path: string): boolean {
  return path.startsWith(CONTROL_PREFIX);
}

/**
 * The control interface (docs/manual/testing.md): a third interface of the service on the same
 * origin, under `/_converge/`, answering JSON in the account service's error shape. Every operation
 * but health takes the admin token, which no identity of any world is. It sits where a request is
 * dispatched, beside the two services, which know nothing of it.
 */
export class ControlInterface {
  readonly #router = FindMyWay({ ignoreTrailingSlash: true, maxParamLength: 200 });
  readonly #context: ControlContext;
  readonly #ids: RequestIds;

  constructor(context: ControlContext, ids: RequestIds) {
    this.#context = context;
    this.#ids = ids;
    for (const operation of [...WORLD_OPERATIONS, ...FAULT_OPERATIONS, ...CHECKPOINT_OPERATIONS]) {
      this.#router.on(operation.method, `${CONTROL_PREFIX}${operation.path}`, () => undefined, operation);
    }
  }

  async handle(request: IncomingMessage, response: ServerResponse, path: string, query: string | undefined): Promise<void> {
    const requestId = this.#ids.next();
    try {
      const reply = await this.#answer(request, response, path, query);
      if (reply === undefined) {
        response.destroy();
        return;
      }
      if (reply.text !== undefined) {
        response.writeHead(reply.status, { ...reply.headers, "content-length": Buffer.byteLength(reply.text), "x-svc-request-id": requestId });
        response.end(reply.text);
        return;
      }
      sendJson(response, reply.status, reply.body === undefined ? undefined : JSON.stringify(reply.body), requestId);
    } catch (error) {
      sendError(response, accountDialect, failureOf(error), requestId);
    }
  }

  /** The reply to a control request; `undefined` when its client went away before sending its body. */
  async #answer(request: IncomingMessage, response: ServerResponse, path: string, query: string | undefined): Promise<ControlReply | undefined> {
    const method = request.method ?? "GET";
    const found = this.#find(method, path);
    const operation = found?.store as ControlOperation | undefined;
    if (!operation?.open) {
      const denied = checkAdmin(this.#context.access, request.headers.authorization, this.#context.worlds);
      if (denied) throw denied;
    }
    if (!found || !operation) {
      throw accountErrors.notFound(`no control operation answers ${method} ${path}: see docs/manual/testing.md for the operations under ${CONTROL_PREFIX}`);
    }
    const body = await readControlBody(request, response, operation.takesRaw ?? false);
    if (body === undefined) return undefined;
    const call: ControlCall = { params: found.params, query: query === undefined ? {} : Object.fromEntries(new URLSearchParams(query)), ...body };
    return operation.handle(this.#context, call);
  }

  #find(method: string, path: string) {
    try {
      return this.#router.find(method as "GET", path);
    } catch {
      return null;
    }
  }
}

/** The error a control request is answered: its own, a state file that could not be written (retryable, nothing applied), or an unexpected one. */
function failureOf(error: unknown): ServiceError {
  if (error instanceof ServiceError) return error;
  if (error instanceof StateWriteError) {
    return accountDialect.internal(`the change could not be saved to the state file (${error.reason}), so it was not applied; retry later`);
  }
  return unexpectedError(error, accountDialect);
}

/** A control request's body: JSON (empty reads as none), or for an operation that takes it, the raw bytes of a body that is not JSON. */
async function readControlBody(request: IncomingMessage, response: ServerResponse, takesRaw: boolean): Promise<Pick<ControlCall, "body" | "raw"> | undefined> {
  const contentType = request.headers["content-type"];
  const raw = takesRaw && contentType !== undefined && !isJsonMediaType(contentType);
  const read = raw ? await readRawBody(request, MAX_CHECKPOINT_BYTES) : await readJsonBody(request);
  if (Buffer.isBuffer(read)) return { body: undefined, raw: read };
  if (read.ok) return { body: read.value, raw: undefined };
  if (read.clientGone) return undefined;
  if (read.closeConnection) response.setHeader("connection", "close");
  throw accountErrors.validation(read.problem, [{ name: "(body)", message: read.problem }]);
}
