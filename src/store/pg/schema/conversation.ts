/** The conversation part of the PostgreSQL schema (its owner's version replaces this placeholder). */
export const conversationSchema: readonly string[] = [];
