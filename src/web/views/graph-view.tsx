import {
  forceCenter,
  forceCollide,
  forceLink,
  forceManyBody,
  forceSimulation,
  type SimulationNodeDatum,
} from 'd3-force';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';

/** A node to draw. */
export interface GraphNode {
  readonly id: string;
  readonly label: string;
  /** Nodes of one group share a colour (e.g. a knowledge node's type). */
  readonly group: string;
  /** 0..1: drawn larger when higher (e.g. an engram scene's importance); default 0.5. */
  readonly weight?: number;
}

/** A link between two nodes. */
export interface GraphLink {
  readonly id: string;
  readonly source: string;
  readonly target: string;
  readonly label: string;
  readonly directed: boolean;
}

interface Placed extends SimulationNodeDatum {
  readonly node: GraphNode;
}

interface Props {
  readonly nodes: readonly GraphNode[];
  readonly links: readonly GraphLink[];
  readonly selected: string | undefined;
  readonly onSelect: (id: string) => void;
  readonly label: string;
  /** Nodes to mark as found (a search); their labels are shown first. */
  readonly marked?: ReadonlySet<string> | undefined;
}

/** Where a node is drawn and how large. */
interface Spot {
  readonly x: number;
  readonly y: number;
  readonly r: number;
}

const SIZE = 800;

function hueOf(group: string): number {
  let hash = 0;
  for (const char of group) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash % 360;
}

/** The radius a node asks for: smaller in a crowded drawing. */
function nominalRadius(node: GraphNode, count: number): number {
  const base = count > 150 ? 3 + 4 * (node.weight ?? 0.5) : 8 + 12 * (node.weight ?? 0.5);
  return base;
}

/**
 * Radii that never overlap: each node's is at most 0.45 of the distance to its nearest
 * neighbour (found through a grid of cells, so this stays linear at thousands of nodes).
 */
function spots(
  points: Map<string, { x: number; y: number }>,
  nodes: readonly GraphNode[],
): Map<string, Spot> {
  const cell = 24;
  const grid = new Map<string, string[]>();
  const key = (x: number, y: number): string => `${Math.floor(x / cell)}:${Math.floor(y / cell)}`;
  for (const [id, p] of points) {
    const k = key(p.x, p.y);
    const bucket = grid.get(k);
    if (bucket) bucket.push(id);
    else grid.set(k, [id]);
  }
  const result = new Map<string, Spot>();
  for (const node of nodes) {
    const p = points.get(node.id);
    if (!p) continue;
    let nearest = Infinity;
    const cx = Math.floor(p.x / cell);
    const cy = Math.floor(p.y / cell);
    for (let dx = -2; dx <= 2; dx++)
      for (let dy = -2; dy <= 2; dy++)
        for (const other of grid.get(`${cx + dx}:${cy + dy}`) ?? []) {
          if (other === node.id) continue;
          const q = points.get(other) as { x: number; y: number };
          nearest = Math.min(nearest, Math.hypot(p.x - q.x, p.y - q.y));
        }
    result.set(node.id, {
      ...p,
      r: Math.max(0.5, Math.min(nominalRadius(node, nodes.length), 0.45 * nearest)),
    });
  }
  return result;
}

/** Runs the force layout to rest once (no animation: stable, and cheap to redraw). */
function layout(nodes: readonly GraphNode[], links: readonly GraphLink[]): Map<string, Spot> {
  return spots(forceLayout(nodes, links), nodes);
}

function forceLayout(
  nodes: readonly GraphNode[],
  links: readonly GraphLink[],
): Map<string, { x: number; y: number }> {
  const placed: Placed[] = nodes.map((node) => ({ node }));
  const known = new Set(nodes.map((n) => n.id));
  const simLinks = links
    .filter((l) => known.has(l.source) && known.has(l.target))
    .map((l) => ({ source: l.source, target: l.target }));
  // A crowded graph gets shorter links and a weaker, bounded repulsion, so that clusters stay
  // apart from each other without every node pushing every other to the rim.
  const crowded = nodes.length > 150;
  const simulation = forceSimulation(placed)
    .force(
      'link',
      forceLink<Placed, { source: string; target: string }>(simLinks)
        .id((d) => d.node.id)
        .distance(crowded ? 30 : 90),
    )
    .force(
      'charge',
      crowded ? forceManyBody().strength(-40).distanceMax(400) : forceManyBody().strength(-260),
    )
    .force('collide', forceCollide(crowded ? 9 : 28))
    .force('center', forceCenter(SIZE / 2, SIZE / 2))
    .stop();
  const ticks = crowded ? 300 : Math.min(400, 80 + nodes.length * 2);
  for (let i = 0; i < ticks; i++) simulation.tick();
  return fit(placed.map((p) => [p.node.id, { x: p.x ?? SIZE / 2, y: p.y ?? SIZE / 2 }]));
}

/** Scales and centres the layout to fill the drawing (a small graph is enlarged, up to 2.5×). */
function fit(points: readonly [string, { x: number; y: number }][]): Map<string, { x: number; y: number }> {
  const margin = 70;
  const xs = points.map(([, p]) => p.x);
  const ys = points.map(([, p]) => p.y);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const span = Math.max(maxX - minX, maxY - minY, 1);
  const scale = Math.min(2.5, (SIZE - 2 * margin) / span);
  const cx = (minX + maxX) / 2;
  const cy = (minY + maxY) / 2;
  return new Map(
    points.map(([id, p]) => [id, { x: SIZE / 2 + (p.x - cx) * scale, y: SIZE / 2 + (p.y - cy) * scale }]),
  );
}

/** Font size of labels on screen (they keep it at every zoom). */
const LABEL_PX = 13;

/**
 * Which labels to show at zoom `k`: in order of priority (selected, its neighbours, marked,
 * then the most linked), each only where it overlaps no label already placed, so the drawing
 * never turns into a blur of text; zooming in makes room for more.
 */
function placeLabels(
  nodes: readonly GraphNode[],
  positions: ReadonlyMap<string, Spot>,
  priority: (node: GraphNode) => number,
  k: number,
): Set<string> {
  const height = (LABEL_PX + 2) / k;
  const placed: { x0: number; x1: number; y0: number; y1: number }[] = [];
  const grid = new Map<string, number[]>();
  const cell = height * 4;
  const shown = new Set<string>();
  const ordered = [...nodes].sort((a, b) => priority(b) - priority(a));
  for (const node of ordered) {
    const p = positions.get(node.id);
    if (!p) continue;
    const width = (Math.min(28, node.label.length) * LABEL_PX * 0.6) / k;
    const box = {
      x0: p.x - width / 2,
      x1: p.x + width / 2,
      y0: p.y + p.r + 1 / k,
      y1: p.y + p.r + 1 / k + height,
    };
    const cells: string[] = [];
    for (let cx = Math.floor(box.x0 / cell); cx <= Math.floor(box.x1 / cell); cx++)
      for (let cy = Math.floor(box.y0 / cell); cy <= Math.floor(box.y1 / cell); cy++)
        cells.push(`${cx}:${cy}`);
    const clash = cells.some((c) =>
      (grid.get(c) ?? []).some((i) => {
        const o = placed[i] as (typeof placed)[number];
        return box.x0 < o.x1 && o.x0 < box.x1 && box.y0 < o.y1 && o.y0 < box.y1;
      }),
    );
    if (clash) continue;
    placed.push(box);
    for (const c of cells) grid.set(c, [...(grid.get(c) ?? []), placed.length - 1]);
    shown.add(node.id);
  }
  return shown;
}

function usePanZoom() {
  const [view, setView] = useState({ x: 0, y: 0, k: 1 });
  const drag = useRef<{ x: number; y: number } | undefined>(undefined);
  const zoom = (factor: number): void =>
    setView((v) => {
      const k = Math.min(6, Math.max(0.2, v.k * factor));
      const cx = SIZE / 2;
      return { k, x: cx - ((cx - v.x) * k) / v.k, y: cx - ((cx - v.y) * k) / v.k };
    });
  return {
    view,
    zoom,
    reset: () => setView({ x: 0, y: 0, k: 1 }),
    /** Pans so that (x, y) is in the middle, at zoom at least `k`. */
    centre: (x: number, y: number, k: number) =>
      setView((v) => {
        const zoomed = Math.max(v.k, k);
        return { k: zoomed, x: SIZE / 2 - x * zoomed, y: SIZE / 2 - y * zoomed };
      }),
    handlers: {
      onWheel: (event: WheelEvent) => {
        event.preventDefault();
        zoom(event.deltaY < 0 ? 1.15 : 1 / 1.15);
      },
      onPointerDown: (event: PointerEvent) => {
        if ((event.target as Element).closest('.gnode')) return;
        drag.current = { x: event.clientX, y: event.clientY };
      },
      onPointerMove: (event: PointerEvent) => {
        const start = drag.current;
        if (!start) return;
        const svg = event.currentTarget as SVGSVGElement;
        const scale = SIZE / Math.max(1, svg.getBoundingClientRect().width);
        drag.current = { x: event.clientX, y: event.clientY };
        setView((v) => ({
          ...v,
          x: v.x + (event.clientX - start.x) * scale,
          y: v.y + (event.clientY - start.y) * scale,
        }));
      },
      onPointerUp: () => {
        drag.current = undefined;
      },
    },
  };
}

/**
 * An interactive node-link drawing: force layout, pan by dragging the background, zoom with
 * the wheel or the buttons, nodes focusable with Tab and opened with Enter or a click.
 */
export function GraphView({ nodes, links, selected, onSelect, label, marked }: Props) {
  const positions = useMemo(() => layout(nodes, links), [nodes, links]);
  const { view, zoom, reset, centre, handlers } = usePanZoom();
  const neighbours = useMemo(() => {
    const set = new Set<string>();
    for (const link of links) {
      if (link.source === selected) set.add(link.target);
      if (link.target === selected) set.add(link.source);
    }
    return set;
  }, [links, selected]);
  const degree = useMemo(() => {
    const count = new Map<string, number>();
    for (const link of links) {
      count.set(link.source, (count.get(link.source) ?? 0) + 1);
      count.set(link.target, (count.get(link.target) ?? 0) + 1);
    }
    return count;
  }, [links]);
  const labelled = useMemo(
    () =>
      placeLabels(
        nodes,
        positions,
        (node) =>
          (node.id === selected ? 4e6 : 0) +
          (neighbours.has(node.id) ? 2e6 : 0) +
          (marked?.has(node.id) ? 1e6 : 0) +
          (degree.get(node.id) ?? 0),
        view.k,
      ),
    [nodes, positions, selected, neighbours, marked, degree, view.k],
  );
  // In a crowded drawing, a node selected from outside it (a search) is brought into view.
  useEffect(() => {
    const p = selected === undefined ? undefined : positions.get(selected);
    if (p && nodes.length > 150) centre(p.x, p.y, 2.5);
  }, [selected, positions]);
  return (
    <div class="graph">
      <div class="graph-tools" role="toolbar" aria-label="zoom">
        <button type="button" onClick={() => zoom(1.25)} aria-label="zoom in">
          +
        </button>
        <button type="button" onClick={() => zoom(0.8)} aria-label="zoom out">
          −
        </button>
        <button type="button" onClick={reset}>
          Reset view
        </button>
      </div>
      <svg class="graph-svg" viewBox={`0 0 ${SIZE} ${SIZE}`} role="group" aria-label={label} {...handlers}>
        <defs>
          <marker
            id="arrow"
            viewBox="0 0 10 10"
            refX="22"
            refY="5"
            markerWidth="7"
            markerHeight="7"
            orient="auto-start-reverse"
          >
            <path d="M 0 0 L 10 5 L 0 10 z" class="arrow-head" />
          </marker>
        </defs>
        <g transform={`translate(${view.x} ${view.y}) scale(${view.k})`}>
          {links.map((link) => {
            const a = positions.get(link.source);
            const b = positions.get(link.target);
            if (!a || !b) return null;
            const lit = link.source === selected || link.target === selected;
            return (
              <g key={link.id} class={lit ? 'glink lit' : 'glink'}>
                <line
                  x1={a.x}
                  y1={a.y}
                  x2={b.x}
                  y2={b.y}
                  marker-end={link.directed ? 'url(#arrow)' : undefined}
                />
                {lit && link.label ? (
                  <text x={(a.x + b.x) / 2} y={(a.y + b.y) / 2 - 4} text-anchor="middle" class="glink-label">
                    {link.label}
                  </text>
                ) : null}
              </g>
            );
          })}
          {nodes.map((node) => {
            const p = positions.get(node.id);
            if (!p) return null;
            const state =
              (node.id === selected ? ' selected' : neighbours.has(node.id) ? ' near' : '') +
              (marked?.has(node.id) ? ' marked' : '');
            return (
              <g
                key={node.id}
                class={`gnode${state}`}
                transform={`translate(${p.x} ${p.y})`}
                tabindex={0}
                role="button"
                aria-label={`${node.label} (${node.group || 'untyped'})`}
                aria-pressed={node.id === selected}
                data-graph-node={node.id}
                onClick={() => onSelect(node.id)}
                onKeyDown={(event) => {
                  if (event.key === 'Enter' || event.key === ' ') {
                    event.preventDefault();
                    onSelect(node.id);
                  }
                }}
              >
                <circle r={p.r} style={{ fill: `hsl(${hueOf(node.group)} 50% 45%)` }} />
                <title>{node.label}</title>
              </g>
            );
          })}
          {/* Labels above every node, so that no node is drawn over one. */}
          <g class="glabels" aria-hidden="true">
            {nodes.map((node) => {
              const p = positions.get(node.id);
              if (!p || !labelled.has(node.id)) return null;
              return (
                <text
                  key={node.id}
                  class={node.id === selected ? 'glabel selected' : 'glabel'}
                  x={p.x}
                  y={p.y + p.r + (1 + LABEL_PX) / view.k}
                  text-anchor="middle"
                  style={{ fontSize: `${LABEL_PX / view.k}px`, strokeWidth: `${3 / view.k}px` }}
                >
                  {node.label.length > 28 ? `${node.label.slice(0, 27)}…` : node.label}
                </text>
              );
            })}
          </g>
        </g>
      </svg>
    </div>
  );
}
