import type { Http2Server, Http2Session, IncomingHttpHeaders, ServerHttp2Stream } from "node:http2";
import type { AddressInfo } from "node:net";

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
  readonly tls?: { readonly key: string; readonly certificate: string; readonly clientCertificate: string };
  /** Called with a method's error before it is answered INTERNAL. */
  readonly onError?: (path: string, error: unknown) => void;
}

/** A running server. */
export interface GrpcServer {
  readonly port: number;
  /** Ends the held streams, stops accepting connections and closes the open ones once their calls are answered. */
  close(): Promise<void>;
  /** Closes every connection now. */
  destroy(): void;
}

/**
 * The slice of a gRPC server go-plugin and tfplugin6 need, on node:http2 directly: unary calls and
 * streams held open, on 127.0.0.1. A message is framed as one byte of compression flag (always 0:
 * the server announces no compression, so clients send none), a 4-byte big-endian length and the
 * protobuf bytes; the status travels in the trailers (`grpc-status`, `grpc-message`). Not in it:
 * compression, deadlines (`grpc-timeout` is ignored), streamed answers.
 */
export async function startGrpcServer(methods: ReadonlyMap<string, GrpcMethod>, options: GrpcServerOptions = {}): Promise<GrpcServer> {
  // loaded here rather than imported: a V8 startup snapshot of the provider cannot hold node:http2's bindings
  const { createSecureServer, createServer } = process.getBuiltinModule("node:http2");
  const settings = { initialWindowSize: 4 * 1024 * 1024, maxConcurrentStreams: 1_000 };
  const server: Http2Server = options.tls
    ? createSecureServer({
        key: options.tls.key,
        cert: options.tls.certificate,
        ca: options.tls.clientCertificate,
        requestCert: true,
        rejectUnauthorized: true,
        settings,
        maxSessionMemory: 1_000,
      })
    : createServer({ settings, maxSessionMemory: 1_000 });
  const sessions = new Set<Http2Session>();
  const held = new Set<ServerHttp2Stream>();
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
  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const stream of held) if (!stream.closed) stream.end();
        held.clear();
        server.close(() => resolve());
        for (const session of sessions) session.close();
      }),
    destroy() {
      for (const session of sessions) session.destroy();
      server.close();
    },
  };
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
  const prefix = Buffer.allocUnsafe(5);
  prefix.writeUInt8(0, 0);
  prefix.writeUInt32BE(answer.length, 1);
  stream.write(prefix);
  stream.end(answer);
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
