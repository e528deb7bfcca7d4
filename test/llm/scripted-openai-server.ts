/**
 * A small OpenAI-compatible HTTP server for tests, on 127.0.0.1 with node:http. Each request
 * is answered by a scripted handler; requests are recorded, and the number in flight is tracked
 * so tests can check the client's concurrency limit.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One recorded request. */
export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Record<string, unknown>;
}

/** How to answer one request. */
export type ScriptedReply =
  | {
      readonly status?: number;
      readonly json: unknown;
      readonly delayMs?: number;
      readonly headers?: Record<string, string>;
    }
  | {
      readonly status?: number;
      readonly raw: string;
      readonly delayMs?: number;
      readonly headers?: Record<string, string>;
    }
  /** Never answer (the client must time out). */
  | { readonly hang: true }
  /** Close the socket without a reply. */
  | { readonly destroy: true };

export type ScriptHandler = (
  request: RecordedRequest,
  index: number,
) => ScriptedReply | Promise<ScriptedReply>;

export interface ScriptedServer {
  /** e.g. `http://127.0.0.1:12345/v1` */
  readonly baseURL: string;
  readonly origin: string;
  readonly requests: RecordedRequest[];
  /** Highest number of requests in flight at once. */
  readonly maxInFlight: number;
  close(): Promise<void>;
}

/** A chat-completions body with one choice. */
export function chatReply(
  content: string | null,
  extra: { finishReason?: string; refusal?: string; usage?: boolean } = {},
): unknown {
  return {
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: 0,
    model: 'scripted',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, refusal: extra.refusal ?? null },
        finish_reason: extra.finishReason ?? 'stop',
      },
    ],
    ...(extra.usage === false
      ? {}
      : { usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 } }),
  };
}

/** An embeddings body. */
export function embeddingReply(vectors: readonly (readonly number[])[], order?: readonly number[]): unknown {
  const indexes = order ?? vectors.map((_, i) => i);
  return {
    object: 'list',
    model: 'scripted-embed',
    data: indexes.map((i) => ({ object: 'embedding', index: i, embedding: vectors[i] })),
    usage: { prompt_tokens: 5, total_tokens: 5 },
  };
}

/** Starts the server on a free port of 127.0.0.1. */
export async function startScriptedServer(handler: ScriptHandler): Promise<ScriptedServer> {
  const requests: RecordedRequest[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const hanging = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => {
      inFlight--;
      hanging.delete(res);
    });
    void answer(req, res);
  });

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const request: RecordedRequest = {
      method: req.method ?? '',
      path: req.url ?? '',
      headers: req.headers,
      body: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    };
    requests.push(request);
    const reply = await handler(request, requests.length - 1);
    if ('hang' in reply) {
      hanging.add(res);
      return;
    }
    if ('destroy' in reply) {
      res.socket?.destroy();
      return;
    }
    if (reply.delayMs) await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
    if (res.destroyed) return;
    const body = 'json' in reply ? JSON.stringify(reply.json) : reply.raw;
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
    res.end(body);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    baseURL: `${origin}/v1`,
    origin,
    requests,
    get maxInFlight() {
      return maxInFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of hanging) res.socket?.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 that nothing listens on (opened, then closed). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
