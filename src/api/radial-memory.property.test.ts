import fc from 'fast-check';
import { expect, it } from 'vitest';
import { describeEngines } from '../../test/helpers/engines.js';
import { MockSummarizer } from '../llm/mock-summarizer.js';
import { openTempMemory, task } from '../../test/helpers/radial.js';

type Op = { kind: 'commit'; line: number } | { kind: 'bad'; line: number } | { kind: 'ghost' };

const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 0, max: 2 }).map((line): Op => ({ kind: 'commit', line })) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 2 }).map((line): Op => ({ kind: 'bad', line })) },
  { weight: 1, arbitrary: fc.constant<Op>({ kind: 'ghost' }) },
);

describeEngines('radial memory properties', (engine) => {
  it('positions are always 1..n, newest first, on every line, whatever the sequence of calls', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { maxLength: 30 }), fc.boolean(), async (ops, concurrent) => {
        const { db } = await openTempMemory({ summarizer: new MockSummarizer() });
        const radial = db.primary().radial;
        for (const id of ['l0', 'l1', 'l2']) await radial.createLine(id);
        const expected: string[][] = [[], [], []];
        const run = async (entry: Op, i: number): Promise<void> => {
          if (entry.kind === 'commit') {
            const node = await radial.completeTask(task(`l${entry.line}`, `Task ${i}`));
            expected[entry.line]?.unshift(node.id);
          } else if (entry.kind === 'bad') {
            await expect(
              radial.completeTask({ ...task(`l${entry.line}`, ''), taskLabel: '' }),
            ).rejects.toThrow();
          } else {
            await expect(radial.completeTask(task('ghost', `Task ${i}`))).rejects.toThrow();
          }
        };
        if (concurrent) {
          // Concurrent commits land in completion order; compare as sets, positions still 1..n.
          await Promise.all(ops.map(run));
        } else {
          for (const [i, entry] of ops.entries()) await run(entry, i);
        }
        for (const [index, ids] of expected.entries()) {
          const history = await radial.getLineHistory(`l${index}`);
          expect(history.map((h) => h.position)).toEqual(ids.map((_, i) => i + 1));
          if (concurrent) expect(new Set(history.map((h) => h.nodeId))).toEqual(new Set(ids));
          else expect(history.map((h) => h.nodeId)).toEqual(ids);
          for (const [i, id] of ids.entries())
            expect((await radial.getNode(`l${index}`, i + 1))?.id).toBe(concurrent ? history[i]?.nodeId : id);
        }
        await db.close();
      }),
      { numRuns: 25 },
    );
  });

  it('the full state round-trips byte for byte for arbitrary text', async () => {
    const { db } = await openTempMemory({ summarizer: new MockSummarizer() });
    const radial = db.primary().radial;
    await radial.createLine('a');
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 2000 }),
          fc.string({ unit: 'grapheme', maxLength: 500 }),
          fc
            .array(fc.constantFrom('', '\n', '\r\n', ' ', '\t', '\u0000', 'é', '🦔', '日本', '\u200d'), {
              maxLength: 200,
            })
            .map((parts) => parts.join('')),
        ),
        async (text) => {
          // PostgreSQL text cannot hold NUL: a summary holding one is refused (docs/postgres.md,
          // "Where it differs from SQLite"); the full context is kept as bytes on both engines.
          const summary = engine.name === 'postgres' ? text.replaceAll('\u0000', '') : text;
          if (summary !== text) {
            const refused = await radial
              .completeTask(task('a', 'Verbatim', { fullContext: text, conversationSummary: text }))
              .catch((error: unknown) => error);
            expect(refused).toMatchObject({ code: 'INVALID_INPUT' });
          }
          const node = await radial.completeTask(
            task('a', 'Verbatim', { fullContext: text, conversationSummary: summary }),
          );
          const restored = await radial.loadFullState(node.id);
          expect(Buffer.from(restored, 'utf8').equals(Buffer.from(text, 'utf8'))).toBe(true);
          expect(restored).toBe(text);
          expect((await radial.getNodeOrThrow('a', 1)).state.conversationSummary).toBe(summary);
        },
      ),
      { numRuns: 150 },
    );
    await db.close();
  });
});
