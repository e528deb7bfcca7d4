import { useState } from 'preact/hooks';
import { api } from '../api-client.js';
import type { FileStats } from '../types.js';
import { useAsync } from '../use-async.js';
import { ErrorNote, Loading } from './status.js';

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

function CheckButton() {
  const [result, setResult] = useState('');
  const run = async (): Promise<void> => {
    setResult('Checking…');
    try {
      const report = await api.get<{ checked: string[] }>('/api/check');
      setResult(`ok: ${report.checked.join(', ')}`);
    } catch (error) {
      setResult(`failed: ${(error as Error).message}`);
    }
  };
  return (
    <p>
      <button type="button" onClick={() => void run()}>
        Verify the file
      </button>{' '}
      <span role="status" aria-live="polite">
        {result}
      </span>
    </p>
  );
}

/** File statistics: sizes, rows per layer, pending derived work, and an integrity check. */
export function FileView({ refresh }: { readonly refresh: number }) {
  const state = useAsync(() => api.get<FileStats>('/api/stats'), [refresh]);
  if (state.error) return <ErrorNote error={state.error} />;
  if (!state.data) return <Loading what="statistics" />;
  const stats = state.data;
  return (
    <section class="page" aria-label="file">
      <h2>File</h2>
      <p>
        <code>{stats.path}</code>
      </p>
      <p>
        {bytes(stats.fileBytes)} + WAL {bytes(stats.walBytes)} · schema v{stats.schemaVersion} ·{' '}
        {stats.agents} agent(s)
      </p>
      <table class="stats">
        <caption>Live rows per table</caption>
        <tbody>
          {Object.entries(stats.rows).map(([name, count]) => (
            <tr key={name}>
              <th scope="row">{name}</th>
              <td>{count}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p>
        Pending: {stats.pending.summaries} summaries, {stats.pending.keywords} keyword sets,{' '}
        {stats.pending.embeddings} embeddings.
      </p>
      <CheckButton />
    </section>
  );
}
