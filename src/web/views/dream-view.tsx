import { useState } from 'preact/hooks';
import { api, seg } from '../api-client.js';
import type { DreamReport, DreamStage } from '../types.js';
import { useAsync } from '../use-async.js';
import { ErrorNote, Loading, When } from './status.js';

function countsText(counts: Readonly<Record<string, number>>): string {
  const parts = Object.entries(counts)
    .filter(([, n]) => n !== 0)
    .map(([kind, n]) => `${kind} ${n}`);
  return parts.length > 0 ? parts.join(', ') : '—';
}

function StageRow({ stage }: { readonly stage: DreamStage }) {
  return (
    <tr>
      <th scope="row">{stage.name}</th>
      <td>
        {stage.status}
        {stage.reason ? <span class="meta"> ({stage.reason})</span> : null}
      </td>
      <td>{countsText(stage.read)}</td>
      <td>{countsText(stage.changed)}</td>
      <td>{stage.durationMs} ms</td>
      <td>{[...stage.errors, ...stage.conflicts].join('; ') || '—'}</td>
    </tr>
  );
}

function Pass({ report }: { readonly report: DreamReport }) {
  return (
    <li class="dream-pass" data-dream={report.id}>
      <details>
        <summary>
          <span class="badge">{report.status}</span> <When ms={report.startedAt} />{' '}
          <span class="meta">
            · {report.startedBy} · {report.sceneId ? `scene ${report.sceneId}` : 'every scene'} ·{' '}
            {report.durationMs} ms · {report.modelCalls} model calls{report.undoneAt ? ' · undone' : ''}
          </span>
        </summary>
        <table class="stats stages">
          <thead>
            <tr>
              <th>stage</th>
              <th>status</th>
              <th>read</th>
              <th>changed</th>
              <th>time</th>
              <th>errors</th>
            </tr>
          </thead>
          <tbody>
            {report.stages.map((stage) => (
              <StageRow key={stage.name} stage={stage} />
            ))}
          </tbody>
        </table>
        {report.profile ? (
          <p class="meta">
            Profile estimate: {report.profile.personality}
            {report.profile.mbti.type ? ` (${report.profile.mbti.type})` : ''}
          </p>
        ) : null}
        {report.errors.length > 0 ? <p class="error">{report.errors.join('; ')}</p> : null}
        <p class="meta">
          Pass {report.id}; applied in {report.applyMs} ms.
        </p>
      </details>
    </li>
  );
}

/** Dream history: each pass with its report; a button runs a pass now (unless read-only). */
export function DreamView(props: {
  readonly agent: string;
  readonly refresh: number;
  readonly readOnly: boolean;
}) {
  const [ran, setRan] = useState(0);
  const [status, setStatus] = useState('');
  const state = useAsync(
    () => api.get<DreamReport[]>(`/api/agents/${seg(props.agent)}/dreams`),
    [props.agent, props.refresh, ran],
  );
  const run = async (): Promise<void> => {
    setStatus('Dreaming…');
    try {
      const report = await api.post<DreamReport>(`/api/agents/${seg(props.agent)}/dream`, {});
      setStatus(`Pass ${report.id}: ${report.status}.`);
      setRan((n) => n + 1);
    } catch (error) {
      setStatus(`Failed: ${(error as Error).message}`);
    }
  };
  return (
    <section class="page wide" aria-label="dream history">
      <h2>Dream history</h2>
      {props.readOnly ? null : (
        <p>
          <button type="button" onClick={() => void run()}>
            Run a Dream pass now
          </button>{' '}
          <span role="status" aria-live="polite">
            {status}
          </span>
        </p>
      )}
      {state.error ? <ErrorNote error={state.error} /> : null}
      {!state.data ? (
        <Loading what="Dream history" />
      ) : state.data.length === 0 ? (
        <p class="empty">No Dream pass yet.</p>
      ) : (
        <ol class="dreams" data-testid="dreams">
          {state.data.map((report) => (
            <Pass key={report.id} report={report} />
          ))}
        </ol>
      )}
    </section>
  );
}
