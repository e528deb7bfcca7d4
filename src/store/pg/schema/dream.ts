/** The dream part of the PostgreSQL schema (its owner's version replaces this placeholder). */
export const dreamSchema: readonly string[] = [];
