/**
 * A task's context as a host often hands it over: its chat messages serialised as JSON (an
 * array, an object with a `messages` array, or JSON Lines), in the shapes of the OpenAI chat and
 * responses APIs, Anthropic's messages API and the Vercel AI SDK. Summarised as it is, such a
 * context yields levels of JSON syntax (`{"role":"user","content":"Great. Ship it…"}`), so the
 * summarisers read it as the plain transcript it holds: one `[role]` header line per message and
 * its text, tool calls and results under `[tool:<name>]`, as {@link splitUnits} reads any
 * transcript. Anything else comes back unchanged. The verbatim context stays what was committed.
 */

/** Messages are only looked for in text that opens with one of these (after whitespace). */
const JSON_OPENING_RE = /^\s*[[{]/u;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The chat messages `text` serialises, or undefined when it is not such a list. */
function messagesOf(text: string): JsonObject[] | undefined {
  if (!JSON_OPENING_RE.test(text)) return undefined;
  let parsed: Json | undefined;
  try {
    parsed = JSON.parse(text) as Json;
  } catch {
    // JSON Lines of messages open with an object; a `[user]` header line is no JSON at all.
    parsed = /^\s*\{/u.test(text) ? jsonLines(text) : undefined;
  }
  const list = isObject(parsed) ? parsed.messages : parsed;
  if (!Array.isArray(list) || list.length === 0) return undefined;
  const messages = list.filter(isObject);
  // Every entry a message (a role) or an item of the responses API (a call, an output), one a message at least.
  if (
    messages.length !== list.length ||
    !messages.every((m) => typeof (m.role ?? m.type) === 'string') ||
    !messages.some((m) => typeof m.role === 'string')
  )
    return undefined;
  return messages;
}

/** JSON Lines: every non-empty line one JSON value; undefined when one is not. */
function jsonLines(text: string): Json[] | undefined {
  const out: Json[] = [];
  for (const line of text.split('\n')) {
    if (line.trim().length === 0) continue;
    try {
      out.push(JSON.parse(line) as Json);
    } catch {
      return undefined;
    }
  }
  return out;
}

const str = (value: Json | undefined): string | undefined => (typeof value === 'string' ? value : undefined);

/** Arguments or output as text: a string as is, anything else as compact JSON. */
function asText(value: Json | undefined): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** The header role of a message's role name. */
function headerRole(role: string): string {
  const lower = role.toLowerCase();
  if (lower === 'user' || lower === 'human') return 'user';
  if (lower === 'system' || lower === 'developer') return 'system';
  return 'assistant';
}

const TEXT_TYPES = new Set(['text', 'input_text', 'output_text', 'reasoning', 'thinking']);
const CALL_TYPES = new Set(['tool_use', 'tool-call', 'tool_call', 'function_call', 'server_tool_use']);
const RESULT_TYPES = new Set([
  'tool_result',
  'tool-result',
  'function_call_output',
  'web_search_tool_result',
]);
const TOOL_ROLES = new Set(['tool', 'function', 'ipython']);

/** Blocks of the transcript being built: a header and its text. */
class Transcript {
  readonly #blocks: string[] = [];
  /** Tool names by call id, for results that name only the call they answer. */
  readonly #names = new Map<string, string>();

  text(role: string, text: string): void {
    if (text.trim().length > 0) this.#blocks.push(`[${role}]\n${text.trim()}`);
  }

  call(name: string | undefined, id: string | undefined, args: Json | undefined): void {
    const tool = name ?? 'call';
    if (id !== undefined) this.#names.set(id, tool);
    this.#blocks.push(`[tool:${tool}]\n${asText(args).trim()}`);
  }

  result(name: string | undefined, id: string | undefined, output: string): void {
    const tool = name ?? (id === undefined ? undefined : this.#names.get(id)) ?? 'result';
    this.#blocks.push(`[tool:${tool}]\n${output.trim()}`);
  }

  toString(): string {
    return this.#blocks.join('\n\n');
  }
}

/** The text of a content value: a string, or the text parts of a list of parts. */
function partsText(content: Json | undefined): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => {
      if (typeof part === 'string') return part;
      if (!isObject(part)) return '';
      return TEXT_TYPES.has(str(part.type) ?? 'text') ? (str(part.text) ?? str(part.thinking) ?? '') : '';
    })
    .filter((text) => text.length > 0)
    .join('\n');
}

function addPart(out: Transcript, role: string, part: Json): void {
  if (typeof part === 'string') return out.text(role, part);
  if (!isObject(part)) return;
  const type = str(part.type) ?? 'text';
  if (TEXT_TYPES.has(type)) return out.text(role, str(part.text) ?? str(part.thinking) ?? '');
  if (CALL_TYPES.has(type))
    return out.call(
      str(part.name) ?? str(part.toolName),
      str(part.id) ?? str(part.toolCallId) ?? str(part.call_id),
      part.input ?? part.args ?? part.arguments,
    );
  if (RESULT_TYPES.has(type))
    return out.result(
      str(part.toolName) ?? str(part.name),
      str(part.tool_use_id) ?? str(part.toolCallId) ?? str(part.call_id),
      partsText(part.content) || asText(part.output ?? part.result ?? part.content),
    );
}

function addMessage(out: Transcript, message: JsonObject): void {
  const role = str(message.role);
  if (role === undefined) return addPart(out, 'assistant', message); // a responses API item
  if (TOOL_ROLES.has(role.toLowerCase())) {
    const content = message.content;
    if (Array.isArray(content) && content.some((p) => isObject(p) && RESULT_TYPES.has(str(p.type) ?? ''))) {
      for (const part of content) addPart(out, 'assistant', part);
      return;
    }
    return out.result(str(message.name), str(message.tool_call_id), partsText(content) || asText(content));
  }
  const header = headerRole(role);
  const content = message.content;
  if (Array.isArray(content)) for (const part of content) addPart(out, header, part);
  else out.text(header, asText(content));
  const calls = message.tool_calls;
  if (Array.isArray(calls)) {
    for (const call of calls) {
      if (!isObject(call)) continue;
      const fn = isObject(call.function) ? call.function : call;
      out.call(str(fn.name), str(call.id), fn.arguments ?? fn.input);
    }
  }
}

/**
 * `context` as a plain transcript when it serialises a list of chat messages (see the module
 * comment), else `context` itself.
 *
 * @example
 * ```ts
 * messagesAsTranscript('[{"role":"user","content":"Why is CI red?"}]'); // '[user]\nWhy is CI red?'
 * ```
 */
export function messagesAsTranscript(context: string): string {
  const messages = messagesOf(context);
  if (messages === undefined) return context;
  const out = new Transcript();
  for (const message of messages) addMessage(out, message);
  const text = out.toString();
  return text.length > 0 ? text : context;
}
