import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, seg } from '../api-client.js';
import type { KnowledgeGraph, KnowledgeGraphInfo } from '../types.js';
import { useAsync } from '../use-async.js';
import { GraphView, type GraphLink, type GraphNode } from './graph-view.js';
import { ErrorNote, Loading } from './status.js';

/** Largest graph drawn whole; bigger ones show their first nodes (the list stays complete). */
const DRAW_LIMIT = 600;

/** Edges join two or more members: directed ones chain in order, undirected ones star from the first. */
function toLinks(graph: KnowledgeGraph): GraphLink[] {
  const links: GraphLink[] = [];
  for (const edge of graph.edges) {
    const [first, ...rest] = edge.members;
    if (first === undefined) continue;
    rest.forEach((member, index) => {
      const source = edge.directed ? (edge.members[index] as string) : first;
      links.push({
        id: `${edge.id}:${index}`,
        source,
        target: member,
        label: edge.label || edge.kind,
        directed: edge.directed,
      });
    });
  }
  return links;
}

function NodePanel({
  graph,
  nodeId,
}: {
  readonly graph: KnowledgeGraph;
  readonly nodeId: string | undefined;
}) {
  const node = graph.nodes.find((n) => n.id === nodeId);
  if (!node)
    return <p class="empty">Select a node (click, or Tab and Enter) to read it and its relations.</p>;
  const title = (id: string): string => graph.nodes.find((n) => n.id === id)?.title ?? id;
  const related = graph.edges.filter((edge) => edge.members.includes(node.id));
  return (
    <article class="reader" data-testid="kg-node">
      <p class="crumb">{node.type || 'untyped'}</p>
      <h2>{node.title}</h2>
      {node.content ? <pre class="text">{node.content}</pre> : null}
      {node.observations.length > 0 ? (
        <>
          <h4>Observations</h4>
          <ul>
            {node.observations.map((o, i) => (
              <li key={i}>{o}</li>
            ))}
          </ul>
        </>
      ) : null}
      {node.keywords.length > 0 ? <p class="meta">Keywords: {node.keywords.join(', ')}</p> : null}
      <h4>Relations</h4>
      {related.length === 0 ? (
        <p>—</p>
      ) : (
        <ul>
          {related.map((edge) => (
            <li key={edge.id}>
              {edge.members.map(title).join(edge.directed ? ' → ' : ' — ')}{' '}
              <span class="meta">({edge.label || edge.kind})</span>
            </li>
          ))}
        </ul>
      )}
      {node.sourceRef ? <p class="meta">Source: {node.sourceRef.source}</p> : null}
    </article>
  );
}

function GraphPane({ graphId, refresh }: { readonly graphId: string; readonly refresh: number }) {
  const [selected, setSelected] = useState<string | undefined>(undefined);
  useEffect(() => setSelected(undefined), [graphId]);
  const state = useAsync(() => api.get<KnowledgeGraph>(`/api/knowledge/${seg(graphId)}`), [graphId, refresh]);
  const drawn = useMemo(() => {
    if (!state.data) return { nodes: [] as GraphNode[], links: [] as GraphLink[] };
    const nodes = state.data.nodes
      .slice(0, DRAW_LIMIT)
      .map((n) => ({ id: n.id, label: n.title, group: n.type }));
    return { nodes, links: toLinks(state.data) };
  }, [state.data]);
  if (state.error) return <ErrorNote error={state.error} />;
  if (!state.data) return <Loading what="the graph" />;
  const graph = state.data;
  return (
    <div class="split">
      <section class="drawing-pane" aria-label={`graph ${graph.graph.label}`}>
        <GraphView
          nodes={drawn.nodes}
          links={drawn.links}
          selected={selected}
          onSelect={setSelected}
          label={`knowledge graph ${graph.graph.label}`}
        />
        <p class="hint">
          {graph.graph.nodeCount} nodes · {graph.graph.edgeCount} edges
          {graph.nodes.length > DRAW_LIMIT ? ` (drawing the first ${DRAW_LIMIT})` : ''}. Drag to pan, wheel to
          zoom.
        </p>
      </section>
      <aside class="reader-pane">
        <NodePanel graph={graph} nodeId={selected} />
      </aside>
    </div>
  );
}

/** Knowledge graphs: pick one, explore it as an interactive graph. */
export function KnowledgeView({ refresh }: { readonly refresh: number }) {
  const [graphId, setGraphId] = useState<string | undefined>(undefined);
  const list = useAsync(() => api.get<KnowledgeGraphInfo[]>('/api/knowledge'), [refresh]);
  if (list.error) return <ErrorNote error={list.error} />;
  if (!list.data) return <Loading what="knowledge graphs" />;
  if (list.data.length === 0) return <p class="empty">No knowledge graphs in this file yet.</p>;
  const chosen = graphId ?? list.data[0]?.id;
  return (
    <div class="stack">
      <label>
        Graph{' '}
        <select value={chosen} onChange={(e) => setGraphId(e.currentTarget.value)} data-testid="graph-picker">
          {list.data.map((g) => (
            <option key={g.id} value={g.id}>
              {g.label} ({g.nodeCount} nodes, {g.edgeCount} edges)
            </option>
          ))}
        </select>
      </label>
      {chosen ? <GraphPane graphId={chosen} refresh={refresh} /> : null}
    </div>
  );
}
