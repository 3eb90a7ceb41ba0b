import { fileURLToPath } from "node:url";
import type { Construct } from "constructs";
import { AlternateContact, Api, ConvergeConfig, Integration, RegionOptIn, Route, type Vehicle } from "converge/constructs";

/** The demo world's HTTP API `orders` (converge serve boots it). */
const ORDERS_API = "a1b2c3d4e5";

/**
 * A shop's account and API settings: two alternate contacts, what the stack says of the API, a
 * backend integration with the two routes that target it, and an opt-in Region. Every construct of
 * converge/constructs, once. The same function serves a cdktf stack (main.ts) and a cdktn one
 * (main-cdktn.ts): the constructs work with either library.
 */
export function declareShop(stack: Construct): void {
  // terraform_data when unset (the constructs' default); null_resource; or provider: one resource of
  // converge's own provider per construct (`npx converge provider install` first)
  const vehicle = process.env.CONVERGE_VEHICLE as Vehicle | undefined;
  new ConvergeConfig(stack, "converge", {
    endpoint: process.env.CONVERGE_ENDPOINT ?? "http://127.0.0.1:4566",
    ...(vehicle !== undefined ? { vehicle } : {}),
    // the converge installed beside this app, which the provisioners run (quoted: the path may hold
    // spaces); the provider vehicle runs no CLI
    ...(vehicle === "provider" ? {} : { cli: process.env.CONVERGE_CLI ?? `node "${fileURLToPath(new URL("./node_modules/converge/dist/src/cli/main.js", import.meta.url))}"` }),
  });

  new AlternateContact(stack, "security-contact", {
    type: "SECURITY",
    name: "Security Team",
    title: "CISO",
    emailAddress: "security@example.com",
    phoneNumber: "+1 555 0100",
  });
  new AlternateContact(stack, "billing-contact", {
    type: "BILLING",
    name: "Accounts Payable",
    title: "Finance",
    emailAddress: "billing@example.com",
    phoneNumber: "+1 555 0101",
  });

  new Api(stack, "orders-api", { api: ORDERS_API, protocolType: "HTTP" });

  const catalog = new Integration(stack, "catalog-backend", {
    api: ORDERS_API,
    integrationType: "HTTP_PROXY",
    integrationUri: "https://catalog.internal.example/api",
    integrationMethod: "ANY",
    payloadFormatVersion: "1.0",
    timeoutInMillis: 10000,
  });
  new Route(stack, "list-products", { api: ORDERS_API, routeKey: "GET /products", target: catalog });
  new Route(stack, "get-product", { api: ORDERS_API, routeKey: "GET /products/{id}", target: catalog });

  new RegionOptIn(stack, "hong-kong", { region: "ap-east-1", enabled: true });
}
