import { setTimeout as sleep } from "node:timers/promises";
import { expect } from "vitest";
import type { CallResult } from "./http.js";

/** A valid PutAlternateContact body; `overrides` replace (or, when `undefined`, drop) fields. */
export function contactBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    AlternateContactType: "SECURITY",
    EmailAddress: "security@example.com",
    Name: "Security Team",
    PhoneNumber: "+1 555 0100",
    Title: "CISO",
    ...overrides,
  };
  for (const [key, value] of Object.entries(body)) if (value === undefined) delete body[key];
  return body;
}

/** Asserts a 200 answered with an empty body (PutAlternateContact, DeleteAlternateContact, EnableRegion, DisableRegion). */
export function expectEmptySuccess(result: CallResult): void {
  expect({ status: result.status, text: result.text, errorType: result.errorType }).toEqual({ status: 200, text: "", errorType: undefined });
}

/**
 * Asserts an account-service error other than ValidationException: the status, `x-svc-ErrorType`,
 * a JSON body whose `errorType` and `__type` equal the header, and a non-empty `message`.
 */
export function expectAccountError(result: CallResult, status: number, errorType: string): void {
  expect({ status: result.status, errorType: result.errorType }).toEqual({ status, errorType });
  expect(result.headers["content-type"]).toBe("application/json");
  expect(result.json).toMatchObject({ __type: errorType, errorType, message: expect.any(String) });
  expect((result.json.message as string).length).toBeGreaterThan(0);
}

/**
 * Asserts a 400 ValidationException of the documented shape: header, non-empty `message`, `reason`,
 * and a `fieldList` of `{name, message}` whose names are exactly `fieldNames` (in any order).
 */
export function expectValidation(result: CallResult, fieldNames: ReadonlyArray<string>, reason = "fieldValidationFailed"): void {
  expect({ status: result.status, errorType: result.errorType }).toEqual({ status: 400, errorType: "ValidationException" });
  expect(result.headers["content-type"]).toBe("application/json");
  expect(result.json).toMatchObject({ __type: "ValidationException", message: expect.any(String), reason, fieldList: expect.any(Array) });
  expect((result.json.message as string).length).toBeGreaterThan(0);
  const fieldList = result.json.fieldList as Array<{ name: unknown; message: unknown }>;
  for (const field of fieldList) expect(field).toEqual({ name: expect.any(String), message: expect.stringMatching(/\S/) });
  expect(fieldList.map((field) => field.name).sort()).toEqual([...fieldNames].sort());
}

/**
 * Calls `read` until `done` holds for its result or `timeoutMs` passes; returns the last result and
 * when it arrived (epoch ms). Fails the test at the deadline, with the last result seen.
 */
export async function pollUntil<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  { timeoutMs = 5_000, intervalMs = 20 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<{ value: T; at: number }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    const at = Date.now();
    if (done(value)) return { value, at };
    if (at >= deadline) throw new Error(`condition not met within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await sleep(intervalMs);
  }
}
