// SDK code under test: exposes METHOD /path of an HTTP API through a backend (its integration and its
// route), made safe to run again, and safe when the answer of a create is lost: it reads before it
// creates, and after an ambiguous create (the service may have acted) it reads again instead of
// creating twice. Tested in expose-route.test.mjs against the services as a test double.
import { collect, isAmbiguousWrite } from "converge/clients";

/**
 * Makes `routeKey` of the API named `apiName` target an HTTP_PROXY integration of `backend`, creating
 * what is missing; answers the route.
 */
export async function exposeRoute(gateway, { apiName, routeKey, backend }) {
  const api = (await collect(gateway.apis())).find((candidate) => candidate.name === apiName);
  if (!api) throw new Error(`there is no API named ${JSON.stringify(apiName)}`);
  const integration = await ensure(
    async () => (await collect(gateway.integrations(api.apiId))).find((candidate) => candidate.integrationUri === backend),
    () => gateway.createIntegration(api.apiId, { integrationType: "HTTP_PROXY", integrationUri: backend, integrationMethod: "ANY", payloadFormatVersion: "1.0" }),
  );
  const target = `integrations/${integration.integrationId}`;
  const route = await ensure(
    async () => (await collect(gateway.routes(api.apiId))).find((candidate) => candidate.routeKey === routeKey),
    () => gateway.createRoute(api.apiId, { routeKey, target }),
  );
  return route.target === target ? route : gateway.updateRoute(api.apiId, route.routeId, { target });
}

/** Reads first and creates only what is absent; after an ambiguous create, reads again before creating again. */
async function ensure(find, create) {
  const found = await find();
  if (found) return found;
  try {
    return await create();
  } catch (error) {
    if (!isAmbiguousWrite(error)) throw error;
    return (await find()) ?? create();
  }
}
