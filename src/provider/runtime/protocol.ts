import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import type protobuf from "protobufjs";

/**
 * The plugin protocol's messages and services, from the files the build writes beside this module
 * (`proto/README.md`): `services.json` (each service's methods), read at start, and
 * `protocol.json` (the protobufjs descriptor of every message), loaded with protobufjs on the first
 * message or by `warm()`, so neither protobufjs nor the descriptor delays the handshake. Messages
 * are plain objects with the `.proto` field names (`type_name`), enums as their names, 64-bit
 * integers as numbers, bytes as Buffers.
 */
export interface Protocol {
  /** A service's methods by name, e.g. `service("tfplugin6.Provider")`. */
  service(fullName: string): Readonly<Record<string, ProtocolMethod>>;
  /** A message encoded (bytes, a cached answer, pass as they are): to answer with again and again, say. */
  encode(messageName: string, message: object): Buffer;
  /** A message decoded as a plain object (see above). */
  decode(messageName: string, bytes: Buffer): unknown;
  /** Loads the message descriptor now (after the handshake, before the first call needs it). */
  warm(): void;
}

/** A method of a service: its path on the wire and its messages' full names. */
export interface ProtocolMethod {
  readonly path: string;
  readonly requestType: string;
  readonly responseType: string;
  readonly requestStream: boolean;
  readonly responseStream: boolean;
}

const SERVICES = new URL("./proto/services.json", import.meta.url);
const DESCRIPTOR = new URL("./proto/protocol.json", import.meta.url);
const TO_OBJECT: protobuf.IConversionOptions = { longs: Number, enums: String, defaults: true, oneofs: true };

/** The protocol files beside this module (read now: the services; on first use: the messages). */
export function loadProtocol(): Protocol {
  const services = readBuilt(SERVICES) as Record<string, Record<string, Omit<ProtocolMethod, "path">>>;
  let root: protobuf.Root | undefined;
  const types = new Map<string, protobuf.Type>();
  const typeOf = (name: string) => {
    let type = types.get(name);
    if (type === undefined) {
      // protobufjs is CommonJS: required here, on first use, rather than imported at start
      const { Root } = createRequire(import.meta.url)("protobufjs/light.js") as typeof protobuf;
      root ??= Root.fromJSON(readBuilt(DESCRIPTOR) as protobuf.INamespace);
      type = root.lookupType(name);
      types.set(name, type);
    }
    return type;
  };
  return {
    encode: (messageName, message) => serialize(typeOf(messageName), message),
    decode: (messageName, bytes) => deserialize(typeOf(messageName), bytes),
    warm: () => void typeOf("tfplugin6.DynamicValue"),
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

/** A message object, or bytes already encoded (a cached answer). */
function serialize(type: protobuf.Type, message: unknown): Buffer {
  if (message instanceof Uint8Array) return Buffer.from(message.buffer, message.byteOffset, message.byteLength);
  const encoded = type.encode(type.fromObject(message as Record<string, unknown>)).finish();
  return Buffer.from(encoded.buffer, encoded.byteOffset, encoded.byteLength);
}

function deserialize(type: protobuf.Type, bytes: Buffer): unknown {
  return type.toObject(type.decode(bytes), TO_OBJECT);
}
