import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ErrorCode,
  JSONRPCMessageSchema,
  type JSONRPCMessage,
  type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import { invalidUtf8Offset } from '../core/utf8.js';

/** Largest MCP message read over stdio by default: 64 MiB (a commit of ~60 MB of plain text). */
const DEFAULT_MAX_MESSAGE_BYTES = 64 * 1024 * 1024;

/** Bytes kept from each end of an oversized message, to find its id in. */
const EDGE_BYTES = 4096;

/** Options of {@link LineTransport}. */
interface LineTransportOptions {
  /** Largest message accepted, in bytes; a longer one is skipped and answered with an error. */
  readonly maxMessageBytes?: number;
}

/**
 * MCP over newline-delimited JSON on a pair of streams (the stdio transport), built on the
 * SDK's `Transport` interface. Unlike the SDK's own stdio transport, one bad message never
 * closes the connection: a message over `maxMessageBytes` is skipped as it streams in (never
 * held whole) and a message that is not UTF-8 or not JSON-RPC is refused; each gets a JSON-RPC
 * error answer carrying its id when one can be found, and the next message is read as usual.
 */
export class LineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  readonly #input: NodeJS.ReadableStream;
  readonly #output: NodeJS.WritableStream;
  readonly #maxBytes: number;
  #chunks: Buffer[] = [];
  #length = 0;
  /** While skipping an oversized message: its first bytes, its last bytes, and its size. */
  #skipping: { head: Buffer; tail: Buffer; bytes: number } | undefined;
  #started = false;

  constructor(
    input: NodeJS.ReadableStream,
    output: NodeJS.WritableStream,
    options: LineTransportOptions = {},
  ) {
    this.#input = input;
    this.#output = output;
    this.#maxBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
  }

  /** Starts reading messages from the input stream. */
  async start(): Promise<void> {
    if (this.#started) throw new Error('LineTransport already started');
    this.#started = true;
    this.#input.on('data', this.#onData);
    this.#input.on('error', this.#onError);
  }

  /** Writes one message as a line, waiting for the stream to drain when it is full. */
  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.#output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.#output.once('drain', resolve);
    });
  }

  /** Stops reading and reports the close. */
  async close(): Promise<void> {
    this.#input.off('data', this.#onData);
    this.#input.off('error', this.#onError);
    if (this.#input.listenerCount('data') === 0) this.#input.pause();
    this.#chunks = [];
    this.#length = 0;
    this.#skipping = undefined;
    this.onclose?.();
  }

  readonly #onError = (error: Error): void => {
    this.onerror?.(error);
  };

  readonly #onData = (chunk: Buffer | string): void => {
    let bytes = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    for (let newline = bytes.indexOf(0x0a); newline >= 0; newline = bytes.indexOf(0x0a)) {
      this.#take(bytes.subarray(0, newline));
      this.#endOfLine();
      bytes = bytes.subarray(newline + 1);
    }
    if (bytes.length > 0) this.#take(bytes);
  };

  /** Adds part of the current line, switching to skipping once it is over the limit. */
  #take(part: Buffer): void {
    if (this.#skipping) {
      this.#skipping.bytes += part.length;
      this.#skipping.tail = lastBytes(Buffer.concat([this.#skipping.tail, part]));
      return;
    }
    if (this.#length + part.length <= this.#maxBytes) {
      this.#chunks.push(Buffer.from(part));
      this.#length += part.length;
      return;
    }
    const whole = Buffer.concat([...this.#chunks, part]);
    this.#skipping = {
      head: Buffer.from(whole.subarray(0, EDGE_BYTES)),
      tail: lastBytes(whole),
      bytes: whole.length,
    };
    this.#chunks = [];
    this.#length = 0;
  }

  #endOfLine(): void {
    const skipped = this.#skipping;
    if (skipped) {
      this.#skipping = undefined;
      this.#refuse(
        findId(skipped.head, skipped.tail),
        ErrorCode.InvalidRequest,
        `INVALID_INPUT: message of ${skipped.bytes} bytes is over the limit of ${this.#maxBytes} bytes (hedgehop mcp --max-message-bytes); it was not read and nothing was written`,
      );
      return;
    }
    const line = Buffer.concat(this.#chunks);
    this.#chunks = [];
    this.#length = 0;
    const end = line.length > 0 && line[line.length - 1] === 0x0d ? line.length - 1 : line.length;
    if (end === 0) return;
    this.#deliver(line.subarray(0, end));
  }

  #deliver(line: Buffer): void {
    const offset = invalidUtf8Offset(line);
    if (offset >= 0) {
      this.#refuse(
        idOf(tryParse(line.toString('utf8'))),
        ErrorCode.InvalidRequest,
        `INVALID_INPUT: message is not valid UTF-8 (first bad byte at offset ${offset}); nothing was written`,
      );
      return;
    }
    const value = tryParse(line.toString('utf8'));
    if (value === undefined) {
      this.#refuse(null, ErrorCode.ParseError, 'INVALID_INPUT: message is not JSON');
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      this.#refuse(
        idOf(value),
        ErrorCode.InvalidRequest,
        'INVALID_INPUT: message is not a JSON-RPC 2.0 message',
      );
      return;
    }
    this.onmessage?.(parsed.data);
  }

  /** Answers a message that could not be read; notifications (no id) get no answer. */
  #refuse(id: RequestId | null | undefined, code: number, message: string): void {
    this.onerror?.(new Error(message));
    if (id === undefined) return;
    void this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage);
  }
}

function lastBytes(bytes: Buffer): Buffer {
  return bytes.length <= EDGE_BYTES ? bytes : Buffer.from(bytes.subarray(bytes.length - EDGE_BYTES));
}

function tryParse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The id of a parsed message: a request's id, null when there is none to name. */
function idOf(value: unknown): RequestId | null | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const record = value as Record<string, unknown>;
  if (typeof record.id === 'string' || typeof record.id === 'number') return record.id;
  // A notification (a method, no id) is never answered.
  return typeof record.method === 'string' && !('id' in record) ? undefined : null;
}

const ID_FIRST = /^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,256}")/;
const ID_LAST = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,256}")\s*\}\s*$/;

/**
 * The id of a message too large to parse, from its edges: SDK clients put `"id"` last, others
 * first. (Nested objects cannot match: the pattern needs the top-level braces.) Null if absent.
 */
function findId(head: Buffer, tail: Buffer): RequestId | null {
  const match =
    ID_FIRST.exec(head.toString('utf8')) ?? ID_LAST.exec(tail.toString('utf8').replace(/\r$/, ''));
  if (!match?.[1]) return null;
  const parsed = tryParse(match[1]);
  return typeof parsed === 'string' || typeof parsed === 'number' ? parsed : null;
}
