import { describe, expect, it } from 'vitest';
import { canonicalMembers, edgeIdFor, graphIdFor, nodeIdFor } from './ids.js';
import { mergeContent, resolveNodeFields, unionInOrder } from './merge.js';
import type { KnowledgeNode } from '../../core/model/knowledge.js';

const stored: KnowledgeNode = {
  id: 'kn_1',
  graphId: 'kg_1',
  title: 'Auth service',
  type: 'service',
  content: 'Issues tokens.',
  keywords: ['auth', 'jwt'],
  observations: ['runs on port 8080'],
  sourceRef: { source: 'docs/auth.md', start: 3, end: 9 },
  createdAt: 1,
  updatedAt: 1,
};

describe('mergeContent', () => {
  it('keeps the old text when the new one adds nothing', () => {
    expect(mergeContent('abc def', '')).toBe('abc def');
    expect(mergeContent('abc def', 'def')).toBe('abc def');
  });
  it('takes the new text when it contains the old one', () => {
    expect(mergeContent('abc', 'abc def')).toBe('abc def');
  });
  it('joins unrelated texts, old first', () => {
    expect(mergeContent('abc', 'xyz')).toBe('abc\nxyz');
  });
});

describe('resolveNodeFields', () => {
  it('writes every field of a new node, de-duplicating lists in order', () => {
    expect(
      resolveNodeFields(
        'skip',
        { title: 'X', keywords: ['b', 'a', 'b'], observations: ['o', 'o'] },
        undefined,
      ),
    ).toEqual({
      type: '',
      content: '',
      keywords: ['b', 'a'],
      observations: ['o'],
      sourceRef: undefined,
    });
  });

  it('skip leaves an existing node alone', () => {
    expect(resolveNodeFields('skip', { title: 'Auth service', type: 'other' }, stored)).toBeUndefined();
  });

  it('merge replaces a given type and source, merges content, unions lists', () => {
    const fields = resolveNodeFields(
      'merge',
      {
        title: 'Auth service',
        type: 'microservice',
        content: 'Rotates keys.',
        keywords: ['jwt', 'keys'],
        observations: ['owned by team A'],
        sourceRef: { source: 'docs/auth.md', start: 20 },
      },
      stored,
    );
    expect(fields).toEqual({
      type: 'microservice',
      content: 'Issues tokens.\nRotates keys.',
      keywords: ['auth', 'jwt', 'keys'],
      observations: ['runs on port 8080', 'owned by team A'],
      sourceRef: { source: 'docs/auth.md', start: 20 },
    });
  });

  it('merge keeps the stored type and source when the input has none', () => {
    const fields = resolveNodeFields('merge', { title: 'Auth service', keywords: ['new'] }, stored);
    expect(fields?.type).toBe('service');
    expect(fields?.sourceRef).toEqual(stored.sourceRef);
  });

  it('merge and overwrite report nothing when nothing would change', () => {
    expect(resolveNodeFields('merge', { title: 'Auth service', keywords: ['auth'] }, stored)).toBeUndefined();
    const same = {
      title: 'Auth service',
      type: 'service',
      content: 'Issues tokens.',
      keywords: ['auth', 'jwt'],
      observations: ['runs on port 8080'],
      sourceRef: { source: 'docs/auth.md', start: 3, end: 9 },
    };
    expect(resolveNodeFields('overwrite', same, stored)).toBeUndefined();
  });

  it('overwrite replaces every field, clearing those the input leaves out', () => {
    expect(resolveNodeFields('overwrite', { title: 'Auth service', content: 'new' }, stored)).toEqual({
      type: '',
      content: 'new',
      keywords: [],
      observations: [],
      sourceRef: undefined,
    });
  });
});

describe('knowledge ids', () => {
  it('are deterministic, opaque and distinct per kind of record', () => {
    expect(graphIdFor('g')).toBe(graphIdFor('g'));
    expect(graphIdFor('g')).toMatch(/^kg_[0-9a-f]{16}$/);
    expect(graphIdFor('g', 1)).not.toBe(graphIdFor('g'));
    expect(nodeIdFor('kg_1', 'A')).toMatch(/^kn_[0-9a-f]{16}$/);
    expect(nodeIdFor('kg_1', 'A')).not.toBe(nodeIdFor('kg_2', 'A'));
  });

  it('do not confuse titles that join to the same text', () => {
    expect(nodeIdFor('kg_1', 'a:b')).not.toBe(nodeIdFor('kg_1:a', 'b'));
  });

  it('give an undirected edge one id whatever its member order, a directed edge one per order', () => {
    const base = { graphId: 'kg_1', kind: 'related' as const, label: '' };
    const ab = edgeIdFor({ ...base, directed: false, members: canonicalMembers(['b', 'a'], false) });
    const ba = edgeIdFor({ ...base, directed: false, members: canonicalMembers(['a', 'b'], false) });
    expect(ab).toBe(ba);
    const forward = edgeIdFor({ ...base, directed: true, members: canonicalMembers(['a', 'b'], true) });
    const backward = edgeIdFor({ ...base, directed: true, members: canonicalMembers(['b', 'a'], true) });
    expect(forward).not.toBe(backward);
    expect(edgeIdFor({ ...base, kind: 'causal', directed: false, members: ['a', 'b'] })).not.toBe(ab);
    expect(edgeIdFor({ ...base, label: 'x', directed: false, members: ['a', 'b'] })).not.toBe(ab);
  });

  it('unionInOrder keeps first occurrences', () => {
    expect(unionInOrder(['a', 'b'], ['b', 'c', 'a'], ['d'])).toEqual(['a', 'b', 'c', 'd']);
  });
});
