import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Agent } from '../api/agent.js';
import type { MemoryDB } from '../api/memory-db.js';
import { guarded } from './tool-result.js';

/** What every group of tools is registered with. */
export interface ToolContext {
  readonly server: McpServer;
  readonly db: MemoryDB;
  /** False when the server may not write (tools that write are then not registered). */
  readonly writable: boolean;
  /** True when every call gets a fresh server, so nothing (such as `lastLoaded`) lasts between calls. */
  readonly stateless: boolean;
  /** The memory-server graph label of the drop-in tools. */
  readonly graph: string;
  /** The agent the tools work on (created on first use when named). */
  agent(): Promise<Agent>;
  /** Runs a tool body; failures become `isError` results. */
  run(fn: () => Promise<CallToolResult>): Promise<CallToolResult>;
  /** The node loaded last through this server, so `memory_drill` can go one level deeper. */
  lastLoaded: { readonly nodeId: string; readonly level: number } | undefined;
}

const inFlight = new WeakMap<McpServer, { count: number; idle: (() => void)[] }>();

/** Resolves once no tool call of `server` is running (at once when none is). */
export function whenIdle(server: McpServer): Promise<void> {
  const state = inFlight.get(server);
  if (!state || state.count === 0) return Promise.resolve();
  return new Promise((resolve) => state.idle.push(resolve));
}

/** Builds the context of one server. */
export function toolContext(
  server: McpServer,
  db: MemoryDB,
  settings: {
    agent: string | undefined;
    graph: string;
    writable: boolean;
    stateless?: boolean;
    onInternalError: (error: unknown) => void;
  },
): ToolContext {
  const state = { count: 0, idle: [] as (() => void)[] };
  inFlight.set(server, state);
  const run = async (fn: () => Promise<CallToolResult>): Promise<CallToolResult> => {
    state.count++;
    try {
      return await guarded(fn, settings.onInternalError);
    } finally {
      if (--state.count === 0) for (const resolve of state.idle.splice(0)) resolve();
    }
  };
  return {
    server,
    db,
    writable: settings.writable,
    stateless: settings.stateless === true,
    graph: settings.graph,
    agent: () => (settings.agent === undefined ? Promise.resolve(db.primary()) : db.agent(settings.agent)),
    run,
    lastLoaded: undefined,
  };
}
