import { type MemoryDB, openMemory } from '../../src/api/memory-db.js';

/** The verbatim full state of the login task, checked byte for byte by the tests. */
export const LOGIN_FULL_STATE = [
  'POST /api/auth/login takes { email, password } and returns { accessToken, refreshToken }.',
  'Access tokens are JWTs signed with RS256, 15 minute expiry; refresh tokens live 30 days in Redis.',
  'Passwords are hashed with argon2id (m=64MiB, t=3). Exact text check: café, naïve — "quoted" <tag> & done.',
].join('\n');

/** Lines and tasks of the demo memory, newest task last on each line. */
export const DEMO_LINES = [
  {
    id: 'auth',
    name: 'Authentication',
    description: 'Login, tokens, sessions',
    tasks: [
      ['Design the user table', 'users(id, email unique, password_hash, created_at); email is case-folded.'],
      ['Implement JWT login endpoint', LOGIN_FULL_STATE],
      [
        'Add refresh token rotation',
        'Refresh rotates on each use; reuse of an old token revokes the family.',
      ],
    ],
  },
  {
    id: 'infra',
    name: 'Infrastructure',
    description: 'Deploys, CI, databases',
    tasks: [
      ['Set up Postgres on staging', 'Postgres 16 on the staging VM, daily pg_dump to object storage.'],
      ['Write the CI pipeline', 'Lint, typecheck, test on every push; deploy main to staging after green.'],
    ],
  },
  {
    id: 'billing',
    name: 'Billing',
    description: 'Invoices and payments',
    tasks: [['Export invoices as PDF', 'Invoices rendered from HTML with page numbers; totals in cents.']],
  },
  {
    id: 'frontend',
    name: 'Web frontend',
    description: 'Pages, components, accessibility',
    tasks: [
      ['Sketch the dashboard', 'Dashboard shows open invoices, recent logins and deploy status.'],
      [
        'Build the login form',
        'Login form posts to /api/auth/login; errors shown inline; keyboard only works.',
      ],
      ['Add dark mode', 'Colours from CSS variables; prefers-color-scheme picks the theme.'],
      [
        'Fix focus order on the invoice page',
        'Tab order followed DOM order; moved the filter bar before the table.',
      ],
    ],
  },
  {
    id: 'search',
    name: 'Search',
    description: 'Full-text search over invoices and customers',
    tasks: [
      ['Index invoices in Postgres FTS', 'tsvector column on invoices, GIN index, updated by trigger.'],
      ['Rank by recency', 'Score = ts_rank * exp(-age_days / 90).'],
      ['Search customers by email prefix', 'btree index on lower(email) text_pattern_ops.'],
      ['Highlight matches', 'ts_headline with StartSel=<mark>.'],
      ['Paginate with keyset cursors', 'Cursor = (score, id); no OFFSET.'],
    ],
  },
  {
    id: 'release',
    name: 'Releases',
    description: 'Versioning and changelogs',
    tasks: [
      ['Adopt semantic versioning', 'Tags vX.Y.Z; breaking API changes bump the major.'],
      ['Generate the changelog', 'Changelog from merged PR titles grouped by label.'],
    ],
  },
] as const;

/** Writes the demo lines and tasks into `db` through the public API. */
export async function fillDemo(db: MemoryDB): Promise<void> {
  const radial = db.primary().radial;
  for (const line of DEMO_LINES) {
    await radial.createLine(line.id, line.name, line.description);
    for (const [label, full] of line.tasks) {
      await radial.completeTask({
        lineId: line.id,
        taskLabel: label,
        fullContext: full,
        conversationSummary: `${label}. ${full.slice(0, 80)}`,
        todos: label.includes('login') ? ['Add rate limiting to login'] : [],
      });
    }
  }
}

/** Two closed turns in one scene: utterances, a tool event and a finished plan step. */
export async function fillConversation(db: MemoryDB): Promise<void> {
  const agent = db.primary();
  const start = Date.UTC(2025, 0, 6, 9, 0);
  await agent.search({ newScene: true, sceneName: 'Login work' });
  await agent.planNodeAdd(0, 'Find where the secret lives');
  await agent.appendArchive({
    kind: 'event',
    eventType: 'tool_call',
    content: 'grep -rn JWT_SECRET config/',
    planStep: 1,
    createdAt: start + 1000,
  });
  await agent.planNodeUpdate({ seq: 1, status: 'done', summary: 'It is read from vault at boot.' });
  await agent.update({
    input: 'Where is the JWT signing secret kept?',
    output: 'In vault under auth/jwt; the service reads it at boot.',
    createdAt: start + 2000,
  });
  await agent.search();
  await agent.update({
    input: 'How long do refresh tokens live?',
    output: 'Thirty days, rotated on every use.',
    createdAt: start + 60_000,
  });
  await agent.search({ newScene: true, sceneName: 'Token audit' });
  await agent.update({
    input: 'Do we log refresh token reuse?',
    output: 'Yes: reuse of a rotated refresh token revokes the family and logs a security event.',
    createdAt: start + 3_600_000,
  });
}

/** A small architecture graph. */
export async function fillKnowledge(db: MemoryDB): Promise<void> {
  await db.knowledge.import({
    graph: 'architecture',
    nodes: [
      { title: 'API', type: 'service', content: 'The HTTP API; issues JWTs at /api/auth/login.' },
      { title: 'Postgres', type: 'database', content: 'Primary store for users and invoices.' },
      { title: 'Redis', type: 'cache', content: 'Holds refresh tokens for 30 days.' },
      { title: 'Vault', type: 'secrets', content: 'Keeps the JWT signing secret under auth/jwt.' },
    ],
    edges: [
      { kind: 'dependency', directed: true, label: 'stores users in', members: ['API', 'Postgres'] },
      { kind: 'dependency', directed: true, label: 'keeps tokens in', members: ['API', 'Redis'] },
      { kind: 'dependency', directed: true, label: 'reads secret from', members: ['API', 'Vault'] },
    ],
  });
}

/** When the demo memory begins: Monday 6 January 2025, 09:00 UTC. */
export const DEMO_EPOCH = Date.UTC(2025, 0, 6, 9, 0);

/** Opens a new file at `path` holding the demo memory. */
export async function openDemo(path: string): Promise<MemoryDB> {
  // A clock that steps one minute per reading from a fixed day, so dates (and the screenshot) are stable.
  let minute = 0;
  const db = await openMemory(path, { clock: { now: () => DEMO_EPOCH + 60_000 * minute++ } });
  await fillDemo(db);
  await fillConversation(db);
  await fillKnowledge(db);
  await db.primary().dream();
  return db;
}
