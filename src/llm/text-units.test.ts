import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clauseSpans, lineKind, splitSentences, splitUnits } from './text-units.js';

/** [sentence that must come back whole, tokens that must each appear intact in one sentence]. */
const TRICKY: readonly [string, readonly string[]][] = [
  ['The job failed at 02:17 and again at 14:03:12.', ['02:17', '14:03:12.']],
  ['The first error is at 2024-03-12T08:31:12Z in the gateway.', ['2024-03-12T08:31:12Z']],
  ['Offsets like 2024-03-12T08:31:12.123+01:00 parse fine.', ['2024-03-12T08:31:12.123+01:00']],
  ['We evicted cache:user:42 and login:fail:7 by hand.', ['cache:user:42', 'login:fail:7']],
  ['The run cost $301.77 instead of $412.50 last month.', ['$301.77', '$412.50']],
  ['Upgraded pyarrow 14.0.2 -> 15.0.0 and Node v20.11.1 too.', ['14.0.2', '15.0.0', 'v20.11.1']],
  ['The fix lives in src/lake/writer.py and ../kafka-connect-config/a.json now.', ['src/lake/writer.py']],
  [
    'Docs are at https://docs.example.dev/guides/a.b?x=1&y=2#top for now.',
    ['https://docs.example.dev/guides/a.b?x=1&y=2#top'],
  ],
  ['Then [tool: edit] changed the file.', ['[tool:', 'edit]']],
  ['Use a pool, e.g. sixteen threads, i.e. one per core, vs. the old loop.', ['e.g.', 'i.e.', 'vs.']],
  ['Dr. Quiroga and J. Brandt approved it.', ['Dr.', 'J.']],
  ['Latency went from 1.9 s to 3.4 s (p50) on 4.12.0.', ['1.9', '3.4', '4.12.0.']],
  ['同期ボタンを修正しました。', ['同期ボタンを修正しました。']],
  ['Shipped 🎉 with the 👨‍👩‍👧 fix.', ['🎉', '👨‍👩‍👧']],
  ['Counted 21,400 files in 41.3 s.', ['21,400', '41.3']],
  ['Both run in one transaction with SELECT … FOR UPDATE so they cannot race.', ['SELECT … FOR UPDATE']],
];

/** `text`'s units as [role, kind, text], each checked to be the verbatim span it claims. */
function unitsOf(text: string): [string, string, string][] {
  const units = splitUnits(text);
  for (const unit of units) expect(text.slice(unit.start, unit.end)).toBe(unit.text);
  return units.map((u) => [u.role, u.kind, u.text]);
}

describe('splitSentences: tricky strings', () => {
  it.each(TRICKY)('keeps %j whole', (sentence, tokens) => {
    const text = `Before it. ${sentence} After it.`;
    const out = splitSentences(text);
    expect(out).toEqual(['Before it.', sentence, 'After it.']);
    for (const token of tokens) expect(out[1]).toContain(token);
  });

  it('keeps list numbers with their item', () => {
    expect(splitSentences('Plan: 1. read the log. 2. compare the hours.')).toEqual([
      'Plan: 1. read the log.',
      '2. compare the hours.',
    ]);
    expect(splitSentences('1. First item here.')).toEqual(['1. First item here.']);
  });

  it('ends a sentence at an ellipsis before a capitalised word, but not at an elision before a keyword', () => {
    expect(splitSentences('We waited… Then it passed.')).toEqual(['We waited…', 'Then it passed.']);
    expect(splitSentences('We waited … Then it passed.')).toEqual(['We waited …', 'Then it passed.']);
    expect(splitSentences('It ran SELECT … FROM users twice.')).toEqual([
      'It ran SELECT … FROM users twice.',
    ]);
  });

  it('splits CJK sentences without spaces and ends at ! and ?', () => {
    expect(splitSentences('数据库迁移完成了。然后测试！Why? Because.')).toEqual([
      '数据库迁移完成了。',
      '然后测试！',
      'Why?',
      'Because.',
    ]);
  });

  it('never loses or adds a character (only whitespace between sentences)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (text) => {
        const out = splitSentences(text);
        for (const sentence of out) expect(text).toContain(sentence);
        expect(out.join('').replace(/\s+/gu, '')).toBe(text.replace(/\s+/gu, ''));
      }),
      { numRuns: 300 },
    );
  });
});

describe('splitUnits', () => {
  const transcript = [
    '[user]',
    'The export failed at 02:17:',
    'pyarrow.lib.ArrowInvalid: Casting from timestamp[ns] to timestamp[us] would lose data',
    '',
    '[tool:bash]',
    '$ pytest -q',
    '4 passed in 1.92s',
    '',
    '[assistant]',
    'Root cause: the new pandas keeps nanoseconds. I kept pyarrow 15.',
    '@@ -46,1 +46,2 @@',
    '-    old()',
    '+    new()',
    '{"level": "info", "msg": "done"}',
    '2024-03-06T13:11:06Z INFO compact: read 500 files',
    '    at Object.run (src/main.ts:10:5)',
    'Done: the export ran in 3m11s.',
  ].join('\n');

  it('types every line (a tool block is one unit) and keeps units verbatim', () => {
    const units = splitUnits(transcript);
    for (const unit of units) expect(transcript.slice(unit.start, unit.end)).toBe(unit.text);
    const kinds = units.map((u) => `${u.role}/${u.kind}: ${u.text.slice(0, 12)}`);
    expect(kinds).toEqual([
      'user/prose: The export f',
      'user/stack: pyarrow.lib.',
      'tool/tool: $ pytest -q\n',
      'assistant/prose: Root cause: ',
      'assistant/prose: I kept pyarr',
      'assistant/diff: @@ -46,1 +46',
      'assistant/diff: -    old()',
      'assistant/diff: +    new()',
      'assistant/json: {"level": "i',
      'assistant/log: 2024-03-06T1',
      'assistant/stack: at Object.ru',
      'assistant/prose: Done: the ex',
    ]);
  });

  it('joins wrapped lines into one sentence and reads `Role:` prefixes', () => {
    const units = splitUnits('User: the build is\nbroken again since Monday.\nAssistant: Fixed it.');
    expect(units.map((u) => [u.role, u.text])).toEqual([
      ['user', 'the build is\nbroken again since Monday.'],
      ['assistant', 'Fixed it.'],
    ]);
  });

  it('reads a tool call on one line (`[tool: bash] cmd`) and its output up to the next `Role:` line as tool output', () => {
    const text = [
      'User: the export died with 137.',
      'assistant: Let me check the pod.',
      '[tool: bash] kubectl describe pod export-1',
      'State:      Terminated',
      '  Reason:   OOMKilled',
      '[tool: bash] npm test',
      ' Test Files  1 passed (1)',
      '   Duration  2.31s (transform 310ms, setup 0ms)',
      'Assistant: Streaming works: peak RSS is now 96 MB.',
      'Tool output: {"ok": true}',
      'user: Ship it.',
    ].join('\n');
    expect(unitsOf(text)).toEqual([
      ['user', 'prose', 'the export died with 137.'],
      ['assistant', 'prose', 'Let me check the pod.'],
      ['tool', 'tool', '[tool: bash] kubectl describe pod export-1'],
      ['tool', 'tool', 'State:      Terminated\n  Reason:   OOMKilled'],
      ['tool', 'tool', '[tool: bash] npm test'],
      ['tool', 'tool', 'Test Files  1 passed (1)\n   Duration  2.31s (transform 310ms, setup 0ms)'],
      ['assistant', 'prose', 'Streaming works: peak RSS is now 96 MB.'],
      ['tool', 'tool', '{"ok": true}'],
      ['user', 'prose', 'Ship it.'],
    ]);
  });

  it('ends a tool block opened by a header line at the next `Role:` line in a transcript whose turns open with one', () => {
    const text = [
      'Human: The export fails since last night.',
      '',
      'Assistant: Checking the log.',
      '',
      '[Tool call: bash]',
      'tail -n 2 /var/log/export.log',
      '',
      '[Tool result]',
      '2024-05-21T01:00:11Z ERROR ssh: handshake failed',
      '',
      'Assistant: Found it. The server no longer accepts ssh-rsa.',
      '',
      'Human: Fix it.',
    ].join('\n');
    expect(unitsOf(text)).toEqual([
      ['user', 'prose', 'The export fails since last night.'],
      ['assistant', 'prose', 'Checking the log.'],
      ['tool', 'tool', 'tail -n 2 /var/log/export.log'],
      ['tool', 'tool', '2024-05-21T01:00:11Z ERROR ssh: handshake failed'],
      ['assistant', 'prose', 'Found it.'],
      ['assistant', 'prose', 'The server no longer accepts ssh-rsa.'],
      ['user', 'prose', 'Fix it.'],
    ]);
    // Where turns open with header lines, a tool block still runs to the next header.
    const headers = splitUnits(
      '[user]\nWhy?\n[tool: bash]\nuser: root\nAssistant: not a turn here\n[assistant]\nDone.',
    );
    expect(headers.map((u) => [u.role, u.kind, u.text])).toEqual([
      ['user', 'prose', 'Why?'],
      ['tool', 'tool', 'user: root\nAssistant: not a turn here'],
      ['assistant', 'prose', 'Done.'],
    ]);
  });

  it('reads bracket headers with the turn on the same line (`[user] The badge …`), tool output ending at the next one', () => {
    const text = [
      '[user] The cart badge does not update after "Add all". Can you find out why?',
      '',
      '[assistant] I will check how the header reads the count.',
      '',
      '[tool: bash] grep -rn "mutate(" src',
      '[tool output]',
      "src/AddAll.tsx:31:  await mutate('/api/cart')",
      '',
      '[assistant] The badge listens on another key. Root cause: a key mismatch.',
      '[user] Ship it.',
    ].join('\n');
    expect(unitsOf(text)).toEqual([
      ['user', 'prose', 'The cart badge does not update after "Add all".'],
      ['user', 'prose', 'Can you find out why?'],
      ['assistant', 'prose', 'I will check how the header reads the count.'],
      ['tool', 'tool', '[tool: bash] grep -rn "mutate(" src'],
      ['tool', 'tool', "src/AddAll.tsx:31:  await mutate('/api/cart')"],
      ['assistant', 'prose', 'The badge listens on another key.'],
      ['assistant', 'prose', 'Root cause: a key mismatch.'],
      ['user', 'prose', 'Ship it.'],
    ]);
    // A bracket that is not a speaker's opens no turn: `[INFO] …` inside tool output stays output.
    const logs = splitUnits(
      '[user] Why?\n[tool: bash] cat app.log\n[INFO] user logged in\n[assistant] Done.',
    );
    expect(logs.map((u) => [u.role, u.kind, u.text])).toEqual([
      ['user', 'prose', 'Why?'],
      ['tool', 'tool', '[tool: bash] cat app.log'],
      ['tool', 'tool', '[INFO] user logged in'],
      ['assistant', 'prose', 'Done.'],
    ]);
  });

  it('reads a log whose lines open with their time (`[10:32:01] user: …`, `2024-03-12T08:31:12Z tool: …`)', () => {
    const text = [
      '[10:32:01] user: The export fails since last night.',
      '[10:32:05] assistant: Checking the log.',
      '[10:32:06] tool: tail -n 1 /var/log/export.log',
      '2024-05-21T01:00:11Z ERROR ssh: handshake failed',
      '2024-05-21T10:33:00Z assistant: Found it. The server no longer accepts ssh-rsa.',
    ].join('\n');
    expect(unitsOf(text)).toEqual([
      ['user', 'prose', 'The export fails since last night.'],
      ['assistant', 'prose', 'Checking the log.'],
      ['tool', 'tool', 'tail -n 1 /var/log/export.log'],
      ['tool', 'tool', '2024-05-21T01:00:11Z ERROR ssh: handshake failed'],
      ['assistant', 'prose', 'Found it.'],
      ['assistant', 'prose', 'The server no longer accepts ssh-rsa.'],
    ]);
    // A time in prose opens no turn unless a speaker follows it.
    expect(splitUnits('At 10:32 users: none were logged out.').map((u) => u.role)).toEqual(['none']);
  });

  it('reads turns written with tags (`<user>`, `<tool_result>`), a closing tag ending the turn', () => {
    const text = [
      '<user>',
      'The export fails since last night.',
      '</user>',
      '<tool_result>',
      '2024-05-21T01:00:11Z ERROR ssh: handshake failed',
      'exit status 255',
      '</tool_result>',
      '<assistant>',
      'Found it. The server no longer accepts ssh-rsa.',
      '</assistant>',
    ].join('\n');
    expect(unitsOf(text)).toEqual([
      ['user', 'prose', 'The export fails since last night.'],
      ['tool', 'tool', '2024-05-21T01:00:11Z ERROR ssh: handshake failed\nexit status 255'],
      ['assistant', 'prose', 'Found it.'],
      ['assistant', 'prose', 'The server no longer accepts ssh-rsa.'],
    ]);
    // A tag that names no speaker or tool is text (`<div>` in a snippet stays code or prose).
    expect(splitUnits('<div>').map((u) => u.role)).toEqual(['none']);
  });

  it("reads Claude Code's terminal transcript: `>` opens the user's turn, `⏺` the agent's, `⏺ Tool(…)` a call with its `⎿` output", () => {
    const text = [
      '> the nightly invoice job crashed with "KeyError: \'currency\'", can you fix it?',
      '',
      '⏺ Bash(python -m billing.nightly --dry-run | tail -n 2)',
      "  ⎿  KeyError: 'currency'",
      '     > not a turn: indented output',
      '',
      '⏺ Found it. Partner line items have no currency field.',
      '',
      '⏺ Update(billing/nightly.py)',
      '  ⎿  Updated billing/nightly.py with 1 addition',
      '       87 +        currency = line.get("currency") or order["currency"]',
      '',
      "⏺ Fixed: a line without a currency takes the order's.",
    ].join('\n');
    const units = splitUnits(text);
    for (const unit of units) expect(text.slice(unit.start, unit.end)).toBe(unit.text);
    expect(units.map((u) => [u.role, u.kind, u.text.split('\n')[0]])).toEqual([
      ['user', 'prose', 'the nightly invoice job crashed with "KeyError: \'currency\'", can you fix it?'],
      ['tool', 'tool', '⏺ Bash(python -m billing.nightly --dry-run | tail -n 2)'],
      ['tool', 'tool', "⎿  KeyError: 'currency'"],
      ['assistant', 'prose', 'Found it.'],
      ['assistant', 'prose', 'Partner line items have no currency field.'],
      ['tool', 'tool', '⏺ Update(billing/nightly.py)'],
      ['tool', 'tool', '⎿  Updated billing/nightly.py with 1 addition'],
      ['assistant', 'prose', "Fixed: a line without a currency takes the order's."],
    ]);
    // Without `⏺` lines, `> ` stays a shell prompt.
    expect(splitUnits('Run it:\n> npm test').map((u) => u.kind)).toEqual(['prose', 'command']);
  });

  it('reads the roles of chats exported as Markdown (`## User`, `**Assistant:**`)', () => {
    const roles = (text: string): string[][] => splitUnits(text).map((u) => [u.role, u.text]);
    expect(roles('## User\nThe build fails on main.\n\n## Assistant\nThe type of `id` changed.')).toEqual([
      ['user', 'The build fails on main.'],
      ['assistant', 'The type of `id` changed.'],
    ]);
    expect(roles('**User:** The build fails.\n**Assistant**: Fixed it.\n**Human**\nThanks.')).toEqual([
      ['user', 'The build fails.'],
      ['assistant', 'Fixed it.'],
      ['user', 'Thanks.'],
    ]);
    // A document's own section headings are not turns.
    expect(roles('## System design\nThe queue is durable.')).toEqual([
      ['none', '## System design'],
      ['none', 'The queue is durable.'],
    ]);
  });

  it('keeps code fences as code', () => {
    const units = splitUnits('Here it is.\n```ts\nconst a = 1\n```\nThat works.');
    expect(units.map((u) => u.kind)).toEqual(['prose', 'code', 'code', 'code', 'prose']);
  });

  it('classifies single lines', () => {
    expect(lineKind('Casting worked fine after the change.', false)).toBe('prose');
    expect(lineKind('$ cargo test', false)).toBe('command');
    expect(lineKind('run_id    start (UTC)     duration', false)).toBe('table');
    expect(lineKind('+ added line', true)).toBe('diff');
    expect(lineKind('+ added line', false)).toBe('prose');
  });

  it('reads a list item of words that ends with `;` as prose, a statement that does as code', () => {
    expect(
      lineKind('2. we stop shipping the 32-bit builds, since almost nobody downloads them;', false),
    ).toBe('prose');
    expect(lineKind('- the staging alerts go to their own channel from now on;', false)).toBe('prose');
    expect(lineKind('let total = items.reduce((a, b) => a + b, 0);', false)).toBe('code');
    expect(lineKind('return cache.get(key) ?? load(key);', false)).toBe('code');
    expect(lineKind('import { join } from "node:path";', false)).toBe('code');
  });
});

describe('clauseSpans', () => {
  it('cuts only after punctuation followed by whitespace', () => {
    const text = 'At 08:31:12 the key cache:user:42 expired, so logins failed; we fixed it';
    const clauses = clauseSpans(text, 0, text.length).map(([s, e]) => text.slice(s, e));
    expect(clauses).toEqual([
      'At 08:31:12 the key cache:user:42 expired,',
      'so logins failed;',
      'we fixed it',
    ]);
  });
});
