import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { format, inspect } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import {
  AccountClient,
  collect,
  createClients,
  Credentials,
  GatewayClient,
  isConvergeError,
  Transport,
  type Clients,
  type ClientsOptions,
  type ConvergeErrorCode,
} from "../../src/clients/index.js";
import type { RunningService, WorldInput } from "../../src/service/index.js";
import { testWorld } from "../support/worlds.js";
import { answer, closedPort, type ForeignServer, rejectionOf, SEEDED_API_ID, seededWorld, startForeignServer } from "./client-fixtures.js";
import { FAST_RETRY, startWorld, withWorld } from "../support/world.js";

const SECRET = "tok-SECRET-5f1e9c";
/** A second distinctive token the service does not know. */
const UNKNOWN_SECRET = "tok-SECRET-unknown-3b7d";
/** A token of characters that JSON, percent-encoding and HTML escape (`/` is what JSON may write `\/`). */
const ESCAPING_SECRET = `tok/SECRET+9a=b&c<d>"e\\f'g~%h`;
const SECRETS = [SECRET, UNKNOWN_SECRET, ESCAPING_SECRET];

/**
 * `text`, and `text` with every encoding the foreign server uses undone once, twice and three times
 * (so an echo encoded twice is found too): JSON escapes, percent-encoding, HTML numeric character
 * references. A leak shows in at least one of them.
 */
function decodeEchoes(text: string): string[] {
  const rounds = [text];
  for (let round = 0; round < 3; round += 1) {
    rounds.push(rounds[round]!
      .replace(/\\(u[0-9a-f]{4}|.)/gi, (_match, escaped: string) => (escaped.length === 5 ? String.fromCharCode(Number.parseInt(escaped.slice(1), 16)) : escaped))
      .replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
        try {
          return decodeURIComponent(run);
        } catch {
          return run;
        }
      })
      .replace(/&#x([0-9a-f]+);/gi, (_match, hex: string) => String.fromCodePoint(Number.parseInt(hex, 16)))
      .replace(/&#(\d+);/g, (_match, digits: string) => String.fromCodePoint(Number(digits))));
  }
  return rounds;
}

const showsSecret = (text: string, secret: string) => decodeEchoes(text).some((decoded) => decoded.includes(secret));

/** The ways the foreign server echoes the Authorization header back, each undone by {@link decodeEchoes}. */
const ECHO_ENCODINGS: Readonly<Record<string, (text: string) => string>> = {
  "JSON with / written \\/": (text) => JSON.stringify(text).slice(1, -1).replaceAll("/", "\\/"),
  "JSON with every symbol as \\u00XX": (text) => [...text].map((c) => (/[a-z0-9 ]/i.test(c) ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)).join(""),
  "JSON with every character as \\uXXXX (upper case)": (text) => [...text].map((c) => `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}`).join(""),
  "percent-encoded": (text) => encodeURIComponent(text),
  "percent-encoded in lower case": (text) => encodeURIComponent(text).replace(/%[0-9A-F]{2}/g, (byte) => byte.toLowerCase()),
  "percent-encoded, then JSON-escaped": (text) => encodeURIComponent(text).replaceAll("%", "\\u0025"),
  "JSON-escaped twice": (text) => JSON.stringify(JSON.stringify(text).slice(1, -1).replaceAll("/", "\\/")).slice(1, -1),
  "HTML character references": (text) => [...text].map((c) => (/[a-z0-9]/i.test(c) ? c : `&#${c.charCodeAt(0)};`)).join(""),
  "HTML hexadecimal character references": (text) => [...text].map((c) => (/[a-z0-9]/i.test(c) ? c : `&#x${c.charCodeAt(0).toString(16)};`)).join(""),
};

/** Every rendering of `value` someone might log, print or serialize. */
function renderings(value: unknown): Record<string, string> {
  const out: Record<string, string> = {
    inspect: inspect(value, { depth: 10, showHidden: true }),
    inspectDeep: inspect(value, { depth: Infinity, showHidden: true, getters: true, customInspect: false }),
    json: JSON.stringify(value) ?? "",
    string: String(value),
    format: format("%s %o %O %j", value, value, value, value),
  };
  if (value instanceof Error) {
    out.message = value.message;
    out.stack = value.stack ?? "";
  }
  return out;
}

function expectNoSecret(value: unknown): void {
  for (const [how, text] of Object.entries(renderings(value))) {
    for (const secret of SECRETS) {
      expect(text.includes(secret), `${how} shows the token:\n${text}`).toBe(false);
      expect(showsSecret(text, secret), `${how} shows the token once its escapes are undone:\n${text}`).toBe(false);
    }
  }
}

/** The secret identity may read, create and update, and delete routes and integrations, but not APIs. */
function worldWithSecret(extra: Partial<WorldInput> = {}): Partial<WorldInput> {
  return {
    identities: [
      ...testWorld().identities!,
      { token: SECRET, accountId: "111111111111", allow: ["account:*", "apigateway:Get*", "apigateway:Create*", "apigateway:Update*", "apigateway:DeleteRoute", "apigateway:DeleteIntegration"] },
    ],
    ...extra,
  };
}

interface Context {
  readonly main: RunningService;
  readonly throttled: RunningService;
  readonly failing: RunningService;
  readonly dropping: RunningService;
  readonly slow: RunningService;
  readonly foreign: ForeignServer;
  readonly closedEndpoint: string;
  readonly files: string;
  clients(service: RunningService | string, options?: Partial<Omit<ClientsOptions, "endpoint" | "credentials">>, token?: string): Clients;
}

/** One error path: how to provoke it, and the code of the error it must produce. */
type ErrorPath = readonly [name: string, code: ConvergeErrorCode, provoke: (context: Context) => Promise<unknown>];

const ERROR_PATHS: ReadonlyArray<ErrorPath> = [
  ["AccessDenied: the token lacks apigateway:DeleteApi", "CONVERGE_API_ERROR", (c) => c.clients(c.main).gateway.deleteApi(SEEDED_API_ID)],
  ["AccessDenied: the service does not know the token", "CONVERGE_API_ERROR", (c) => c.clients(c.main, {}, UNKNOWN_SECRET).gateway.getApi(SEEDED_API_ID)],
  ["account ValidationException (400)", "CONVERGE_API_ERROR", (c) => c.clients(c.main).account.putAlternateContact({ AlternateContactType: "BILLING", Name: "B", Title: "T", EmailAddress: "nope", PhoneNumber: "x" })],
  ["gateway BadRequestException (400)", "CONVERGE_API_ERROR", (c) => c.clients(c.main).gateway.createRoute(SEEDED_API_ID, { routeKey: "get /x" })],
  ["gateway NotFoundException (404)", "CONVERGE_API_ERROR", (c) => collect(c.clients(c.main).gateway.routes("missing000"))],
  ["gateway ConflictException (409)", "CONVERGE_API_ERROR", async (c) => {
    const { gateway } = c.clients(c.main);
    await gateway.createRoute(SEEDED_API_ID, { routeKey: "GET /twice" });
    return gateway.createRoute(SEEDED_API_ID, { routeKey: "GET /twice" });
  }],
  ["throttled (429) with maxAttempts 1", "CONVERGE_API_ERROR", async (c) => {
    const { account } = c.clients(c.throttled, { retry: { maxAttempts: 1 } });
    await account.getRegionOptStatus({ RegionName: "us-east-1" }).catch(() => undefined);
    return account.getRegionOptStatus({ RegionName: "us-east-1" });
  }],
  ["InternalServerException (500) after every retry", "CONVERGE_API_ERROR", (c) => c.clients(c.failing).gateway.getApi(SEEDED_API_ID)],
  ["AmbiguousWriteError: the answer of a create was lost", "CONVERGE_AMBIGUOUS_WRITE", (c) => c.clients(c.dropping).gateway.createApi({ name: "lost", protocolType: "HTTP" })],
  ["AmbiguousWriteError: a create timed out", "CONVERGE_AMBIGUOUS_WRITE", (c) => c.clients(c.slow, { timeouts: { headersMs: 100 } }).gateway.createRoute(SEEDED_API_ID, { routeKey: "GET /slow" })],
  ["TransportError: connection refused", "CONVERGE_TRANSPORT", (c) => c.clients(c.closedEndpoint).gateway.getApi(SEEDED_API_ID)],
  ["TransportError: headers timeout", "CONVERGE_TRANSPORT", (c) => c.clients(c.slow, { timeouts: { headersMs: 100 }, retry: { maxAttempts: 1 } }).gateway.getApi(SEEDED_API_ID)],
  ["ContractViolationError: wrong shape", "CONVERGE_CONTRACT_VIOLATION", (c) => c.clients(c.foreign.url).gateway.getRoute("api0000001", "shape")],
  ["ContractViolationError: a body that echoes the Authorization header in a field", "CONVERGE_CONTRACT_VIOLATION", (c) => c.clients(c.foreign.url).gateway.getRoute("api0000001", "echo-field")],
  ["ContractViolationError: a non-JSON body that echoes the Authorization header", "CONVERGE_CONTRACT_VIOLATION", (c) => c.clients(c.foreign.url).gateway.getRoute("api0000001", "echo-text")],
  ["ApiError: an error answer that echoes the Authorization header", "CONVERGE_API_ERROR", (c) => c.clients(c.foreign.url).gateway.getRoute("api0000001", "echo-error")],
  ...Object.keys(ECHO_ENCODINGS).flatMap((encoding, index): ErrorPath[] => [
    [`ApiError: an error answer that echoes a token with escaping characters, ${encoding}`, "CONVERGE_API_ERROR", (c) => c.clients(c.foreign.url, {}, ESCAPING_SECRET).gateway.getRoute("api0000001", `echo-encoded-error-${index}`)],
    [`ContractViolationError: a body that echoes a token with escaping characters, ${encoding}`, "CONVERGE_CONTRACT_VIOLATION", (c) => c.clients(c.foreign.url, {}, ESCAPING_SECRET).gateway.getRoute("api0000001", `echo-encoded-field-${index}`)],
  ]),
  ["ApiError: an HTML error page that echoes a token with escaping characters as character references", "CONVERGE_API_ERROR", (c) => c.clients(c.foreign.url, {}, ESCAPING_SECRET).gateway.getRoute("api0000001", "echo-encoded-page")],
  ["AbortedError during a slow request", "CONVERGE_ABORTED", (c) => c.clients(c.slow).gateway.getApi(SEEDED_API_ID, { signal: AbortSignal.timeout(50) })],
  ["AbortedError of an already aborted signal", "CONVERGE_ABORTED", (c) => c.clients(c.main).account.getRegionOptStatus({ RegionName: "us-east-1" }, { signal: AbortSignal.abort() })],
  ["CredentialsError: a missing token file", "CONVERGE_CREDENTIALS", async (c) => Credentials.resolve({ tokenFile: join(c.files, "absent"), env: { CONVERGE_TOKEN: SECRET } })],
  ["CredentialsError: a token file that is a directory", "CONVERGE_CREDENTIALS", async (c) => Credentials.resolve({ tokenFile: join(c.files, "a-directory") })],
  ["CredentialsError: a token file holding the token and more words", "CONVERGE_CREDENTIALS", async (c) => Credentials.resolve({ tokenFile: join(c.files, "two-words") })],
  ["CredentialsError: CONVERGE_TOKEN holding the token and more words", "CONVERGE_CREDENTIALS", async () => Credentials.resolve({ env: { CONVERGE_TOKEN: `${SECRET} ${SECRET}` } })],
  ["CredentialsError: an inline token with a tab", "CONVERGE_CREDENTIALS", async () => new Credentials(`${SECRET}\tmore`)],
];

describe("the token never shows in errors, credentials or clients", () => {
  let context: Context;
  const opened: Clients[] = [];
  const started: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    const files = mkdtempSync(join(tmpdir(), "converge-redaction-"));
    mkdirSync(join(files, "a-directory"));
    writeFileSync(join(files, "two-words"), `${SECRET} and more\n`);
    writeFileSync(join(files, "token"), `  ${SECRET}\n`);
    const worlds = await Promise.all([
      startWorld({ world: seededWorld(worldWithSecret()) }),
      startWorld({ world: seededWorld(worldWithSecret({ throttle: { ratePerSecond: 0.5, burst: 1 } })) }),
      startWorld({ world: seededWorld(worldWithSecret()), faults: { errorRate: 1 } }),
      startWorld({ world: seededWorld(worldWithSecret()), faults: { dropAfterWriteRate: 1 } }),
      startWorld({ world: seededWorld(worldWithSecret()), faults: { latencyMs: 1500 } }),
    ]);
    started.push(...worlds);
    const [main, throttled, failing, dropping, slow] = worlds.map((world) => world.service) as [RunningService, RunningService, RunningService, RunningService, RunningService];
    const foreign = await startForeignServer((request, response) => {
      const authorization = request.headers.authorization ?? "";
      const encoded = /\/echo-encoded-(error|field)-(\d+)$/.exec(request.url ?? "");
      if (encoded) {
        // the encoded echo is spliced into the JSON text as it is, the way a server writes its own escapes
        const echo = Object.values(ECHO_ENCODINGS)[Number(encoded[2])]!(authorization);
        if (encoded[1] === "field") return answer(response, 200, `{"routeId": 7, "routeKey": "${echo}", "target": {"a": "${echo}"}}`);
        return answer(response, 403, `{"message": "bad header ${echo}", "resourceType": "${echo}", "reason": "${echo}", "fieldList": [{"name": "${echo}", "message": "${echo}"}]}`, {
          "x-svc-errortype": `Bad${encodeURIComponent(authorization)}`,
          "x-svc-request-id": encodeURIComponent(authorization),
        });
      }
      switch (request.url) {
        case "/v2/apis/api0000001/routes/echo-encoded-page": {
          const echo = ECHO_ENCODINGS["HTML character references"]!(authorization);
          return answer(response, 502, `<html><body><h1>Bad gateway</h1><p>upstream refused ${echo}</p></body></html>`, { "content-type": "text/html" });
        }
        case "/v2/apis/api0000001/routes/shape": return answer(response, 200, { foo: 1 });
        case "/v2/apis/api0000001/routes/echo-field": return answer(response, 200, { routeId: 7, routeKey: [authorization], target: { authorization } });
        case "/v2/apis/api0000001/routes/echo-text": return answer(response, 200, `you sent ${authorization}`);
        case "/v2/apis/api0000001/routes/echo-error": return answer(response, 400, { message: `bad header ${authorization}`, resourceType: authorization, limitType: authorization }, { "x-svc-errortype": `Bad${authorization.replace(/\s/g, "")}`, "x-svc-request-id": authorization });
        default: return answer(response, 404, { message: "no such thing" });
      }
    });
    started.push(foreign);
    context = {
      main, throttled, failing, dropping, slow, foreign, files,
      closedEndpoint: `http://127.0.0.1:${await closedPort()}`,
      clients(service, options = {}, token = SECRET) {
        const clients = createClients({
          endpoint: typeof service === "string" ? service : service.url,
          credentials: new Credentials(token),
          ...options,
          retry: { ...FAST_RETRY, maxAttempts: 2, ...options.retry },
        });
        opened.push(clients);
        return clients;
      },
    };
  });
  afterAll(async () => {
    await Promise.all(opened.map((clients) => clients.close()));
    await Promise.all(started.map((server) => server.close()));
    if (context) rmSync(context.files, { recursive: true, force: true });
  });

  test.each(ERROR_PATHS)("rejects (%s) without the token in the error", async (_name, code, provoke) => {
    const error = await rejectionOf(Promise.resolve().then(() => provoke(context)));
    expect(isConvergeError(error), String(error)).toBe(true);
    expect((error as { code: string }).code).toBe(code);
    expectNoSecret(error);
  });

  test("the foreign server really received the token it echoed (so the echo paths test something)", () => {
    const echoed = context.foreign.received.filter((request) => request.path.includes("echo"));
    expect(echoed.length).toBeGreaterThanOrEqual(3 + 2 * Object.keys(ECHO_ENCODINGS).length + 1);
    for (const request of echoed) expect(request.headers.authorization).toBe(`Bearer ${request.path.includes("echo-encoded") ? ESCAPING_SECRET : SECRET}`);
  });

  test("each echo encoding hides the token from a plain search, and decodeEchoes finds it again (so the checks above can fail)", () => {
    for (const [encoding, encode] of Object.entries(ECHO_ENCODINGS)) {
      const echo = encode(`Bearer ${ESCAPING_SECRET}`);
      expect(echo.includes(ESCAPING_SECRET), encoding).toBe(false);
      expect(showsSecret(echo, ESCAPING_SECRET), encoding).toBe(true);
    }
  });

  test.each(Object.entries(ECHO_ENCODINGS))("redacts the token echoed %s, and nothing else", (_encoding, encode) => {
    const credentials = new Credentials(ESCAPING_SECRET);
    const echo = encode(`Bearer ${ESCAPING_SECRET}`);
    expect(credentials.redact(`before ${echo} after`)).toMatch(/^before .*\[redacted\] after$/);
    expect(showsSecret(credentials.redact(`before ${echo} after`), ESCAPING_SECRET)).toBe(false);
    expect(credentials.redact(`before ${encode("Bearer tok/OTHER")} after`)).not.toContain("[redacted]");
  });

  test("credentials, however resolved, never show the token but still authenticate", async () => {
    const all = [
      new Credentials(SECRET),
      Credentials.resolve({ env: { CONVERGE_TOKEN: `${SECRET}\n` } }),
      Credentials.resolve({ tokenFile: join(context.files, "token") }),
    ];
    for (const credentials of all) {
      expectNoSecret(credentials);
      expectNoSecret({ credentials });
      expect(`${credentials}`).toMatch(/^Credentials\(.+, \[redacted\]\)$/);
      expect(JSON.stringify({ credentials })).toBe('{"credentials":"[redacted]"}');
      expect(Object.values({ ...credentials }).join(" ")).not.toContain(SECRET);
      expect(credentials.authorizationHeader()).toBe(`Bearer ${SECRET}`);
      const transport = new Transport({ endpoint: context.main.url, credentials });
      try {
        expect(await new GatewayClient(transport).getApi(SEEDED_API_ID)).toMatchObject({ apiId: SEEDED_API_ID });
      } finally {
        await transport.close();
      }
    }
    expect(all.map((credentials) => credentials.source)).toEqual(["inline", "CONVERGE_TOKEN", join(context.files, "token")]);
  });

  test("client objects never show the token, before and after use", async () => {
    const credentials = new Credentials(SECRET);
    const clients = createClients({ endpoint: context.main.url, credentials });
    opened.push(clients);
    const transport = new Transport({ endpoint: context.main.url, credentials, rateLimit: { default: { ratePerSecond: 100, burst: 10 } } });
    const account = new AccountClient(transport, { form: "B" });
    const gateway = new GatewayClient(transport);
    const objects = { clients, transport, account, gateway, accountOfClients: clients.account, gatewayOfClients: clients.gateway, limiter: transport.limiter };
    expectNoSecret(objects);
    await clients.gateway.getApi(SEEDED_API_ID);
    await collect(account.listRegions());
    await gateway.getApi(SEEDED_API_ID);
    expectNoSecret(objects);
    for (const value of Object.values(objects)) expectNoSecret(value);
    await transport.close();
  });
});

describe("redaction leaves data alone", () => {
  test("a token that also occurs in answers (here: the API's name) does not alter successful responses", async () => {
    await withWorld({ world: seededWorld({ identities: [{ token: "orders", accountId: "111111111111", allow: ["*"] }] }), token: "orders" }, async ({ clients }) => {
      const api = await clients.gateway.createApi({ name: "orders", protocolType: "HTTP" });
      expect(api.name).toBe("orders");
      expect(api.protocolType).toBe("HTTP");
      const integration = await clients.gateway.createIntegration(api.apiId, { integrationType: "HTTP_PROXY", integrationUri: "https://orders.example/orders", payloadFormatVersion: "1.0" });
      expect((await clients.gateway.getIntegration(api.apiId, integration.integrationId))?.integrationUri).toBe("https://orders.example/orders");
    });
  });
});
