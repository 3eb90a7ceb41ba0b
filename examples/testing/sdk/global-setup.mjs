// The services every test file of this suite talks to: a `converge serve` the CI job started
// (CONVERGE_ENDPOINT and CONVERGE_ADMIN_TOKEN set), or, run on its own, services started in this
// process. Each test file takes an isolated world of them (expose-route.test.mjs), so that files
// running in parallel never see each other.
import { attachTestService, startTestService } from "converge/testing";

export default async function setup(project) {
  if (process.env.CONVERGE_ENDPOINT && process.env.CONVERGE_ADMIN_TOKEN) {
    const control = await attachTestService();
    project.provide("convergeEndpoint", control.endpoint);
    project.provide("convergeAdminToken", process.env.CONVERGE_ADMIN_TOKEN);
    await control.close();
    return undefined;
  }
  const started = await startTestService();
  project.provide("convergeEndpoint", started.url);
  project.provide("convergeAdminToken", started.service.adminToken);
  return () => started.close();
}
