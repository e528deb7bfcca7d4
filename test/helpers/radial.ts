import { openMemory, type MemoryDB, type OpenOptions } from '../../src/index.js';
import type { CompleteTaskInput } from '../../src/api/radial-memory.js';
import { freshMemoryPath } from './engines.js';

/** A fresh memory for a radial test, on the engine under test (SQLite outside a matrix block). */
export async function openTempMemory(options: OpenOptions = {}): Promise<{ db: MemoryDB; path: string }> {
  const path = freshMemoryPath();
  return { db: await openMemory(path, options), path };
}

/** A small realistic task on `lineId`. */
export function task(
  lineId: string,
  label: string,
  extra: Partial<CompleteTaskInput> = {},
): CompleteTaskInput {
  return {
    lineId,
    taskLabel: label,
    fullContext: `Full context of ${label}.\nLine two of the working state.`,
    conversationSummary: `We worked on ${label}.`,
    ...extra,
  };
}

/** The demo corpus of HedgehogMemory's README, as three lines of tasks. */
export const CORPUS: readonly CompleteTaskInput[] = [
  {
    lineId: 'auth',
    taskLabel: 'Implement JWT login endpoint',
    fullContext:
      'Implemented POST /api/auth/login.\nAccepts {username, password}, returns {access_token, refresh_token}.\naccess_token TTL=15min, refresh_token TTL=7d. Using PyJWT.',
    conversationSummary: 'Discussed JWT vs session trade-offs and chose the stateless JWT approach.',
    todos: ['Add rate limiting', 'Write unit tests'],
    envSnapshot: { python: '3.11', django: '4.2' },
  },
  {
    lineId: 'auth',
    taskLabel: 'Add JWT refresh endpoint',
    fullContext:
      'Implemented POST /api/auth/refresh with refresh-token rotation; a reused token revokes the family.',
    conversationSummary: 'Implemented the refresh endpoint with token rotation.',
    todos: ['Deploy to staging'],
  },
  {
    lineId: 'auth',
    taskLabel: 'Password reset by email',
    fullContext:
      'Users request a reset link; the signed token expires after 30 minutes. Emails go through SES.',
    conversationSummary: 'Built the forgotten-password flow with expiring email links.',
  },
  {
    lineId: 'rec',
    taskLabel: 'Collaborative filtering recommender',
    fullContext:
      'Trained an implicit ALS model on purchase history; nightly batch job writes top-20 items per user.',
    conversationSummary: 'Chose ALS matrix factorisation for product recommendations.',
    fileChanges: [{ path: 'rec/als.py', changeType: 'created', diffSummary: 'training job' }],
  },
  {
    lineId: 'rec',
    taskLabel: 'Cold-start fallback',
    fullContext: 'New users without history get the most popular products of their region.',
    conversationSummary: 'Popularity fallback for users with no purchases.',
  },
  {
    lineId: 'infra',
    taskLabel: 'Dockerize the API',
    fullContext:
      'Wrote a multi-stage Dockerfile; the image is 120 MB. docker compose runs postgres and redis locally.',
    conversationSummary: 'Containerised the service for local development and CI.',
    fileChanges: [{ path: 'Dockerfile', changeType: 'created', diffSummary: 'multi-stage build' }],
  },
  {
    lineId: 'infra',
    taskLabel: 'Deploy to Kubernetes',
    fullContext: 'Helm chart with a HorizontalPodAutoscaler; rolling updates; secrets from Vault.',
    conversationSummary: 'Production deployment on Kubernetes with Helm.',
  },
];

/** Creates the corpus's lines and commits its tasks in order. */
export async function loadCorpus(db: MemoryDB): Promise<void> {
  const radial = db.primary().radial;
  await radial.createLine('auth', 'Authentication', 'JWT, login, session management');
  await radial.createLine('rec', 'Recommendations', 'Recommendation engine');
  await radial.createLine('infra', 'Infrastructure', 'Docker, CI/CD, deployment');
  for (const entry of CORPUS) await radial.completeTask(entry);
}
