import { describe, expect, it } from 'vitest';
import { openMemory } from '../../src/api/memory-db.js';
import { ftsSegments as segments } from '../helpers/fts-segments.js';
import { tempFile } from '../helpers/temp.js';

const entities = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) => ({
    name: `service ${from + i}`,
    entityType: 'service',
    observations: [`deploys to cluster ${from + i}`, 'owned by the platform team'],
  }));

describe('knowledge writes and the FTS5 indexes', () => {
  // Each segment is one more b-tree every later query looks each term up in: a write of ten
  // nodes must add one segment to each index, not one per node.
  it('writes the rows of one call to each index as one segment', async () => {
    const path = tempFile();
    const db = await openMemory(path);
    const memory = db.knowledge.memoryServer();
    await memory.createEntities(entities(0, 10));
    await db.close();
    expect(segments(path, 'kg_node_text')).toBe(1);
    expect(segments(path, 'search_fts')).toBe(1);
  });

  it('rewrites the rows of updated nodes in one more segment', async () => {
    const path = tempFile();
    const db = await openMemory(path);
    const memory = db.knowledge.memoryServer();
    await memory.createEntities(entities(0, 10));
    await memory.addObservations(
      entities(0, 5).map((entity) => ({ entityName: entity.name, contents: ['moved to the new region'] })),
    );
    const found = await memory.searchNodes('new region');
    await db.close();
    expect(found.entities.map((entity) => entity.name)).toEqual(entities(0, 5).map((entity) => entity.name));
    expect(segments(path, 'kg_node_text')).toBeLessThanOrEqual(2);
    expect(segments(path, 'search_fts')).toBeLessThanOrEqual(2);
  });
});
