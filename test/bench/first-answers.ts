import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { connect, type ClientHttp2Session } from "node:http2";
import { connect as tlsConnect } from "node:tls";
import { MAGIC_COOKIE_KEY, MAGIC_COOKIE_VALUE } from "../../src/provider/runtime/handshake.js";
import { selfSignedCertificate } from "../../src/provider/runtime/self-signed-certificate.js";

/**
 * What a provider process costs up to its first answers, as terraform starts it: the time from the
 * start and the process's CPU time (all its threads, from /proc) at its handshake line, at the TLS
 * handshake with a client certificate, at GetProviderSchema's answer (all a plan's first process
 * asks) and at ValidateProviderConfig's answer (the first call that needs the provider's code); and
 * how long the process takes to exit once told to as terraform tells it (go-plugin's
 * GRPCController.Shutdown, then the connection closed: terraform waits for the exit). Each command
 * once per round, RUNS rounds, then each mark's median. Linux only (/proc).
 *
 *     node dist/test/bench/first-answers.js RUNS COMMAND [ARGS…] [-- COMMAND [ARGS…]]…
 */
/** ValidateProviderConfig.Request with a null configuration (DynamicValue{msgpack: nil}). */
const VALIDATE_NULL_CONFIG = Buffer.from([0x0a, 0x03, 0x0a, 0x01, 0xc0]);
const client = selfSignedCertificate();

type Mark = "line" | "tls" | "schema" | "validate";
/** Each mark's time since the start and the CPU time then; `exitMs`, from Shutdown's call to the exit (the process has no CPU time left to read). */
type Marks = Record<`${Mark}Ms` | `${Mark}CpuMs`, number> & { exitMs: number };

/**
 * The CPU time of every thread of `pid` so far (the first field of each thread's schedstat is its
 * time on CPU in ns); a thread that ended between the listing and the reading is left out.
 */
function cpuMs(pid: number): number {
  let nanoseconds = 0;
  for (const thread of readdirSync(`/proc/${pid}/task`)) {
    try {
      nanoseconds += Number(readFileSync(`/proc/${pid}/task/${thread}/schedstat`, "utf8").split(" ")[0]);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return nanoseconds / 1e6;
}

function unaryCall(session: ClientHttp2Session, path: string, message: Buffer): Promise<Buffer> {
  return new Promise((resolveCall, reject) => {
    const stream = session.request({ ":method": "POST", ":path": path, "content-type": "application/grpc+proto", te: "trailers" });
    const chunks: Buffer[] = [];
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("end", () => resolveCall(Buffer.concat(chunks)));
    stream.on("error", reject);
    const prefix = Buffer.alloc(5);
    prefix.writeUInt32BE(message.length, 1);
    stream.end(Buffer.concat([prefix, message]));
  });
}

async function measure([command, ...args]: ReadonlyArray<string>): Promise<Marks> {
  const started = performance.now();
  const child = spawn(command!, args, {
    env: { PATH: process.env["PATH"] ?? "", [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE, PLUGIN_PROTOCOL_VERSIONS: "6", PLUGIN_CLIENT_CERT: client.certificatePem },
    stdio: ["ignore", "pipe", "ignore"],
  });
  const marks: Partial<Marks> = {};
  const mark = (name: Mark) => {
    marks[`${name}Ms`] = performance.now() - started;
    marks[`${name}CpuMs`] = cpuMs(child.pid!);
  };
  try {
    const line = await new Promise<string>((resolveLine, reject) => {
      let stdout = "";
      child.stdout.on("data", (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes("\n")) resolveLine(stdout.slice(0, stdout.indexOf("\n")));
      });
      child.once("exit", (code) => reject(new Error(`${command} exited ${code} before its handshake line`)));
    });
    mark("line");
    const [, , network, address, , certificate] = line.split("|");
    // the line's certificate is base64 DER without padding
    const der = Buffer.from(certificate!, "base64").toString("base64");
    const ca = `-----BEGIN CERTIFICATE-----\n${der.match(/.{1,64}/g)!.join("\n")}\n-----END CERTIFICATE-----\n`;
    const tls = { ca, key: client.privateKeyPem, cert: client.certificatePem, servername: "localhost" };
    // a Unix socket's path (go-plugin's `unix` network) is connected to as node:tls takes it
    const session =
      network === "unix" ? connect("https://localhost", { ...tls, createConnection: () => tlsConnect({ ...tls, path: address!, ALPNProtocols: ["h2"] }) }) : connect(`https://${address}`, tls);
    try {
      await new Promise<void>((resolveConnect, reject) => {
        session.once("connect", () => resolveConnect());
        session.once("error", reject);
      });
      mark("tls");
      await unaryCall(session, "/tfplugin6.Provider/GetProviderSchema", Buffer.alloc(0));
      mark("schema");
      await unaryCall(session, "/tfplugin6.Provider/ValidateProviderConfig", VALIDATE_NULL_CONFIG);
      mark("validate");
      const exited = new Promise<void>((resolveExit) => child.once("exit", () => resolveExit()));
      const shutdownAt = performance.now();
      await unaryCall(session, "/plugin.GRPCController/Shutdown", Buffer.alloc(0));
      session.close();
      await exited;
      marks.exitMs = performance.now() - shutdownAt;
    } finally {
      session.destroy();
    }
  } finally {
    child.kill("SIGTERM");
  }
  return marks as Marks;
}

const [runsArgument, ...rest] = process.argv.slice(2);
const runs = Number(runsArgument);
const commands = rest.join("\u0000").split("\u0000--\u0000").map((command) => command.split("\u0000"));
if (!Number.isInteger(runs) || runs < 1 || commands.some((command) => command[0] === undefined || command[0] === "")) {
  throw new Error(`received ${JSON.stringify(process.argv.slice(2))}: expected RUNS (a positive integer) then commands separated by --`);
}
const results = commands.map((): Marks[] => []);
for (const command of commands) await measure(command);
for (let run = 0; run < runs; run++) {
  for (const [index, command] of commands.entries()) results[index]!.push(await measure(command));
}
const median = (values: number[]) => values.sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
for (const [index, command] of commands.entries()) {
  const of = (key: keyof Marks) => median(results[index]!.map((marks) => marks[key])).toFixed(1);
  console.log(`${command.join(" ")}, ${runs} runs, medians (wall / CPU ms): line ${of("lineMs")} / ${of("lineCpuMs")}, TLS ${of("tlsMs")} / ${of("tlsCpuMs")}, GetProviderSchema ${of("schemaMs")} / ${of("schemaCpuMs")}, ValidateProviderConfig ${of("validateMs")} / ${of("validateCpuMs")}; Shutdown to exit ${of("exitMs")} ms`);
}
