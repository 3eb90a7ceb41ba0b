import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";

/**
 * A hostile (or broken) endpoint on 127.0.0.1, port 0: it answers the reads of converge plan,
 * drift, export and the terraform provider honestly (one HTTP API "orders", no routes, no
 * integrations, no contact, one Region), except one operation, which misbehaves as `behaviour`
 * says. Every misbehaviour stops by itself: the server stops writing when the client goes away, and
 * `close()` ends every connection and timer.
 */

/** The operations the server tells apart (by method and path, both services on one origin). */
/** Every operation the server answers (reads only). */
export const HOSTILE_OPERATIONS = ["GetApis", "GetApi", "GetRoutes", "GetIntegrations", "GetAlternateContact", "ListRegions", "GetRegionOptStatus"] as const;

export type HostileOperation = "GetApis" | "GetApi" | "GetRoutes" | "GetIntegrations" | "GetAlternateContact" | "ListRegions" | "GetRegionOptStatus";

export type HostileBehaviour =
  /** 200 JSON, then 1 GiB streamed as fast as the client reads (no content-length). */
  | "endless"
  /** Headers at once, then one byte a second, never ending. */
  | "drip"
  /** A page of one item whose next token is always the same. */
  | "repeat-token"
  /** 307 to `redirectTo` (another origin). */
  | "redirect"
  /** 200 with an HTML page. */
  | "html"
  /** 200 with JSON of the wrong shape. */
  | "wrong-shape"
  /** 200 with JSON nested 100,000 deep. */
  | "deep"
  /** Headers and half a body, then the connection cut. */
  | "cut"
  /** A status line, then header lines without end. */
  | "endless-headers";

export const API_ID = "a1b2c3d4e5";
const API = { apiId: API_ID, name: "orders", protocolType: "HTTP", routeSelectionExpression: "${request.method} ${request.path}", apiEndpoint: "https://orders.example", createdDate: "2024-01-01T00:00:00Z" };
const REGION = { RegionName: "ap-east-1", RegionOptStatus: "DISABLED" };

export interface HostileServer {
  readonly url: string;
  /** The operation of every request received, in order (`METHOD /path` for one it does not know, e.g. a write). */
  readonly received: string[];
  /** Every value of the authorization header received (to check the token reached only this origin). */
  readonly authorizations: string[];
  /** Bytes of answer bodies written. */
  bytesWritten(): number;
  close(): Promise<void>;
}

export interface HostileOptions {
  readonly attack: HostileOperation;
  readonly behaviour: HostileBehaviour;
  /** Where "redirect" points. */
  readonly redirectTo?: string;
}

function operationOf(request: IncomingMessage): HostileOperation | undefined {
  const path = (request.url ?? "").split("?")[0]!;
  if (request.method === "GET" && path === "/v2/apis") return "GetApis";
  if (request.method === "GET" && /^\/v2\/apis\/[^/]+$/.test(path)) return "GetApi";
  if (request.method === "GET" && /^\/v2\/apis\/[^/]+\/routes$/.test(path)) return "GetRoutes";
  if (request.method === "GET" && /^\/v2\/apis\/[^/]+\/integrations$/.test(path)) return "GetIntegrations";
  if (request.method === "POST" && path === "/getAlternateContact") return "GetAlternateContact";
  if (request.method === "POST" && path === "/listRegions") return "ListRegions";
  if (request.method === "POST" && path === "/getRegionOptStatus") return "GetRegionOptStatus";
  return undefined;
}

function json(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  response.end(text);
}

/** The honest answer of each operation. */
function honest(operation: HostileOperation, response: ServerResponse): void {
  switch (operation) {
    case "GetApis": return json(response, 200, { items: [API] });
    case "GetApi": return json(response, 200, API);
    case "GetRoutes":
    case "GetIntegrations": return json(response, 200, { items: [] });
    case "GetAlternateContact": return json(response, 404, { message: "no alternate contact", errorType: "ResourceNotFoundException" }, { "x-svc-errortype": "ResourceNotFoundException" });
    case "ListRegions": return json(response, 200, { Regions: [REGION] });
    case "GetRegionOptStatus": return json(response, 200, REGION);
  }
}

/** One page whose next token never changes. */
function repeatingPage(operation: HostileOperation): unknown {
  const token = "same-token-every-time";
  if (operation === "ListRegions") return { Regions: [REGION], NextToken: token };
  if (operation === "GetApis") return { items: [API], nextToken: token };
  return { items: [], nextToken: token };
}

const GIB = 1024 * 1024 * 1024;

export async function startHostileServer(options: HostileOptions): Promise<HostileServer> {
  const received: string[] = [];
  const authorizations: string[] = [];
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  let written = 0;
  /** Calls `tick` every `ms` until `socket` is destroyed; the timer is cleared then, or when the server closes. */
  const whileOpen = (socket: Socket, ms: number, tick: () => void): void => {
    const timer = setInterval(() => {
      if (!socket.destroyed) return tick();
      clearInterval(timer);
      timers.delete(timer);
    }, ms);
    timers.add(timer);
  };

  const misbehave = (request: IncomingMessage, response: ServerResponse): void => {
    const socket = request.socket;
    switch (options.behaviour) {
      case "endless": {
        response.writeHead(200, { "content-type": "application/json" });
        const filler = Buffer.alloc(64 * 1024, 0x20);
        response.write('{"items": [');
        const pump = () => {
          while (written < GIB && !socket.destroyed) {
            written += filler.length;
            if (!response.write(filler)) return void response.once("drain", pump);
          }
          response.end("]}");
        };
        pump();
        return;
      }
      case "drip": {
        response.writeHead(200, { "content-type": "application/json" });
        response.write("{");
        whileOpen(socket, 1000, () => {
          written += 1;
          response.write(" ");
        });
        return;
      }
      case "repeat-token": return json(response, 200, repeatingPage(options.attack));
      case "redirect": {
        response.writeHead(307, { location: `${options.redirectTo ?? "http://127.0.0.1:9"}${request.url ?? "/"}`, "content-length": 0 });
        response.end();
        return;
      }
      case "html": {
        const page = "<html><body><h1>Welcome to the captive portal</h1></body></html>";
        response.writeHead(200, { "content-type": "text/html", "content-length": page.length });
        response.end(page);
        return;
      }
      case "wrong-shape": return json(response, 200, { things: "not what the contract says" });
      case "deep": {
        const text = `${"[".repeat(100_000)}${"]".repeat(100_000)}`;
        response.writeHead(200, { "content-type": "application/json", "content-length": text.length });
        response.end(text);
        return;
      }
      case "cut": {
        const text = JSON.stringify(repeatingPage(options.attack));
        response.writeHead(200, { "content-type": "application/json", "content-length": text.length });
        response.write(text.slice(0, text.length >> 1));
        setImmediate(() => socket.destroy());
        return;
      }
      case "endless-headers": {
        // raw on the socket: node's writeHead would send the headers whole
        socket.write("HTTP/1.1 200 OK\r\n");
        whileOpen(socket, 1, () => {
          socket.write(`x-more-${written}: ${"h".repeat(1024)}\r\n`);
          written += 1024;
        });
        return;
      }
    }
  };

  const server = createServer((request, response) => {
    const operation = operationOf(request);
    received.push(operation ?? `${request.method} ${request.url}`);
    authorizations.push(request.headers.authorization ?? "");
    request.resume();
    request.on("end", () => {
      if (operation === undefined) return json(response, 404, { message: `no such operation: ${request.method} ${request.url}` });
      if (operation === options.attack) return misbehave(request, response);
      honest(operation, response);
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.once("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    authorizations,
    bytesWritten: () => written,
    close: () => new Promise<void>((resolve) => {
      for (const timer of timers) clearInterval(timer);
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    }),
  };
}
