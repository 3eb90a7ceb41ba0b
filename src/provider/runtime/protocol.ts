import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/**
 * The plugin protocol's messages and services, from the files the build writes beside this module
 * (`proto/README.md`): `proto/services.json` (each service's methods), read at start, and
 * `protocol-codecs.cjs` (every message's codec as static code), required on the first message, so
 * that neither delays the handshake and no process builds codecs at run time. Messages are plain
 * objects with the `.proto` field names (`type_name`), enums as their names, 64-bit integers as
 * numbers, bytes as Buffers, every field present (its default when absent), and each oneof's
 * present field named by the oneof.
 */
export interface Protocol {
  /** A service's methods by name, e.g. `service("tfplugin6.Provider")`. */
  service(fullName: string): Readonly<Record<string, ProtocolMethod>>;
  /** A message encoded; bytes (an answer encoded before) pass as they are. */
  encode(messageName: string, message: object): Buffer;
  /** A message decoded as a plain object (see above). */
  decode(messageName: string, bytes: Buffer): unknown;
}

/** A method of a service: its path on the wire and its messages' full names. */
export interface ProtocolMethod {
  readonly path: string;
  readonly requestType: string;
  readonly responseType: string;
  readonly requestStream: boolean;
  readonly responseStream: boolean;
}

/**
 * One message type's codec in `protocol-codecs.cjs`: protobufjs's generated functions, with its
 * message instances in between. A type reachable from a method's request can be decoded, one
 * reachable from a method's answer encoded.
 */
interface MessageCodec {
  decode?(bytes: Uint8Array): object;
  toObject?(message: object, options: typeof TO_OBJECT): unknown;
  fromObject?(object: object): object;
  encode?(message: object): { finish(): Uint8Array };
}

const SERVICES = new URL("./proto/services.json", import.meta.url);
const CODECS = "./protocol-codecs.cjs";
const TO_OBJECT = { longs: Number, enums: String, defaults: true, oneofs: true } as const;

/** The protocol files beside this module (read now: the services; on the first message: the codecs). */
export function loadProtocol(): Protocol {
  const services = readBuilt(SERVICES) as Record<string, Record<string, Omit<ProtocolMethod, "path">>>;
  let messages: Readonly<Record<string, MessageCodec>> | undefined;
  const codecOf = (name: string) => {
    // a CommonJS module the build wrote, required here on first use rather than imported at start
    messages ??= requireCodecs();
    const codec = Object.hasOwn(messages, name) ? messages[name] : undefined;
    if (codec === undefined) throw new Error(`message ${name} is not in ${CODECS}: expected a message of a service's method, as tfplugin6.proto defines them`);
    return codec;
  };
  return {
    encode: (messageName, message) => (message instanceof Uint8Array ? asBuffer(message) : serialize(messageName, codecOf(messageName), message)),
    decode: (messageName, bytes) => deserialize(messageName, codecOf(messageName), bytes),
    service(fullName) {
      const methods = services[fullName];
      if (methods === undefined) throw new Error(`service ${fullName} is not in ${fileURLToPath(SERVICES)}: expected one of ${Object.keys(services).join(", ")}`);
      return Object.fromEntries(Object.entries(methods).map(([name, method]) => [name, { ...method, path: `/${fullName}/${name}` }]));
    },
  };
}

function readBuilt(file: URL): unknown {
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new Error(`protocol file ${fileURLToPath(file)} cannot be read (${(error as Error).message}): expected the file \`npm run build\` writes`);
  }
}

function requireCodecs(): Readonly<Record<string, MessageCodec>> {
  try {
    return (createRequire(import.meta.url)("./protocol-codecs.cjs") as { MESSAGES: Readonly<Record<string, MessageCodec>> }).MESSAGES;
  } catch (error) {
    throw new Error(`protocol codecs ${fileURLToPath(new URL(CODECS, import.meta.url))} cannot be loaded (${(error as Error).message}): expected the module \`npm run build\` writes`);
  }
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function serialize(name: string, codec: MessageCodec, message: object): Buffer {
  if (codec.fromObject === undefined || codec.encode === undefined) throw new Error(`message ${name} has no encoder in ${CODECS}: expected a message answered by a service's method`);
  return asBuffer(codec.encode(codec.fromObject(message)).finish());
}

function deserialize(name: string, codec: MessageCodec, bytes: Buffer): unknown {
  if (codec.decode === undefined || codec.toObject === undefined) throw new Error(`message ${name} has no decoder in ${CODECS}: expected a message sent to a service's method`);
  return codec.toObject(codec.decode(bytes), TO_OBJECT);
}
