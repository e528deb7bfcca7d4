import { jsonPath, type ErrorRemedy, type HedgehopError } from '../core/errors.js';
import { cliName } from './cli-name.js';

/**
 * The CLI's name for each field of the library's input (the last name in an error's path), so
 * an error says `--budget`, not `options.budgetTokens`. A field the CLI does not take is named
 * by its path in the JSON the command reads (`nodes[2].title`).
 */
const FLAGS: Readonly<Record<string, string>> = {
  lineId: '--line',
  line: '--line',
  taskLabel: '--label',
  conversationSummary: '--summary',
  fullContext: '--context',
  fileChanges: '--changed',
  todos: '--todo',
  position: '--position',
  budgetTokens: '--budget',
  limit: '--limit',
  layers: '--layer',
  initialLevel: '--level',
  level: '--level',
  confidenceThreshold: '--threshold',
  sceneId: '--scene',
  knowledgeId: '--knowledge',
  from: '--from',
  to: '--to',
  createdAt: '--at',
  input: '--input',
  output: '--output',
  outcome: '--outcome',
  role: '--role',
  speaker: '--speaker',
  contentType: '--content-type',
  eventType: '--event-type',
  planStep: '--plan-step',
  port: '--port',
  host: '--host',
  token: '--token',
  bodyLimitBytes: '--body-limit',
  cors: '--cors',
  busyTimeoutMs: '--busy-timeout',
  busyTimeout: '--busy-timeout',
  agent: '--agent',
  graph: '--graph',
  mode: '--mode',
  format: '--format',
  out: '--out',
  query: '<query>',
  content: '<content>',
};

/** The CLI's name for the field an error names, or `undefined` when it has none. */
export function cliFieldName(error: HedgehopError): string | undefined {
  const path = error.path;
  const last = path?.[path.length - 1];
  if (typeof last === 'string' && FLAGS[last] !== undefined) return FLAGS[last];
  return jsonPath(path);
}

/** What to run to fix an error, in the CLI's words. */
export function cliRemedy(remedy: ErrorRemedy | undefined): string | undefined {
  const hop = cliName();
  switch (remedy) {
    case 'create-line':
      return `commit a task to the line, which creates it: '${hop} commit --line <id> --label …'; list the lines with '${hop} lines'`;
    case 'open-turn':
      return `open one with '${hop} turn begin'`;
    case 'close-turn':
      return `close it with '${hop} turn end --input … --output …'`;
    case 'list-nodes':
      return `list the line's tasks with '${hop} history <line>'`;
    case 'list-agents':
      return `list the agents with '${hop} agents'`;
    case 'list-graphs':
      return `list the graphs with '${hop} kg list'`;
    case 'check-path':
      return 'check the path (a relative path starts from the current folder)';
    default:
      return undefined;
  }
}
