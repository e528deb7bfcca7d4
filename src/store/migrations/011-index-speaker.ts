import { speakerOf } from '../../core/index-text.js';
import type { Migration } from './migration.js';

/** Archive rows whose speaker is worked out per statement of the backfill. */
const BATCH = 2_000;

/**
 * Characters of a record's content read for its `Name:` label in the backfill: the label is at
 * most 41 characters after any leading white space (see `speakerOf`).
 */
const HEAD_CHARS = 4_096;

/**
 * `search_docs.speaker`: for an archive row, the speaker its record names (its speaker field,
 * else the `Name:` label its content opens with; `''` for none; `archiveIndexSpeaker`), NULL
 * for other rows. Ranking by a named speaker then reads it with the row instead of reading
 * every candidate record (~12 % of a search at 20,000 records, random record reads at
 * 1,000,000). Existing rows are filled here, in batches. PostgreSQL has no counterpart (it
 * reads the speaker with the record, as before): versions count in step, as for 7 to 10.
 */
export const v11IndexSpeaker: Migration = {
  version: 11,
  name: 'index-speaker',
  up(db) {
    // A file that came back to an older version by hand (a test's way to replay migrations)
    // may hold the column already: it is filled again.
    const columns = db.prepare('SELECT name FROM pragma_table_info(?)').pluck().all('search_docs');
    if (!columns.includes('speaker')) db.exec('ALTER TABLE search_docs ADD COLUMN speaker TEXT');
    const read = db.prepare(
      `SELECT d.rowid, a.speaker, substr(a.content, 1, ${HEAD_CHARS}) AS head
       FROM search_docs d JOIN archive a ON a.id = CAST(d.ref AS INTEGER)
       WHERE d.layer = 'archive' AND d.rowid > ? ORDER BY d.rowid LIMIT ${BATCH}`,
    );
    const write = db.prepare('UPDATE search_docs SET speaker = ? WHERE rowid = ?');
    let after = 0;
    for (;;) {
      const rows = read.all(after) as { rowid: number; speaker: string | null; head: string }[];
      for (const row of rows) write.run(row.speaker ?? speakerOf(row.head) ?? '', row.rowid);
      const last = rows[rows.length - 1];
      if (last === undefined || rows.length < BATCH) break;
      after = last.rowid;
    }
  },
};
