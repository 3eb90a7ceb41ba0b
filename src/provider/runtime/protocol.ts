import type { MethodDefinition, ServiceDefinition } from "@grpc/grpc-js";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import protobuf from "protobufjs/light.js";

/**
 * The plugin protocol's messages and services, from `proto/protocol.json`: the descriptor the build
 * writes from the `.proto` files beside it (`proto/README.md`), loaded without parsing `.proto` text
 * at start. Messages are plain objects with the `.proto` field names (`type_name`), enums as their
 * names, 64-bit integers as numbers, bytes as Buffers.
 */
export interface Protocol {
  /** A gRPC service definition, e.g. `service("tfplugin6.Provider")`. */
  service(fullName: string): ServiceDefinition;
  /** A message encoded once, to answer with again and again (a handler may answer with the bytes). */
  encode(messageName: string, message: object): Buffer;
}

const DESCRIPTOR = new URL("./proto/protocol.json", import.meta.url);

const TO_OBJECT: protobuf.IConversionOptions = { longs: Number, enums: String, defaults: true, oneofs: true };

export function loadProtocol(): Protocol {
  let json: protobuf.INamespace;
  try {
    json = JSON.parse(readFileSync(DESCRIPTOR, "utf8")) as protobuf.INamespace;
  } catch (error) {
    throw new Error(`protocol descriptor ${fileURLToPath(DESCRIPTOR)} cannot be read (${(error as Error).message}): expected the file \`npm run build\` writes`);
  }
  const root = protobuf.Root.fromJSON(json);
  return {
    encode: (messageName, message) => serialize(root.lookupType(messageName), message),
    service(fullName) {
      const service = root.lookupService(fullName);
      const definition: Record<string, MethodDefinition<unknown, unknown>> = {};
      for (const method of service.methodsArray) {
        method.resolve();
        const request = method.resolvedRequestType!;
        const response = method.resolvedResponseType!;
        definition[method.name] = {
          path: `/${fullName}/${method.name}`,
          requestStream: method.requestStream === true,
          responseStream: method.responseStream === true,
          requestSerialize: (message) => serialize(request, message),
          requestDeserialize: (bytes) => deserialize(request, bytes),
          responseSerialize: (message) => serialize(response, message),
          responseDeserialize: (bytes) => deserialize(response, bytes),
        };
      }
      return definition;
    },
  };
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
