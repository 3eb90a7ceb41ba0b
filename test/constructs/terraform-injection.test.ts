import { mkdtempSync, readdirSync } from "node:fs";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AlternateContact, Integration, Route } from "../../constructs/index.js";
import { CHAT_API, liveContact, liveIntegrations, liveRoutes, writeCounts } from "../e2e/e2e-fixture.js";
import { synthStack, type SynthOutput } from "./synth-fixture.js";
import { cdktfSuite } from "./terraform-suite.js";
import { CLI_COMMAND, SECRET_TOKEN, Terraform, describeTerraform } from "./terraform-fixture.js";

/**
 * Issue "cdktf constructs": every string prop holds shell and template syntax. The provisioners get
 * documents only through their environment, and the JSON in cdk.tf.json escapes terraform's `${`
 * and `%{`: nothing runs, and the live values equal the inputs byte for byte. The token comes from
 * a variable of another name (`tokenEnvironmentVariable`), which the CLI reads with --token-env.
 */

// a short directory: the contact's title holds at most 50 characters
const marker = mkdtempSync("/tmp/cvi-");
const VALUES = {
  name: `$(touch ${marker}/name) ; touch ${marker}/n2`,
  title: `\`touch ${marker}/title\` & x`,
  emailAddress: "x&touch|y#!=@example.com",
  phoneNumber: "+1 (555)\n0100",
  description: `'; touch ${marker}/d1; echo '" ; touch ${marker}/d2 ; echo "\nline two\r\n\ttabbed \\" \\n \\u0041 é 😀 \u2028 end`,
  integrationUri: `https://x.example/$(touch ${marker}/uri)?q=\${path.module}&r=%{ if true }y%{ endif }`,
  templateSelectionExpression: "${jsonencode(1)} $${literal} %%{x} \\${escaped}",
  credentialsArn: `arn:$(touch ${marker}/arn):\`id\`:\${file("/etc/hostname")}`,
  requestTemplate: `{"a": "$(touch ${marker}/tpl)", "b": "\${var.x}", "c": "%{ for x in [1] }\${x}%{ endfor }"}`,
  routeKey: `$(touch ${marker}/key) \`id\` \${self.triggers_replace.document} "quoted" 'single'`,
  operationName: `op\n$(touch ${marker}/op)\n\${path.cwd}`,
  routeResponseSelectionExpression: "$default ${request.body.action} %{ if true }",
  modelSelectionExpression: `$request.body.$(touch ${marker}/model)`,
  requestModel: "`touch /tmp/not-a-model` ${x}",
};

const suite = cdktfSuite("cdktf-injection");
let terraform: Terraform;
let output: SynthOutput;

beforeAll(async () => {
  output = synthStack((stack) => {
    new AlternateContact(stack, "operations", { type: "OPERATIONS", name: VALUES.name, title: VALUES.title, emailAddress: VALUES.emailAddress, phoneNumber: VALUES.phoneNumber });
    const integration = new Integration(stack, "handler", {
      api: CHAT_API,
      integrationType: "HTTP_PROXY",
      integrationMethod: "POST",
      integrationUri: VALUES.integrationUri,
      description: VALUES.description,
      templateSelectionExpression: VALUES.templateSelectionExpression,
      credentialsArn: VALUES.credentialsArn,
      requestTemplates: { "application/json": VALUES.requestTemplate },
    });
    new Route(stack, "action", {
      api: CHAT_API,
      routeKey: VALUES.routeKey,
      target: integration,
      operationName: VALUES.operationName,
      routeResponseSelectionExpression: VALUES.routeResponseSelectionExpression,
      modelSelectionExpression: VALUES.modelSelectionExpression,
      requestModels: { "application/json": VALUES.requestModel },
    });
  }, { vehicle: "terraform_data", endpoint: suite.service.url, cli: CLI_COMMAND, tokenEnvironmentVariable: "CDKTF_INJECTION_TOKEN" }, { outdir: join(suite.home, "cdktf.out") });
  terraform = new Terraform(output.stackDir, suite.home, { CDKTF_INJECTION_TOKEN: SECRET_TOKEN });
  const init = await terraform.init();
  expect(init.code, describeTerraform(init)).toBe(0);
}, 90_000);

afterAll(async () => {
  await rm(marker, { recursive: true, force: true });
});

describe("injection through construct props", { timeout: 90_000 }, () => {
  it("leaves no template sequence of the values in cdk.tf.json", () => {
    for (const sequence of ["${path.module}", "${jsonencode(1)}", "%{ if true }", "${self.triggers_replace.document}\\\"", "${request.body.action}"]) {
      expect(output.text).not.toContain(sequence);
    }
  });

  it("terraform apply runs nothing of the values, and the live values equal the inputs byte for byte", async () => {
    suite.service.requests.reset();
    const result = await terraform.apply();
    expect(result.code, describeTerraform(result)).toBe(0);
    expect(writeCounts(suite.service)).toEqual({ PutAlternateContact: 1, CreateIntegration: 1, CreateRoute: 1 });
    expect(readdirSync(marker)).toEqual([]);

    const contact = await liveContact(suite.service, "OPERATIONS");
    expect(Buffer.from(String(contact?.Name))).toEqual(Buffer.from(VALUES.name));
    expect(Buffer.from(String(contact?.Title))).toEqual(Buffer.from(VALUES.title));
    expect(Buffer.from(String(contact?.EmailAddress))).toEqual(Buffer.from(VALUES.emailAddress));
    expect(Buffer.from(String(contact?.PhoneNumber))).toEqual(Buffer.from(VALUES.phoneNumber));

    const integrations = (await liveIntegrations(suite.service, CHAT_API)).filter((item) => item.integrationUri === VALUES.integrationUri);
    expect(integrations).toHaveLength(1);
    expect(integrations[0]).toMatchObject({
      description: VALUES.description,
      templateSelectionExpression: VALUES.templateSelectionExpression,
      credentialsArn: VALUES.credentialsArn,
      requestTemplates: { "application/json": VALUES.requestTemplate },
    });
    const routes = (await liveRoutes(suite.service, CHAT_API)).filter((route) => route.routeKey === VALUES.routeKey);
    expect(routes).toHaveLength(1);
    expect(routes[0]).toMatchObject({
      target: `integrations/${integrations[0]!.integrationId}`,
      operationName: VALUES.operationName,
      routeResponseSelectionExpression: VALUES.routeResponseSelectionExpression,
      modelSelectionExpression: VALUES.modelSelectionExpression,
      requestModels: { "application/json": VALUES.requestModel },
    });
  });

  it("a second apply sees no change: the documents in state read back as synthesized", async () => {
    suite.service.requests.reset();
    const result = await terraform.apply();
    expect(result.code, describeTerraform(result)).toBe(0);
    expect(result.stdout).toMatch(/^No changes\. Your infrastructure matches the configuration\./m);
    expect(suite.service.requests.count()).toBe(0);
  });

  it("terraform destroy deletes through the same documents, running nothing of them", async () => {
    suite.service.requests.reset();
    const result = await terraform.destroy();
    expect(result.code, describeTerraform(result)).toBe(0);
    expect(writeCounts(suite.service)).toEqual({ DeleteAlternateContact: 1, DeleteRoute: 1, DeleteIntegration: 1 });
    expect(await liveContact(suite.service, "OPERATIONS")).toBeNull();
    expect((await liveRoutes(suite.service, CHAT_API)).filter((route) => route.routeKey === VALUES.routeKey)).toEqual([]);
    expect(readdirSync(marker)).toEqual([]);
    for (const run of terraform.results) expect(`${run.stdout}${run.stderr}`).not.toContain(SECRET_TOKEN);
  });
});
