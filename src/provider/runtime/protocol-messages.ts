import type { CtyType } from "./cty-type.js";
import type { ProtocolAttributePath } from "./attribute-path.js";
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

/**
 * The response messages of tfplugin6.proto the runtime answers with, each field as `protocol.ts`
 * encodes it (fields left out are the protocol's defaults): declared here so that a misspelt or
 * misplaced field is a compile error rather than a value protobufjs drops.
 */
export interface DiagnosticsAnswer {
  readonly diagnostics: ReadonlyArray<ProtocolDiagnostic>;
}

/** A `DynamicValue` the runtime sends: msgpack always (terraform accepts either). */
export interface DynamicValueAnswer {
  readonly msgpack: Uint8Array;
}

export interface ServerCapabilities {
  readonly plan_destroy: boolean;
  readonly get_provider_schema_optional: boolean;
  readonly move_resource_state: boolean;
}

/** tfplugin6's `Schema` message. */
export interface ProtocolSchema {
  readonly version: number;
  readonly block: ProtocolBlock;
}

export interface ProtocolBlock {
  readonly version: number;
  readonly description: string;
  readonly description_kind: "PLAIN" | "MARKDOWN";
  readonly deprecated: boolean;
  readonly deprecation_message: string;
  readonly attributes: ReadonlyArray<ProtocolAttribute>;
  readonly block_types: ReadonlyArray<ProtocolNestedBlock>;
}

export interface ProtocolAttribute {
  readonly name: string;
  /** The cty type as JSON bytes. */
  readonly type: Buffer;
  readonly description: string;
  readonly description_kind: "PLAIN" | "MARKDOWN";
  readonly required: boolean;
  readonly optional: boolean;
  readonly computed: boolean;
  readonly sensitive: boolean;
  readonly deprecated: boolean;
  readonly deprecation_message: string;
}

export interface ProtocolNestedBlock {
  readonly type_name: string;
  readonly block: ProtocolBlock;
  readonly nesting: "SINGLE" | "LIST" | "SET";
  readonly min_items: number;
  readonly max_items: number;
}

export interface GetMetadataResponse extends DiagnosticsAnswer {
  readonly server_capabilities: ServerCapabilities;
  readonly resources: ReadonlyArray<{ readonly type_name: string }>;
  readonly data_sources: ReadonlyArray<{ readonly type_name: string }>;
}

export interface GetProviderSchemaResponse extends DiagnosticsAnswer {
  readonly provider: ProtocolSchema;
  readonly resource_schemas: Readonly<Record<string, ProtocolSchema>>;
  readonly data_source_schemas: Readonly<Record<string, ProtocolSchema>>;
  readonly server_capabilities: ServerCapabilities;
}

/** No functions: the runtime declares none. */
export interface GetFunctionsResponse extends DiagnosticsAnswer {
  readonly functions: Readonly<Record<string, never>>;
}

/** No identities: the runtime declares none. */
export interface GetResourceIdentitySchemasResponse extends DiagnosticsAnswer {
  readonly identity_schemas: Readonly<Record<string, never>>;
}

export interface UpgradeResourceStateResponse extends DiagnosticsAnswer {
  readonly upgraded_state?: DynamicValueAnswer;
}

export interface ReadResourceResponse extends DiagnosticsAnswer {
  readonly new_state?: DynamicValueAnswer | DynamicValueMessage | null;
  readonly private?: Buffer;
}

export interface PlanResourceChangeResponse extends DiagnosticsAnswer {
  readonly planned_state?: DynamicValueAnswer;
  readonly requires_replace?: ReadonlyArray<ProtocolAttributePath>;
  readonly planned_private?: Buffer;
}

export interface ApplyResourceChangeResponse extends DiagnosticsAnswer {
  readonly new_state?: DynamicValueAnswer;
  readonly private?: Buffer;
}

export interface ImportResourceStateResponse extends DiagnosticsAnswer {
  readonly imported_resources?: ReadonlyArray<{ readonly type_name: string; readonly state: DynamicValueAnswer }>;
}

/** tfplugin6's `MoveResourceState.Request`, as `protocol.ts` decodes it (the fields the runtime reads). */
export interface MoveResourceStateRequest {
  readonly source_provider_address: string;
  readonly source_type_name: string;
  readonly source_schema_version: number;
  readonly source_state: { readonly json: Buffer } | null;
  readonly target_type_name: string;
}

export interface MoveResourceStateResponse extends DiagnosticsAnswer {
  readonly target_state?: DynamicValueAnswer;
}

export interface ReadDataSourceResponse extends DiagnosticsAnswer {
  readonly state?: DynamicValueAnswer;
}

export interface StopProviderResponse {
  /** The protocol's own capitalisation. */
  readonly Error: string;
}

/** Each RPC the runtime answers, its request and its response. */
export interface ProviderRpcMessages {
  readonly GetMetadata: [request: object, response: GetMetadataResponse];
  readonly GetProviderSchema: [request: object, response: GetProviderSchemaResponse];
  readonly GetFunctions: [request: object, response: GetFunctionsResponse];
  readonly GetResourceIdentitySchemas: [request: object, response: GetResourceIdentitySchemasResponse];
  readonly ValidateProviderConfig: [request: ValidateConfigRequest, response: DiagnosticsAnswer];
  readonly ValidateResourceConfig: [request: ValidateConfigRequest, response: DiagnosticsAnswer];
  readonly ValidateDataResourceConfig: [request: ValidateConfigRequest, response: DiagnosticsAnswer];
  readonly ConfigureProvider: [request: ConfigureProviderRequest, response: DiagnosticsAnswer];
  readonly UpgradeResourceState: [request: UpgradeResourceStateRequest, response: UpgradeResourceStateResponse];
  readonly ReadResource: [request: ReadResourceRequest, response: ReadResourceResponse];
  readonly PlanResourceChange: [request: PlanResourceChangeRequest, response: PlanResourceChangeResponse];
  readonly ApplyResourceChange: [request: ApplyResourceChangeRequest, response: ApplyResourceChangeResponse];
  readonly ImportResourceState: [request: ImportResourceStateRequest, response: ImportResourceStateResponse];
  readonly MoveResourceState: [request: MoveResourceStateRequest, response: MoveResourceStateResponse];
  readonly ReadDataSource: [request: ReadDataSourceRequest, response: ReadDataSourceResponse];
  readonly StopProvider: [request: object, response: StopProviderResponse];
}

/** The name of an RPC of tfplugin6's `Provider` service the runtime answers. */
export type ProviderRpc = keyof ProviderRpcMessages;

/** The decoded request of an RPC. */
export type RequestOf<N extends ProviderRpc> = ProviderRpcMessages[N][0];

/** The response of an RPC (as a message object). */
export type ResponseOf<N extends ProviderRpc> = ProviderRpcMessages[N][1];


/** A `DynamicValue`'s value: its msgpack, else its JSON, else (an unset message) null. */
export function fromDynamicValue(message: DynamicValueMessage | null, type: CtyType): Value {
  if (message === null) return null;
  if (message.msgpack.length > 0) return decodeMsgpack(message.msgpack, type);
  if (message.json.length > 0) return decodeJson(message.json, type);
  return null;
}

/** A value as the `DynamicValue` the runtime answers with (msgpack). */
export function toDynamicValue(value: Value, type: CtyType): DynamicValueAnswer {
  return { msgpack: encodeMsgpack(value, type) };
}
