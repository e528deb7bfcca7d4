import { HedgehopError } from '../../core/errors.js';
import { DUMP_FORMAT } from '../../core/model/dump.js';

/** The formats `import` and `export` speak. */
export const TRANSFER_FORMATS = ['jsonl', 'hedgehog', 'memory-server'] as const;

/** One of {@link TRANSFER_FORMATS}. */
export type TransferFormat = (typeof TRANSFER_FORMATS)[number];

/** A format option, with `dump` accepted for `jsonl`. */
export function parseFormat(value: string): TransferFormat {
  if (value === 'dump') return 'jsonl';
  if ((TRANSFER_FORMATS as readonly string[]).includes(value)) return value as TransferFormat;
  throw new HedgehopError(
    'INVALID_INPUT',
    `--format: must be one of ${TRANSFER_FORMATS.join(', ')} (got '${value}')`,
    {
      field: 'format',
    },
  );
}

function firstLine(text: string): unknown {
  const line = text.split('\n').find((l) => l.trim().length > 0);
  if (line === undefined) return undefined;
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}

/** True when the text's first line is a memory-server entity or relation. */
export function looksLikeMemoryServerJsonl(text: string): boolean {
  const value = firstLine(text) as { type?: unknown } | undefined;
  return value?.type === 'entity' || value?.type === 'relation';
}

/** Which format a file is in, from its first bytes; `INVALID_INPUT` when it is none of them. */
export function detectFormat(text: string): TransferFormat {
  const first = firstLine(text) as { format?: unknown } | undefined;
  if (first?.format === DUMP_FORMAT) return 'jsonl';
  if (looksLikeMemoryServerJsonl(text)) return 'memory-server';
  if (/^\s*\{/u.test(text) && text.includes('"project_name"')) return 'hedgehog';
  throw new HedgehopError(
    'INVALID_INPUT',
    'format: not a hedgehop dump, a memory-server JSONL file or a Hedgehog origin.json; give --format',
    { field: 'format' },
  );
}
