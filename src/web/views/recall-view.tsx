import { useState } from 'preact/hooks';
import { api, seg } from '../api-client.js';
import type { RecallHit, RecallResult } from '../types.js';
import { ErrorNote, When } from './status.js';

function where(hit: RecallHit): string {
  const p = hit.provenance;
  switch (p.layer) {
    case 'radial':
      return `line ${p.lineId ?? '?'}, position ${p.position ?? '?'} (${p.part || 'node'})`;
    case 'archive':
      return `archive #${p.sourceId}${p.speaker ? `, ${p.speaker}` : ''}${p.topicId ? `, turn ${p.topicId}` : ''}`;
    case 'topic':
      return `turn ${p.sourceId}${p.sceneId ? ` in ${p.sceneId}` : ''}`;
    case 'knowledge':
      return `knowledge node ${p.sourceId}`;
    default:
      return `${p.table} ${p.sourceId}`;
  }
}

function Hits({ hits }: { readonly hits: readonly RecallHit[] }) {
  if (hits.length === 0) return <p class="empty">No hits.</p>;
  return (
    <ol class="hits" data-testid="recall-hits">
      {hits.map((hit) => (
        <li key={`${hit.layer}:${hit.ref}`} class="hit" data-layer={hit.layer}>
          <p class="hit-head">
            <span class="badge">{hit.layer}</span> <span class="meta">{where(hit)}</span>{' '}
            <span class="meta">
              · score {hit.score.toFixed(2)} · query words {hit.confidence.toFixed(2)} · in context:{' '}
              {hit.inContext} · <When ms={hit.provenance.createdAt} />
            </span>
          </p>
          <p class="hit-text">{hit.preview}</p>
        </li>
      ))}
    </ol>
  );
}

/** Recall: a query and a token budget give ranked hits with provenance, and the context a model would get. */
export function RecallView({ agent }: { readonly agent: string }) {
  const [query, setQuery] = useState('');
  const [budget, setBudget] = useState(500);
  const [result, setResult] = useState<RecallResult | undefined>(undefined);
  const [error, setError] = useState<Error | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const run = async (): Promise<void> => {
    if (!query.trim()) return;
    setBusy(true);
    try {
      setResult(
        await api.post<RecallResult>(`/api/agents/${seg(agent)}/recall`, {
          query,
          budgetTokens: budget,
          limit: 20,
        }),
      );
      setError(undefined);
    } catch (e) {
      setError(e as Error);
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="page wide" aria-label="recall">
      <form
        class="recall-form"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          void run();
        }}
      >
        <label>
          Query{' '}
          <input
            type="search"
            value={query}
            size={48}
            data-testid="recall-query"
            onInput={(e) => setQuery(e.currentTarget.value)}
            placeholder="e.g. where is the JWT secret?"
          />
        </label>
        <label>
          Token budget{' '}
          <input
            type="number"
            min={0}
            max={100000}
            step={50}
            value={budget}
            data-testid="recall-budget"
            onInput={(e) => setBudget(Math.max(0, Number(e.currentTarget.value) || 0))}
          />
        </label>
        <button type="submit" disabled={busy} data-testid="recall-submit">
          Recall
        </button>
      </form>
      {error ? <ErrorNote error={error} /> : null}
      {result ? (
        <div class="recall-results">
          <div>
            <h3>Ranked hits</h3>
            <Hits hits={result.hits} />
          </div>
          <div>
            <h3>
              Context for {result.budgetTokens} tokens <span class="meta">({result.usedTokens} used)</span>
            </h3>
            <pre class="text" data-testid="recall-context">
              {result.context || '(empty)'}
            </pre>
          </div>
        </div>
      ) : null}
    </section>
  );
}
