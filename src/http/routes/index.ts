import type { Route } from '../route.js';
import { conversationRoutes } from './conversation-routes.js';
import { dreamRoutes } from './dream-routes.js';
import { fileRoutes } from './file-routes.js';
import { knowledgeRoutes } from './knowledge-routes.js';
import { radialRoutes } from './radial-routes.js';
import { recallRoutes } from './recall-routes.js';

/** Every JSON route of the API, in the order the OpenAPI document lists them. */
export function apiRoutes(): Route[] {
  return [
    ...fileRoutes(),
    ...radialRoutes(),
    ...conversationRoutes(),
    ...recallRoutes(),
    ...knowledgeRoutes(),
    ...dreamRoutes(),
  ];
}
