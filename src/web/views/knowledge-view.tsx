import { useEffect, useMemo, useState } from 'preact/hooks';
import { api, seg } from '../api-client.js';
import type { KnowledgeGraph, KnowledgeGraphInfo } from '../types.js';
import { useAsync } from '../use-async.js';
import { GraphView, type GraphLink, type GraphNode } from './graph-view.js';
import { ErrorNote, Loading } from './status.js';

/** Largest graph drawn whole; bigger ones show their first nodes (search and filters reach them all). */
const DRAW_LIMIT = 2000;

/** Most search matches listed under the search box. */
const MATCHES_SHOWN = 12;

/** What the toolbar above a graph asks for. */
interface Filters {
  /** Text to find in node titles (case-insensitive); '' for none. */
  readonly search: string;
  /** Draw only the nodes that match the search. */
  readonly onlyMatches: boolean;
  /** Draw only nodes of this type; undefined for all. */
  readonly type: string | undefined;
  /** Draw only the selected node and the nodes this many links away; 0 for the whole graph. */
  readonly depth: number;
}

const NO_FILTERS: Filters = { search: '', onlyMatches: false, type: undefined, depth: 0 };

/** Ids of the nodes within `depth` links of `from` (itself included). */
function neighbourhood(links: readonly GraphLink[], from: string, depth: number): Set<string> {
  const adjacent = new Map<string, string[]>();
  for (const link of links) {
    adjacent.set(link.source, [...(adjacent.get(link.source) ?? []), link.target]);
    adjacent.set(link.target, [...(adjacent.get(link.target) ?? []), link.source]);
  }
  const seen = new Set([from]);
  let frontier = [from];
  for (let step = 0; step < depth; step++) {
    frontier = frontier.flatMap((id) => adjacent.get(id) ?? []).filter((id) => !seen.has(id) && seen.add(id));
  }
  return seen;
}

/** Nodes whose title holds the search text (case-insensitive). */
function matchesOf(graph: KnowledgeGraph, search: string) {
  const needle = search.trim().toLocaleLowerCase();
  return needle.length === 0 ? [] : graph.nodes.filter((n) => n.title.toLocaleLowerCase().includes(needle));
}

/**
 * The nodes and links to draw under the toolbar's filters. It depends only on what changes the
 * drawing, so typing a search that only marks nodes does not lay the graph out again.
 */
function drawing(
  graph: KnowledgeGraph,
  filters: Filters,
  focusOn: string | undefined,
  onlyIds: ReadonlySet<string> | undefined,
) {
  const allLinks = toLinks(graph);
  const focus =
    filters.depth > 0 && focusOn !== undefined ? neighbourhood(allLinks, focusOn, filters.depth) : undefined;
  const kept = graph.nodes.filter(
    (n) =>
      (filters.type === undefined || n.type === filters.type || n.id === focusOn) &&
      (onlyIds === undefined || onlyIds.has(n.id)) &&
      (focus === undefined || focus.has(n.id)),
  );
  const nodes = kept.slice(0, DRAW_LIMIT).map((n) => ({ id: n.id, label: n.title, group: n.type }));
  const ids = new Set(nodes.map((n) => n.id));
  const links = allLinks.filter((l) => ids.has(l.source) && ids.has(l.target));
  return { nodes, links, kept: kept.length };
}

function Toolbar(props: {
  readonly graph: KnowledgeGraph;
  readonly filters: Filters;
  readonly set: (filters: Filters) => void;
  readonly matches: readonly { readonly id: string; readonly title: string; readonly type: string }[];
  readonly selected: string | undefined;
  readonly select: (id: string) => void;
}) {
  const { filters, set, matches } = props;
  const types = useMemo(() => {
    const count = new Map<string, number>();
    for (const node of props.graph.nodes) count.set(node.type, (count.get(node.type) ?? 0) + 1);
    return [...count].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  }, [props.graph]);
  return (
    <div class="kg-tools" role="search">
      <label>
        Find{' '}
        <input
          type="search"
          placeholder="node name"
          value={filters.search}
          data-testid="kg-search"
          onInput={(e) => set({ ...filters, search: e.currentTarget.value })}
          onKeyDown={(e) => {
            const first = matches[0];
            if (e.key === 'Enter' && first) props.select(first.id);
          }}
        />
      </label>{' '}
      <label>
        <input
          type="checkbox"
          checked={filters.onlyMatches}
          data-testid="kg-only-matches"
          onChange={(e) => set({ ...filters, onlyMatches: e.currentTarget.checked })}
        />{' '}
        only matches
      </label>{' '}
      <label>
        Type{' '}
        <select
          value={filters.type ?? ''}
          data-testid="kg-type"
          onChange={(e) =>
            set({ ...filters, type: e.currentTarget.value === '' ? undefined : e.currentTarget.value })
          }
        >
          <option value="">all types</option>
          {types.map(([type, count]) => (
            <option key={type} value={type}>
              {type || 'untyped'} ({count})
            </option>
          ))}
        </select>
      </label>{' '}
      <label>
        Focus{' '}
        <select
          value={String(filters.depth)}
          data-testid="kg-focus"
          disabled={props.selected === undefined}
          title={props.selected === undefined ? 'select a node to focus on its neighbourhood' : undefined}
          onChange={(e) => set({ ...filters, depth: Number(e.currentTarget.value) })}
        >
          <option value="0">whole graph</option>
          <option value="1">selected node and its neighbours</option>
          <option value="2">two links around the selected node</option>
        </select>
      </label>
      {filters.search.trim().length > 0 ? (
        <p class="kg-matches" data-testid="kg-matches" aria-live="polite">
          {matches.length === 0
            ? 'no node matches'
            : `${matches.length} match${matches.length === 1 ? '' : 'es'}: `}
          {matches.slice(0, MATCHES_SHOWN).map((n) => (
            <button type="button" key={n.id} class="link" onClick={() => props.select(n.id)}>
              {n.title}
            </button>
          ))}
          {matches.length > MATCHES_SHOWN ? ` … and ${matches.length - MATCHES_SHOWN} more` : ''}
        </p>
      ) : null}
    </div>
  );
}

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
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  useEffect(() => {
    setSelected(undefined);
    setFilters(NO_FILTERS);
  }, [graphId]);
  const state = useAsync(() => api.get<KnowledgeGraph>(`/api/knowledge/${seg(graphId)}`), [graphId, refresh]);
  const matches = useMemo(
    () => (state.data ? matchesOf(state.data, filters.search) : []),
    [state.data, filters.search],
  );
  const matched = useMemo(() => new Set(matches.map((n) => n.id)), [matches]);
  const onlyIds = filters.onlyMatches && filters.search.trim().length > 0 ? matched : undefined;
  // The selection matters to the drawing only while focusing on it (or when a type filter keeps it).
  const focusOn = filters.depth > 0 || filters.type !== undefined ? selected : undefined;
  const drawn = useMemo(
    () =>
      state.data
        ? drawing(state.data, filters, focusOn, onlyIds)
        : { nodes: [] as GraphNode[], links: [] as GraphLink[], kept: 0 },
    [state.data, filters.type, filters.depth, focusOn, onlyIds],
  );
  if (state.error) return <ErrorNote error={state.error} />;
  if (!state.data) return <Loading what="the graph" />;
  const graph = state.data;
  return (
    <div class="split">
      <section class="drawing-pane" aria-label={`graph ${graph.graph.label}`}>
        <Toolbar
          graph={graph}
          filters={filters}
          set={setFilters}
          matches={matches}
          selected={selected}
          select={setSelected}
        />
        <GraphView
          nodes={drawn.nodes}
          links={drawn.links}
          selected={selected}
          onSelect={setSelected}
          label={`knowledge graph ${graph.graph.label}`}
          marked={matched}
        />
        <p class="hint" data-testid="kg-drawn">
          {drawn.nodes.length === graph.nodes.length
            ? `${graph.graph.nodeCount} nodes · ${graph.graph.edgeCount} edges`
            : `drawing ${drawn.nodes.length} of ${graph.graph.nodeCount} nodes`}
          {drawn.kept > DRAW_LIMIT ? ` (the first ${DRAW_LIMIT} of ${drawn.kept}; narrow it down)` : ''}. Drag
          to pan, wheel to zoom; labels that would overlap appear as you zoom in.
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
