import { useEffect, useState } from 'preact/hooks';
import type { ComponentChildren } from 'preact';
import { api, ApiError } from './api-client.js';
import type { AgentInfo, ServerInfo } from './types.js';
import { DreamView } from './views/dream-view.js';
import { EngramView } from './views/engram-view.js';
import { FileView } from './views/file-view.js';
import { HedgehogView } from './views/hedgehog-view.js';
import { KnowledgeView } from './views/knowledge-view.js';
import { RecallView } from './views/recall-view.js';
import { ScenesView } from './views/scenes-view.js';
import { ErrorNote } from './views/status.js';

interface Tab {
  readonly id: string;
  readonly label: string;
}

const TABS: readonly Tab[] = [
  { id: 'hedgehog', label: 'Hedgehog' },
  { id: 'scenes', label: 'Scenes' },
  { id: 'knowledge', label: 'Knowledge' },
  { id: 'engram', label: 'Engram' },
  { id: 'recall', label: 'Recall' },
  { id: 'dream', label: 'Dream' },
  { id: 'file', label: 'File' },
];

function currentTab(): string {
  const id = location.hash.replace(/^#\/?/, '');
  return TABS.some((tab) => tab.id === id) ? id : 'hedgehog';
}

function useHashTab(): string {
  const [tab, setTab] = useState(currentTab);
  useEffect(() => {
    const onHash = (): void => setTab(currentTab());
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  return tab;
}

/** Follows server-sent change events (under `serve --watch`) and bumps `refresh` on each. */
function useLiveRefresh(
  session: number,
  watch: boolean,
): { refresh: number; live: boolean; bump: () => void } {
  const [refresh, setRefresh] = useState(0);
  const [live, setLive] = useState(false);
  useEffect(() => {
    if (!watch) return undefined;
    const abort = new AbortController();
    api
      .follow(
        () => setRefresh((n) => n + 1),
        () => setLive(true),
        abort.signal,
      )
      .catch(() => undefined)
      .finally(() => setLive(false));
    return () => abort.abort();
  }, [session, watch]);
  return { refresh, live, bump: () => setRefresh((n) => n + 1) };
}

function TokenForm({ onDone, rejected }: { readonly onDone: () => void; readonly rejected: boolean }) {
  const [value, setValue] = useState('');
  return (
    <form
      class="token-form"
      onSubmit={(event) => {
        event.preventDefault();
        if (value.trim().length === 0) return;
        api.setToken(value.trim());
        setValue('');
        onDone();
      }}
    >
      <h2>This server needs a token</h2>
      {rejected ? (
        <p class="error" role="alert" data-testid="token-rejected">
          <strong>Wrong token.</strong> The server did not accept the token you entered. Enter the one it was
          started with (serve --token, or the token it printed).
        </p>
      ) : null}
      <p>It was started with --token. Enter it to read the memory (kept for this tab only).</p>
      <label>
        Token{' '}
        <input
          type="password"
          autoComplete="off"
          value={value}
          autoFocus
          aria-invalid={rejected}
          onInput={(e) => setValue(e.currentTarget.value)}
        />
      </label>{' '}
      <button type="submit">Continue</button>
    </form>
  );
}

function View(props: {
  readonly tab: string;
  readonly agent: string;
  readonly refresh: number;
  readonly readOnly: boolean;
}): ComponentChildren {
  switch (props.tab) {
    case 'scenes':
      return <ScenesView agent={props.agent} refresh={props.refresh} />;
    case 'knowledge':
      return <KnowledgeView refresh={props.refresh} />;
    case 'engram':
      return <EngramView agent={props.agent} refresh={props.refresh} />;
    case 'recall':
      return <RecallView agent={props.agent} />;
    case 'dream':
      return <DreamView agent={props.agent} refresh={props.refresh} readOnly={props.readOnly} />;
    case 'file':
      return <FileView refresh={props.refresh} />;
    default:
      return <HedgehogView agent={props.agent} refresh={props.refresh} />;
  }
}

/** The whole page: header with agent picker, tabs, and the chosen view. */
export function App() {
  const tab = useHashTab();
  const [session, setSession] = useState(0);
  const [server, setServer] = useState<ServerInfo | undefined>(undefined);
  const { refresh, live, bump } = useLiveRefresh(session, server?.watch === true);
  useEffect(() => {
    api.get<ServerInfo>('/api/server').then(setServer, () => setServer(undefined));
  }, [session]);
  const [agents, setAgents] = useState<readonly AgentInfo[] | undefined>(undefined);
  const [agent, setAgent] = useState('primary');
  const [error, setError] = useState<Error | undefined>(undefined);
  useEffect(() => {
    api.get<AgentInfo[]>('/api/agents').then(
      (list) => {
        setAgents(list);
        setError(undefined);
      },
      (e: Error) => setError(e),
    );
  }, [refresh]);
  const needsToken = error instanceof ApiError && error.status === 401;
  // A 401 after a token was entered in this tab means that token was wrong.
  const [tokenTried, setTokenTried] = useState(api.hasToken());
  return (
    <div class="app">
      <header class="top">
        <h1>
          <svg class="brand" viewBox="0 0 20 20" aria-hidden="true">
            {[0, 1, 2, 3, 4, 5, 6, 7].map((i) => (
              <line
                key={i}
                x1="10"
                y1="10"
                x2={10 + 9 * Math.cos((i * Math.PI) / 4)}
                y2={10 + 9 * Math.sin((i * Math.PI) / 4)}
                stroke="currentColor"
                stroke-width="1.6"
              />
            ))}
            <circle cx="10" cy="10" r="4" fill="currentColor" />
          </svg>
          hedgehop
        </h1>
        <nav aria-label="views">
          {TABS.map((t) => (
            <a
              key={t.id}
              href={`#/${t.id}`}
              class={t.id === tab ? 'tab current' : 'tab'}
              aria-current={t.id === tab ? 'page' : undefined}
            >
              {t.label}
            </a>
          ))}
        </nav>
        <label class="agent-picker">
          Agent{' '}
          <select value={agent} onChange={(e) => setAgent(e.currentTarget.value)}>
            {(agents ?? [{ name: 'primary' }]).map((a) => (
              <option key={a.name} value={a.name}>
                {a.name}
              </option>
            ))}
          </select>
        </label>
        <span
          class={live ? 'live on' : 'live'}
          title={live ? 'following changes from other processes' : 'not watching (start serve with --watch)'}
        >
          {live ? '● live' : '○ static'}
        </span>
      </header>
      <main>
        {needsToken ? (
          <TokenForm
            rejected={tokenTried}
            onDone={() => {
              setTokenTried(true);
              setSession((n) => n + 1);
              bump();
            }}
          />
        ) : error ? (
          <ErrorNote error={error} />
        ) : (
          // Keyed by agent: what a view had selected belongs to the agent it was selected under.
          <View key={agent} tab={tab} agent={agent} refresh={refresh} readOnly={server?.readOnly ?? true} />
        )}
      </main>
    </div>
  );
}
