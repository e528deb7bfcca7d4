import { describe, expect, it } from 'vitest';
import { messagesAsTranscript } from './message-transcript.js';
import { taskLevels } from './extractive-summary.js';

const CAPS = { origin: 80, brief: 200, summary: 600, detailed: 1800 } as const;

describe('messagesAsTranscript', () => {
  it('reads OpenAI chat messages: text, tool calls by name, tool results by call id', () => {
    const messages = [
      { role: 'system', content: 'You are a coding agent.' },
      { role: 'user', content: 'CI is red on main.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'bash', arguments: '{"cmd":"npm test"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: '1 failed\nDuration 2.31s' },
      { role: 'assistant', content: 'Root cause: the fixture clock is UTC.' },
    ];
    expect(messagesAsTranscript(JSON.stringify(messages))).toBe(
      [
        '[system]\nYou are a coding agent.',
        '[user]\nCI is red on main.',
        '[tool:bash]\n{"cmd":"npm test"}',
        '[tool:bash]\n1 failed\nDuration 2.31s',
        '[assistant]\nRoot cause: the fixture clock is UTC.',
      ].join('\n\n'),
    );
  });

  it("reads Anthropic content blocks and the Vercel AI SDK's parts, in an object's messages", () => {
    const anthropic = [
      { role: 'user', content: [{ type: 'text', text: 'Why did the export die?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'Exit 137 is SIGKILL.' },
          { type: 'tool_use', id: 't1', name: 'kubectl', input: { pod: 'export-1' } },
        ],
      },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'OOMKilled' }] }],
      },
    ];
    expect(messagesAsTranscript(JSON.stringify({ model: 'x', messages: anthropic }, null, 2))).toBe(
      [
        '[user]\nWhy did the export die?',
        '[assistant]\nExit 137 is SIGKILL.',
        '[tool:kubectl]\n{"pod":"export-1"}',
        '[tool:kubectl]\nOOMKilled',
      ].join('\n\n'),
    );
    const vercel = [
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'a', toolName: 'read', input: { path: 'a.ts' } }],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'a', toolName: 'read', output: { type: 'text', value: 'x' } },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Fixed.' }] },
    ];
    expect(messagesAsTranscript(JSON.stringify(vercel))).toBe(
      [
        '[tool:read]\n{"path":"a.ts"}',
        '[tool:read]\n{"type":"text","value":"x"}',
        '[assistant]\nFixed.',
      ].join('\n\n'),
    );
  });

  it('reads JSON Lines and items of the responses API', () => {
    const lines = [
      { role: 'user', content: [{ type: 'input_text', text: 'Bump the timeout.' }] },
      { type: 'function_call', call_id: 'f', name: 'edit', arguments: '{"file":"a.yml"}' },
      { type: 'function_call_output', call_id: 'f', output: 'ok' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Raised it to 900 s.' }] },
    ]
      .map((m) => JSON.stringify(m))
      .join('\n');
    expect(messagesAsTranscript(lines)).toBe(
      [
        '[user]\nBump the timeout.',
        '[tool:edit]\n{"file":"a.yml"}',
        '[tool:edit]\nok',
        '[assistant]\nRaised it to 900 s.',
      ].join('\n\n'),
    );
  });

  it('leaves everything else as it is', () => {
    for (const text of [
      'User: the build is red.\nassistant: fixed.',
      '[user]\nplain transcript',
      '[1, 2, 3]',
      '[]',
      '{"role": "user"',
      '{"level":"info","msg":"started"}\n{"level":"warn","msg":"slow"}',
      '[{"type":"click","x":1}]',
      '[{"role":"user","content":"hi"}, 4]',
      '{"messages": "none"}',
    ])
      expect(messagesAsTranscript(text)).toBe(text);
  });
});

describe('levels of a context that serialises chat messages', () => {
  const plain = [
    '[user]',
    'The nightly export has failed since Tuesday with exit 137.',
    '',
    '[tool:bash]',
    'kubectl describe pod export-1',
    'Reason: OOMKilled',
    '',
    '[assistant]',
    'Root cause: commit a91c2e0 added soft-deleted rows, which tripled the rows held in memory.',
    '',
    '[user]',
    'Make it stream.',
    '',
    '[assistant]',
    'Done: the export streams through a cursor now; peak RSS is 96 MB.',
  ].join('\n');
  const messages = JSON.stringify(
    [
      { role: 'user', content: 'The nightly export has failed since Tuesday with exit 137.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'k', function: { name: 'bash', arguments: 'kubectl describe pod export-1' } }],
      },
      { role: 'tool', tool_call_id: 'k', content: 'Reason: OOMKilled' },
      {
        role: 'assistant',
        content: 'Root cause: commit a91c2e0 added soft-deleted rows, which tripled the rows held in memory.',
      },
      { role: 'user', content: 'Make it stream.' },
      { role: 'assistant', content: 'Done: the export streams through a cursor now; peak RSS is 96 MB.' },
    ],
    null,
    2,
  );
  const task = { label: 'Nightly export OOM', summary: '', files: [], todos: [] };

  it('are the levels of the transcript it holds: no JSON syntax, no tool output', () => {
    const fromJson = taskLevels({ ...task, context: messagesAsTranscript(messages) }, CAPS);
    expect(fromJson).toEqual(taskLevels({ ...task, context: plain }, CAPS));
    for (const text of Object.values(fromJson)) {
      expect(text).not.toMatch(/"role"|"content"|\\n|OOMKilled/u);
    }
    expect(fromJson.brief).toContain('soft-deleted rows');
  });
});
