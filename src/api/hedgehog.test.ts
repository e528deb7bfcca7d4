import { expect, it } from 'vitest';
import { exportHedgehog, importHedgehog } from './hedgehog.js';
import { describeEngines, memoryDigest } from '../../test/helpers/engines.js';
import { loadCorpus, openTempMemory } from '../../test/helpers/radial.js';
import { formatLocalTimestamp, parseLocalTimestamp } from '../memory/radial/hedgehog-format.js';
import { rejection } from '../../test/helpers/errors.js';

/**
 * An origin.json written the way HedgehogMemory writes it (spec §3): json.dump(indent=2,
 * ensure_ascii=False), keys in its order, no trailing newline. It holds what a real store can:
 * Unicode, escaped control characters, summaries keyed in another order or missing a level or
 * under a key outside 0..3, a null state, a null full context, floats such as 1.0 and 1e-05,
 * NaN and a big integer in env_info, a line with no nodes, and accumulated histories.
 */
const ORIGIN_JSON = [
  '{',
  '  "project_name": "Café 🦔 Project",',
  '  "created_at": "2026-01-01T10:00:00",',
  '  "lines": {',
  '    "auth": {',
  '      "id": "auth",',
  '      "name": "Authentication Module",',
  '      "description": "JWT, login, session management",',
  '      "created_at": "2026-01-01T10:00:05",',
  '      "nodes": [',
  '        {',
  '          "id": "6f1c2d8e-1111-4a5b-9c0d-000000000002",',
  '          "line_id": "auth",',
  '          "position": 1,',
  '          "created_at": "2026-01-02T09:30:00",',
  '          "task_label": "Add JWT refresh endpoint",',
  '          "summaries": {',
  '            "3": "Implemented /refresh endpoint with token rotation.\\n\\nTODOs: Deploy to staging",',
  '            "2": "Implemented /refresh endpoint with token rotation.",',
  '            "1": "Implemented /refresh … staging",',
  '            "0": "Implemented /refresh"',
  '          },',
  '          "state": {',
  '            "conversation_summary": "Implemented /refresh endpoint with token rotation.",',
  '            "modified_files": [',
  '              {',
  '                "path": "auth/views.py",',
  '                "change_type": "modified",',
  '                "diff_summary": "refresh view"',
  '              }',
  '            ],',
  '            "env_info": {',
  '              "python": "3.11",',
  '              "ratio": 1.0,',
  '              "tiny": 1e-05,',
  '              "big": 123456789012345678901234567890,',
  '              "nan": NaN,',
  '              "nested": {',
  '                "list": [',
  '                  1,',
  '                  2.5,',
  '                  true,',
  '                  null',
  '                ],',
  '                "empty": {},',
  '                "none": []',
  '              }',
  '            },',
  '            "todos": [',
  '              "Deploy to staging"',
  '            ],',
  '            "full_context": "line one\\n\\n\\tindented «quoted» \\"double\\" \\\\ back\\u0001slash\\n日本語 🦔"',
  '          },',
  '          "accumulated_history_summary": "[2026-01-01 - Implement JWT login endpoint]: Discussed JWT vs Session"',
  '        },',
  '        {',
  '          "id": "6f1c2d8e-1111-4a5b-9c0d-000000000001",',
  '          "line_id": "auth",',
  '          "position": 2,',
  '          "created_at": "2026-01-01T11:00:00",',
  '          "task_label": "Implement JWT login endpoint",',
  '          "summaries": {',
  '            "1": "Discussed JWT vs Session",',
  '            "0": "Discussed JWT",',
  '            "3": "Discussed JWT vs Session tradeoffs, chose JWT.",',
  '            "7": "a summary under a key HedgehogMemory never writes"',
  '          },',
  '          "state": {',
  '            "conversation_summary": "Discussed JWT vs Session tradeoffs, chose JWT.",',
  '            "modified_files": [],',
  '            "env_info": {},',
  '            "todos": [],',
  '            "full_context": null',
  '          },',
  '          "accumulated_history_summary": "Implement JWT login endpoint"',
  '        }',
  '      ]',
  '    },',
  '    "infra": {',
  '      "id": "infra",',
  '      "name": "Infrastructure",',
  '      "description": "",',
  '      "created_at": "2026-01-01T10:00:06",',
  '      "nodes": []',
  '    },',
  '    "notes": {',
  '      "id": "notes",',
  '      "name": "Notes",',
  '      "description": "state-less nodes",',
  '      "created_at": "2026-01-03T08:00:00",',
  '      "nodes": [',
  '        {',
  '          "id": "6f1c2d8e-1111-4a5b-9c0d-000000000003",',
  '          "line_id": "notes",',
  '          "position": 1,',
  '          "created_at": "2026-01-03T08:01:00",',
  '          "task_label": "",',
  '          "summaries": {},',
  '          "state": null,',
  '          "accumulated_history_summary": ""',
  '        }',
  '      ]',
  '    }',
  '  }',
  '}',
].join('\n');

describeEngines('HedgehogMemory origin.json', () => {
  it('imports losslessly: exporting again gives the identical file', async () => {
    const { db } = await openTempMemory();
    const report = await importHedgehog(db.primary(), ORIGIN_JSON);
    expect(report).toEqual({ projectName: 'Café 🦔 Project', projectNameKept: false, lines: 3, nodes: 3 });
    const exported = await exportHedgehog(db.primary());
    expect(exported).toBe(ORIGIN_JSON);
    expect(exported.endsWith('}')).toBe(true);
    await db.close();
  });

  it('makes imported data usable: positions, levels, state, verbatim restore, navigation', async () => {
    const { db } = await openTempMemory();
    const agent = db.primary();
    await importHedgehog(agent, ORIGIN_JSON);
    const radial = agent.radial;
    expect(await radial.getProjectName()).toBe('Café 🦔 Project');
    expect((await radial.listLines()).map((l) => [l.id, l.nodeCount])).toEqual([
      ['auth', 2],
      ['infra', 0],
      ['notes', 1],
    ]);
    const newest = await radial.getNodeOrThrow('auth', 1);
    expect(newest).toMatchObject({
      id: '6f1c2d8e-1111-4a5b-9c0d-000000000002',
      taskLabel: 'Add JWT refresh endpoint',
      createdAt: parseLocalTimestamp('2026-01-02T09:30:00'),
      summaries: { origin: 'Implemented /refresh', brief: 'Implemented /refresh … staging' },
      summariesState: 'ready',
    });
    expect(newest.state.fileChanges).toEqual([
      { path: 'auth/views.py', changeType: 'modified', diffSummary: 'refresh view' },
    ]);
    expect(newest.state.envSnapshot['ratio']).toBe(1);
    expect(await radial.loadFullState(newest.id)).toBe(
      'line one\n\n\tindented «quoted» "double" \\ back\u0001slash\n日本語 🦔',
    );
    const older = await radial.getNodeOrThrow('auth', 2);
    expect(older.summaries.summary).toBe('Discussed JWT vs Session');
    expect(await radial.loadFullState(older.id)).toBe('');
    expect((await radial.navigate('token rotation refresh'))?.node.id).toBe(newest.id);
    // New commits continue the imported line; the file round-trips with them too.
    await radial.completeTask({
      lineId: 'auth',
      taskLabel: 'Logout',
      fullContext: 'x',
      conversationSummary: 'y',
    });
    expect((await radial.getNodeOrThrow('auth', 3)).id).toBe(older.id);
    await db.close();
  });

  it('exports native memories in the format, and they round-trip too', async () => {
    const { db } = await openTempMemory();
    await loadCorpus(db);
    const exported = await exportHedgehog(db.primary());
    const parsed = JSON.parse(exported) as {
      project_name: string;
      lines: Record<
        string,
        { nodes: { position: number; summaries: Record<string, string>; state: object }[] }
      >;
    };
    expect(Object.keys(parsed)).toEqual(['project_name', 'created_at', 'lines']);
    expect(Object.keys(parsed.lines)).toEqual(['auth', 'rec', 'infra']);
    const node = parsed.lines['auth']?.nodes[0];
    expect(Object.keys(node ?? {})).toEqual([
      'id',
      'line_id',
      'position',
      'created_at',
      'task_label',
      'summaries',
      'state',
      'accumulated_history_summary',
    ]);
    expect(Object.keys(node?.summaries ?? {})).toEqual(['0', '1', '2', '3']);
    expect(Object.keys(node?.state ?? {})).toEqual([
      'conversation_summary',
      'modified_files',
      'env_info',
      'todos',
      'full_context',
    ]);
    expect(parsed.lines['auth']?.nodes.map((n) => n.position)).toEqual([1, 2, 3]);
    expect(exported).toBe(JSON.stringify(JSON.parse(exported), null, 2));
    await db.close();
  });

  it('re-imports its own export byte for byte', async () => {
    const first = await openTempMemory();
    await loadCorpus(first.db);
    const exported = await exportHedgehog(first.db.primary());
    await first.db.close();
    const second = await openTempMemory();
    await importHedgehog(second.db.primary(), exported);
    expect(await exportHedgehog(second.db.primary())).toBe(exported);
    await second.db.close();
  });

  it('refuses a broken file before writing anything, naming the JSON path', async () => {
    const { db, path } = await openTempMemory();
    const before = await memoryDigest(path);
    const cases: [string, string][] = [
      ['{"project_name": "x", "created_at": "t", "lines": {', 'json'],
      ['[]', 'json'],
      ['{"created_at": "t"}', 'json.project_name'],
      [
        ORIGIN_JSON.replace('"task_label": "Add JWT refresh endpoint"', '"task_label": 5'),
        'json.lines.auth.nodes[0].task_label',
      ],
      [ORIGIN_JSON.replace('"position": 2', '"position": 5'), 'json.lines.auth.nodes[1].position'],
      [ORIGIN_JSON.replace('"line_id": "notes"', '"line_id": "auth"'), 'json.lines.notes.nodes[0].line_id'],
      [
        ORIGIN_JSON.replace('"3": "Implemented', '"three": "Implemented'),
        'json.lines.auth.nodes[0].summaries.three',
      ],
      [
        ORIGIN_JSON.replace('"path": "auth/views.py",', ''),
        'json.lines.auth.nodes[0].state.modified_files[0].path',
      ],
      [
        ORIGIN_JSON.replace('"todos": [\n              "Deploy to staging"\n            ]', '"todos": [1]'),
        'json.lines.auth.nodes[0].state.todos[0]',
      ],
      [ORIGIN_JSON.replace('"id": "infra"', '"id": "other"'), 'json.lines.infra.id'],
      [
        ORIGIN_JSON.replace('"full_context": null', '"full_context": "\\ud800"'),
        'json.lines.auth.nodes[1].state.full_context',
      ],
      [ORIGIN_JSON.replace('000000000003', '000000000001'), 'json.lines.notes.nodes[0].id'],
    ];
    for (const [text, field] of cases) {
      const error = await rejection(importHedgehog(db.primary(), text));
      expect(error.code, field).toBe('INVALID_INPUT');
      expect(error.field, text.slice(0, 40)).toBe(field);
    }
    expect(await memoryDigest(path)).toBe(before);
    await db.close();
  });

  it('a line or node id already present is a CONFLICT and nothing is written', async () => {
    const { db, path } = await openTempMemory();
    await db.primary().radial.createLine('notes');
    const before = await memoryDigest(path);
    expect((await rejection(importHedgehog(db.primary(), ORIGIN_JSON))).code).toBe('CONFLICT');
    expect(await memoryDigest(path)).toBe(before);
    const other = await db.agent('second');
    const withoutNotes = await openTempMemory();
    await importHedgehog(withoutNotes.db.primary(), ORIGIN_JSON);
    await withoutNotes.db.close();
    await importHedgehog(await db.agent('third'), ORIGIN_JSON);
    expect((await rejection(importHedgehog(other, ORIGIN_JSON))).message).toContain('already exists');
    await db.close();
  });

  it('keeps the memory’s own project name when it already has lines', async () => {
    const { db } = await openTempMemory();
    await db.primary().radial.setProjectName('Mine');
    await db.primary().radial.createLine('existing');
    const report = await importHedgehog(db.primary().radial, ORIGIN_JSON);
    expect(report).toMatchObject({ projectName: 'Mine', projectNameKept: true });
    await db.close();
  });

  it('formats and parses local timestamps as Python’s isoformat does', () => {
    const ms = parseLocalTimestamp('2026-11-30T05:23:41');
    expect(ms).toBeDefined();
    expect(formatLocalTimestamp(ms as number)).toBe('2026-11-30T05:23:41');
    expect(parseLocalTimestamp('2026-11-30T05:23:41.500000')).toBe((ms as number) + 500);
    expect(parseLocalTimestamp('not a date')).toBeUndefined();
  });
});
