import { readdirSync } from "node:fs";
import { join, resolve } from "node:path";
import protobuf from "protobufjs";

/** The runtime's .proto files (src/provider/runtime/proto). */
const PROTO = resolve(import.meta.dirname, "../../../src/provider/runtime/proto");

/**
 * Every .proto of the runtime loaded by protobufjs's reflection, field names kept as written: the
 * independent reading of the protocol that the runtime's own codecs and answers are checked against.
 */
export function reflectedProtocol(): protobuf.Root {
  return new protobuf.Root().loadSync(
    readdirSync(PROTO)
      .filter((name) => name.endsWith(".proto"))
      .map((name) => join(PROTO, name)),
    { keepCase: true },
  );
}
