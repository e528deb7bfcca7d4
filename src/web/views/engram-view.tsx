import { useMemo, useState } from 'preact/hooks';
import { api, seg } from '../api-client.js';
import type { EngramGraph, Scene } from '../types.js';
import { useAsync } from '../use-async.js';
import { GraphView, type GraphLink, type GraphNode } from './graph-view.js';
import { ErrorNote, Loading, When } from './status.js';

interface Data {
  readonly engram: EngramGraph;
  readonly names: ReadonlyMap<string, string>;
}

function ScenePanel({ data, sceneId }: { readonly data: Data; readonly sceneId: string | undefined }) {
  const node = data.engram.nodes.find((n) => n.sceneId === sceneId);
  if (!node) return <p class="empty">Select a scene to see its importance, emotion, keywords and links.</p>;
  const links = data.engram.edges
    .filter((e) => e.a === node.sceneId || e.b === node.sceneId)
    .sort((x, y) => y.weight - x.weight);
  const name = (id: string): string => data.names.get(id) ?? id;
  return (
    <article class="reader" data-testid="engram-scene">
      <p class="crumb">scene {node.sceneId}</p>
      <h2>{name(node.sceneId)}</h2>
      <p class="meta">
        importance {node.importance.toFixed(2)} · valence {node.valence.toFixed(2)} · arousal{' '}
        {node.arousal.toFixed(2)}
        {node.emotionSet ? '' : ' (emotion not estimated yet)'} · {node.topicIds.length} turns · updated{' '}
        <When ms={node.updatedAt} />
      </p>
      <h4>Keywords</h4>
      <p>{node.keywords.length > 0 ? node.keywords.join(', ') : '—'}</p>
      <h4>Linked scenes</h4>
      {links.length === 0 ? (
        <p>—</p>
      ) : (
        <ul>
          {links.map((e) => (
            <li key={`${e.a}:${e.b}`}>
              {name(e.a === node.sceneId ? e.b : e.a)}{' '}
              <span class="meta">(weight {e.weight.toFixed(2)})</span>
            </li>
          ))}
        </ul>
      )}
    </article>
  );
}

/** The engram: scenes as nodes sized by importance, linked where their keywords overlap. */
export function EngramView({ agent, refresh }: { readonly agent: string; readonly refresh: number }) {
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const state = useAsync(async (): Promise<Data> => {
    const [engram, scenes] = await Promise.all([
      api.get<EngramGraph>(`/api/agents/${seg(agent)}/engram`),
      api.get<Scene[]>(`/api/agents/${seg(agent)}/scenes`),
    ]);
    return { engram, names: new Map(scenes.map((s) => [s.id, s.name])) };
  }, [agent, refresh]);
  const drawn = useMemo(() => {
    if (!state.data) return { nodes: [] as GraphNode[], links: [] as GraphLink[] };
    const { engram, names } = state.data;
    return {
      nodes: engram.nodes.map((n) => ({
        id: n.sceneId,
        label: names.get(n.sceneId) ?? n.sceneId,
        group: 'scene',
        weight: n.importance,
      })),
      links: engram.edges.map((e) => ({
        id: `${e.a}:${e.b}`,
        source: e.a,
        target: e.b,
        label: e.weight.toFixed(2),
        directed: false,
      })),
    };
  }, [state.data]);
  if (state.error) return <ErrorNote error={state.error} />;
  if (!state.data) return <Loading what="the engram" />;
  if (state.data.engram.nodes.length === 0) {
    return <p class="empty">The engram is empty: Dream builds it from the scenes (run a Dream pass).</p>;
  }
  return (
    <div class="split">
      <section class="drawing-pane" aria-label="engram">
        <GraphView
          nodes={drawn.nodes}
          links={drawn.links}
          selected={selected}
          onSelect={setSelected}
          label="engram of scenes"
        />
        <p class="hint">
          {state.data.engram.nodes.length} scenes · {state.data.engram.edges.length} links
          {state.data.engram.fadedScenes > 0 ? ` · ${state.data.engram.fadedScenes} faded` : ''}. Larger =
          more important.
        </p>
      </section>
      <aside class="reader-pane">
        <ScenePanel data={state.data} sceneId={selected} />
      </aside>
    </div>
  );
}
