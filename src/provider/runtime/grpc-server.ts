import { mkdtempSync, rmSync } from "node:fs";
import type { AddressInfo, Server as NetServer, Socket } from "node:net";
import type { TLSSocket } from "node:tls";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { serveConnection, type GrpcConnection, type GrpcConnectionOptions, type GrpcMethod } from "./grpc-connection.js";

/** Where the server listens and how (TLS that accepts exactly the client certificate given, or none), and what each connection takes. */
export interface GrpcServerOptions extends GrpcConnectionOptions {
  /** The server's key and certificate (PEM), and the one client certificate it accepts (DER). */
  readonly tls?: { readonly key: string; readonly certificate: string; readonly clientCertificateDer: Buffer };
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
   * Loads TLS and serves every connection, those accepted before included (they wait until then).
   * Called once the handshake line is out, so that terraform does not wait for the loading before
   * it reads where to connect.
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
 * The slice of a gRPC server go-plugin and tfplugin6 need (grpc-connection.ts serves each
 * connection): unary calls and streams held open, on a Unix socket of its own or 127.0.0.1, over
 * TLS with the one client certificate given, or none.
 *
 * Listening needs only node:net; node:tls loads in `start`, when a client certificate asks for it. Connections are accepted paused and handed to TLS as they are, so the TLS
 * handshake reads every byte the client sent.
 */
export async function startGrpcServer(methods: ReadonlyMap<string, GrpcMethod>, options: GrpcServerOptions = {}): Promise<GrpcServer> {
  const { createServer: createListener } = process.getBuiltinModule("node:net");
  const listener = createListener({ pauseOnConnect: true });
  let serve: ((socket: Socket) => void) | undefined;
  let waiting: Socket[] | undefined = [];
  listener.on("connection", (socket: Socket) => {
    if (serve !== undefined) serve(socket);
    else waiting?.push(socket);
  });
  const address = await listen(listener, options);
  const connections = new Set<GrpcConnection>();
  const start = () => {
    if (serve !== undefined || waiting === undefined) return;
    serve = connectionServer(methods, options, connections);
    const accepted = waiting;
    waiting = [];
    for (const socket of accepted) if (!socket.destroyed) serve(socket);
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
        stopListening(resolve);
        for (const connection of connections) connection.close();
      }),
    destroy() {
      for (const connection of connections) connection.destroy();
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

/** What serves an accepted connection: TLS's handshake first when the server has a certificate, then gRPC on it. */
function connectionServer(methods: ReadonlyMap<string, GrpcMethod>, options: GrpcServerOptions, connections: Set<GrpcConnection>): (socket: Socket) => void {
  const serveGrpc = (socket: Socket | TLSSocket) => {
    const connection = serveConnection(socket, methods, options);
    connections.add(connection);
    socket.once("close", () => connections.delete(connection));
  };
  if (options.tls === undefined) {
    return (socket) => {
      serveGrpc(socket);
      socket.resume();
    };
  }
  // loaded here rather than imported: only a server with TLS needs it
  const { createServer } = process.getBuiltinModule("node:tls");
  const expected = options.tls.clientCertificateDer;
  const server = createServer({
    key: options.tls.key,
    cert: options.tls.certificate,
    // the client's certificate is checked below, by its bytes, not by a chain to a CA: so no
    // certificate store either. Given terraform's as a CA, or none (then Node.js adds its
    // ~150 bundled roots), the context parses the bundled roots, 5-30 ms; an empty list adds none
    ca: [],
    requestCert: true,
    rejectUnauthorized: false,
    // gRPC's clients (grpc-go's among them) insist on HTTP/2 negotiated by ALPN
    ALPNProtocols: ["h2"],
  });
  server.on("secureConnection", (socket: TLSSocket) => {
    if (acceptsClient(socket, expected) && socket.alpnProtocol === "h2") serveGrpc(socket);
    else socket.destroy();
  });
  server.on("tlsClientError", (_error, socket) => socket.destroy());
  return (socket) => server.emit("connection", socket);
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
