// The typed clients against the embedded services, in one process: what an infrastructure test of
// your own can do. Run it after `npm ci` with `node examples/typed-client/main.mjs`.
import { DEMO_WORLD, startService } from "converge/service";
import { collect, createClients, Credentials, isApiError } from "converge/clients";

const service = await startService({ port: 0, world: DEMO_WORLD });
const clients = createClients({
  endpoint: service.url,
  // from CONVERGE_TOKEN or a token file in real use: Credentials.resolve({ tokenFile })
  credentials: new Credentials("demo-admin-token"),
});
try {
  const { gateway, account } = clients;

  const api = await gateway.createApi({ name: "inventory", protocolType: "HTTP" });
  const integration = await gateway.createIntegration(api.apiId, {
    integrationType: "HTTP_PROXY",
    integrationUri: "https://inventory.internal.example/api",
    integrationMethod: "ANY",
    payloadFormatVersion: "2.0",
  });
  const route = await gateway.createRoute(api.apiId, { routeKey: "GET /items", target: `integrations/${integration.integrationId}` });
  console.log(`created ${route.routeKey} -> ${route.target} (authorizationType ${route.authorizationType}, a server default)`);

  // listings are lazy async iterators; collect() reads every page
  const routes = await collect(gateway.routes(api.apiId));
  console.log(`routes of ${api.name}: ${routes.map((r) => r.routeKey).join(", ")}`);

  // an absent resource is a value, not an error
  console.log(`a deleted route reads as: ${(await gateway.deleteRoute(api.apiId, route.routeId)) && (await gateway.getRoute(api.apiId, route.routeId))}`);

  // service errors are typed, with the error name, status and fields of the answer
  try {
    await gateway.createRoute(api.apiId, { routeKey: "get /items" });
  } catch (error) {
    if (!isApiError(error)) throw error;
    console.log(`refused (${error.code}, ${error.errorName}): ${error.message}`);
  }

  const contact = { AlternateContactType: "SECURITY", Name: "Sec Ops", Title: "CISO", EmailAddress: "sec@example.com", PhoneNumber: "+1 555 0100" };
  await account.putAlternateContact(contact);
  console.log(`security contact: ${(await account.getAlternateContact({ AlternateContactType: "SECURITY" }))?.EmailAddress}`);
  const enabled = await collect(account.listRegions({ RegionOptStatusContains: ["ENABLED", "ENABLED_BY_DEFAULT"] }));
  console.log(`enabled Regions: ${enabled.length}`);
} finally {
  await clients.close();
  await service.close();
}
