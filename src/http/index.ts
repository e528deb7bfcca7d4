// The `hedgehop/http` entry point: the HTTP API and web UI server. Every export is named here.
export { createHttpApp, LOOPBACK_NAMES } from './create-http-app.js';
export type { FetchHandler, HttpAppOptions } from './create-http-app.js';
export { startServer, isLoopbackHost, DEFAULT_PORT } from './start-server.js';
export type { ServerOptions, RunningServer } from './start-server.js';
export { STATUS_BY_CODE } from './error-response.js';
export type { ErrorBody } from './error-response.js';
export type { OpenApiDocument } from './openapi.js';
