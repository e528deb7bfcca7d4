import { describe, expect, it } from 'vitest';
import { openMemory } from '../../src/api/memory-db.js';
import { MockSummarizer } from '../../src/llm/mock-summarizer.js';
import { ftsSegments } from '../helpers/fts-segments.js';
import { tempFile } from '../helpers/temp.js';
import { at } from './helpers.js';

describe('conversation writes and the recall index', () => {
  // A turn's records and its topic are written in one transaction: they must reach the index
  // as one segment (FTS5 writes a segment at every savepoint, a statement's own included).
  it('indexes a closed turn in one segment, however many records it writes', async () => {
    const path = tempFile();
    const db = await openMemory(path, { summarizer: new MockSummarizer() });
    const agent = db.primary();
    await agent.search();
    await agent.update({
      input: 'please deploy the billing service',
      output: 'deployed to staging, every check green',
      outcome: 'billing deployed',
      createdAt: at(1),
    });
    await db.close();
    expect(ftsSegments(path, 'search_fts')).toBe(1);
  });
});
