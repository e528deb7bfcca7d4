/** Our own JSONL dump of a whole memory (docs/file-format.md): the name its header line carries. */

/** The `format` of the header line. */
export const DUMP_FORMAT = 'hedgehop-dump';
