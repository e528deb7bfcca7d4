/**
 * The drop-in checked side by side with the MCP reference memory server
 * (`@modelcontextprotocol/server-memory`, a pinned dev dependency) run as a stdio child: the same
 * calls go to both, and where the issue asks for the reference's behaviour the answers agree.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { referenceServerPath } from '../../bench/peers.js';
import { connect, json, type Connected } from './helpers.js';

let dir: string;
let reference: Client;
let ours: Connected;

async function both(name: string, args: Record<string, unknown>): Promise<[CallToolResult, CallToolResult]> {
  const theirs = (await reference.callTool({ name, arguments: args })) as CallToolResult;
  return [theirs, await ours.call(name, args)];
}

const entityNames = (result: CallToolResult): string[] =>
  (result.structuredContent as { entities: { name: string }[] }).entities.map((e) => e.name).sort();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hedgehop-parity-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [referenceServerPath()],
    env: { ...(process.env as Record<string, string>), MEMORY_FILE_PATH: join(dir, 'memory.jsonl') },
    stderr: 'ignore',
  });
  reference = new Client({ name: 'parity', version: '1.0.0' });
  await reference.connect(transport);
  ours = await connect();
  await both('create_entities', {
    entities: [
      { name: 'Ada', entityType: 'person', observations: ['writes Rust', 'said wow!!! twice'] },
      { name: 'Acme', entityType: 'organization', observations: ['makes anvils'] },
    ],
  });
});

afterAll(async () => {
  await reference.close();
  await ours.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the memory-server drop-in beside the reference server', () => {
  it('create_relations with a missing entity keeps the valid relations and is no error', async () => {
    const relations = [
      { from: 'Ada', to: 'Acme', relationType: 'works_at' },
      { from: 'Ada', to: 'Ghost', relationType: 'haunts' },
    ];
    const [theirs, mine] = await both('create_relations', { relations });
    expect(theirs.isError).toBeFalsy();
    expect(mine.isError).toBeFalsy();
    // The first text is the reference's JSON array of created relations, here the storable one.
    expect(json(mine)).toEqual([relations[0]]);
    expect(mine.structuredContent).toEqual({
      relations: [relations[0]],
      skipped: [{ ...relations[1], missingEntities: ['Ghost'] }],
    });
    const note = mine.content[1];
    expect(note?.type === 'text' ? note.text : '').toMatch(/'Ada' -> 'Ghost'.*no entity 'Ghost'/);
    const [theirGraph, myGraph] = await both('open_nodes', { names: ['Ada', 'Acme'] });
    const between = (result: CallToolResult) =>
      (result.structuredContent as { relations: { to: string }[] }).relations.filter((r) => r.to !== 'Ghost');
    expect(between(myGraph)).toEqual(between(theirGraph));
  });

  it('search_nodes with only punctuation finds what holds it literally, like the reference', async () => {
    for (const query of ['*', '?', '%', '!!!', '"', '!', '-', '()']) {
      const [theirs, mine] = await both('search_nodes', { query });
      expect(entityNames(mine), query).toEqual(entityNames(theirs));
    }
    const [theirs] = await both('search_nodes', { query: '!!!' });
    expect(entityNames(theirs)).toEqual(['Ada']);
  });

  it('create_entities answers with what was stored', async () => {
    const entity = { name: 'Twice', entityType: 'note', observations: ['x', 'x', 'y'] };
    const created = await ours.call('create_entities', { entities: [entity] });
    const opened = await ours.call('open_nodes', { names: ['Twice'] });
    const stored = (opened.structuredContent as { entities: { observations: string[] }[] }).entities[0];
    expect(stored?.observations).toEqual(['x', 'y']);
    expect(json(created)).toEqual([{ ...entity, observations: ['x', 'y'] }]);
    expect(created.structuredContent).toEqual({ entities: json(created) });
  });
});
