import type { ToolContext } from './tool-context.js';

/** The URI of the origin resource. */
export const ORIGIN_URI = 'hedgehop://origin';

/** The origin as a resource, for clients that put resources in context. */
export function registerResources(ctx: ToolContext): void {
  ctx.server.registerResource(
    'origin',
    ORIGIN_URI,
    {
      title: 'Origin',
      description:
        'Who the agent is and one line per task domain of this memory, within a small token budget.',
      mimeType: 'text/plain',
    },
    async (uri) => ({
      contents: [
        { uri: uri.href, mimeType: 'text/plain', text: await (await ctx.agent()).radial.getOriginContext() },
      ],
    }),
  );
}
