import { afterEach, expect, it } from 'vitest';
import { openMemory, type MemoryDB } from '../../src/index.js';
import { describeEngines } from '../helpers/engines.js';
import { task } from '../helpers/radial.js';

const open: MemoryDB[] = [];
afterEach(async () => {
  for (const db of open.splice(0)) if (!db.closed) await db.close();
});

/** Three tasks; the questions below name their subjects in other words than the tasks do. */
async function seed(db: MemoryDB): Promise<Record<string, string>> {
  const radial = db.primary().radial;
  await radial.createLine('web', 'Web app');
  await radial.createLine('ops', 'Operations');
  const picker = await radial.completeTask(
    task('web', 'Flaky date picker e2e test', {
      fullContext:
        'The date picker spec failed one run in five after midnight UTC; the test now pins the clock.',
      conversationSummary: 'Pinned the clock in the date picker spec.',
    }),
  );
  const key = await radial.completeTask(
    task('ops', 'Rotate the Stripe restricted API key', {
      fullContext:
        'The key showed up in a public gist. A new restricted key is in the vault; the old one is revoked.',
      conversationSummary: 'Rotated the restricted key after it showed up in a gist.',
    }),
  );
  const backups = await radial.completeTask(
    task('ops', 'Nightly backup job stopped uploading to S3', {
      fullContext:
        'pg_dump ran every night but the upload step lost its bucket policy; uploads resumed after the fix.',
      conversationSummary: 'Backups upload to S3 again.',
    }),
  );
  return { picker: picker.id, key: key.id, backups: backups.id };
}

describeEngines('navigation by words that name the same thing', (engine) => {
  it('finds a task from a question that names its subject in other words', async () => {
    const db = await openMemory(engine.memoryPath());
    open.push(db);
    const ids = await seed(db);
    const radial = db.primary().radial;
    const cases: [string, string][] = [
      ['the calendar widget check that broke', ids.picker as string],
      ['which leaked payment credential did we replace', ids.key as string],
      ['database dumps missing from object storage', ids.backups as string],
    ];
    for (const [question, id] of cases) {
      const session = await radial.navigate(question);
      expect(session?.node.id, question).toBe(id);
      // Found by other words: above the default threshold, below a match by the task's own words.
      expect(session?.confidence, question).toBeLessThan(1);
    }
    // The task's own words still count for more than other words naming the same thing.
    const own = await radial.navigate('date picker test');
    const other = await radial.navigate('calendar widget test');
    expect(own?.node.id).toBe(ids.picker);
    expect(other?.node.id).toBe(ids.picker);
    expect(own?.confidence ?? 0).toBeGreaterThan(other?.confidence ?? 1);
  });
});
