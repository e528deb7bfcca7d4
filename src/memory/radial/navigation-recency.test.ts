import { describe, expect, it } from 'vitest';
import { openTempMemory, task } from '../../../test/helpers/radial.js';
import { timeOfQuestion } from './radial-service.js';
import { withoutTimeCues } from '../../core/time-cues.js';

describe('navigation and time', () => {
  it('reads what a question says about time', () => {
    expect(timeOfQuestion('which algorithm hashes passwords now?')).toBe('current');
    expect(timeOfQuestion('is the cache still on Redis?')).toBe('current');
    expect(timeOfQuestion('what did we use originally for hashing?')).toBe('past');
    expect(timeOfQuestion('what were the thresholds before the change?')).toBe('past');
    expect(timeOfQuestion('how are passwords hashed?')).toBe('none');
    // "did … use to" asks about the past; "what do we use to …" does not.
    expect(timeOfQuestion('which queue did the mailer use to rely on?')).toBe('past');
    expect(timeOfQuestion('what do we use to hash passwords?')).toBe('none');
  });

  it('finds the task that migrated a thing for "now", the one that set it up for "originally"', async () => {
    const { db } = await openTempMemory();
    const radial = db.primary().radial;
    await radial.createLine('auth', 'Authentication');
    await radial.createLine('web', 'Web front end');
    const setup = await radial.completeTask(
      task('auth', 'Set up password hashing for user accounts', {
        fullContext:
          'Passwords are hashed with bcrypt at cost 12 in the user service. The password hashing helper lives in src/auth/hash.ts.',
      }),
    );
    await radial.completeTask(
      task('web', 'Dark mode for the settings page', { fullContext: 'Added a theme toggle.' }),
    );
    const migration = await radial.completeTask(
      task('auth', 'Migrate password hashing to argon2id', {
        fullContext:
          'Password hashing moved from bcrypt to argon2id; old hashes are rehashed at the next login. The hashing helper src/auth/hash.ts now calls argon2.',
      }),
    );
    const now = await radial.navigate('which algorithm hashes passwords now?', { confidenceThreshold: 0 });
    expect(now?.node.id).toBe(migration.id);
    const before = await radial.navigate('how were passwords hashed originally?', { confidenceThreshold: 0 });
    expect(before?.node.id).toBe(setup.id);
    await db.close();
  });

  it('matches the subject of a time question without its time cues', async () => {
    expect(withoutTimeCues('what did we originally use to hash passwords?')).not.toMatch(
      /originally|use to/u,
    );
    expect(withoutTimeCues('is the cache still on Redis?')).toMatch(/^is the cache\s+on Redis\?$/u);
    expect(withoutTimeCues('what do we use to hash passwords?')).toBe('what do we use to hash passwords?');
    expect(withoutTimeCues('now?')).toBe('now?');
    const { db } = await openTempMemory();
    const radial = db.primary().radial;
    await radial.createLine('auth', 'Authentication');
    const setup = await radial.completeTask(
      task('auth', 'Set up password hashing', {
        fullContext: 'Passwords are hashed with bcrypt at cost 12 in src/auth/hash.ts.',
        conversationSummary: '',
      }),
    );
    const migration = await radial.completeTask(
      task('auth', 'Migrate password hashing to argon2id', {
        fullContext:
          'Password hashing moved to argon2id. Originally we used bcrypt; logins now use argon2id and rehash old bcrypt hashes, and new sign-ups use argon2id too.',
        conversationSummary: '',
      }),
    );
    // The migration says "originally" and "use" in passing: that does not make it the older state.
    const before = await radial.navigate('what did we originally use to hash passwords?', {
      confidenceThreshold: 0,
    });
    expect(before?.node.id).toBe(setup.id);
    const now = await radial.navigate('what do we use to hash passwords now?', { confidenceThreshold: 0 });
    expect(now?.node.id).toBe(migration.id);
    await db.close();
  });

  it('gives a near tie to the newer node, and "used to" to the older one', async () => {
    const { db } = await openTempMemory();
    const radial = db.primary().radial;
    await radial.createLine('ops', 'Operations');
    const text = {
      fullContext: 'The deploy pipeline pushes images to the registry and rolls the web tier.',
      conversationSummary: 'Deploy pipeline notes.',
    };
    const older = await radial.completeTask(task('ops', 'Deploy pipeline notes', text));
    const newer = await radial.completeTask(task('ops', 'Deploy pipeline notes', text));
    const tie = await radial.navigate('deploy pipeline registry', { confidenceThreshold: 0 });
    expect(tie?.node.id).toBe(newer.id);
    expect(tie?.candidates.map((c) => c.node.id)).toEqual([newer.id, older.id]);
    const past = await radial.navigate('how did the deploy pipeline use to reach the registry?', {
      confidenceThreshold: 0,
    });
    expect(past?.node.id).toBe(older.id);
    await db.close();
  });
});
