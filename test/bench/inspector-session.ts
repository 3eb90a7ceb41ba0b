import { WebSocket } from "undici";

/**
 * A DevTools protocol session with a node process started with `--inspect=127.0.0.1:0` (its
 * `Debugger listening on ws://…` line on stderr): for a benchmark that must force a full garbage
 * collection in another process before reading its memory.
 */
export interface InspectorSession {
  /** Sends a protocol command and resolves with its result (rejects with the protocol's error). */
  send(method: string, params?: Readonly<Record<string, unknown>>): Promise<Record<string, unknown>>;
  close(): void;
}

const LISTENING = /Debugger listening on (ws:\/\/\S+)/;

/** The inspector's WebSocket URL a process printed on stderr, or undefined before it printed it. */
export function inspectorUrlOf(stderr: string): string | undefined {
  return LISTENING.exec(stderr)?.[1];
}

export async function openInspectorSession(url: string): Promise<InspectorSession> {
  const socket = new WebSocket(url);
  const pending = new Map<number, { resolve: (result: Record<string, unknown>) => void; reject: (error: Error) => void }>();
  let next = 0;
  socket.addEventListener("message", (event) => {
    const message = JSON.parse(String(event.data)) as { id?: number; result?: Record<string, unknown>; error?: { message: string } };
    const waiter = message.id === undefined ? undefined : pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id!);
    if (message.error) waiter.reject(new Error(`inspector: ${message.error.message}`));
    else waiter.resolve(message.result ?? {});
  });
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener("open", () => resolve(), { once: true });
    socket.addEventListener("error", () => reject(new Error(`cannot open the inspector session at ${url}`)), { once: true });
  });
  return {
    send(method, params = {}) {
      const id = (next += 1);
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        socket.send(JSON.stringify({ id, method, params }));
      });
    },
    close: () => socket.close(),
  };
}

/** Forces a full garbage collection in the process, then answers its `process.memoryUsage()`. */
export async function memoryAfterFullGc(session: InspectorSession): Promise<NodeJS.MemoryUsage> {
  await session.send("HeapProfiler.collectGarbage");
  const evaluated = await session.send("Runtime.evaluate", { expression: "JSON.stringify(process.memoryUsage())", returnByValue: true });
  return JSON.parse((evaluated.result as { value: string }).value) as NodeJS.MemoryUsage;
}
