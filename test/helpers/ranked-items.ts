/**
 * Ranked items as recall's ranking hands them to its later steps (temporal, decision,
 * supersession): one archive utterance of its own turn each, named for the test's assertions.
 */
import type { SearchHit } from '../../src/core/model/recall.js';
import type { RankedItem } from '../../src/recall/turn-units.js';

let nextRow = 1;

/** A ranked archive utterance: `text` defaults to the name, `createdAt` to its row number. */
export function rankedUtterance(
  name: string,
  score: number,
  options: {
    readonly text?: string;
    readonly createdAt?: number;
    readonly confidence?: number;
    readonly eventType?: string;
    readonly layer?: SearchHit['layer'];
  } = {},
): RankedItem & { score: number; name: string } {
  const rowid = nextRow++;
  return {
    name,
    score,
    hit: {
      rowid,
      layer: options.layer ?? 'archive',
      ref: String(rowid),
      part: '',
      agentId: 1,
      lineId: null,
      sceneId: 'scene',
      topicId: `topic-${name}`,
      createdAt: options.createdAt ?? rowid,
      score,
      confidence: options.confidence ?? 0.5,
    },
    resolved: {
      rowid,
      text: options.text ?? name,
      role: 'agent',
      ...(options.eventType ? { eventType: options.eventType } : {}),
    },
  };
}

/** The names of `items`, in order. */
export const names = (items: readonly { name: string }[]): string[] => items.map((i) => i.name);
