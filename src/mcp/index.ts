// The MCP adapter: an MCP server over a memory file, for stdio and streamable HTTP.
export { createMcpServer } from './create-mcp-server.js';
export type { McpServerOptions } from './create-mcp-server.js';
export { serveStdio } from './stdio-server.js';
export type { StdioServeOptions } from './stdio-server.js';
export { createMcpHttpHandler } from './http-handler.js';
export type { McpFetchHandler } from './http-handler.js';
export { ORIGIN_URI } from './resources.js';
