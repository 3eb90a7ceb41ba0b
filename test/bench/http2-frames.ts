import { execFileSync } from "node:child_process";
import { EventEmitter } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect, type ClientHttp2Session } from "node:http2";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { Duplex } from "node:stream";
import type { GrpcMethod, serveConnection as ServeConnection } from "../../src/provider/runtime/grpc-connection.js";
import { FLAG, FRAME, FrameReader, FrameWriter, SETTING } from "../../src/provider/runtime/http2-framer.js";
import { median } from "./stats.js";

/**
 * What the gRPC server's HTTP/2 costs per call, frames in and out, with no socket or TLS: the bytes
 * a real client (node:http2's nghttp2: HPACK with its dynamic table and Huffman coding, as
 * terraform's grpc-go) sends for CALLS unary calls, recorded once, are fed to a fresh connection in
 * 16 KiB chunks (a TLS record's largest plaintext), and every call is answered at once with a
 * message of ANSWER octets; the connection's writes go nowhere. Per process: the first connection
 * (cold: code not yet compiled, what a provider process pays), then the median of warm rounds.
 * Each directory given holds a build of the runtime (its grpc-connection.js); each round runs
 * every one in a process of its own, in turn, alternating the order (an interleaved A/B).
 *
 *     node dist/test/bench/http2-frames.js ROUNDS DIR [DIR…]
 *     e.g. node dist/test/bench/http2-frames.js 15 /tmp/before/dist/src/provider/runtime dist/src/provider/runtime
 *
 * A process measures one build with `--measure DIR CLIENT_BYTES` (the recorded client's octets, a
 * file), printing its measure as JSON.
 */
const CALLS = 200;
const REQUEST = 1_000;
const ANSWER = 1_000;
/** A TLS record's largest plaintext: what one `data` event of a TLS socket carries at the most. */
const CHUNK = 16 * 1024;
/**
 * Connections per process before those measured, the cold one included (HTTP2_FRAMES_WARM; 0: the
 * module loaded, no connection), and those measured (HTTP2_FRAMES_CONNECTIONS). Under `valgrind
 * --tool=cachegrind`, the instructions counted with 0 and 0, 1 and 0, and two counts of measured
 * connections tell apart what loading the module costs, what the first connection's calls cost
 * (cold), and what calls cost warm.
 */
const WARM_CONNECTIONS = Number(process.env["HTTP2_FRAMES_WARM"] ?? 300);
const MEASURED_CONNECTIONS = Number(process.env["HTTP2_FRAMES_CONNECTIONS"] ?? 300);
const PATHS = ["/tfplugin6.Provider/ValidateResourceConfig", "/tfplugin6.Provider/PlanResourceChange", "/tfplugin6.Provider/ReadResource", "/tfplugin6.Provider/UpgradeResourceState"];

interface Measure {
  /** The first connection's calls, in a fresh process: µs per call. */
  readonly coldUs: number;
  /** The median of the warm connections: µs per call, wall and CPU. */
  readonly warmUs: number;
  readonly warmCpuUs: number;
}

/** The octets node:http2's client sends for CALLS unary calls on one connection, preface included. */
async function recordClient(): Promise<Buffer> {
  const received: Buffer[] = [];
  const listener = createServer((socket) => {
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    // the server's preface as the runtime's server sends it (its windows let every call's message through), and an ACK of the client's SETTINGS
    const writer = new FrameWriter();
    writer.settings([
      { identifier: SETTING.MAX_CONCURRENT_STREAMS, value: 1_000 },
      { identifier: SETTING.INITIAL_WINDOW_SIZE, value: 4 * 1024 * 1024 },
    ]);
    writer.windowUpdate(0, 4 * 1024 * 1024 - 65_535);
    writer.settingsAck();
    socket.write(writer.take()!);
  });
  await new Promise<void>((done) => listener.listen(0, "127.0.0.1", done));
  const session: ClientHttp2Session = connect(`http://127.0.0.1:${(listener.address() as AddressInfo).port}`);
  session.on("error", () => undefined);
  const body = Buffer.alloc(5 + REQUEST, 0x61);
  body[0] = 0;
  body.writeUInt32BE(REQUEST, 1);
  for (let index = 0; index < CALLS; index++) {
    const stream = session.request({ ":method": "POST", ":path": PATHS[index % PATHS.length]!, "content-type": "application/grpc", te: "trailers", "user-agent": "grpc-go/1.67.1" });
    stream.on("error", () => undefined);
    stream.end(body);
  }
  for (let waited = 0; endedStreams(Buffer.concat(received)) < CALLS; waited++) {
    if (waited > 500) throw new Error(`recorded ${endedStreams(Buffer.concat(received))} calls of ${CALLS}`);
    await new Promise((done) => setTimeout(done, 10));
  }
  session.destroy();
  listener.close();
  return Buffer.concat(received);
}

function endedStreams(bytes: Buffer): number {
  const reader = new FrameReader({ preface: "client" });
  reader.push(bytes);
  let ended = 0;
  for (let frame = reader.read(); frame !== undefined; frame = reader.read()) if (frame.type === FRAME.DATA && (frame.flags & FLAG.END_STREAM) !== 0) ended++;
  return ended;
}

/** A socket's slice the connection uses: its events, and writes counted. */
class NullSocket extends EventEmitter {
  destroyed = false;
  writable = true;
  written = 0;
  write(bytes: Buffer): boolean {
    this.written += bytes.length;
    return true;
  }
  end(): void {
    this.writable = false;
  }
  destroy(): void {
    this.destroyed = true;
  }
}

async function measureIn(directory: string, input: Buffer): Promise<Measure> {
  const module = (await import(pathToFileURL(join(resolve(directory), "grpc-connection.js")).href)) as { serveConnection: typeof ServeConnection };
  let answered = 0;
  const answer = Buffer.alloc(ANSWER, 0x62);
  const method: GrpcMethod = { kind: "unary", answer: async () => (answered++, answer) };
  const methods = new Map(PATHS.map((path) => [path, method]));
  const oneConnection = async (): Promise<void> => {
    const socket = new NullSocket();
    module.serveConnection(socket as unknown as Duplex, methods);
    for (let at = 0; at < input.length; at += CHUNK) socket.emit("data", input.subarray(at, at + CHUNK));
    await new Promise((done) => setImmediate(done));
    socket.emit("close");
  };
  const timed = async (): Promise<{ wall: number; cpu: number }> => {
    const cpu = process.cpuUsage();
    const started = performance.now();
    await oneConnection();
    const wall = performance.now() - started;
    const used = process.cpuUsage(cpu);
    return { wall: (wall * 1000) / CALLS, cpu: (used.user + used.system) / CALLS };
  };
  if (WARM_CONNECTIONS === 0) return { coldUs: Number.NaN, warmUs: Number.NaN, warmCpuUs: Number.NaN };
  const cold = await timed();
  for (let index = 1; index < WARM_CONNECTIONS; index++) await oneConnection();
  const warm: Array<{ wall: number; cpu: number }> = [];
  for (let index = 0; index < MEASURED_CONNECTIONS; index++) warm.push(await timed());
  const expected = CALLS * (1 + WARM_CONNECTIONS - 1 + MEASURED_CONNECTIONS);
  if (answered !== expected) throw new Error(`answered ${answered} calls: expected ${expected}`);
  if (warm.length === 0) return { coldUs: cold.wall, warmUs: Number.NaN, warmCpuUs: Number.NaN };
  return { coldUs: cold.wall, warmUs: median(warm.map(({ wall }) => wall)), warmCpuUs: median(warm.map(({ cpu }) => cpu)) };
}

const [first, ...rest] = process.argv.slice(2);
if (first === "--measure") {
  const [directory, inputPath] = rest;
  console.log(JSON.stringify(await measureIn(directory!, readFileSync(inputPath!))));
} else {
  const rounds = Number(first);
  if (!Number.isInteger(rounds) || rounds < 1 || rest.length === 0) throw new Error(`received ${JSON.stringify(process.argv.slice(2))}: expected ROUNDS (a positive integer) then directories of the runtime's build`);
  const workDirectory = mkdtempSync(join(tmpdir(), "http2-frames-"));
  const inputPath = join(workDirectory, "client.bin");
  writeFileSync(inputPath, await recordClient());
  const results = rest.map((): Measure[] => []);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? rest.map((_, index) => index) : rest.map((_, index) => rest.length - 1 - index);
    for (const index of order) {
      const output = execFileSync(process.execPath, [process.argv[1]!, "--measure", rest[index]!, inputPath], { encoding: "utf8" });
      results[index]!.push(JSON.parse(output) as Measure);
    }
  }
  rmSync(workDirectory, { recursive: true, force: true });
  console.log(`${CALLS} calls a connection (${REQUEST}-octet requests, ${ANSWER}-octet answers), ${rounds} rounds, medians of the rounds (µs per call):`);
  for (const [index, directory] of rest.entries()) {
    const of = (key: keyof Measure) => median(results[index]!.map((measure) => measure[key])).toFixed(2);
    const each = (key: keyof Measure) => results[index]!.map((measure) => measure[key].toFixed(1)).join(" / ");
    // each round's value against the first directory's in the same round, the median of those ratios
    const ratio = (key: keyof Measure) => median(results[index]!.map((measure, round) => measure[key] / results[0]![round]![key])).toFixed(3);
    console.log(`${directory}: cold ${of("coldUs")} (${each("coldUs")}), warm ${of("warmUs")} wall, ${of("warmCpuUs")} CPU (${each("warmUs")})`);
    if (index > 0) console.log(`  against ${rest[0]}, medians of the rounds' ratios: cold ${ratio("coldUs")}, warm ${ratio("warmUs")} wall, ${ratio("warmCpuUs")} CPU`);
  }
}
