/** The engram part of the PostgreSQL schema (its owner's version replaces this placeholder). */
export const engramSchema: readonly string[] = [];
