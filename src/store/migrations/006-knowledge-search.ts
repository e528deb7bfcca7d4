import { KNOWLEDGE_TEXT_DDL, fillKnowledgeText } from '../knowledge-search-text.js';
import type { Migration } from './migration.js';

/**
 * The substring index of knowledge nodes (see src/store/knowledge-search-text.ts), filled from
 * the nodes a file already holds, so that `search`, `queryNodes({ keyword })` and the
 * memory-server `search_nodes` read it instead of scanning every node.
 */
export const v6KnowledgeSearch: Migration = {
  version: 6,
  name: 'knowledge-search',
  up(db) {
    db.exec(KNOWLEDGE_TEXT_DDL);
    fillKnowledgeText((sql) => db.prepare(sql));
  },
};
