import type { CtyType } from "./cty-type.js";
import type { ProtocolDiagnostic } from "./diagnostics.js";
import { decodeJson } from "./json-codec.js";
import { decodeMsgpack, encodeMsgpack } from "./msgpack-codec.js";
import type { Value } from "./value.js";

/**
 * The request messages of tfplugin6.proto the runtime reads, as `protocol.ts` decodes them: field
 * names as in the `.proto`, unset message fields null, unset scalars their default.
 */
export interface DynamicValueMessage {
  readonly msgpack: Buffer;
  readonly json: Buffer;
}

export interface ValidateConfigRequest {
  readonly type_name: string;
  readonly config: DynamicValueMessage | null;
}

export interface UpgradeResourceStateRequest {
  readonly type_name: string;
  readonly version: number;
  readonly raw_state: { readonly json: Buffer; readonly flatmap: Readonly<Record<string, string>> } | null;
}

export interface ConfigureProviderRequest {
  readonly terraform_version: string;
  readonly config: DynamicValueMessage | null;
}

export interface ReadResourceRequest {
  readonly type_name: string;
  readonly current_state: DynamicValueMessage | null;
  readonly private: Buffer;
}

export interface PlanResourceChangeRequest {
  readonly type_name: string;
  readonly prior_state: DynamicValueMessage | null;
  readonly proposed_new_state: DynamicValueMessage | null;
  readonly config: DynamicValueMessage | null;
  readonly prior_private: Buffer;
}

export interface ApplyResourceChangeRequest {
  readonly type_name: string;
  readonly prior_state: DynamicValueMessage | null;
  readonly planned_state: DynamicValueMessage | null;
  readonly config: DynamicValueMessage | null;
  readonly planned_private: Buffer;
}

export interface ImportResourceStateRequest {
  readonly type_name: string;
  readonly id: string;
}

export interface ReadDataSourceRequest {
  readonly type_name: string;
  readonly config: DynamicValueMessage | null;
}

/** What every answer with diagnostics carries. */
export interface WithDiagnostics {
  readonly diagnostics: ReadonlyArray<ProtocolDiagnostic>;
}

/** A `DynamicValue`'s value: its msgpack, else its JSON, else (an unset message) null. */
export function fromDynamicValue(message: DynamicValueMessage | null, type: CtyType): Value {
  if (message === null) return null;
  if (message.msgpack.length > 0) return decodeMsgpack(message.msgpack, type);
  if (message.json.length > 0) return decodeJson(message.json, type);
  return null;
}

export function toDynamicValue(value: Value, type: CtyType): { readonly msgpack: Uint8Array } {
  return { msgpack: encodeMsgpack(value, type) };
}
