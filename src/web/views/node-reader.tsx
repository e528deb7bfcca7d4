import { useEffect, useState } from 'preact/hooks';
import { withoutLeadingLabel } from '../../core/text.js';
import { api, seg } from '../api-client.js';
import { LEVELS, type LevelName, type RadialNode, type RadialOverview } from '../types.js';
import { useAsync } from '../use-async.js';
import { ErrorNote, Loading, When } from './status.js';

/** What the reader shows: the origin, or one node by line and position. */
export type Selection =
  | { readonly kind: 'origin' }
  | { readonly kind: 'node'; readonly lineId: string; readonly position: number };

interface Props {
  readonly agent: string;
  readonly refresh: number;
  readonly overview: RadialOverview;
  readonly selection: Selection | undefined;
}

/** Copies text, falling back to a hidden textarea where the Clipboard API is unavailable. */
async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  document.execCommand('copy');
  area.remove();
}

function LevelSteps(props: { readonly level: number; readonly setLevel: (level: number) => void }) {
  return (
    <div class="levels" role="toolbar" aria-label="detail level">
      {LEVELS.map((name, index) => (
        <button
          key={name}
          type="button"
          class={index === props.level ? 'level current' : 'level'}
          aria-pressed={index === props.level}
          data-level={name}
          onClick={() => props.setLevel(index)}
        >
          {index > 0 ? <span aria-hidden="true">→ </span> : null}
          {name}
        </button>
      ))}
    </div>
  );
}

function NodeDetails({ node }: { readonly node: RadialNode }) {
  const { state } = node;
  return (
    <details class="node-state">
      <summary>Task state: summary, todos, file changes, environment</summary>
      <h4>Conversation summary</h4>
      <p class="prose">{state.conversationSummary || '—'}</p>
      <h4>Todos</h4>
      {state.todos.length === 0 ? (
        <p>—</p>
      ) : (
        <ul>
          {state.todos.map((todo, i) => (
            <li key={i}>{todo}</li>
          ))}
        </ul>
      )}
      <h4>File changes</h4>
      {state.fileChanges.length === 0 ? (
        <p>—</p>
      ) : (
        <ul>
          {state.fileChanges.map((change, i) => (
            <li key={i}>
              <code>{change.path}</code> ({change.changeType}) {change.diffSummary}
            </li>
          ))}
        </ul>
      )}
      <h4>Environment snapshot</h4>
      <pre class="text small">{JSON.stringify(state.envSnapshot, null, 2)}</pre>
    </details>
  );
}

function NodeText(props: { readonly agent: string; readonly node: RadialNode; readonly level: number }) {
  const { agent, node, level } = props;
  const name = LEVELS[level] as LevelName;
  const full = useAsync(
    () =>
      name === 'full'
        ? api.get<{ fullContext: string }>(`/api/agents/${seg(agent)}/nodes/${seg(node.id)}/full`)
        : Promise.resolve(undefined),
    [agent, node.id, name],
  );
  if (name !== 'full') {
    // The title above already names the task: the level is shown without its leading copy.
    const text = node.summaries[name];
    return (
      <pre class="text" data-testid="level-text" data-level={name}>
        {withoutLeadingLabel(text, node.taskLabel) || text}
      </pre>
    );
  }
  if (full.error) return <ErrorNote error={full.error} />;
  if (!full.data) return <Loading what="the full state" />;
  return (
    <pre class="text" data-testid="full-state" data-level="full">
      {full.data.fullContext}
    </pre>
  );
}

function CopyFull(props: { readonly agent: string; readonly nodeId: string }) {
  const [status, setStatus] = useState('');
  const copy = async (): Promise<void> => {
    try {
      const { fullContext } = await api.get<{ fullContext: string }>(
        `/api/agents/${seg(props.agent)}/nodes/${seg(props.nodeId)}/full`,
      );
      await copyText(fullContext);
      setStatus(`Copied ${fullContext.length} characters.`);
    } catch (error) {
      setStatus(`Could not copy: ${(error as Error).message}`);
    }
  };
  return (
    <span class="copy">
      <button type="button" onClick={() => void copy()} data-testid="copy-full">
        Copy full state
      </button>
      <span role="status" aria-live="polite" class="copy-status">
        {status}
      </span>
    </span>
  );
}

function NodePanel(props: {
  readonly agent: string;
  readonly refresh: number;
  readonly lineId: string;
  readonly position: number;
  readonly lineName: string;
}) {
  const { agent, lineId, position } = props;
  const [level, setLevel] = useState(0);
  useEffect(() => setLevel(0), [lineId, position]);
  const state = useAsync(
    () => api.get<RadialNode>(`/api/agents/${seg(agent)}/lines/${seg(lineId)}/nodes/${position}`),
    [agent, lineId, position, props.refresh],
  );
  if (state.error) return <ErrorNote error={state.error} />;
  if (!state.data) return <Loading what="the node" />;
  const node = state.data;
  return (
    <article class="reader" data-testid="reader" data-node-id={node.id}>
      <p class="crumb">
        {props.lineName} · position {node.position}
        {node.summariesState === 'pending' ? <span class="badge">summaries pending</span> : null}
      </p>
      <h2 data-testid="reader-title">{node.taskLabel}</h2>
      <p class="meta">
        Committed <When ms={node.createdAt} /> · full state {node.state.fullContextBytes} bytes
      </p>
      <LevelSteps level={level} setLevel={setLevel} />
      <div class="level-actions">
        <button type="button" disabled={level === 0} onClick={() => setLevel(level - 1)}>
          ‹ Less detail
        </button>
        <button type="button" disabled={level === 4} onClick={() => setLevel(level + 1)} data-testid="drill">
          More detail ›
        </button>
        <CopyFull agent={agent} nodeId={node.id} />
      </div>
      <NodeText agent={agent} node={node} level={level} />
      <NodeDetails node={node} />
    </article>
  );
}

/** Reads the selected node level by level (origin → brief → summary → detailed → full). */
export function NodeReader({ agent, refresh, overview, selection }: Props) {
  if (!selection) {
    return (
      <div class="reader empty">
        <h2>{overview.projectName}</h2>
        <p>
          Select the origin or a node to read it. Each node opens at its origin level; step deeper to the
          verbatim full state.
        </p>
      </div>
    );
  }
  if (selection.kind === 'origin') {
    return (
      <article class="reader" data-testid="reader">
        <p class="crumb">origin</p>
        <h2>{overview.projectName}</h2>
        <p class="meta">Always in the model's context: profile brief, one entry per line, current scene.</p>
        <pre class="text" data-testid="origin-text">
          {overview.origin}
        </pre>
      </article>
    );
  }
  const line = overview.lines.find((l) => l.id === selection.lineId);
  return (
    <NodePanel
      agent={agent}
      refresh={refresh}
      lineId={selection.lineId}
      position={selection.position}
      lineName={line?.name ?? selection.lineId}
    />
  );
}
