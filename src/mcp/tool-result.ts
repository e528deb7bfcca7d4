import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { displayMessage } from '../core/echo.js';
import { HedgehopError } from '../core/errors.js';

/** A tool result holding one text (verbatim: nothing is added to it). */
export function textResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }] };
}

/** A tool result holding a JSON document as text (2-space indented), and optionally as structured content. */
export function jsonResult(value: unknown, structured?: Record<string, unknown>): CallToolResult {
  return {
    content: [{ type: 'text', text: JSON.stringify(value, null, 2) }],
    ...(structured === undefined ? {} : { structuredContent: structured }),
  };
}

/** The failure of a tool as the model sees it: `isError`, with the error code and message. */
export function errorResult(error: unknown): CallToolResult {
  const text = HedgehopError.isInstance(error)
    ? `${error.code}: ${displayMessage(error.message)}`
    : displayMessage(error instanceof Error ? error.message : String(error));
  return { content: [{ type: 'text', text }], isError: true };
}

/**
 * Runs a tool body and turns any failure into an `isError` result, so a model always gets an
 * answer it can act on. Errors that are not hedgehop's are also reported to `onInternalError`.
 */
export async function guarded(
  fn: () => Promise<CallToolResult>,
  onInternalError: (error: unknown) => void,
): Promise<CallToolResult> {
  try {
    return await fn();
  } catch (error) {
    if (!HedgehopError.isInstance(error)) onInternalError(error);
    return errorResult(error);
  }
}
