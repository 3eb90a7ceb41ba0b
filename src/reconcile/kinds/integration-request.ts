/** The requests of the Integration engine (`none`: a no-op that records the integrationId its name resolved to). */
export type IntegrationRequest =
  | { readonly op: "createIntegration"; readonly apiId: string; readonly name: string; readonly body: Readonly<Record<string, unknown>> }
  | { readonly op: "updateIntegration"; readonly apiId: string; readonly name: string; readonly integrationId: string;
    readonly patch: Readonly<Record<string, unknown>> }
  | { readonly op: "deleteIntegration"; readonly apiId: string; readonly integrationId: string }
  | { readonly op: "none"; readonly apiId?: string; readonly name?: string; readonly integrationId?: string };
