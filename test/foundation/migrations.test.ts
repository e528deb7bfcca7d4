import { copyFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openMemory } from '../../src/index.js';
import { SCHEMA_VERSION } from '../../src/store/migrations/index.js';
import { tempFile } from '../helpers/temp.js';

const fixtures = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures');

/** A copy of the fixture written at `version` (the fixtures themselves are never opened). */
function fixture(version: number): string {
  const path = tempFile(`v${version}.db`);
  copyFileSync(join(fixtures, `schema-v${version}.db`), path);
  return path;
}

describe('schema migrations', () => {
  it.each([1, 2, 3, 4])('opens and migrates a file written at schema %i', async (version) => {
    const db = await openMemory(fixture(version));
    expect((await db.stats()).schemaVersion).toBe(SCHEMA_VERSION);
    expect((await db.check()).ok).toBe(true);
    expect((await db.agents()).map((agent) => agent.name)).toEqual(['primary', 'helper']);
    const agent = db.primary();
    if (version >= 2) {
      const node = await agent.radial.getNodeOrThrow('auth', 1);
      expect(node.taskLabel).toBe('Add refresh-token rotation');
      expect(await agent.radial.loadFullState(node.id)).toBe('verbatim context of the rotation work ✓');
      // Migrating built the recall index over what the file already held.
      const recall = await agent.recall('refresh token rotation');
      expect(recall.hits.some((hit) => hit.layer === 'radial')).toBe(true);
    }
    if (version >= 3) {
      expect((await agent.getProfile()).name).toBe('Fixture agent');
      expect((await agent.listScenes()).map((scene) => scene.id)).toEqual(['scn_fixture']);
      const found = await agent.searchArchive({ text: 'staging deploy' });
      expect(found.map((record) => record.content)).toEqual(['why did the staging deploy fail?']);
    }
    if (version >= 4) {
      expect((await db.knowledge.list()).map((graph) => graph.label)).toEqual(['fixture graph']);
    }
    // New writes work on the migrated file.
    await agent.radial.getOrCreateLine('infra', 'Infrastructure', 'Servers');
    await agent.radial.completeTask({
      lineId: 'infra',
      taskLabel: 'after',
      fullContext: 'x',
      conversationSummary: 'y',
    });
    await db.close();
    const again = await openMemory(fixture(version));
    await again.close();
  });
});
