import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import type { MemoryDB } from '../api/memory-db.js';
import { parseInput } from '../core/validate.js';
import { registerConversationTools } from './conversation-tools.js';
import { registerKnowledgeTools } from './knowledge-tools.js';
import { registerMemoryServerTools } from './memory-server-tools.js';
import { packageVersion } from './package-version.js';
import { registerRadialTools } from './radial-tools.js';
import { registerResources } from './resources.js';
import { toolContext } from './tool-context.js';

const optionsSchema = z.strictObject({
  agent: z.string().trim().min(1, 'must not be empty').optional(),
  graph: z.string().trim().min(1, 'must not be empty').default('memory'),
  readOnly: z.boolean().default(false),
  stateless: z.boolean().default(false),
  onInternalError: z
    .custom<(error: unknown) => void>((value) => typeof value === 'function', 'must be a function')
    .optional(),
});

/** Options of {@link createMcpServer}. */
export interface McpServerOptions {
  /** The agent the tools work on (default: the primary agent; a named one is created on first use). */
  readonly agent?: string;
  /** Label of the knowledge graph behind the memory-server drop-in tools (default `memory`). */
  readonly graph?: string;
  /** Register only tools that read (for a file opened read-only). */
  readonly readOnly?: boolean;
  /**
   * True when each call reaches a fresh server (streamable HTTP without sessions, as
   * {@link createMcpHttpHandler} serves it): the tools then never rely on "the task loaded
   * last", and their descriptions and answers tell the model to pass the `nodeId` along.
   */
  readonly stateless?: boolean;
  /** Called with unexpected (non-hedgehop) errors; the model still gets an `isError` result. */
  readonly onInternalError?: (error: unknown) => void;
}

/** Instructions an MCP client may show the model when it connects. */
const INSTRUCTIONS = [
  'hedgehop is your long-term memory, in one file.',
  'Start with memory_origin to see what it holds. Find past work with memory_navigate (one task) or memory_recall (anything, within a token budget), then memory_drill / memory_restore for detail.',
  'When you finish a task, save it with memory_commit. While handling a message you may record the turn: memory_turn_begin, memory_turn_append, memory_plan_add / memory_plan_update, memory_turn_end.',
  'The memory-server tools (create_entities, search_nodes, …) keep a knowledge graph of entities and relations.',
].join(' ');

/**
 * An MCP server over an open memory file: tools for the origin, navigation, verbatim restore,
 * commits, recall within a token budget, the turn loop, the profile and the knowledge graphs,
 * plus the nine tools of the MCP reference memory server (a drop-in replacement). Connect it to
 * any transport: stdio (`hedgehop mcp`), streamable HTTP (`hedgehop serve`, at `/mcp`) or the
 * SDK's in-memory pair in tests. The caller owns `db` and closes it after the server.
 *
 * @example
 * ```ts
 * const db = await openMemory('memory.db');
 * const server = createMcpServer(db);
 * await server.connect(new StdioServerTransport());
 * ```
 */
export function createMcpServer(db: MemoryDB, options: McpServerOptions = {}): McpServer {
  const settings = parseInput(optionsSchema, options, 'options');
  const server = new McpServer(
    { name: 'hedgehop', title: 'hedgehop memory', version: packageVersion() },
    { instructions: INSTRUCTIONS, capabilities: { tools: {}, resources: {} } },
  );
  const ctx = toolContext(server, db, {
    agent: settings.agent,
    graph: settings.graph,
    writable: !settings.readOnly,
    stateless: settings.stateless,
    onInternalError: settings.onInternalError ?? (() => undefined),
  });
  registerRadialTools(ctx);
  registerConversationTools(ctx);
  registerKnowledgeTools(ctx);
  registerMemoryServerTools(ctx);
  registerResources(ctx);
  skipOwnOutputCheck(server);
  return server;
}

/**
 * The SDK parses every tool's structured result with the tool's output schema before sending
 * it (a zod parse that walks, and copies, the whole answer: on `search_nodes`, every entity and
 * relation), then checks the result's shape once more against the protocol's schema, which it
 * keeps doing. The structured content of these tools is built from the typed values the output
 * schemas describe, and the MCP tests have the client check every answer against the schema
 * the server lists, so the server-side parse is skipped here. Requests are still parsed (the
 * protocol's schema and each tool's input schema). An SDK without this method is unaffected:
 * it keeps its own checks, and the property set here is never read.
 */
function skipOwnOutputCheck(server: McpServer): void {
  const internals = server as unknown as { validateToolOutput?: unknown };
  if (typeof internals.validateToolOutput === 'function') {
    internals.validateToolOutput = (): Promise<void> => Promise.resolve();
  }
}
