import { connect, createServer, type Server, type Socket } from 'node:net';

/** Where the proxy cuts a connection the next time it sees the statement. */
export type Cut =
  /** Forward a write transaction's COMMIT, let the server commit, then drop the connection before its reply. */
  | 'commit-reply'
  /** Drop the connection instead of forwarding a read transaction's BEGIN (nothing was run). */
  | 'read-begin'
  /** Drop the connection instead of forwarding a write transaction's BEGIN (nothing was run). */
  | 'write-begin'
  /** Forward a write transaction's COMMIT, then go silent (see {@link CutProxy.silence}): its reply never comes. */
  | 'commit-silent'
  /** Go silent at the first statement of a write transaction after its BEGIN (that statement never arrives). */
  | 'write-work-silent';

/**
 * A loopback TCP proxy in front of a PostgreSQL server's unix socket that reads the client's
 * protocol messages and, when armed, cuts the connection at one chosen statement: the way to
 * lose a COMMIT's result deterministically (the server committed, the client never hears it).
 * node-postgres sends a statement without parameters as one simple-query ('Q') message and
 * waits for its reply before the next, so "the next bytes from the server" are its reply.
 */
export class CutProxy {
  readonly #server: Server;
  readonly #sockets = new Set<Socket>();
  #armed: Cut | undefined;
  /** COMMITs of write transactions the clients sent through the proxy. */
  commits = 0;
  /** Connections cut. */
  cuts = 0;
  /** While true nothing is forwarded either way, and no connection is closed: a network partition. */
  #silent = false;

  private constructor(server: Server) {
    this.#server = server;
  }

  /** Listens on a free loopback port and forwards each connection to `socketPath`. */
  static async start(socketPath: string): Promise<CutProxy & { port: number }> {
    const server = createServer();
    const proxy = new CutProxy(server);
    server.on('connection', (client) => proxy.#pipe(client, socketPath));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    return Object.assign(proxy, { port: typeof address === 'object' && address ? address.port : 0 });
  }

  /** Cuts the next connection that sends the statement `cut` names. */
  arm(cut: Cut): void {
    this.#armed = cut;
  }

  get armed(): Cut | undefined {
    return this.#armed;
  }

  /**
   * Stops forwarding in both directions without closing anything, as a partition does (no reset,
   * no FIN): bytes from either side are dropped, new connections are accepted and hear nothing.
   */
  silence(): void {
    this.#silent = true;
  }

  /** Forwards again (what was dropped while silent stays lost). */
  resume(): void {
    this.#silent = false;
  }

  get silent(): boolean {
    return this.#silent;
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** What to do with one simple query: pass it, drop the connection instead, or drop its reply. */
  #inspect(sql: string, inWrite: boolean): 'pass' | 'drop' | 'drop-reply' | 'pass-then-silence' {
    const writeCommit = inWrite && sql === 'COMMIT';
    if (writeCommit) this.commits++;
    const armed = this.#armed;
    const hit =
      (armed === 'commit-reply' && writeCommit) ||
      (armed === 'read-begin' && sql.startsWith('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')) ||
      (armed === 'write-begin' && sql.startsWith('BEGIN;'));
    if (armed === 'commit-silent' && writeCommit) {
      this.#armed = undefined;
      return 'pass-then-silence';
    }
    if (!hit) return 'pass';
    this.#armed = undefined;
    this.cuts++;
    return armed === 'commit-reply' ? 'drop-reply' : 'drop';
  }

  #pipe(client: Socket, socketPath: string): void {
    const upstream = connect(socketPath);
    this.#sockets.add(client).add(upstream);
    const cut = (): void => {
      client.destroy();
      upstream.destroy();
    };
    client.on('close', () => {
      this.#sockets.delete(client);
      upstream.destroy();
    });
    upstream.on('close', () => {
      this.#sockets.delete(upstream);
      client.destroy();
    });
    client.on('error', cut);
    upstream.on('error', cut);
    let pending = Buffer.alloc(0);
    let started = false;
    let dropReply = false;
    // Whether the transaction under way on this connection is a write (the engine's `BEGIN; SET LOCAL …`).
    let inWrite = false;
    client.on('data', (chunk: Buffer) => {
      if (this.#silent) return;
      pending = Buffer.concat([pending, chunk]);
      const out: Buffer[] = [];
      for (;;) {
        // The start-up message has no type byte; every later message is a type byte then a length.
        const head = started ? 1 : 0;
        if (pending.length < head + 4) break;
        const size = head + pending.readInt32BE(head);
        if (pending.length < size) break;
        const message = pending.subarray(0, size);
        pending = pending.subarray(size);
        started = true;
        // An extended-protocol statement (Parse) inside a write: where 'write-work-silent' strikes.
        if (head === 1 && message[0] === 0x50 && inWrite && this.#armed === 'write-work-silent') {
          this.#armed = undefined;
          if (out.length > 0) upstream.write(Buffer.concat(out));
          this.#silent = true;
          return;
        }
        if (head === 1 && message[0] === 0x51) {
          const sql = message.subarray(5, message.length - 1).toString('utf8');
          if (sql.startsWith('BEGIN')) inWrite = sql.startsWith('BEGIN;');
          const action = this.#inspect(sql, inWrite);
          if (action === 'drop') {
            if (out.length > 0) upstream.write(Buffer.concat(out));
            cut();
            return;
          }
          if (action === 'drop-reply') dropReply = true;
          if (action === 'pass-then-silence') {
            upstream.write(Buffer.concat([...out, message]));
            this.#silent = true;
            return;
          }
        }
        out.push(message);
      }
      if (out.length > 0) upstream.write(Buffer.concat(out));
    });
    upstream.on('data', (chunk: Buffer) => {
      if (this.#silent) return;
      if (dropReply) cut();
      else client.write(chunk);
    });
  }
}
