import { parseInput } from '../core/validate.js';
import { z } from 'zod';
import {
  exportHedgehogFrom,
  importHedgehogInto,
  type HedgehogImportReport,
} from '../memory/radial/hedgehog-format.js';
import type { Agent } from './agent.js';
import type { RadialMemory } from './radial-memory.js';

function radialOf(target: Agent | RadialMemory): RadialMemory {
  return 'radial' in target ? target.radial : target;
}

/**
 * Imports a HedgehogMemory `origin.json` (its text) into an agent's radial memory, losslessly
 * and in one transaction: every line, node, summary, state field and timestamp string.
 * `INVALID_INPUT` naming the JSON path of the first problem, or `CONFLICT` when a line or node
 * id is already present; in both cases nothing is written.
 *
 * @example
 * ```ts
 * const db = await openMemory('memory.db');
 * const report = await importHedgehog(db.primary(), readFileSync('origin.json', 'utf8'));
 * console.log(`${report.lines} lines, ${report.nodes} nodes`);
 * ```
 */
export async function importHedgehog(
  target: Agent | RadialMemory,
  json: string,
): Promise<HedgehogImportReport> {
  const text = parseInput(z.string(), json, 'json');
  return importHedgehogInto(radialOf(target).service, text);
}

/**
 * The agent's radial memory as a HedgehogMemory `origin.json` text: 2-space JSON as Python's
 * `json.dump(indent=2, ensure_ascii=False)` writes it, keys in HedgehogMemory's order, no
 * trailing newline. An imported file exports back to the same bytes.
 */
export async function exportHedgehog(target: Agent | RadialMemory): Promise<string> {
  return exportHedgehogFrom(radialOf(target).service);
}
