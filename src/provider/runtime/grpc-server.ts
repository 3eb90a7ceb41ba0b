import { mkdtempSync, rmSync } from "node:fs";
import type { Http2Server, Http2Session, IncomingHttpHeaders, ServerHttp2Stream } from "node:http2";
import type { AddressInfo, Server as NetServer, Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";

/** gRPC status codes the server answers with (as gRPC numbers them). */
export const GRPC_STATUS = { OK: 0, INTERNAL: 13, UNIMPLEMENTED: 12, INVALID_ARGUMENT: 3 } as const;

/** An error whose gRPC status the server answers with (INTERNAL for any other thrown error). */
export class GrpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A unary method: one request message in, one answer message out, as bytes (the method decodes the
 * request and encodes its answer itself, so their types never leave it).
 */
export interface UnaryMethod {
  readonly kind: "unary";
  answer(request: Buffer): Promise<Buffer>;
}

/**
 * A method whose stream the plugin holds open without answering (go-plugin's stdio and broker
 * streams): its request messages are ignored, and the server's `close` ends it with status OK.
 */
export interface HeldStreamMethod {
  readonly kind: "held";
  /** A bidirectional stream: ended as well when the client ends its side. (A server-streaming call's client ends its side after its one request.) */
  readonly endsWithClient?: boolean;
  /** Told of each request message (for a log line). */
  onMessage?(): void;
}

export type GrpcMethod = UnaryMethod | HeldStreamMethod;

/** Where the server listens and how: TLS that accepts exactly the client certificate given, or none. */
export interface GrpcServerOptions {
  /** The server's key and certificate (PEM), and the one client certificate it accepts (DER). */
  readonly tls?: { readonly key: string; readonly certificate: string; readonly clientCertificateDer: Buffer };
  /** Called with a method's error before it is answered INTERNAL. */
  readonly onError?: (path: string, error: unknown) => void;
  /**
   * `unix`: a socket in a directory of its own (0700) under `socketDirectory`, as go-plugin's own
   * servers listen on Linux and macOS; `tcp`: 127.0.0.1 on a free port (what go-plugin does on
   * Windows). @default "unix", "tcp" on Windows
   */
  readonly network?: "unix" | "tcp";
  /** Where the socket's directory is made (go-plugin's PLUGIN_UNIX_SOCKET_DIR). @default the system's temporary directory */
  readonly socketDirectory?: string;
}

/** Where a server listens, as go-plugin's handshake line names it. */
export type ListenAddress = { readonly network: "unix"; readonly path: string } | { readonly network: "tcp"; readonly host: "127.0.0.1"; readonly port: number };

/** The address as the handshake line's address field writes it: the socket's path, or HOST:PORT. */
export function listenAddressText(address: ListenAddress): string {
  return address.network === "unix" ? address.path : `${address.host}:${address.port}`;
}

/** A server listening: it accepts connections at once, and serves them from `start`. */
export interface GrpcServer {
  readonly address: ListenAddress;
  /**
   * Loads TLS and HTTP/2 and serves every connection, those accepted before included (they wait
   * until then). Called once the handshake line is out, so that terraform does not wait for the
   * loading before it reads where to connect.
   */
  start(): void;
  /** Ends the held streams, stops accepting connections and closes the open ones once their calls are answered. */
  close(): Promise<void>;
  /** Closes every connection now. */
  destroy(): void;
}

/**
 * A path longer than this may not fit a socket address (108 bytes on Linux, 104 on macOS, with
 * the terminating NUL): the server listens on TCP instead.
 */
const MAX_SOCKET_PATH = 100;

/**
 * The slice of a gRPC server go-plugin and tfplugin6 need, on node:http2 directly: unary calls and
 * streams held open, on a Unix socket of its own or 127.0.0.1. A message is framed as one byte of
 * compression flag (always 0: the server announces no compression, so clients send none), a 4-byte
 * big-endian length and the protobuf bytes; the status travels in the trailers (`grpc-status`,
 * `grpc-message`). Not in it: compression, deadlines (`grpc-timeout` is ignored), streamed answers.
 *
 * Listening needs only node:net (which a V8 startup snapshot of the provider can hold); node:tls
 * and node:http2 load in `start`. Connections are accepted paused and handed to the HTTP/2 server
 * as they are, so the TLS handshake reads every byte the client sent.
 */
export async function startGrpcServer(methods: ReadonlyMap<string, GrpcMethod>, options: GrpcServerOptions = {}): Promise<GrpcServer> {
  const { createServer: createListener } = process.getBuiltinModule("node:net");
  const listener = createListener({ pauseOnConnect: true });
  let server: Http2Server | undefined;
  let waiting: Socket[] | undefined = [];
  listener.on("connection", (socket: Socket) => {
    if (server !== undefined) server.emit("connection", socket);
    else waiting?.push(socket);
  });
  const address = await listen(listener, options);
  const sessions = new Set<Http2Session>();
  const held = new Set<ServerHttp2Stream>();
  const start = () => {
    if (server !== undefined || waiting === undefined) return;
    server = http2Server(methods, options, sessions, held);
    const accepted = waiting;
    waiting = [];
    for (const socket of accepted) if (!socket.destroyed) server.emit("connection", socket);
  };
  const removeSocketDirectory = () => {
    if (address.network === "unix") rmSync(dirname(address.path), { recursive: true, force: true });
  };
  process.on("exit", removeSocketDirectory);
  const stopListening = (done?: () => void) => {
    for (const socket of waiting ?? []) socket.destroy();
    waiting = undefined;
    process.off("exit", removeSocketDirectory);
    listener.close(() => {
      removeSocketDirectory();
      done?.();
    });
  };
  return {
    address,
    start,
    close: () =>
      new Promise<void>((resolve) => {
        for (const stream of held) if (!stream.closed) stream.end();
        held.clear();
        stopListening(resolve);
        for (const session of sessions) session.close();
      }),
    destroy() {
      for (const session of sessions) session.destroy();
      stopListening();
    },
  };
}

/** Listens on a Unix socket in a new directory of its own, or on 127.0.0.1 (options.network, and when no socket can be made). */
async function listen(listener: NetServer, options: GrpcServerOptions): Promise<ListenAddress> {
  const network = options.network ?? (process.platform === "win32" ? "tcp" : "unix");
  if (network === "unix") {
    const path = socketPath(options.socketDirectory ?? tmpdir());
    if (path !== undefined) {
      try {
        await listenOn(listener, { path });
        return { network: "unix", path };
      } catch {
        rmSync(dirname(path), { recursive: true, force: true });
      }
    }
  }
  await listenOn(listener, { port: 0, host: "127.0.0.1" });
  return { network: "tcp", host: "127.0.0.1", port: (listener.address() as AddressInfo).port };
}

/**
 * A socket's path in a new directory (mode 0700) under `directory` (made absolute), or undefined
 * when none can be made, the path would be too long, or it holds a character the handshake line
 * cannot carry (its fields are separated by `|`, and it ends at a line break).
 */
function socketPath(directory: string): string | undefined {
  const prefix = join(resolve(directory), "converge-plugin-");
  const planned = join(`${prefix}XXXXXX`, "plugin.sock");
  if (planned.length > MAX_SOCKET_PATH || /[|\p{Cc}]/u.test(planned)) return undefined;
  try {
    return join(mkdtempSync(prefix), "plugin.sock");
  } catch {
    return undefined;
  }
}

function listenOn(listener: NetServer, where: { readonly path: string } | { readonly port: number; readonly host: string }): Promise<void> {
  return new Promise((resolve, reject) => {
    listener.once("error", reject);
    listener.listen(where, () => {
      listener.off("error", reject);
      resolve();
    });
  });
}

/** The HTTP/2 server of `methods`, without a listener of its own: connections are given to it. */
function http2Server(methods: ReadonlyMap<string, GrpcMethod>, options: GrpcServerOptions, sessions: Set<Http2Session>, held: Set<ServerHttp2Stream>): Http2Server {
  // loaded here rather than imported: a V8 startup snapshot of the provider cannot hold node:http2's bindings
  const { createSecureServer, createServer } = process.getBuiltinModule("node:http2");
  const settings = { initialWindowSize: 4 * 1024 * 1024, maxConcurrentStreams: 1_000 };
  const server: Http2Server = options.tls
    ? createSecureServer({
        key: options.tls.key,
        cert: options.tls.certificate,
        // the client's certificate is checked below, by its bytes, not by a chain to a CA: so no
        // certificate store either. Given terraform's as a CA, or none (then Node.js adds its
        // ~150 bundled roots), the context parses the bundled roots, 5-30 ms; an empty list adds none
        ca: [],
        requestCert: true,
        rejectUnauthorized: false,
        settings,
        maxSessionMemory: 1_000,
      })
    : createServer({ settings, maxSessionMemory: 1_000 });
  if (options.tls) {
    const expected = options.tls.clientCertificateDer;
    // node:http2's own listener makes a session of a connection: it is given only the accepted ones
    const sessionOf = server.listeners("secureConnection");
    if (sessionOf.length !== 1) throw new Error(`node:http2's secure server has ${sessionOf.length} secureConnection listeners: expected its one`);
    server.removeAllListeners("secureConnection");
    server.on("secureConnection", (socket: TLSSocket) => {
      if (acceptsClient(socket, expected)) sessionOf[0]!.call(server, socket);
      else socket.destroy();
    });
  }
  server.on("session", (session: Http2Session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
    session.on("error", () => session.destroy());
  });
  server.on("stream", (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
    stream.on("error", () => stream.destroy());
    const path = String(headers[":path"] ?? "");
    const method = methods.get(path);
    if (method === undefined) {
      answerStatus(stream, GRPC_STATUS.UNIMPLEMENTED, `unknown method ${path}: this plugin does not serve it`);
      stream.resume();
      return;
    }
    if (method.kind === "held") {
      held.add(stream);
      stream.once("close", () => held.delete(stream));
      stream.respond(RESPONSE_HEADERS, { waitForTrailers: true });
      stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": String(GRPC_STATUS.OK) }));
      stream.on("data", () => method.onMessage?.());
      stream.on("end", () => {
        if (method.endsWithClient && !stream.closed) stream.end();
      });
      return;
    }
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => {
      void answerUnary(stream, path, method, Buffer.concat(chunks), options.onError);
    });
  });
  return server;
}

/**
 * Whether the client of `socket` is the one the server was told of: it sent exactly that
 * certificate (DER, byte for byte), and the TLS handshake, which completed, proved it holds the
 * certificate's private key (CertificateVerify). That is what go-plugin's mutual TLS asks of a
 * plugin, which trusts terraform's self-signed certificate and nothing else: no other certificate,
 * whoever signed it, and no connection without one.
 */
function acceptsClient(socket: TLSSocket, expected: Buffer): boolean {
  return socket.getPeerX509Certificate()?.raw.equals(expected) === true;
}

const RESPONSE_HEADERS = { ":status": 200, "content-type": "application/grpc+proto" };

async function answerUnary(stream: ServerHttp2Stream, path: string, method: UnaryMethod, body: Buffer, onError: GrpcServerOptions["onError"]): Promise<void> {
  let answer: Buffer;
  try {
    answer = await method.answer(unframe(body));
  } catch (error) {
    if (!(error instanceof GrpcError)) onError?.(path, error);
    const code = error instanceof GrpcError ? error.code : GRPC_STATUS.INTERNAL;
    answerStatus(stream, code, error instanceof Error ? error.message : String(error));
    return;
  }
  if (stream.closed || stream.destroyed) return;
  stream.respond(RESPONSE_HEADERS, { waitForTrailers: true });
  stream.once("wantTrailers", () => stream.sendTrailers({ "grpc-status": String(GRPC_STATUS.OK) }));
  // the message with its prefix (not compressed, its length) in one write: one pass through the stream
  const framed = Buffer.allocUnsafe(5 + answer.length);
  framed.writeUInt8(0, 0);
  framed.writeUInt32BE(answer.length, 1);
  answer.copy(framed, 5);
  stream.end(framed);
}

/** A trailers-only answer: the status in the headers, no message. */
function answerStatus(stream: ServerHttp2Stream, code: number, message: string): void {
  if (stream.closed || stream.destroyed || stream.headersSent) return;
  stream.respond({ ...RESPONSE_HEADERS, "grpc-status": String(code), "grpc-message": encodeURIComponent(message) }, { endStream: true });
}

/** The one message of a unary request's body. */
function unframe(body: Buffer): Buffer {
  if (body.length < 5) throw new GrpcError(GRPC_STATUS.INVALID_ARGUMENT, `received a request body of ${body.length} bytes: expected one length-prefixed message (5 bytes at least)`);
  if (body[0] !== 0) throw new GrpcError(GRPC_STATUS.UNIMPLEMENTED, `received a compressed message (flag ${body[0]}): expected an uncompressed one, as this server announces no compression`);
  const length = body.readUInt32BE(1);
  if (length !== body.length - 5) throw new GrpcError(GRPC_STATUS.INVALID_ARGUMENT, `received a message framed as ${length} bytes in a body of ${body.length - 5}: expected exactly one message`);
  return body.subarray(5);
}
