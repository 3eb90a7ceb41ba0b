import { z } from "zod";
import { AccountId, AlternateContactType, ContactName, ContactTitle, EmailAddress, PhoneNumber, RegionName } from "../contract/account.js";
import { INTEGRATION_FIELDS, ROUTE_FIELDS, ProtocolType } from "../contract/gateway.js";
import { acceptingVariables } from "./json-schema-variables.js";

/**
 * The desired-state documents (docs/manual/desired-state.md): camelCase everywhere, unknown fields rejected, wire
 * constraints reused from src/contract so that a document valid here is valid on the wire.
 */

const Ensure = z.enum(["present", "absent"], { error: 'expected "present" or "absent"' }).default("present");

/**
 * What the continuous reconciler (`converge reconcile`) may do with a document's resource: correct
 * it (the default, as `--policy correct`) or only observe and report it, as Crossplane's
 * `managementPolicies: [Observe]` and Argo CD's manual sync. `converge apply`, a person's explicit
 * run, writes what it plans either way (docs/manual/continuous-reconcile.md, "Policies").
 */
export const RECONCILE_POLICIES = ["correct", "observe"] as const;
export type ReconcilePolicy = (typeof RECONCILE_POLICIES)[number];
const Policy = z.enum(RECONCILE_POLICIES, { error: 'expected "correct" or "observe"' }).optional();

/** An API by ID, or `{name}` looked up among the caller's APIs. */
export const ApiRef = z.union([
  z.string().regex(/^[a-z0-9]{10}$/, { error: "expected an apiId (10 lower-case letters or digits) or {name: <api name>}" }),
  z.strictObject({ name: z.string().min(1) }),
], { error: "expected an apiId (10 lower-case letters or digits) or {name: <api name>}" });
export type ApiRef = z.infer<typeof ApiRef>;

const LogicalName = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/, {
  error: "expected a logical name of letters, digits, '.', '_' and '-' (at most 128, starting with a letter or digit)",
});

/** Every field of `fields` may be omitted (don't care) or `null` (must be absent). */
function nullableFields<T extends Record<string, z.ZodType>>(fields: T) {
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, v.nullable().optional()])) as {
    [K in keyof T]: z.ZodOptional<z.ZodNullable<T[K]>>;
  };
}

export const AlternateContactSpec = z.strictObject({
  type: AlternateContactType,
  name: ContactName,
  title: ContactTitle,
  emailAddress: EmailAddress,
  phoneNumber: PhoneNumber,
});
/** Deleting a contact names only its type. */
const AlternateContactAbsentSpec = z.strictObject({ type: AlternateContactType }).passthrough();

export const AlternateContactDocument = z.strictObject({
  kind: z.literal("AlternateContact"),
  policy: Policy,
  account: AccountId.optional(),
  ensure: Ensure,
  spec: z.union([AlternateContactSpec, AlternateContactAbsentSpec]),
}).superRefine((doc, ctx) => {
  if (doc.ensure === "present") {
    const parsed = AlternateContactSpec.safeParse(doc.spec);
    if (!parsed.success) for (const issue of parsed.error.issues) ctx.addIssue({ ...issue, path: ["spec", ...issue.path] } as z.core.$ZodRawIssue);
  }
});

const { integrationType: _integrationType, ...optionalIntegrationFields } = INTEGRATION_FIELDS;
export const IntegrationSpec = z.strictObject({
  integrationId: z.string().regex(/^[a-z0-9]+$/, { error: "expected an integrationId (lower-case letters and digits)" }).optional(),
  integrationType: INTEGRATION_FIELDS.integrationType,
  ...nullableFields(optionalIntegrationFields),
});
export type IntegrationSpec = z.infer<typeof IntegrationSpec>;

export const IntegrationDocument = z.strictObject({
  kind: z.literal("Integration"),
  policy: Policy,
  name: LogicalName,
  api: ApiRef,
  ensure: Ensure,
  spec: IntegrationSpec,
});

/** A route target: an integration of the same API by logical name, or a raw `integrations/<id>`. */
export const RouteTarget = z.union([
  z.strictObject({ integration: LogicalName }),
  z.string().regex(/^integrations\/[a-z0-9]+$/, { error: 'expected {integration: <name>} or "integrations/<integrationId>"' }),
], { error: 'expected {integration: <name>} or "integrations/<integrationId>"' });
export type RouteTarget = z.infer<typeof RouteTarget>;

const { routeKey: _routeKey, target: _target, ...optionalRouteFields } = ROUTE_FIELDS;
export const RouteSpec = z.strictObject({
  routeId: z.string().regex(/^[a-z0-9]+$/, { error: "expected a routeId (lower-case letters and digits)" }).optional(),
  routeKey: ROUTE_FIELDS.routeKey,
  target: RouteTarget.nullable().optional(),
  ...nullableFields(optionalRouteFields),
});
export type RouteSpec = z.infer<typeof RouteSpec>;

export const RouteDocument = z.strictObject({
  kind: z.literal("Route"),
  policy: Policy,
  /** Optional logical name, for --target and messages. @default the route key */
  name: LogicalName.optional(),
  api: ApiRef,
  ensure: Ensure,
  spec: RouteSpec,
});

export const RegionOptInDocument = z.strictObject({
  kind: z.literal("RegionOptIn"),
  policy: Policy,
  account: AccountId.optional(),
  ensure: z.literal("present", { error: 'RegionOptIn does not take ensure: absent; declare enabled: false to opt out of a Region' }).default("present"),
  spec: z.strictObject({ region: RegionName, enabled: z.boolean() }),
});

export const ApiDocument = z.strictObject({
  kind: z.literal("Api"),
  policy: Policy,
  api: ApiRef,
  ensure: z.literal("present", { error: "converge does not create or delete APIs; remove the document instead of ensure: absent" }).default("present"),
  spec: z.strictObject({
    /** Delete live routes and integrations of this API that no document declares (protections still apply). @default false */
    prune: z.boolean().default(false),
    /** The API's protocol, so that per-protocol rules are checked offline (`converge validate`). */
    protocolType: ProtocolType.optional(),
  }).default({ prune: false }),
});

export const KINDS = ["AlternateContact", "Integration", "Route", "RegionOptIn", "Api"] as const;
export type Kind = (typeof KINDS)[number];

export const DOCUMENT_SCHEMAS = {
  AlternateContact: AlternateContactDocument,
  Integration: IntegrationDocument,
  Route: RouteDocument,
  RegionOptIn: RegionOptInDocument,
  Api: ApiDocument,
} as const satisfies Record<Kind, z.ZodType>;

export type AlternateContactDocument = z.output<typeof AlternateContactDocument>;
export type IntegrationDocument = z.output<typeof IntegrationDocument>;
export type RouteDocument = z.output<typeof RouteDocument>;
export type RegionOptInDocument = z.output<typeof RegionOptInDocument>;
export type ApiDocument = z.output<typeof ApiDocument>;
export type Document = AlternateContactDocument | IntegrationDocument | RouteDocument | RegionOptInDocument | ApiDocument;

/** The union of every document, for the JSON Schema editors complete against. */
export const AnyDocument = z.discriminatedUnion("kind", [AlternateContactDocument, IntegrationDocument, RouteDocument, RegionOptInDocument, ApiDocument]);

/** JSON Schema of a desired-state document (`converge schema`), every value but `kind` also accepting a variable reference. */
export function documentJsonSchema(): Record<string, unknown> {
  const schema = acceptingVariables(z.toJSONSchema(AnyDocument, { io: "input", unrepresentable: "any" }) as Record<string, unknown>);
  return {
    ...schema,
    $id: "https://converge.dev/schema/desired-state.json",
    title: "converge desired-state document",
    description: "One document of a converge desired-state file (YAML documents separated by ---, or JSON).",
  };
}
