import type { Handler } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';
import type { MemoryDB } from '../api/memory-db.js';

/** Milliseconds between keep-alive comments, so proxies do not drop an idle stream. */
const KEEP_ALIVE_MS = 15_000;

async function follow(
  db: MemoryDB,
  intervalMs: number,
  stream: SSEStreamingApi,
  isClosed: () => boolean,
): Promise<void> {
  let version = await db.dataVersion();
  await stream.writeSSE({ event: 'hello', data: JSON.stringify({ dataVersion: version }) });
  let idle = 0;
  while (!isClosed() && !db.closed) {
    await stream.sleep(intervalMs);
    if (isClosed() || db.closed) break;
    const now = await db.dataVersion();
    if (now !== version) {
      version = now;
      idle = 0;
      await stream.writeSSE({ event: 'change', data: JSON.stringify({ dataVersion: now }) });
    } else if ((idle += intervalMs) >= KEEP_ALIVE_MS) {
      idle = 0;
      await stream.write(': keep-alive\n\n');
    }
  }
}

/**
 * `GET /api/events`: a server-sent event stream. It sends `hello` with the current
 * `dataVersion`, then `change` with the new one each time another process commits to the
 * file (polled every `intervalMs` through `PRAGMA data_version`, which costs no disk read).
 */
export function watchRoute(db: MemoryDB, intervalMs: number): Handler {
  return (c) =>
    streamSSE(c, async (stream) => {
      let closed = false;
      stream.onAbort(() => {
        closed = true;
      });
      try {
        await follow(db, intervalMs, stream, () => closed);
      } catch {
        // The file was closed under the stream (the server is stopping): end it quietly.
      }
    });
}
