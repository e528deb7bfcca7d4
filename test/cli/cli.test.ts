import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startChild } from '../helpers/child.js';
import { DEFAULT_CONFIDENCE_THRESHOLD } from '../../src/api/radial-memory.js';
import { hop } from '../helpers/cli.js';
import { tempDir, tempFile } from '../helpers/temp.js';

/** Runs with --json and parses stdout as exactly one JSON document. */
function hopJson<T = Record<string, unknown>>(args: readonly string[], input = ''): T {
  const run = hop([...args, '--json'], input);
  expect(run.status, run.stderr).toBe(0);
  expect(run.stderr).toBe('');
  return JSON.parse(run.stdout) as T;
}

const ORIGIN_JSON = `{
  "project_name": "Shop 🦔",
  "created_at": "2026-02-01T09:00:00",
  "lines": {
    "auth": {
      "id": "auth",
      "name": "Authentication",
      "description": "Login and tokens",
      "created_at": "2026-02-01T09:00:01",
      "nodes": [
        {
          "id": "0b6f5a2e-2222-4c3d-8e9f-000000000001",
          "line_id": "auth",
          "position": 1,
          "created_at": "2026-02-02T10:15:00",
          "task_label": "Implement password reset",
          "summaries": {
            "0": "Password reset",
            "1": "Password reset by emailed one-time link",
            "2": "Password reset by emailed one-time link, valid 30 minutes.",
            "3": "Password reset by emailed one-time link, valid 30 minutes; tokens hashed at rest."
          },
          "state": {
            "conversation_summary": "Reset links expire after 30 minutes.",
            "modified_files": [
              {
                "path": "auth/reset.py",
                "change_type": "created",
                "diff_summary": "reset views"
              }
            ],
            "env_info": {
              "python": "3.12"
            },
            "todos": [
              "Rate-limit reset requests"
            ],
            "full_context": "POST /auth/reset {email}\\nLink: /reset?token=…\\n«exact» \\"bytes\\" \\\\ 日本"
          },
          "accumulated_history_summary": ""
        }
      ]
    }
  }
}`;

const MEMORY_JSONL = [
  '{"type":"entity","name":"Ada","entityType":"person","observations":["writes Rust","lives in Lyon"]}',
  '{"type":"entity","name":"Acme","entityType":"organization","observations":["builds rockets"]}',
  '{"type":"relation","from":"Ada","to":"Acme","relationType":"works_at"}',
  '',
].join('\n');

describe('hedgehop CLI (child process, piped)', { timeout: 180_000 }, () => {
  it('prints --help for every command and exits 0', () => {
    const top = hop(['--help']);
    expect(top.status).toBe(0);
    const commands = [
      'demo',
      'origin',
      'lines',
      'history',
      'commit',
      'navigate',
      'load',
      'recall',
      'turn',
      'kg',
      'stats',
      'check',
      'compact',
      'import',
      'export',
      'eval',
      'mcp',
      'serve',
    ];
    for (const command of commands) expect(top.stdout).toContain(command);
    for (const args of [
      ['commit', '--help'],
      ['turn', 'append', '--help'],
      ['kg', 'subgraph', '--help'],
      ['eval', 'locomo', '--help'],
    ]) {
      const run = hop(args);
      expect(run.status, args.join(' ')).toBe(0);
      expect(run.stdout).toContain('Usage: hedgehop');
      expect(run.stdout).toContain('--json');
    }
  });

  it('runs the demo in a named file and prints one JSON document with --json', () => {
    const path = join(tempDir(), 'demo.db');
    const demo = hopJson<{
      file: string;
      built: { lines: number; tasks: number };
      origin: string;
      navigate: { confidence: number; found: { lineId: string } };
      drill: { level: number }[];
      restore: { identical: boolean };
      recall: { usedTokens: number; budgetTokens: number };
      next: string[];
      dream: {
        report: { status: string; stages: { name: string; status: string }[] };
        engram: { scenes: { name: string }[]; links: unknown[] };
      };
    }>(['demo', '--file', path]);
    expect(demo.file).toBe(path);
    expect(demo.built).toMatchObject({ lines: 3, tasks: 10 });
    expect(demo.origin).toContain('auth');
    expect(demo.navigate.found.lineId).toBe('auth');
    expect(demo.drill.map((d) => d.level)).toEqual([1, 2, 3, 4]);
    expect(demo.restore.identical).toBe(true);
    expect(demo.recall.usedTokens).toBeLessThanOrEqual(demo.recall.budgetTokens);
    expect(demo.next.join('\n')).toContain(`hedgehop serve --file ${path}`);
    // Dream ran once over the story, so the Engram and Dream views have something to show.
    expect(demo.dream.report.status).toBe('ok');
    expect(demo.dream.report.stages.find((s) => s.name === 'profile')?.status).toBe('ok');
    expect(demo.dream.engram.scenes.map((s) => s.name).sort()).toEqual([
      'Invoice numbers check',
      'Staging deploy failure',
    ]);
    expect(demo.dream.engram.links).toHaveLength(1);
    expect(hopJson<unknown[]>(['dream', 'history', '--file', path])).toHaveLength(1);
    const again = hop(['demo', '--file', path]);
    expect(again.status).toBe(6);
    expect(again.stderr).toMatch(/^hedgehop: CONFLICT: .*exists/);
  });

  it('shows every level of the drill-down whole in the demo, the full level the longest', () => {
    const run = hop(['demo', '--file', join(tempDir(), 'demo.db')]);
    expect(run.status).toBe(0);
    const sizes = [...run.stdout.matchAll(/\[(\d) (brief|summary|detailed|full)\] (\d+) characters/gu)].map(
      (m) => Number(m[3]),
    );
    expect(sizes).toHaveLength(4);
    // No level holds more than the next: the full level is the task's whole state.
    for (let i = 1; i < sizes.length; i++) expect(sizes[i]).toBeGreaterThanOrEqual(sizes[i - 1] ?? 0);
  });

  it('keeps every field and every line of the origin whole after Dream passes over the demo', () => {
    const path = join(tempDir(), 'demo.db');
    expect(hop(['demo', '--file', path]).status).toBe(0);
    const entries = (origin: string): string[] => origin.split('\n').filter((l) => l.startsWith('- '));
    for (let pass = 0; pass < 2; pass++) {
      expect(hop(['dream', '--file', path]).status).toBe(0);
      const { origin } = hopJson<{ origin: string }>(['origin', '--file', path]);
      // Dream's emotion estimate must not leave a field that shows only its label ("emotions:…").
      expect(origin).not.toMatch(/\b[a-z]+:(…|;|$)/mu);
      const agent = origin.split('\n').find((l) => l.startsWith('Agent: ')) ?? '';
      expect(agent).toContain('role: Coding agent for the Tern scheduling app');
      // Three lines fit the default budget: none is folded, the largest (auth, 4 tasks) included.
      expect(origin).not.toContain('folded');
      expect(entries(origin).map((l) => /^- (\w+)/u.exec(l)?.[1])).toEqual(['auth', 'infra', 'billing']);
      expect(origin).toContain('(4 tasks,');
    }
  });

  it('runs the demo in a temporary file with readable human output', () => {
    const run = hop(['demo']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain('byte-identical ✓');
    expect(run.stdout).toMatch(/6\. Dream .*\n {2}dream drm_\w+: ok/u);
    expect(run.stdout).toContain('engram: 2 scenes, 1 links');
    expect(run.stdout).toContain('hedgehop serve --file');
    expect(run.stdout).not.toContain('\u001b[');
    const file = /file: (\S+)/.exec(run.stdout)?.[1] ?? '';
    expect(existsSync(file)).toBe(true);
  });

  it('commits from stdin, lists, shows history, navigates, loads and restores verbatim', () => {
    const path = tempFile();
    const state = 'Line one\nTabs\tand «quotes» "double" \\ back\n日本語 🦔\n';
    const node = hopJson<{ id: string; position: number }>(
      [
        'commit',
        '--file',
        path,
        '--line',
        'auth',
        '--label',
        'Implement JWT login',
        '--summary',
        'Stateless JWT.',
        '--changed',
        'src/login.ts:created:route',
        '--todo',
        'rate limit',
      ],
      state,
    );
    expect(node.position).toBe(1);
    const lines = hopJson<{ id: string; nodeCount: number }[]>(['lines', '--file', path]);
    expect(lines).toMatchObject([{ id: 'auth', nodeCount: 1 }]);
    expect(hopJson<unknown[]>(['history', 'auth', '--file', path])).toHaveLength(1);
    // Views that name the task above a level show the level without its own copy of the label.
    const times = (text: string): number => text.split('Implement JWT login').length - 1;
    expect(times(hop(['history', 'auth', '--file', path]).stdout)).toBe(1);
    const brief = hop(['load', '--line', 'auth', '--level', 'brief', '--file', path]).stdout;
    expect(brief).toContain('Task: Implement JWT login');
    const level = brief.slice(brief.indexOf('--- brief ---'));
    expect(level).toContain('Stateless JWT.');
    expect(times(level)).toBe(0);
    const found = hopJson<{ node: { id: string }; confidence: number; candidates: unknown[] }>([
      'navigate',
      'how does JWT login work',
      '--file',
      path,
    ]);
    expect(found.node.id).toBe(node.id);
    expect(found.candidates.length).toBeGreaterThan(0);
    const loaded = hopJson<{ status: string; levelName: string }>([
      'load',
      '--line',
      'auth',
      '--level',
      'detailed',
      '--file',
      path,
    ]);
    expect(loaded).toMatchObject({ status: 'found', levelName: 'detailed' });
    const raw = hop(['load', '--line', 'auth', '--full-state', '--file', path]);
    expect(raw.status).toBe(0);
    expect(raw.stdout).toBe(state);
    expect(
      hopJson<{ fullState: string }>(['load', 'JWT login', '--full-state', '--file', path]).fullState,
    ).toBe(state);
    const origin = hopJson<{ origin: string }>(['origin', '--file', path]);
    expect(origin.origin).toContain('auth');
    const recall = hopJson<{ hits: unknown[]; usedTokens: number }>([
      'recall',
      'JWT login',
      '--budget',
      '50',
      '--file',
      path,
    ]);
    expect(recall.hits.length).toBeGreaterThan(0);
    expect(recall.usedTokens).toBeLessThanOrEqual(50);
    expect(hop(['origin', '--file', path]).stdout).toContain('auth');
  });

  it('runs the turn loop across separate invocations', () => {
    const path = tempFile();
    const begun = hopJson<{ turnId: string; resumed: boolean }>([
      'turn',
      'begin',
      '--new-scene',
      '--name',
      'deploy',
      '--file',
      path,
    ]);
    expect(begun.resumed).toBe(false);
    hopJson(['turn', 'plan', 'add', 'Read the deploy log', '--file', path]);
    const slot = hopJson<{ topicId: string; seq: number }>([
      'turn',
      'append',
      'ci logs --last',
      '--event-type',
      'tool_call',
      '--plan-step',
      '1',
      '--file',
      path,
    ]);
    expect(slot).toMatchObject({ topicId: begun.turnId, seq: 3 });
    hopJson(['turn', 'append', '-', '--kind', 'utterance', '--role', 'user', '--file', path], 'piped words');
    hopJson(['turn', 'plan', 'set', '1', 'done', '--summary', 'migration failed', '--file', path]);
    const status = hopJson<{ open: boolean; plan: { doneCount: number } }>([
      'turn',
      'status',
      '--file',
      path,
    ]);
    expect(status).toMatchObject({ open: true, plan: { doneCount: 1 } });
    const resumed = hopJson<{ turnId: string; resumed: boolean }>(['turn', 'begin', '--file', path]);
    expect(resumed).toEqual(expect.objectContaining({ turnId: begun.turnId, resumed: true }));
    const ended = hopJson<{ topic: { id: string; status: string } }>([
      'turn',
      'end',
      '--input',
      'Why did it fail?',
      '--output',
      'Migration 0042.',
      '--outcome',
      'resolved',
      '--file',
      path,
    ]);
    expect(ended.topic).toMatchObject({ id: begun.turnId, status: 'closed' });
    expect(hopJson<{ open: boolean }>(['turn', 'status', '--file', path]).open).toBe(false);
    const noTurn = hop(['turn', 'end', '--input', 'x', '--file', path]);
    expect(noTurn.status).toBe(1);
    expect(noTurn.stderr).toMatch(/^hedgehop: INVALID_INPUT: .*no turn is open/);
  });

  it('turn begin shows an unnamed scene by its id and leaves out earlier turns with nothing to show', () => {
    const path = join(tempDir(), 'turns.db');
    const begun = hopJson<{ scene: { id: string } }>(['turn', 'begin', '--file', path]);
    hopJson([
      'turn',
      'end',
      '--input',
      'Which port does the exporter use?',
      '--output',
      'Port 9464.',
      '--file',
      path,
    ]);
    hopJson(['turn', 'begin', '--file', path]);
    hopJson(['turn', 'end', '--input', 'Thanks!', '--output', 'You are welcome.', '--file', path]);
    const run = hop(['turn', 'begin', '--file', path]);
    expect(run.status, run.stderr).toBe(0);
    const lines = run.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^opened turn tpc_[0-9a-f]+ in scene ${begun.scene.id}$`, 'u'));
    expect(lines.slice(1)).toEqual([expect.stringMatching(/^ {2}earlier: .*exporter/u)]);
  });

  it('imports a memory-server JSONL file and queries the knowledge graph', () => {
    const dir = tempDir();
    const path = join(dir, 'kg.db');
    writeFileSync(join(dir, 'memory.jsonl'), MEMORY_JSONL);
    const report = hopJson<{ format: string; created: string[]; edgesCreated: number }>([
      'import',
      join(dir, 'memory.jsonl'),
      '--file',
      path,
    ]);
    expect(report).toMatchObject({ format: 'memory-server', edgesCreated: 1 });
    expect(report.created).toHaveLength(2);
    expect(hopJson<{ label: string }[]>(['kg', 'list', '--file', path])).toMatchObject([
      { label: 'memory', nodeCount: 2 },
    ]);
    expect(hopJson<{ nodes: unknown[] }>(['kg', 'get', 'memory', '--file', path]).nodes).toHaveLength(2);
    expect(
      hopJson<{ title: string }[]>(['kg', 'query', '--keyword', 'rockets', '--file', path]).map(
        (n) => n.title,
      ),
    ).toEqual(['Acme']);
    expect(
      hopJson<{ node: { title: string } }[]>(['kg', 'search', 'rust', '--file', path])[0]?.node.title,
    ).toBe('Ada');
    const sub = hopJson<{ nodes: unknown[]; edges: unknown[] }>([
      'kg',
      'subgraph',
      'Ada',
      '--graph',
      'memory',
      '--file',
      path,
    ]);
    expect(sub.nodes).toHaveLength(2);
    const exported = hop(['export', '--format', 'memory-server', '--file', path]);
    expect(exported.stdout).toBe(MEMORY_JSONL);
    const batch = {
      graph: 'arch',
      nodes: [{ title: 'API' }, { title: 'DB' }],
      edges: [{ kind: 'dependency', directed: true, members: ['API', 'DB'] }],
    };
    const imported = hopJson<{ created: string[] }>(
      ['kg', 'import', '-', '--file', path],
      JSON.stringify(batch),
    );
    expect(imported.created).toHaveLength(2);
  });

  it('imports a Hedgehog origin.json and exports the same bytes', () => {
    const dir = tempDir();
    const path = join(dir, 'h.db');
    writeFileSync(join(dir, 'origin.json'), ORIGIN_JSON);
    const report = hopJson<{ format: string; lines: number; nodes: number; projectName: string }>([
      'import',
      join(dir, 'origin.json'),
      '--file',
      path,
    ]);
    expect(report).toMatchObject({ format: 'hedgehog', lines: 1, nodes: 1, projectName: 'Shop 🦔' });
    const state = hop(['load', '--line', 'auth', '--full-state', '--file', path]).stdout;
    expect(state).toBe('POST /auth/reset {email}\nLink: /reset?token=…\n«exact» "bytes" \\ 日本');
    expect(hop(['export', '--format', 'hedgehog', '--file', path]).stdout).toBe(ORIGIN_JSON);
    const twice = hop(['import', join(dir, 'origin.json'), '--file', path]);
    expect(twice.status).toBe(6);
    expect(twice.stderr).toMatch(/^hedgehop: CONFLICT/);
  });

  it('exports our JSONL dump and imports it into a new file with the same bytes', () => {
    const dir = tempDir();
    const source = join(dir, 'source.db');
    expect(hop(['demo', '--file', source]).status).toBe(0);
    const first = join(dir, 'first.jsonl');
    const exported = hopJson<{ path: string; rows: number }>(['export', '--out', first, '--file', source]);
    expect(exported.path).toBe(first);
    expect(exported.rows).toBeGreaterThan(30);
    const target = join(dir, 'target.db');
    const imported = hopJson<{ format: string; rows: number }>(['import', first, '--file', target]);
    expect(imported).toMatchObject({ format: 'jsonl', rows: exported.rows });
    const second = hop(['export', '--file', target]);
    expect(second.status).toBe(0);
    expect(second.stdout).toBe(readFileSync(first, 'utf8'));
    expect(hop(['check', '--file', target]).status).toBe(0);
    const navigate = hopJson<{ node: { lineId: string } }>([
      'navigate',
      'stolen refresh token reuse',
      '--file',
      target,
    ]);
    expect(navigate.node.lineId).toBe('auth');
    const intoFull = hop(['import', first, '--file', source]);
    expect(intoFull.status).toBe(6);
    expect(intoFull.stderr).toMatch(/^hedgehop: CONFLICT: .*not empty/);
    const overwrite = hop(['export', '--out', first, '--file', source]);
    expect(overwrite.status).toBe(1);
    writeFileSync(
      join(dir, 'truncated.jsonl'),
      readFileSync(first, 'utf8').split('\n').slice(0, 10).join('\n'),
    );
    const truncated = hop(['import', join(dir, 'truncated.jsonl'), '--file', join(dir, 'other.db')]);
    expect(truncated.status).toBe(1);
    expect(truncated.stderr).toMatch(/^hedgehop: INVALID_INPUT: .*truncated/);
  });

  it('maps errors to the documented exit codes with one line on stderr and nothing on stdout', () => {
    const path = tempFile();
    const cases: [readonly string[], number, RegExp][] = [
      [['lines', '--file', join(tempDir(), 'missing.db')], 2, /NOT_FOUND/],
      [['frobnicate'], 1, /unknown command/],
      [['lines', '--bogus-option', '--file', path], 1, /unknown option/],
      [['navigate'], 1, /missing required argument/],
    ];
    for (const [args, code, message] of cases) {
      const run = hop(args);
      expect(run.status, args.join(' ')).toBe(code);
      expect(run.stderr).toMatch(message);
    }
    hop(['commit', '--file', path, '--line', 'auth', '--label', 'x'], 'y');
    const json: [readonly string[], number, RegExp][] = [
      [['history', 'nope', '--file', path], 2, /^hedgehop: NOT_FOUND: /],
      [['load', '--line', 'auth', '--position', '9', '--file', path], 2, /^hedgehop: NOT_FOUND: /],
      [['load', '--line', 'auth', '--level', 'huge', '--file', path], 1, /^hedgehop: INVALID_INPUT: --level/],
      [['recall', 'x', '--budget', '-3', '--file', path], 1, /^hedgehop: INVALID_INPUT: --budget/],
      [['commit', '--line', 'auth', '--file', path], 1, /^hedgehop: INVALID_INPUT: --label/],
      [['lines', '--agent', 'ghost', '--file', path], 2, /^hedgehop: NOT_FOUND: no agent named 'ghost'/],
      [['import', join(tempDir(), 'none.jsonl'), '--file', path], 2, /^hedgehop: NOT_FOUND/],
    ];
    for (const [args, code, message] of json) {
      const run = hop([...args, '--json']);
      expect(run.status, args.join(' ')).toBe(code);
      expect(run.stdout, args.join(' ')).toBe('');
      expect(run.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toContain('hint:');
    }
  });

  it('exits 4 on a corrupt file', () => {
    const path = tempFile();
    writeFileSync(path, 'not a database at all — just some text that is long enough to fill a header page');
    const run = hop(['stats', '--file', path]);
    expect(run.status).toBe(4);
    expect(run.stderr).toMatch(/^hedgehop: CORRUPT: /);
  });

  it('exits 3 when another process holds the file exclusively', async () => {
    const path = tempFile();
    hop(['commit', '--file', path, '--line', 'a', '--label', 'b'], 'c');
    const holder = startChild('hold-open.mjs', [path, 'exclusive']);
    try {
      await holder.waitFor((line) => line === 'open');
      const run = hop(['lines', '--file', path]);
      expect(run.status).toBe(3);
      expect(run.stderr).toMatch(/^hedgehop: LOCKED: /);
    } finally {
      holder.process.kill('SIGKILL');
      await holder.exited;
    }
  });

  it('shows no progress bar when stderr is piped', () => {
    const dir = tempDir();
    const source = join(dir, 'source.db');
    writeFileSync(join(dir, 'memory.jsonl'), MEMORY_JSONL);
    const imported = hop(['import', join(dir, 'memory.jsonl'), '--file', source]);
    expect(imported.status).toBe(0);
    expect(imported.stderr).toBe('');
    const exported = hop(['export', '--out', join(dir, 'dump.jsonl'), '--file', source]);
    expect(exported.stderr).toBe('');
    const reimported = hop(['import', join(dir, 'dump.jsonl'), '--file', join(dir, 'copy.db')]);
    expect(reimported.status).toBe(0);
    expect(reimported.stderr).toBe('');
  });

  it('rebuilds the index and runs, lists and undoes a Dream pass', () => {
    const path = join(tempDir(), 'demo.db');
    expect(hop(['demo', '--file', path]).status).toBe(0);
    const reindexed = hopJson<{ rows: Record<string, number> }>(['reindex', '--file', path]);
    expect(reindexed.rows.radial).toBeGreaterThan(10);
    expect(hop(['check', '--file', path]).status).toBe(0);
    expect(
      hopJson<{ node: { lineId: string } }>(['navigate', 'invoice numbers', '--file', path]).node.lineId,
    ).toBe('billing');
    const dream = hopJson<{ id: string; status: string }>(['dream', '--file', path]);
    expect(['ok', 'partial']).toContain(dream.status);
    // The demo's own pass, then this one, newest first.
    const history = hopJson<{ id: string }[]>(['dream', 'history', '--file', path]).map((r) => r.id);
    expect(history).toHaveLength(2);
    expect(history[0]).toBe(dream.id);
    expect(hopJson<{ id: string }>(['dream', 'undo', dream.id, '--file', path]).id).toBe(dream.id);
  });

  it('runs the LoCoMo evaluation on a small file', () => {
    const dir = tempDir();
    const turns = [
      { speaker: 'Mia', dia_id: 'D1:1', text: 'I adopted a grey cat named Pixel last week.' },
      { speaker: 'Tom', dia_id: 'D1:2', text: 'Lovely! I am training for the Lisbon marathon in October.' },
      { speaker: 'Mia', dia_id: 'D1:3', text: 'Good luck. My sister moved to Oslo for a nursing job.' },
      { speaker: 'Tom', dia_id: 'D1:4', text: 'I painted my kitchen yellow on Sunday.' },
    ];
    const data = [
      {
        sample_id: 'tiny',
        conversation: {
          speaker_a: 'Mia',
          speaker_b: 'Tom',
          session_1: turns,
          session_1_date_time: '1:56 pm on 8 May, 2023',
        },
        qa: [
          { question: "What is the name of Mia's cat?", evidence: ['D1:1'], category: 4 },
          { question: 'Which marathon is Tom training for?', evidence: ['D1:2'], category: 1 },
          { question: "Where did Mia's sister move?", evidence: ['D1:3'], category: 3 },
        ],
      },
    ];
    writeFileSync(join(dir, 'locomo.json'), JSON.stringify(data));
    const report = hopJson<{
      overall: Record<string, number>;
      categories: Record<string, Record<string, number>>;
      budget: Record<string, number>;
    }>(['eval', 'locomo', '--data', join(dir, 'locomo.json')]);
    // Exactly the shape the issue specifies: values in 0..100, five categories, three budgets.
    expect(Object.keys(report).sort()).toEqual(['budget', 'categories', 'overall']);
    expect(Object.keys(report.overall).sort()).toEqual(['ndcg@10', 'recall@10', 'recall@20', 'recall@5']);
    expect(Object.keys(report.categories).sort()).toEqual([
      'adversarial',
      'multi-hop',
      'open-domain',
      'single-hop',
      'temporal',
    ]);
    expect(Object.keys(report.budget).sort()).toEqual(['1000', '2000', '500']);
    expect(report.overall['recall@5']).toBeGreaterThan(50);
    expect(report.overall['recall@5']).toBeLessThanOrEqual(100);
    const missing = hop(['eval', 'locomo', '--data', join(dir, 'none.json')]);
    expect(missing.status).toBe(2);
  });

  it('works on a named agent with --agent', () => {
    const path = tempFile();
    hop(['commit', '--file', path, '--line', 'main-line', '--label', 'primary task'], 'p');
    hop(
      ['commit', '--file', path, '--agent', 'helper', '--line', 'helper-line', '--label', 'helper task'],
      'h',
    );
    expect(hopJson<{ id: string }[]>(['lines', '--file', path]).map((l) => l.id)).toEqual(['main-line']);
    expect(
      hopJson<{ id: string }[]>(['lines', '--agent', 'helper', '--file', path]).map((l) => l.id),
    ).toEqual(['helper-line']);
    expect(hopJson<{ name: string }[]>(['agents', '--file', path]).map((a) => a.name)).toEqual([
      'primary',
      'helper',
    ]);
  });
});

describe('navigate threshold', () => {
  it(
    "defaults to the library's threshold, and a query loads exactly when navigate finds it",
    { timeout: 90_000 },
    () => {
      const help = hop(['navigate', '--help']).stdout;
      expect(help).toContain(`(default: "${DEFAULT_CONFIDENCE_THRESHOLD}")`);
      const path = join(tempDir(), 'threshold.db');
      hop(['demo', '--file', path, '--json']);
      for (const [query, status] of [
        ['how do refresh tokens work?', 0],
        ['zebra quantum marmalade', 2],
      ] as const) {
        expect(hop(['navigate', query, '--file', path, '--json']).status, query).toBe(status);
        expect(hop(['load', query, '--file', path, '--json']).status, query).toBe(status);
      }
    },
  );
});
