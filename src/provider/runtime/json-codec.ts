import { typeFromJson, type CtyType } from "./cty-type.js";
import { valueFromWire, type WireDialect } from "./value-decoding.js";
import { describeReceived, ValueTypeError } from "./value-error.js";
import { TypedValue, type Value } from "./value.js";

/**
 * terraform's values as JSON, the way cty writes them into state (go-cty `cty/json`): a `dynamic`
 * value is `{"value": ..., "type": ...}`; there are no unknowns. Decoding state written by an older
 * schema ignores attributes the current schema no longer has and reads missing ones as null.
 */
const dialect: WireDialect = {
  extraAttributes: "ignore",
  dynamic(raw, path) {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw) || !("type" in raw) || !("value" in raw)) {
      throw new ValueTypeError(path, `received ${describeReceived(raw)}, expected a dynamic value {"value": ..., "type": ...}`);
    }
    let type: CtyType;
    try {
      type = typeFromJson(raw.type);
    } catch (error) {
      throw new ValueTypeError(path, (error as Error).message);
    }
    return new TypedValue(type, valueFromWire(raw.value, type, path, dialect));
  },
};

/** Decodes JSON (e.g. `RawState.json` of `UpgradeResourceState`) as a value of the given type. */
export function decodeJson(json: string | Uint8Array, type: CtyType): Value {
  const text = typeof json === "string" ? json : Buffer.from(json.buffer, json.byteOffset, json.byteLength).toString("utf8");
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ValueTypeError([], `received text that is not JSON: ${(error as Error).message}`);
  }
  return decodeJsonValue(raw, type);
}

/** Reads already parsed JSON (what a resource's `upgradeState` returns) as a value of the given type. */
export function decodeJsonValue(parsed: unknown, type: CtyType): Value {
  return valueFromWire(parsed, type, [], dialect);
}
