/**
 * HedgehogMemory's `origin.json` (its whole store, spec §3) in and out of a radial memory.
 *
 * Import is lossless: every line, node, summary, state field and timestamp string is kept,
 * including what hedgehop itself would not produce (numbers spelled `1.0`, summaries under
 * other numeric keys or in another key order, a null state or full context); what has no
 * column of its own is kept in the `extra` JSON of its line or node (`extra.hedgehog`).
 * Export writes the same format the way Python's `json.dump(indent=2, ensure_ascii=False)`
 * does, with the spec's key order and no trailing newline, so importing a file and exporting
 * it again gives the same bytes.
 */
import { HedgehopError } from '../../core/errors.js';
import type { ImportBatch, NewNode, NodeRecord } from '../../store/radial-repo.js';
import { fromPlain, parsePyJson, printPyJson, toPlain, type PyValue } from './py-json.js';
import { DEFAULT_PROJECT_NAME, toNode, type RadialService } from './radial-service.js';
import { derivedHistory } from './session-view.js';
import { SummaryTier, type PartialSummaries } from './summaries.js';
import type { FileChange } from '../../core/model/radial.js';
import { type NodeIndexText, nodeIndexTexts } from '../../core/index-text.js';

/** What an import did. */
export interface HedgehogImportReport {
  /** The project name now in effect (the file's, unless the memory already had lines and a name). */
  readonly projectName: string;
  /** True when the memory kept its own project name instead of the file's. */
  readonly projectNameKept: boolean;
  readonly lines: number;
  readonly nodes: number;
}

/** What `extra.hedgehog` of an imported node holds. */
interface NodeProvenance {
  createdAt: string;
  summaryKeys: string[];
  summariesOther?: [string, string][];
  stateNull?: true;
  fullContextNull?: true;
  envInfo?: string;
}

const LEVEL_BY_KEY: Readonly<Record<string, keyof PartialSummaries>> = {
  '0': 'origin',
  '1': 'brief',
  '2': 'summary',
  '3': 'detailed',
};

const LONE_SURROGATE_RE = /[\uD800-\uDFFF]/u;

// ---- reading the document -------------------------------------------------------------------

function fail(path: string, message: string): never {
  const field = path.length > 0 ? `json.${path}` : 'json';
  throw new HedgehopError('INVALID_INPUT', `${field}: ${message}`, { field });
}

function join(path: string, key: string | number): string {
  return typeof key === 'number' ? `${path}[${key}]` : path.length > 0 ? `${path}.${key}` : key;
}

function asObject(value: PyValue | undefined, path: string): Map<string, PyValue> {
  if (value?.kind !== 'obj') fail(path, 'must be an object');
  return new Map(value.entries);
}

function asString(value: PyValue | undefined, path: string): string {
  if (value?.kind !== 'str') fail(path, 'must be a string');
  if (LONE_SURROGATE_RE.test(value.value)) fail(path, 'holds a lone surrogate (not valid Unicode)');
  return value.value;
}

function required(object: Map<string, PyValue>, key: string, path: string): PyValue {
  const value = object.get(key);
  if (value === undefined) fail(join(path, key), 'is missing');
  return value;
}

function optionalString(object: Map<string, PyValue>, key: string, path: string, fallback: string): string {
  const value = object.get(key);
  return value === undefined ? fallback : asString(value, join(path, key));
}

function asArray(value: PyValue | undefined, path: string): readonly PyValue[] {
  if (value === undefined) return [];
  if (value.kind !== 'arr') fail(path, 'must be a list');
  return value.items;
}

/** Python's naive local `isoformat()` as ms since the epoch (undefined when unreadable). */
export function parseLocalTimestamp(text: string): number | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?$/u.exec(text);
  if (m) {
    const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '0'] = m;
    const ms = Number(frac.padEnd(6, '0').slice(0, 3));
    const time = new Date(
      Number(y),
      Number(mo) - 1,
      Number(d),
      Number(h),
      Number(mi),
      Number(s),
      ms,
    ).getTime();
    return Number.isNaN(time) ? undefined : time;
  }
  const parsed = Date.parse(text);
  return Number.isNaN(parsed) ? undefined : parsed;
}

/** A ms timestamp as Python's `datetime.now().isoformat(timespec="seconds")` (local, no zone). */
export function formatLocalTimestamp(ms: number): string {
  const d = new Date(ms);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${String(d.getFullYear()).padStart(4, '0')}-${two(d.getMonth() + 1)}-${two(d.getDate())}T${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}`;
}

// ---- import ------------------------------------------------------------------------------------

interface ParsedOrigin {
  readonly projectName: string;
  readonly createdAt: string;
  readonly lines: ImportBatch['lines'];
}

/** Parses and checks a whole `origin.json` into rows; nothing is written. */
function parseHedgehogOrigin(json: string, agentNow: number): ParsedOrigin {
  const root = asObject(parsePyJson(json), '');
  const projectName = asString(required(root, 'project_name', ''), 'project_name');
  const createdAt = asString(required(root, 'created_at', ''), 'created_at');
  const linesValue = root.get('lines');
  const lines = linesValue === undefined ? new Map<string, PyValue>() : asObject(linesValue, 'lines');
  const seenNodes = new Set<string>();
  const out: ImportBatch['lines'][number][] = [];
  for (const [key, value] of lines) out.push(parseLine(key, value, seenNodes, agentNow));
  return { projectName, createdAt, lines: out };
}

function parseLine(
  key: string,
  value: PyValue,
  seenNodes: Set<string>,
  now: number,
): ImportBatch['lines'][number] {
  const path = join('lines', key);
  const line = asObject(value, path);
  const id = asString(required(line, 'id', path), join(path, 'id'));
  if (id !== key) fail(join(path, 'id'), `must equal its key '${key}'`);
  if (id.trim().length === 0) fail(join(path, 'id'), 'an empty line id is not supported');
  const createdAt = asString(required(line, 'created_at', path), join(path, 'created_at'));
  const items = asArray(line.get('nodes'), join(path, 'nodes'));
  const nodes = items.map((item, i) => parseNode(item, join(join(path, 'nodes'), i), id, i, seenNodes, now));
  return {
    line: {
      id,
      name: asString(required(line, 'name', path), join(path, 'name')),
      description: asString(required(line, 'description', path), join(path, 'description')),
      createdAt: parseLocalTimestamp(createdAt) ?? now,
      extra: JSON.stringify({ hedgehog: { createdAt } }),
    },
    // Stored oldest first: line_seq 1 is the oldest node, so position = index in the file + 1.
    nodes: nodes.reverse(),
  };
}

function parseNode(
  value: PyValue,
  path: string,
  lineId: string,
  index: number,
  seenNodes: Set<string>,
  now: number,
): { node: NewNode; index: readonly NodeIndexText[] } {
  const node = asObject(value, path);
  const id = asString(required(node, 'id', path), join(path, 'id'));
  if (id.length === 0) fail(join(path, 'id'), 'must not be empty');
  if (seenNodes.has(id)) fail(join(path, 'id'), `node id ${id} appears twice`);
  seenNodes.add(id);
  const nodeLine = asString(required(node, 'line_id', path), join(path, 'line_id'));
  if (nodeLine !== lineId) fail(join(path, 'line_id'), `must be '${lineId}', the line it sits in`);
  const position = required(node, 'position', path);
  if (position.kind !== 'num' || Number(position.raw) !== index + 1) {
    fail(join(path, 'position'), `must be ${index + 1} (its place in the list, newest first)`);
  }
  const createdAt = asString(required(node, 'created_at', path), join(path, 'created_at'));
  const taskLabel = asString(required(node, 'task_label', path), join(path, 'task_label'));
  const summaries = parseSummaries(node.get('summaries'), join(path, 'summaries'));
  const state = parseState(node.get('state'), join(path, 'state'));
  const history = optionalString(node, 'accumulated_history_summary', path, '');
  const provenance: NodeProvenance = { createdAt, summaryKeys: summaries.keys, ...state.provenance };
  if (summaries.other.length > 0) provenance.summariesOther = summaries.other;
  const task = { taskLabel, ...state.task };
  return {
    node: {
      id,
      taskLabel,
      createdAt: parseLocalTimestamp(createdAt) ?? now,
      conversationSummary: task.conversationSummary,
      fileChanges: JSON.stringify(task.fileChanges),
      todos: JSON.stringify(task.todos),
      envSnapshot: state.envSnapshot,
      history,
      summaries: {
        origin: summaries.levels.origin ?? null,
        brief: summaries.levels.brief ?? null,
        summary: summaries.levels.summary ?? null,
        detailed: summaries.levels.detailed ?? null,
      },
      summariesState: 'ready',
      summariesTier: SummaryTier.supplied,
      extra: JSON.stringify({ hedgehog: provenance }),
      fullContext: task.fullContext,
      fullBytes: Buffer.byteLength(task.fullContext, 'utf8'),
    },
    index: nodeIndexTexts(task, summaries.keys.length > 0 ? summaries.levels : undefined),
  };
}

function parseSummaries(
  value: PyValue | undefined,
  path: string,
): { levels: PartialSummaries; keys: string[]; other: [string, string][] } {
  const levels: PartialSummaries = {};
  const keys: string[] = [];
  const other = new Map<string, string>();
  if (value === undefined) return { levels, keys, other: [] };
  for (const [rawKey, text] of asObject(value, path)) {
    // HedgehogMemory reads keys with int(): " 1" and "01" are level 1, and are written back as "1".
    if (!/^\s*[+-]?\d+\s*$/u.test(rawKey)) fail(join(path, rawKey), 'summary keys must be level numbers');
    const key = String(Number.parseInt(rawKey.trim(), 10));
    const content = asString(text, join(path, rawKey));
    if (!keys.includes(key)) keys.push(key);
    const level = LEVEL_BY_KEY[key];
    if (level) levels[level] = content;
    else other.set(key, content);
  }
  return { levels, keys, other: [...other] };
}

function parseState(
  value: PyValue | undefined,
  path: string,
): {
  task: { conversationSummary: string; fileChanges: FileChange[]; todos: string[]; fullContext: string };
  envSnapshot: string;
  provenance: Partial<NodeProvenance>;
} {
  // A missing, null or empty state is "no state" to HedgehogMemory.
  if (value === undefined || value.kind === 'null' || (value.kind === 'obj' && value.entries.length === 0)) {
    return {
      task: { conversationSummary: '', fileChanges: [], todos: [], fullContext: '' },
      envSnapshot: '{}',
      provenance: { stateNull: true },
    };
  }
  const state = asObject(value, path);
  const provenance: Partial<NodeProvenance> = {};
  const fileChanges = asArray(state.get('modified_files'), join(path, 'modified_files')).map((item, i) => {
    const filePath = join(join(path, 'modified_files'), i);
    const file = asObject(item, filePath);
    return {
      path: asString(required(file, 'path', filePath), join(filePath, 'path')),
      changeType: optionalString(file, 'change_type', filePath, 'modified'),
      diffSummary: optionalString(file, 'diff_summary', filePath, ''),
    };
  });
  const todos = asArray(state.get('todos'), join(path, 'todos')).map((item, i) =>
    asString(item, join(join(path, 'todos'), i)),
  );
  const fullValue = state.get('full_context');
  let fullContext = '';
  if (fullValue?.kind === 'null') provenance.fullContextNull = true;
  else if (fullValue !== undefined) fullContext = asString(fullValue, join(path, 'full_context'));
  const env = state.get('env_info') ?? { kind: 'obj', entries: [] };
  asObject(env, join(path, 'env_info'));
  checkStrings(env, join(path, 'env_info'));
  const envSnapshot = JSON.stringify(toPlain(env));
  // Keep the exact spelling when JavaScript numbers would change it (1.0, 1e-05, NaN, big ints).
  if (printPyJson(fromPlain(JSON.parse(envSnapshot))) !== printPyJson(env))
    provenance.envInfo = printPyJson(env);
  return {
    task: {
      conversationSummary: asString(
        required(state, 'conversation_summary', path),
        join(path, 'conversation_summary'),
      ),
      fileChanges,
      todos,
      fullContext,
    },
    envSnapshot,
    provenance,
  };
}

function checkStrings(value: PyValue, path: string): void {
  if (value.kind === 'str') asString(value, path);
  else if (value.kind === 'arr') value.items.forEach((item, i) => checkStrings(item, join(path, i)));
  else if (value.kind === 'obj') {
    for (const [key, item] of value.entries) {
      if (LONE_SURROGATE_RE.test(key)) fail(join(path, key), 'key holds a lone surrogate');
      checkStrings(item, join(path, key));
    }
  }
}

/**
 * Imports a HedgehogMemory `origin.json` into a radial memory in one transaction. The lines
 * are appended after existing ones; a line id or node id already present is a `CONFLICT`
 * and nothing is written. The file's project name is adopted when the memory has no lines yet.
 */
export async function importHedgehogInto(
  service: RadialService,
  json: string,
): Promise<HedgehogImportReport> {
  const { store, agentId, clock } = service.context;
  const parsed = parseHedgehogOrigin(json, clock.now());
  const report = await store.write('import', async (tx) => {
    const fresh = (await tx.radial.counts(agentId)).lines === 0;
    return tx.radial.importBatch(agentId, {
      meta: [
        { key: 'projectName', value: parsed.projectName, overwrite: fresh },
        { key: 'hedgehogCreatedAt', value: parsed.createdAt, overwrite: fresh },
      ],
      lines: parsed.lines,
    });
  });
  const projectName = await service.projectName();
  return { projectName, projectNameKept: projectName !== parsed.projectName, ...report };
}

// ---- export ------------------------------------------------------------------------------------

const str = (value: string): PyValue => ({ kind: 'str', value });
const obj = (entries: [string, PyValue][]): PyValue => ({ kind: 'obj', entries });

function parseObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function provenanceOf(extra: string): Partial<NodeProvenance> | undefined {
  const hedgehog = parseObject(extra)['hedgehog'];
  return typeof hedgehog === 'object' && hedgehog !== null
    ? (hedgehog as Partial<NodeProvenance>)
    : undefined;
}

/**
 * The agent's radial memory as a HedgehogMemory `origin.json` text (2-space JSON, spec key
 * order, no trailing newline). Imported data comes back exactly as it was read.
 */
export async function exportHedgehogFrom(service: RadialService): Promise<string> {
  const { store, agentId, clock } = service.context;
  const { snapshot, storedCreatedAt, projectName } = await store.read('export', async (tx) => ({
    snapshot: await tx.radial.snapshot(agentId),
    storedCreatedAt: await tx.radial.getMeta(agentId, 'hedgehogCreatedAt'),
    projectName: (await tx.radial.getMeta(agentId, 'projectName')) ?? DEFAULT_PROJECT_NAME,
  }));
  const firstLine = snapshot[0]?.line.createdAt ?? clock.now();
  const createdAt = storedCreatedAt ?? formatLocalTimestamp(firstLine);
  const lines: [string, PyValue][] = snapshot.map(({ line, nodes }) => {
    const lineCreated = provenanceOf(line.extra)?.createdAt;
    const exported = nodes.map((entry, i) =>
      exportNode(entry.node, entry.fullContext, nodes.slice(i + 1, i + 9)),
    );
    return [
      line.id,
      obj([
        ['id', str(line.id)],
        ['name', str(line.name)],
        ['description', str(line.description)],
        [
          'created_at',
          str(typeof lineCreated === 'string' ? lineCreated : formatLocalTimestamp(line.createdAt)),
        ],
        ['nodes', { kind: 'arr', items: exported }],
      ]),
    ];
  });
  return printPyJson(
    obj([
      ['project_name', str(projectName)],
      ['created_at', str(createdAt)],
      ['lines', obj(lines)],
    ]),
  );
}

function exportNode(
  record: NodeRecord,
  fullContext: string,
  earlier: readonly { node: NodeRecord }[],
): PyValue {
  const provenance = provenanceOf(record.extra);
  const node = toNode(record);
  const history =
    provenance !== undefined
      ? record.history
      : derivedHistory(
          node,
          earlier.map((e) => toNode(e.node)),
        );
  return obj([
    ['id', str(record.id)],
    ['line_id', str(record.lineId)],
    ['position', { kind: 'num', raw: String(record.position) }],
    ['created_at', str(provenance?.createdAt ?? formatLocalTimestamp(record.createdAt))],
    ['task_label', str(record.taskLabel)],
    ['summaries', exportSummaries(record, provenance)],
    ['state', exportState(node, fullContext, provenance)],
    ['accumulated_history_summary', str(history)],
  ]);
}

function exportSummaries(record: NodeRecord, provenance: Partial<NodeProvenance> | undefined): PyValue {
  const columns: Record<string, string | null> = {
    '0': record.sOrigin,
    '1': record.sBrief,
    '2': record.sSummary,
    '3': record.sDetailed,
  };
  const other = new Map(provenance?.summariesOther ?? []);
  const keys = provenance?.summaryKeys ?? ['0', '1', '2', '3'];
  const entries: [string, PyValue][] = [];
  for (const key of keys) {
    const value = key in columns ? columns[key] : other.get(key);
    if (typeof value === 'string') entries.push([key, str(value)]);
  }
  return obj(entries);
}

function exportState(
  node: ReturnType<typeof toNode>,
  fullContext: string,
  provenance: Partial<NodeProvenance> | undefined,
): PyValue {
  if (provenance?.stateNull) return { kind: 'null' };
  const env =
    provenance?.envInfo !== undefined ? parsePyJson(provenance.envInfo) : fromPlain(node.state.envSnapshot);
  return obj([
    ['conversation_summary', str(node.state.conversationSummary)],
    [
      'modified_files',
      {
        kind: 'arr',
        items: node.state.fileChanges.map((f) =>
          obj([
            ['path', str(f.path)],
            ['change_type', str(f.changeType)],
            ['diff_summary', str(f.diffSummary)],
          ]),
        ),
      },
    ],
    ['env_info', env],
    ['todos', { kind: 'arr', items: node.state.todos.map(str) }],
    ['full_context', provenance?.fullContextNull ? { kind: 'null' } : str(fullContext)],
  ]);
}
