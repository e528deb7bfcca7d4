import type { Migration } from './migration.js';

/**
 * `search_docs.speaker`: for an archive row, the speaker its record names (its speaker field,
 * else the `Name:` label its content opens with; `''` for none; `archiveIndexSpeaker`), NULL
 * for other rows and for rows written before this version. Ranking by a named speaker reads it
 * with the row instead of reading every candidate record (~8 % of a search at 20,000 records,
 * random record reads at 1,000,000); a NULL is read from the record as before. Only the column
 * is added: filling a large file's rows here made its first open take minutes (125 s at
 * 1,000,000 records), so they are filled by `reindex` and by dump import instead. PostgreSQL has
 * no counterpart (it reads the speaker with the record): versions count in step, as for 7 to 10.
 */
export const v11IndexSpeaker: Migration = {
  version: 11,
  name: 'index-speaker',
  up(db) {
    // A file set back to an older version by hand (a test's way to replay migrations) may hold
    // the column already.
    const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('search_docs');
    if (!columns.includes('speaker')) db.exec('ALTER TABLE search_docs ADD COLUMN speaker TEXT');
  },
};
