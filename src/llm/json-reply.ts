import type { z } from 'zod';
import { oneLine } from '../core/text.js';
import { LanguageModelError } from './language-model-error.js';
import type { TokenUsage } from './types.js';

const FENCE_RE = /^\s*```[\w-]*\s*\n?([\s\S]*?)\s*```\s*$/u;

/**
 * Parses a model's JSON reply and checks it against `schema`. Tolerates a surrounding code
 * fence and prose around one object; anything else is `LLM_FAILED` with reason
 * `invalid-output`, carrying the tokens the reply cost.
 */
export function parseJsonReply<S extends z.ZodType>(
  text: string,
  schema: S,
  usage: TokenUsage,
  note = '',
): z.output<S> {
  const value = parseJson(text);
  if (value === undefined) {
    throw new LanguageModelError('invalid-output', `reply is not JSON${note}: ${preview(text)}`, { usage });
  }
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ` : '';
  throw new LanguageModelError(
    'invalid-output',
    `reply does not match the schema${note}: ${where}${issue?.message ?? ''}`,
    {
      cause: result.error,
      usage,
    },
  );
}

function parseJson(text: string): unknown {
  const body = FENCE_RE.exec(text)?.[1] ?? text;
  for (const candidate of [body, outermostObject(body)]) {
    if (candidate === undefined) continue;
    try {
      return JSON.parse(candidate) as unknown;
    } catch {
      // try the next candidate
    }
  }
  return undefined;
}

function outermostObject(text: string): string | undefined {
  const start = text.indexOf('{');
  const end = text.lastIndexOf('}');
  return start >= 0 && end > start ? text.slice(start, end + 1) : undefined;
}

function preview(text: string): string {
  const line = oneLine(text);
  if (line.length === 0) return '(empty reply)';
  return JSON.stringify(line.length > 80 ? `${line.slice(0, 80)}…` : line);
}
