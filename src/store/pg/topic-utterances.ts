import type { PgQuery } from './pg-query.js';

/** A topic's utterance texts in slot order, Dream's reconstructions excepted (see TOPIC_UTTERANCES_SQL). */
export async function topicUtterances(db: PgQuery, topicId: string): Promise<string[]> {
  const { rows } = await db.query<{ content: string }>(
    `SELECT content FROM archive
     WHERE topic_id = $1 AND kind = 'utterance' AND role IS DISTINCT FROM 'dream' ORDER BY seq`,
    [topicId],
  );
  return rows.map((row) => row.content);
}
