import type { IncomingMessage } from "node:http";
import FindMyWay from "find-my-way";
import { ACCOUNT_OPERATIONS, ACCOUNT_VERSION_DATE, type AccountOperationName } from "../contract/account.js";
import type { Operation } from "./operation.js";
import { DIALECTS, ServiceError, accountErrors, type ErrorDialect } from "./service-error.js";

type Resolver = (request: IncomingMessage) => Operation;

/** The operation a request names, with its path parameters. */
export interface Routed {
  readonly operation: Operation;
  readonly params: Readonly<Record<string, string | undefined>>;
}

/**
 * Finds the operation of a request by method and path (the account service's form A and the
 * gateway's paths), or by `X-Svc-Target` for the account service's form B (`POST /`). The operations
 * are those of one world: every world has the same, and a world answers a request with its own
 * handler of the operation's name.
 */
export class OperationRouter {
  readonly #router = FindMyWay({ ignoreTrailingSlash: true, maxParamLength: 1000 });

  constructor(operations: ReadonlyArray<Operation>) {
    for (const operation of operations) {
      const resolve: Resolver = () => operation;
      this.#router.on(operation.method, operation.path, () => undefined, resolve);
    }
    const byName = new Map(operations.filter((op) => op.service === "account").map((op) => [op.name, op]));
    const formB: Resolver = (request) => resolveFormB(request, byName);
    this.#router.on("POST", "/", () => undefined, formB);
  }

  /** The operation of a request, or the error its service answers when none matches (in `dialect`, the path's). */
  route(request: IncomingMessage, path: string, dialect: ErrorDialect): Routed {
    const method = request.method ?? "GET";
    const found = this.#find(method, path);
    if (found) return { operation: (found.store as Resolver)(request), params: found.params };
    if (dialect === DIALECTS.apigateway) {
      throw new ServiceError(404, "NotFoundException", `no operation answers ${method} ${path}`);
    }
    throw accountErrors.validation(`no operation answers ${method} ${path}`, [
      { name: "(path)", message: `${method} ${path} is not an operation: use POST /<operation> (e.g. POST /listRegions) or POST / with X-Svc-Target` },
    ]);
  }

  /** The route of a method and path; none for a method the router does not know (it throws then). */
  #find(method: string, path: string) {
    try {
      return this.#router.find(method as "GET", path);
    } catch {
      return null;
    }
  }
}

/** The dialect of errors before the operation is known: the gateway's under `/v2`, else the account's. */
export function dialectOfPath(path: string): ErrorDialect {
  return path === "/v2" || path.startsWith("/v2/") ? DIALECTS.apigateway : DIALECTS.account;
}

/** Form B: `POST /` with `X-Svc-Target: <prefix containing 20210201>.<Operation>`. */
function resolveFormB(request: IncomingMessage, byName: ReadonlyMap<string, Operation>): Operation {
  const header = request.headers["x-svc-target"];
  const target = Array.isArray(header) ? header[0] : header;
  const invalid = (message: string) => accountErrors.validation(message, [{ name: "X-Svc-Target", message }]);
  if (!target) throw invalid('X-Svc-Target header is missing: expected "<prefix>.<Operation>", e.g. "AccountService_20210201.ListRegions"');
  const dot = target.lastIndexOf(".");
  const prefix = dot === -1 ? "" : target.slice(0, dot);
  const name = dot === -1 ? target : target.slice(dot + 1);
  if (!prefix.includes(ACCOUNT_VERSION_DATE)) {
    throw invalid(`X-Svc-Target ${JSON.stringify(target)} is not valid: expected a prefix containing ${ACCOUNT_VERSION_DATE}, `
      + `e.g. "AccountService_20210201.${name || "ListRegions"}"`);
  }
  const operation = byName.get(name);
  if (!operation) {
    const known = (Object.keys(ACCOUNT_OPERATIONS) as AccountOperationName[]).join(", ");
    throw invalid(`X-Svc-Target ${JSON.stringify(target)} names unknown operation ${JSON.stringify(name)}: expected one of ${known}`);
  }
  return operation;
}
