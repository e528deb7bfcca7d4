import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { displayMessage } from '../core/echo.js';
import { HedgehopError, jsonPath, messageNaming, type ErrorRemedy } from '../core/errors.js';

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

/** What would fix an error, in the tools' words (empty when nothing in particular). */
function toolRemedy(remedy: ErrorRemedy | undefined): string {
  switch (remedy) {
    case 'create-line':
      return ' (memory_commit with this lineId creates the line; memory_lines lists those that exist)';
    case 'open-turn':
      return ' (call memory_turn_begin first)';
    case 'close-turn':
      return ' (close it with memory_turn_end first)';
    case 'list-nodes':
      return " (memory_history lists the line's tasks)";
    case 'list-graphs':
      return ' (knowledge_graphs lists the graphs)';
    default:
      return '';
  }
}

/** The failure of a tool as the model sees it: `isError`, with the error code and message. */
function errorResult(error: unknown): CallToolResult {
  const text = HedgehopError.isInstance(error)
    ? `${error.code}: ${displayMessage(messageNaming(error, jsonPath(error.path)))}${toolRemedy(error.remedy)}`
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
