import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import FindMyWay from "find-my-way";

/** What the endpoints answer, from the reconciler (reconcile-server.ts wires it). */
export interface EndpointAnswers {
  alive(): boolean;
  ready(): boolean;
  metrics(): Promise<{ readonly contentType: string; readonly text: string }>;
  status(): unknown;
  page(): string;
  /** Runs a cycle as soon as possible; answers what the loop is doing. */
  trigger(reason: string): unknown;
}

export interface RunningEndpoints {
  /** `http://host:port`. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The reconciler's HTTP endpoints (docs/manual/continuous-reconcile.md, "Endpoints"): `GET /healthz`
 * (liveness), `GET /readyz` (readiness), `GET /metrics` (Prometheus), `GET /status` (JSON), `GET /`
 * (the status page), `POST /reconcile` (a cycle now). They read the reconciler's memory and never
 * call the services; none answers a credential.
 */
export async function startEndpoints(host: string, port: number, answers: EndpointAnswers): Promise<RunningEndpoints> {
  const router = FindMyWay({ ignoreTrailingSlash: true, defaultRoute: (_request, response) => sendJson(response, 404, { error: "not found: the reconciler answers GET /, /healthz, /readyz, /metrics, /status and POST /reconcile" }) });
  router.on("GET", "/healthz", (_request, response) => {
    const alive = answers.alive();
    sendJson(response, alive ? 200 : 503, { status: alive ? "ok" : "stuck" });
  });
  router.on("GET", "/readyz", (_request, response) => {
    const ready = answers.ready();
    sendJson(response, ready ? 200 : 503, { status: ready ? "ready" : "not ready: the first cycle has not ended" });
  });
  router.on("GET", "/metrics", (_request, response) => {
    void answers.metrics().then(
      ({ contentType, text }) => send(response, 200, contentType, text),
      (error: unknown) => sendJson(response, 500, { error: error instanceof Error ? error.message : String(error) }),
    );
  });
  router.on("GET", "/status", (_request, response) => sendJson(response, 200, answers.status()));
  router.on("GET", "/", (_request, response) => send(response, 200, "text/html; charset=utf-8", answers.page()));
  router.on("POST", "/reconcile", (_request, response) => sendJson(response, 202, answers.trigger("POST /reconcile")));
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    request.resume();
    router.lookup(request, response);
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return { url: `http://${shown}:${address.port}`, close: () => closeServer(server) };
}

function sendJson(response: ServerResponse, status: number, body: unknown): void {
  send(response, status, "application/json", `${JSON.stringify(body, null, 2)}\n`);
}

function send(response: ServerResponse, status: number, contentType: string, text: string): void {
  response.writeHead(status, { "content-type": contentType, "content-length": Buffer.byteLength(text), "cache-control": "no-store" });
  response.end(text);
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 250).unref();
  });
}
