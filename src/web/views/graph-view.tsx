import {
  forceCenter,
  forceCollide,
  forceLink,
  forceManyBody,
  forceSimulation,
  type SimulationNodeDatum,
} from 'd3-force';
import { useMemo, useRef, useState } from 'preact/hooks';

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
}

const SIZE = 800;

function hueOf(group: string): number {
  let hash = 0;
  for (const char of group) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash % 360;
}

/** Runs the force layout to rest once (no animation: stable, and cheap to redraw). */
function layout(
  nodes: readonly GraphNode[],
  links: readonly GraphLink[],
): Map<string, { x: number; y: number }> {
  const placed: Placed[] = nodes.map((node) => ({ node }));
  const known = new Set(nodes.map((n) => n.id));
  const simLinks = links
    .filter((l) => known.has(l.source) && known.has(l.target))
    .map((l) => ({ source: l.source, target: l.target }));
  const simulation = forceSimulation(placed)
    .force(
      'link',
      forceLink<Placed, { source: string; target: string }>(simLinks)
        .id((d) => d.node.id)
        .distance(90),
    )
    .force('charge', forceManyBody().strength(-260))
    .force('collide', forceCollide(28))
    .force('center', forceCenter(SIZE / 2, SIZE / 2))
    .stop();
  const ticks = Math.min(400, 80 + nodes.length * 2);
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
export function GraphView({ nodes, links, selected, onSelect, label }: Props) {
  const positions = useMemo(() => layout(nodes, links), [nodes, links]);
  const { view, zoom, reset, handlers } = usePanZoom();
  const neighbours = useMemo(() => {
    const set = new Set<string>();
    for (const link of links) {
      if (link.source === selected) set.add(link.target);
      if (link.target === selected) set.add(link.source);
    }
    return set;
  }, [links, selected]);
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
            const state = node.id === selected ? ' selected' : neighbours.has(node.id) ? ' near' : '';
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
                <circle
                  r={8 + 12 * (node.weight ?? 0.5)}
                  style={{ fill: `hsl(${hueOf(node.group)} 50% 45%)` }}
                />
                <text y={30} text-anchor="middle">
                  {node.label.length > 28 ? `${node.label.slice(0, 27)}…` : node.label}
                </text>
              </g>
            );
          })}
        </g>
      </svg>
    </div>
  );
}
