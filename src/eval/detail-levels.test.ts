import { expect, it } from 'vitest';
import { evaluateDetailLevels, type DetailSet } from './detail-levels.js';

/** One short task whose bracket headers carry the turn on their line (`[user] …`). */
function inlineHeaderSet(): DetailSet {
  const fullContext = [
    '[user] The nightly export job has failed since Monday. Can you find out why?',
    '[tool: bash] tail -n 2 /var/log/export.log',
    '[tool output]',
    '2024-05-21T01:00:11Z ERROR ssh: handshake failed: no matching host key type',
    '[assistant] Root cause: the SFTP server dropped ssh-rsa, and our client only offered ssh-rsa keys.',
    '[assistant] Done: switched the job to an ed25519 key; the export ran at 01:00 and uploaded 12 files.',
  ].join('\n');
  return {
    version: 1,
    lines: [['ops', 'Operations', 'Jobs and servers']],
    tasks: [
      {
        id: 'x1',
        line: 'ops',
        taskLabel: 'Nightly export fails on ssh handshake',
        conversationSummary: '',
        fileChanges: [],
        todos: [],
        fullContext,
        decisionAt: 'end',
        keyFacts: [{ fact: 'Cause: the server dropped ssh-rsa', patterns: ['ssh-rsa'] }],
        questions: [{ q: 'why did the nightly export fail?', kind: 'lexical' }],
      },
    ],
  };
}

it('counts as tool output only the lines of tool blocks, when headers carry the turn on their line', async () => {
  const report = await evaluateDetailLevels(inlineHeaderSet());
  // The head…tail cut is the whole input here: its log line is tool output, its prose is not.
  expect(report.headTail.toolPieces).toBe(2);
  // Ours holds the cause and the outcome, prose written after a `[tool output]` block (counted as
  // tool output before: the block was read as running to the next header alone on its line).
  expect(report.ours.toolPieces).toBe(0);
  expect(report.ours.kept.brief.primary).toBe(1);
});
