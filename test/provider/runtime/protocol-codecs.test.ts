import protobuf from "protobufjs";
import { describe, expect, it } from "vitest";
import { loadProtocol } from "../../../dist/src/provider/runtime/protocol.js";
import { reflectedProtocol } from "./reflected-protocol.js";

/**
 * The static codecs the build writes (protocol-codecs.cjs, from src/provider/runtime/proto/build-protocol.mjs)
 * against protobufjs's reflection of the .proto text, as the runtime used it before: for every method
 * of every service, a request with every field set decodes to the same object, and an answer with
 * every field set encodes to the same bytes.
 */
const reflected = reflectedProtocol();
reflected.resolveAll();
const TO_OBJECT = { longs: Number, enums: String, defaults: true, oneofs: true };
const protocol = loadProtocol();

const methods = (function collect(namespace: protobuf.NamespaceBase): protobuf.Method[] {
  return namespace.nestedArray.flatMap((nested) => (nested instanceof protobuf.Service ? nested.methodsArray : nested instanceof protobuf.Namespace ? collect(nested) : []));
})(reflected);
const requestTypes = [...new Set(methods.map((method) => method.resolvedRequestType!))];
const responseTypes = [...new Set(methods.map((method) => method.resolvedResponseType!))];
const name = (type: protobuf.Type) => type.fullName.slice(1);

/** A message of `type` with every field set (a oneof's first member only), nested messages to depth 3. */
function sample(type: protobuf.Type, depth = 0): Record<string, unknown> {
  const message: Record<string, unknown> = {};
  for (const field of type.fieldsArray) {
    const oneof = field.partOf;
    if (oneof !== null && !isSynthetic(oneof) && oneof.fieldsArray[0] !== field) continue;
    const value = () => scalar(field, depth);
    if (field instanceof protobuf.MapField) message[field.name] = { [field.keyType === "string" ? "key" : "5"]: value() };
    else if (field.repeated) message[field.name] = [value(), value()];
    else message[field.name] = value();
  }
  return message;
}

function isSynthetic(oneof: protobuf.OneOf): boolean {
  return oneof.fieldsArray.length === 1 && oneof.name === `_${oneof.fieldsArray[0]!.name}`;
}

function scalar(field: protobuf.Field, depth: number): unknown {
  const resolved = field.resolve().resolvedType;
  if (resolved instanceof protobuf.Enum) return Object.keys(resolved.values).at(-1);
  if (resolved instanceof protobuf.Type) return depth >= 3 ? {} : sample(resolved, depth + 1);
  const values: Record<string, unknown> = {
    double: 1.5,
    float: 2.5,
    int32: -7,
    sint32: -8,
    sfixed32: -9,
    uint32: 7,
    fixed32: 8,
    int64: -(2 ** 40),
    sint64: -(2 ** 41),
    sfixed64: -(2 ** 42),
    uint64: 2 ** 40,
    fixed64: 2 ** 41,
    bool: true,
    string: `${field.name} ✓`,
    bytes: Buffer.from([0, 1, 255]),
  };
  if (!(field.type in values)) throw new Error(`field ${field.fullName} has type ${field.type}: expected a scalar this test knows`);
  return values[field.type];
}

describe("the static protocol codecs", () => {
  it.each(requestTypes.map((type) => [name(type), type] as const))("decode %s as protobufjs's reflection does, every field set and none", (_, type) => {
    for (const message of [sample(type), {}]) {
      const bytes = Buffer.from(type.encode(type.fromObject(message)).finish());
      expect(protocol.decode(name(type), bytes)).toStrictEqual(type.toObject(type.decode(bytes), TO_OBJECT));
    }
  });

  it.each(responseTypes.map((type) => [name(type), type] as const))("encode %s as protobufjs's reflection does, every field set and none", (_, type) => {
    for (const message of [sample(type), {}]) {
      expect(protocol.encode(name(type), message).toString("hex")).toBe(Buffer.from(type.encode(type.fromObject(message)).finish()).toString("hex"));
    }
  });

  it("pass bytes encoded before as they are", () => {
    const bytes = Uint8Array.from([10, 0]);
    expect(protocol.encode("tfplugin6.GetProviderSchema.Response", bytes)).toEqual(Buffer.from([10, 0]));
  });

  it("refuse a message no method sends, naming it", () => {
    expect(() => protocol.decode("tfplugin6.Nothing", Buffer.alloc(0))).toThrow("message tfplugin6.Nothing is not in ./protocol-codecs.cjs");
    expect(() => protocol.encode("tfplugin6.ReadResource.Request", {})).toThrow("message tfplugin6.ReadResource.Request has no encoder in ./protocol-codecs.cjs");
  });
});
