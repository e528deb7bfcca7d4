/**
 * The sample story `hedgehop demo` builds a memory from: a small team's scheduling product,
 * "Tern", over a few weeks of engineering. Three lines of work with their tasks (each with the
 * verbatim notes an agent would save), a debugging conversation recorded through the turn loop,
 * and a knowledge graph of the system's services. Written for this project.
 */

/** One completed task of the story. */
interface StoryTask {
  readonly label: string;
  readonly summary: string;
  readonly fullContext: string;
  readonly files: readonly {
    readonly path: string;
    readonly changeType: string;
    readonly diffSummary: string;
  }[];
  readonly todos: readonly string[];
}

/** One line of work, its tasks oldest first. */
interface StoryLine {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly tasks: readonly StoryTask[];
}

/** One step of a recorded turn: a plan step and the tool events under it. */
export interface StoryStep {
  readonly title: string;
  readonly events: readonly { readonly eventType: string; readonly content: string }[];
  readonly summary: string;
}

/** One conversation turn, recorded through search → append/plan → update. */
export interface StoryTurn {
  /** A name here starts a new scene with this turn; otherwise the turn continues the current one. */
  readonly newScene?: string;
  readonly input: string;
  readonly steps: readonly StoryStep[];
  readonly output: string;
  readonly outcome: string;
}

/** The project name the demo memory gets. */
/** The project name the demo memory gets. */
export const STORY_PROJECT = 'Tern';

/** The profile of the demo's agent. */
/** The profile of the demo's agent. */
export const STORY_PROFILE = {
  name: 'Tern dev agent',
  role: 'Coding agent for the Tern scheduling app (TypeScript, Postgres, Stripe)',
  personality: 'Careful, terse, writes down why',
  preferences: { language: 'TypeScript', tests: 'vitest', style: 'small pull requests' },
} as const;

const AUTH: StoryLine = {
  id: 'auth',
  name: 'Authentication',
  description: 'Sign-in, tokens and sessions',
  tasks: [
    {
      label: 'Design the users table',
      summary: 'Users keyed by UUID; emails case-folded and unique; passwords as argon2id hashes.',
      fullContext: [
        'Schema (migration 0003_users):',
        '  CREATE TABLE users (',
        '    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),',
        '    email citext NOT NULL UNIQUE,',
        '    password_hash text NOT NULL,',
        '    created_at timestamptz NOT NULL DEFAULT now()',
        '  );',
        'Decisions:',
        '- citext so that Ada@Example.com and ada@example.com are one account.',
        '- argon2id, m=64 MiB, t=3, p=1 (OWASP 2024 baseline); parameters stored in the hash string.',
        '- No soft delete: deleting an account removes the row; audit events keep the user id only.',
      ].join('\n'),
      files: [{ path: 'db/migrations/0003_users.sql', changeType: 'created', diffSummary: 'users table' }],
      todos: [],
    },
    {
      label: 'Implement JWT login endpoint',
      summary: 'POST /auth/login returns a 15-minute RS256 access token and a 30-day refresh token.',
      fullContext: [
        'Endpoint: POST /auth/login  { email, password } -> 200 { accessToken, refreshToken, expiresIn: 900 }',
        'Wrong email or password -> 401 { error: "invalid_credentials" } (same answer for both, no user enumeration).',
        'Access token: JWT signed RS256, claims { sub: user.id, iat, exp: iat + 900, aud: "tern-api" }.',
        'The signing key pair is loaded at boot from Vault (secret/tern/auth/jwt-signing); the public key is',
        'served at /.well-known/jwks.json so other services verify without calling auth.',
        'Refresh token: 32 random bytes, base64url; only its SHA-256 is stored (table refresh_tokens).',
        '',
        'src/auth/login.ts:',
        '  const user = await users.byEmail(body.email);',
        '  if (!user || !(await argon2.verify(user.passwordHash, body.password))) throw unauthorized();',
        '  return issueTokens(user.id);',
      ].join('\n'),
      files: [
        { path: 'src/auth/login.ts', changeType: 'created', diffSummary: 'login route' },
        { path: 'src/auth/tokens.ts', changeType: 'created', diffSummary: 'issueTokens, RS256 signing' },
      ],
      todos: ['Rotate refresh tokens on use', 'Rate-limit failed logins'],
    },
    {
      label: 'Add refresh-token rotation with reuse detection',
      summary:
        'Every refresh issues a new token in the same family; presenting a used token revokes the whole family.',
      fullContext: [
        'POST /auth/refresh { refreshToken } -> new { accessToken, refreshToken }.',
        'Tokens belong to a family (family_id, created at login). On refresh:',
        '  1. look up sha256(token); if it is unknown -> 401.',
        '  2. if it is already marked used -> a stolen token is being replayed: revoke every token of the',
        '     family (UPDATE refresh_tokens SET revoked_at = now() WHERE family_id = $1) and return 401.',
        '  3. else mark it used, insert its successor in the same family, return the new pair.',
        'Steps 1-3 run in one transaction with SELECT … FOR UPDATE so two concurrent refreshes of the same',
        'token cannot both succeed.',
        'Logout revokes the family. Families expire 30 days after login regardless of use.',
      ].join('\n'),
      files: [
        { path: 'src/auth/refresh.ts', changeType: 'created', diffSummary: 'rotation and reuse detection' },
        {
          path: 'db/migrations/0007_refresh_families.sql',
          changeType: 'created',
          diffSummary: 'family_id, used_at, revoked_at',
        },
      ],
      todos: ['Alert on family revocations (possible token theft)'],
    },
    {
      label: 'Rate-limit failed logins',
      summary: 'Failed logins limited per account and per IP with a sliding window in Redis.',
      fullContext: [
        'Limits: 5 failures per account per 15 minutes; 50 per IP per 15 minutes. Over the limit -> 429 with Retry-After.',
        'Implementation: Redis sorted sets keyed login:fail:acct:<userId> and login:fail:ip:<ip>, scores = ms timestamps;',
        'ZREMRANGEBYSCORE to drop old entries, ZCARD to count, all in one MULTI.',
        'A successful login clears the account key. Unknown emails count against the IP only.',
      ].join('\n'),
      files: [
        { path: 'src/auth/rate-limit.ts', changeType: 'created', diffSummary: 'sliding-window limiter' },
      ],
      todos: [],
    },
  ],
};

const INFRA: StoryLine = {
  id: 'infra',
  name: 'Infrastructure',
  description: 'Environments, CI, databases, secrets',
  tasks: [
    {
      label: 'Provision Postgres 16 on staging',
      summary: 'Managed Postgres 16 for staging with nightly dumps kept 14 days.',
      fullContext: [
        'Staging database: managed Postgres 16, 2 vCPU / 4 GB, private network only.',
        'Connection string in Vault at secret/tern/staging/database-url; the app reads DATABASE_URL at boot.',
        'Backups: nightly pg_dump --format=custom to the tern-backups bucket, 14-day lifecycle rule.',
        'Restore drill done: 4 min for the current 300 MB dump.',
      ].join('\n'),
      files: [
        { path: 'infra/staging/postgres.tf', changeType: 'created', diffSummary: 'database and backups' },
      ],
      todos: [],
    },
    {
      label: 'Set up the CI pipeline',
      summary: 'Lint, typecheck and tests on every push; main deploys to staging after migrations run.',
      fullContext: [
        'Pipeline (.ci/pipeline.yml): install -> lint -> typecheck -> test (vitest, Postgres service container)',
        '-> on main only: build image, run migrations against staging, deploy.',
        'Migrations run with `npm run migrate` BEFORE the new image takes traffic; a failed migration stops the deploy.',
        'Deploy job: deploy-staging. Logs kept 30 days.',
      ].join('\n'),
      files: [{ path: '.ci/pipeline.yml', changeType: 'created', diffSummary: 'CI and staging deploy' }],
      todos: ['Make every migration idempotent'],
    },
    {
      label: 'Move secrets to Vault',
      summary: 'All service secrets now come from Vault; .env files hold only local development values.',
      fullContext: [
        'Vault paths:',
        '  secret/tern/auth/jwt-signing      RS256 private key (PEM) + key id; rotated every 90 days',
        '  secret/tern/staging/database-url  staging Postgres URL',
        '  secret/tern/billing/stripe        Stripe secret key and webhook signing secret',
        'Services authenticate to Vault with their platform identity; no static Vault tokens in CI.',
        'Key rotation: new key id published in JWKS first, signing switches 24 h later, old key removed after 30 days.',
      ].join('\n'),
      files: [{ path: 'src/config/secrets.ts', changeType: 'created', diffSummary: 'Vault client' }],
      todos: [],
    },
  ],
};

const BILLING: StoryLine = {
  id: 'billing',
  name: 'Billing',
  description: 'Plans, checkout, invoices',
  tasks: [
    {
      label: 'Integrate Stripe Checkout',
      summary:
        'Teams upgrade through Stripe Checkout; the plan is activated by the webhook, never by the redirect.',
      fullContext: [
        'POST /billing/checkout { plan: "team" | "business" } -> { url } of a Stripe Checkout session',
        '(mode: subscription, client_reference_id: team.id).',
        'The success redirect only shows a "processing" page: the plan changes when checkout.session.completed arrives.',
        'Prices: team 8 EUR/seat/month, business 14 EUR/seat/month; amounts kept in cents everywhere.',
      ].join('\n'),
      files: [{ path: 'src/billing/checkout.ts', changeType: 'created', diffSummary: 'checkout session' }],
      todos: [],
    },
    {
      label: 'Handle Stripe webhooks idempotently',
      summary: 'Webhook events are verified, stored by event id and applied once.',
      fullContext: [
        'POST /billing/webhook: verify the Stripe-Signature header with the webhook secret (from Vault).',
        'INSERT INTO stripe_events (id, type, payload) ON CONFLICT (id) DO NOTHING; apply only when the insert happened.',
        'Handled: checkout.session.completed, customer.subscription.updated, customer.subscription.deleted, invoice.paid.',
        'Answer 200 quickly; apply in the same transaction as the insert so a crash retries cleanly.',
      ].join('\n'),
      files: [
        {
          path: 'src/billing/webhook.ts',
          changeType: 'created',
          diffSummary: 'verified, idempotent handler',
        },
      ],
      todos: [],
    },
    {
      label: 'Generate PDF invoices',
      summary: 'Monthly invoices rendered from HTML to PDF with sequential numbers per year.',
      fullContext: [
        'Invoice numbers: TERN-<year>-<seq>, seq from a per-year counter row (UPDATE … RETURNING), never reused.',
        'Rendering: HTML template -> PDF with a headless browser; totals computed in cents, VAT by customer country.',
        'Migration 0042_add_invoice_number adds invoices.invoice_number (text, unique).',
        'PDFs stored in the tern-invoices bucket, linked from the billing page for 10 years.',
      ].join('\n'),
      files: [
        { path: 'src/billing/invoices.ts', changeType: 'created', diffSummary: 'numbering and rendering' },
        {
          path: 'db/migrations/0042_add_invoice_number.sql',
          changeType: 'created',
          diffSummary: 'invoice_number column',
        },
      ],
      todos: ['Email invoices to the billing contact'],
    },
  ],
};

/** The lines of the story, in the order they are created. */
export const STORY_LINES: readonly StoryLine[] = [AUTH, INFRA, BILLING];

/** A debugging conversation, recorded through the turn loop. */
export const STORY_TURNS: readonly StoryTurn[] = [
  {
    newScene: 'Staging deploy failure',
    input: 'The staging deploy failed last night. What happened?',
    steps: [
      {
        title: 'Read the deploy log',
        events: [
          { eventType: 'tool_call', content: 'ci logs --job deploy-staging --last' },
          {
            eventType: 'tool_result',
            content:
              'npm run migrate: migration 0042_add_invoice_number failed: column "invoice_number" of relation "invoices" already exists',
          },
        ],
        summary: 'Migration 0042 failed: the column already existed.',
      },
      {
        title: 'Find why the column existed',
        events: [
          {
            eventType: 'tool_call',
            content: 'psql staging -c "select * from schema_migrations where version like \'0042%\'"',
          },
          { eventType: 'tool_result', content: '(0 rows)' },
          {
            eventType: 'observation',
            content:
              'The column was added by hand during the invoice demo on Tuesday, so the migration was never recorded.',
          },
        ],
        summary: 'A manual ALTER during a demo added the column without recording the migration.',
      },
    ],
    output:
      "Migration 0042_add_invoice_number failed because the column had been added by hand during Tuesday's demo. I changed it to ADD COLUMN IF NOT EXISTS (plus CREATE UNIQUE INDEX IF NOT EXISTS) and re-ran the deploy: green.",
    outcome: 'resolved: migration 0042 made idempotent, staging redeployed',
  },
  {
    input: 'Which key signs our JWTs, and where does it live?',
    steps: [
      {
        title: 'Look up the signing key',
        events: [{ eventType: 'tool_call', content: 'vault kv metadata get secret/tern/auth/jwt-signing' }],
        summary: 'RS256 key in Vault, rotated every 90 days.',
      },
    ],
    output:
      'An RS256 key pair: the private key is in Vault at secret/tern/auth/jwt-signing (rotated every 90 days); the public key is published at /.well-known/jwks.json.',
    outcome: 'answered',
  },
  {
    newScene: 'Invoice numbers check',
    input: 'After the staging deploy fix, are the invoice numbers still unique?',
    steps: [
      {
        title: 'Check the invoice numbers on staging',
        events: [
          {
            eventType: 'tool_call',
            content:
              'psql staging -c "select invoice_number, count(*) from invoices group by 1 having count(*) > 1"',
          },
          { eventType: 'tool_result', content: '(0 rows)' },
          {
            eventType: 'tool_call',
            content: 'psql staging -c "select year, seq from invoice_counters order by year"',
          },
          { eventType: 'tool_result', content: ' 2026 | 118' },
        ],
        summary: 'No duplicate invoice numbers; the per-year counter is at 118.',
      },
    ],
    output:
      'Yes. Migration 0042_add_invoice_number now runs ADD COLUMN IF NOT EXISTS and CREATE UNIQUE INDEX IF NOT EXISTS, no invoice_number repeats on staging, and the staging deploy left the per-year counter alone (TERN-2026-118 is next).',
    outcome: 'answered: invoice numbers on staging are intact after migration 0042',
  },
];

/** The knowledge graph of the system. */
export const STORY_GRAPH = {
  graph: 'architecture',
  nodes: [
    {
      title: 'API gateway',
      type: 'service',
      keywords: ['http', 'routing'],
      observations: ['Routes /auth/* to the auth service and /billing/* to billing'],
    },
    {
      title: 'Auth service',
      type: 'service',
      keywords: ['jwt', 'login'],
      observations: ['Issues RS256 access tokens and rotating refresh tokens'],
    },
    {
      title: 'Billing service',
      type: 'service',
      keywords: ['stripe', 'invoices'],
      observations: ['Applies Stripe webhooks idempotently'],
    },
    {
      title: 'Postgres',
      type: 'database',
      keywords: ['sql'],
      observations: ['Version 16; nightly dumps kept 14 days on staging'],
    },
    {
      title: 'Redis',
      type: 'cache',
      keywords: ['rate limit'],
      observations: ['Holds the login rate-limit windows'],
    },
    {
      title: 'Vault',
      type: 'secrets',
      keywords: ['keys', 'secrets'],
      observations: ['Holds the JWT signing key, database URLs and Stripe keys'],
    },
    {
      title: 'Stripe',
      type: 'external',
      keywords: ['payments'],
      observations: ['Checkout sessions and subscription webhooks'],
    },
  ],
  edges: [
    { kind: 'dependency' as const, directed: true, members: ['API gateway', 'Auth service'] },
    { kind: 'dependency' as const, directed: true, members: ['API gateway', 'Billing service'] },
    { kind: 'dependency' as const, directed: true, members: ['Auth service', 'Postgres'] },
    { kind: 'dependency' as const, directed: true, members: ['Auth service', 'Redis'] },
    { kind: 'dependency' as const, directed: true, members: ['Auth service', 'Vault'] },
    { kind: 'dependency' as const, directed: true, members: ['Billing service', 'Postgres'] },
    { kind: 'dependency' as const, directed: true, members: ['Billing service', 'Stripe'] },
    { kind: 'dependency' as const, directed: true, members: ['Billing service', 'Vault'] },
  ],
};

/** The question the demo navigates with, and the task it should find. */
export const STORY_QUESTION = 'how do we stop a stolen refresh token from being reused?';

/** The question the demo recalls with, and its token budget. */
export const STORY_RECALL = { query: 'where is the JWT signing key kept?', budgetTokens: 300 } as const;
