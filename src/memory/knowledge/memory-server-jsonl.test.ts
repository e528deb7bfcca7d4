import { describe, expect, it } from 'vitest';
import { HedgehopError } from '../../core/errors.js';
import { formatMemoryServerJsonl, parseMemoryServerJsonl } from './memory-server-jsonl.js';

function invalidField(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    if (HedgehopError.isInstance(error) && error.code === 'INVALID_INPUT') return error.field;
    throw error;
  }
  return undefined;
}

describe('parseMemoryServerJsonl', () => {
  it('reads entities and relations, ignoring blank lines and other types', () => {
    const text = [
      '{"type":"entity","name":"Ada","entityType":"person","observations":["a","b"]}',
      '',
      '{"type":"relation","from":"Ada","to":"Acme","relationType":"works at"}',
      '{"type":"note","text":"not ours"}',
      '{"type":"entity","name":"Acme","entityType":"org","observations":[],"extra":1}',
      '',
    ].join('\r\n');
    const parsed = parseMemoryServerJsonl(text);
    expect(parsed.entities).toEqual([
      { name: 'Ada', entityType: 'person', observations: ['a', 'b'] },
      { name: 'Acme', entityType: 'org', observations: [] },
    ]);
    expect(parsed.relations).toEqual([{ from: 'Ada', to: 'Acme', relationType: 'works at', line: 3 }]);
    expect(parsed.ignoredLines).toBe(2);
  });

  it('merges an entity named twice: first type, observations unioned', () => {
    const parsed = parseMemoryServerJsonl(
      '{"type":"entity","name":"A","entityType":"x","observations":["1","2"]}\n' +
        '{"type":"entity","name":"A","entityType":"y","observations":["2","3"]}\n',
    );
    expect(parsed.entities).toEqual([{ name: 'A', entityType: 'x', observations: ['1', '2', '3'] }]);
    expect(parsed.entityLines).toBe(2);
  });

  it('refuses a malformed line naming it', () => {
    expect(
      invalidField(() =>
        parseMemoryServerJsonl('{"type":"entity","name":"A","entityType":"x","observations":[]}\n{oops'),
      ),
    ).toBe('line 2');
    expect(invalidField(() => parseMemoryServerJsonl('[1,2]'))).toBe('line 1');
    expect(invalidField(() => parseMemoryServerJsonl('{"type":"entity","name":"A","observations":[]}'))).toBe(
      'line 1.entityType',
    );
    expect(
      invalidField(() =>
        parseMemoryServerJsonl('{"type":"relation","from":"A","to":"  ","relationType":"r"}'),
      ),
    ).toBe('line 1.to');
  });
});

describe('formatMemoryServerJsonl', () => {
  it('writes the memory server layout: entities, relations, a final newline', () => {
    const text = formatMemoryServerJsonl({
      entities: [{ name: 'Ada', entityType: 'person', observations: ['line\nbreak'] }],
      relations: [{ from: 'Ada', to: 'Ada', relationType: 'knows' }],
    });
    expect(text).toBe(
      '{"type":"entity","name":"Ada","entityType":"person","observations":["line\\nbreak"]}\n' +
        '{"type":"relation","from":"Ada","to":"Ada","relationType":"knows"}\n',
    );
    expect(formatMemoryServerJsonl({ entities: [], relations: [] })).toBe('');
  });

  it('parses what it writes', () => {
    const snapshot = {
      entities: [{ name: 'é "quoted"', entityType: '', observations: ['x', ''] }],
      relations: [{ from: 'é "quoted"', to: 'é "quoted"', relationType: '' }],
    };
    const parsed = parseMemoryServerJsonl(formatMemoryServerJsonl(snapshot));
    expect(parsed.entities).toEqual(snapshot.entities);
    expect(parsed.relations.map(({ line: _line, ...relation }) => relation)).toEqual(snapshot.relations);
  });
});
