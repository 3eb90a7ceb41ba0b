import type { IncomingMessage } from "node:http";
import { MAX_BODY_BYTES } from "../contract/service-limits.js";

/** Largest request body the service reads (docs/manual/reference.md, "Limits"): the contract's, re-exported for the service's callers. */
export { MAX_BODY_BYTES };

export type BodyResult =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly problem: string; readonly closeConnection?: boolean; readonly clientGone?: boolean };

type BodyFailure = Extract<BodyResult, { ok: false }>;

/**
 * Reads a JSON request body. An empty body reads as `undefined`; a body needs a JSON content type;
 * an oversized body is cut off at the limit.
 */
export async function readJsonBody(request: IncomingMessage): Promise<BodyResult> {
  const read = await readBytes(request, MAX_BODY_BYTES);
  if (!Buffer.isBuffer(read)) return read;
  if (read.length === 0) return { ok: true, value: undefined };
  const contentType = request.headers["content-type"];
  if (!contentType || !isJsonMediaType(contentType)) {
    return { ok: false, problem: `Content-Type ${JSON.stringify(contentType ?? "")} is not supported: send the body as application/json` };
  }
  try {
    return { ok: true, value: JSON.parse(read.toString("utf8")) };
  } catch (error) {
    return { ok: false, problem: `request body is not valid JSON: ${(error as Error).message}` };
  }
}

/** Reads a request body as bytes, up to `limit`: what the control interface takes when a body is not JSON (a checkpoint's upload). */
export async function readRawBody(request: IncomingMessage, limit: number): Promise<Buffer | BodyFailure> {
  return readBytes(request, limit);
}

/** The body's bytes; a failure when it is larger than `limit` (declared or sent) or the client went away mid-body. */
async function readBytes(request: IncomingMessage, limit: number): Promise<Buffer | BodyFailure> {
  const declared = Number(request.headers["content-length"] ?? "0");
  if (declared > limit) {
    request.resume();
    return { ok: false, problem: `request body of ${declared} bytes exceeds the limit of ${limit} bytes`, closeConnection: true };
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of request as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) {
        return { ok: false, problem: `request body exceeds the limit of ${limit} bytes`, closeConnection: true };
      }
      chunks.push(chunk);
    }
  } catch {
    // the client went away mid-body (aborted, timed out): nothing was applied and nobody is listening
    return { ok: false, problem: "the client closed the connection before sending the whole body", clientGone: true };
  }
  return Buffer.concat(chunks, size);
}

/** `application/json`, `application/x-amz-json-1.1`, `application/problem+json` and the like. */
export function isJsonMediaType(contentType: string): boolean {
  const type = contentType.split(";", 1)[0]!.trim().toLowerCase();
  return type === "application/json" || /^application\/([\w.-]+\+json|x-amz-json-\d\.\d)$/.test(type);
}
