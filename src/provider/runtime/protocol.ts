import type { MethodDefinition, ServiceDefinition } from "@grpc/grpc-js";
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
  /** A gRPC service definition, e.g. `service("tfplugin6.Provider")`. */
  service(fullName: string): ServiceDefinition;
  /** A message encoded once, to answer with again and again (a handler may answer with the bytes). */
  encode(messageName: string, message: object): Buffer;
  /** Loads the message descriptor now (after the handshake, before the first call needs it). */
  warm(): void;
}

interface MethodEntry {
  readonly requestType: string;
  readonly responseType: string;
  readonly requestStream: boolean;
  readonly responseStream: boolean;
}

const SERVICES = new URL("./proto/services.json", import.meta.url);
const DESCRIPTOR = new URL("./proto/protocol.json", import.meta.url);
const TO_OBJECT: protobuf.IConversionOptions = { longs: Number, enums: String, defaults: true, oneofs: true };

export function loadProtocol(): Protocol {
  const services = readBuilt(SERVICES) as Record<string, Record<string, MethodEntry>>;
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
    warm: () => void typeOf("tfplugin6.DynamicValue"),
    service(fullName) {
      const methods = services[fullName];
      if (methods === undefined) throw new Error(`service ${fullName} is not in ${fileURLToPath(SERVICES)}: expected one of ${Object.keys(services).join(", ")}`);
      const definition: Record<string, MethodDefinition<unknown, unknown>> = {};
      for (const [name, method] of Object.entries(methods)) {
        definition[name] = {
          path: `/${fullName}/${name}`,
          requestStream: method.requestStream,
          responseStream: method.responseStream,
          requestSerialize: (message) => serialize(typeOf(method.requestType), message),
          requestDeserialize: (bytes) => deserialize(typeOf(method.requestType), bytes),
          responseSerialize: (message) => serialize(typeOf(method.responseType), message),
          responseDeserialize: (bytes) => deserialize(typeOf(method.responseType), bytes),
        };
      }
      return definition;
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
