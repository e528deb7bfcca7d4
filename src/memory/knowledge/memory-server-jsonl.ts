import { invalidInput } from '../../core/errors.js';
import { parseInput } from '../../core/validate.js';
import { unionInOrder } from './merge.js';
import {
  type MemoryServerEntity,
  type MemoryServerRelation,
  type MemoryServerSnapshot,
  entitySchema,
  relationSchema,
} from '../../core/model/knowledge.js';

/** A relation with the line it came from. */
export interface NumberedRelation extends MemoryServerRelation {
  readonly line: number;
}

/** A parsed file. Entities named twice are merged (first type, observations unioned). */
interface ParsedMemoryServerFile {
  readonly entities: MemoryServerEntity[];
  readonly relations: NumberedRelation[];
  readonly entityLines: number;
  readonly relationLines: number;
  readonly ignoredLines: number;
}

function parseLine(text: string, line: number): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalidInput(`line ${line}`, 'is not valid JSON');
  }
}

/**
 * Parses a memory-server JSONL file. Unlike the memory server, which skips lines it cannot
 * read, a malformed line refuses the whole file (`INVALID_INPUT` naming the line), so an
 * import never silently loses data. Blank lines and lines of another `type` are ignored.
 */
export function parseMemoryServerJsonl(text: string): ParsedMemoryServerFile {
  const entities = new Map<string, { entityType: string; observations: string[] }>();
  const relations: NumberedRelation[] = [];
  let entityLines = 0;
  let ignoredLines = 0;
  const lines = text.split('\n');
  lines.forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (trimmed.length === 0) {
      if (index < lines.length - 1) ignoredLines++;
      return;
    }
    const value = parseLine(trimmed, line);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw invalidInput(`line ${line}`, 'is not a JSON object');
    }
    const type = (value as { type?: unknown }).type;
    if (type === 'entity') {
      const entity = parseInput(entitySchema, value, `line ${line}`);
      entityLines++;
      const held = entities.get(entity.name);
      if (held) held.observations = unionInOrder(held.observations, entity.observations);
      else
        entities.set(entity.name, { entityType: entity.entityType, observations: [...entity.observations] });
    } else if (type === 'relation') {
      relations.push({ ...parseInput(relationSchema, value, `line ${line}`), line });
    } else {
      ignoredLines++;
    }
  });
  return {
    entities: [...entities].map(([name, entity]) => ({ name, ...entity })),
    relations,
    entityLines,
    relationLines: relations.length,
    ignoredLines,
  };
}

/**
 * Writes a graph in the memory server's format, byte for byte as it writes its own file:
 * entities first, then relations, each `JSON.stringify`'d with keys in its order, one per
 * line, ending with a newline. An empty graph is the empty string.
 */
export function formatMemoryServerJsonl(snapshot: MemoryServerSnapshot): string {
  const lines = [
    ...snapshot.entities.map((entity) =>
      JSON.stringify({
        type: 'entity',
        name: entity.name,
        entityType: entity.entityType,
        observations: entity.observations,
      }),
    ),
    ...snapshot.relations.map((relation) =>
      JSON.stringify({
        type: 'relation',
        from: relation.from,
        to: relation.to,
        relationType: relation.relationType,
      }),
    ),
  ];
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
