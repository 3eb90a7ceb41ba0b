import type { Construct } from "constructs";
import { AlternateContact, Integration, RegionOptIn, Route, type AlternateContactProps, type IntegrationProps, type RouteProps } from "../../constructs/index.js";

/** The demo world's quick-created HTTP API. */
export const ORDERS_API = "a1b2c3d4e5";

export interface ShopOptions {
  readonly contact?: Partial<AlternateContactProps>;
  readonly integration?: Partial<IntegrationProps>;
  readonly route?: Partial<RouteProps>;
  /** Leave the contact out (to remove it from a deployed stack). */
  readonly withoutContact?: boolean;
  /** Construct ids other than the defaults (to rename constructs). */
  readonly ids?: { readonly contact?: string; readonly integration?: string };
}

/** One construct of each kind: a SECURITY contact, an integration, a route targeting it, and a Region opt-in. */
export function buildShop(stack: Construct, options: ShopOptions = {}): { integration: Integration; route: Route } {
  if (!options.withoutContact) {
    new AlternateContact(stack, options.ids?.contact ?? "security", {
      type: "SECURITY",
      name: "Security Team",
      title: "CISO",
      emailAddress: "security@example.com",
      phoneNumber: "+1 555 0100",
      ...options.contact,
    });
  }
  const integration = new Integration(stack, options.ids?.integration ?? "orders-backend", {
    api: ORDERS_API,
    integrationType: "HTTP_PROXY",
    integrationUri: "https://shop.internal.example/orders",
    integrationMethod: "ANY",
    payloadFormatVersion: "1.0",
    timeoutInMillis: 10000,
    ...options.integration,
  });
  const route = new Route(stack, "get-orders", { api: ORDERS_API, routeKey: "GET /orders", target: integration, ...options.route });
  new RegionOptIn(stack, "ap-east", { region: "ap-east-1", enabled: true });
  return { integration, route };
}
