import { useMemo, useState } from 'preact/hooks';
import { api, seg } from '../api-client.js';
import { layoutHedgehog, type HedgehogLayout, type PlacedNode } from '../hedgehog-layout.js';
import type { RadialOverview } from '../types.js';
import { useAsync } from '../use-async.js';
import { ErrorNote, Loading } from './status.js';
import { NodeReader, type Selection } from './node-reader.js';

/** Room beside the square drawing, as a share of its side, for the labels of sideways quills. */
const LABEL_ROOM = 0.16;

interface Props {
  readonly agent: string;
  readonly refresh: number;
}

function focusNode(lineId: string, position: number): void {
  const selector = `[data-line="${CSS.escape(lineId)}"][data-position="${position}"]`;
  document.querySelector<SVGElement>(selector)?.focus();
}

/** Arrow keys walk the drawing: up/down along a quill, left/right to the neighbouring quill. */
function onArrow(event: KeyboardEvent, node: PlacedNode, layout: HedgehogLayout): void {
  const byLine = (index: number): PlacedNode[] =>
    layout.nodes.filter((n) => n.lineIndex === index).sort((a, b) => a.position - b.position);
  const count = layout.lines.length;
  let target: PlacedNode | undefined;
  if (event.key === 'ArrowUp' || event.key === 'ArrowDown') {
    const same = byLine(node.lineIndex);
    const index = same.findIndex((n) => n.id === node.id) + (event.key === 'ArrowDown' ? 1 : -1);
    target = same[index];
  } else if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') {
    for (let step = 1; step < count && !target; step++) {
      const index = (node.lineIndex + (event.key === 'ArrowRight' ? step : count - step)) % count;
      const other = byLine(index);
      target = other.find((n) => n.position === node.position) ?? other[other.length - 1];
    }
  } else {
    return;
  }
  event.preventDefault();
  if (target) focusNode(target.lineId, target.position);
}

function Quills({ layout }: { readonly layout: HedgehogLayout }) {
  const small = layout.lines.length > 14;
  return (
    <g class="quills">
      {layout.lines.map((line) => (
        <g key={line.id} class="quill" data-quill={line.id}>
          <polygon points={line.quill} style={{ fill: `hsl(${line.hue} 45% 62% / 0.55)` }} />
          <text
            x={line.labelX}
            y={line.labelY}
            text-anchor={line.labelAnchor}
            class={small ? 'quill-label small' : 'quill-label'}
          >
            {line.name.length > 22 ? `${line.name.slice(0, 21)}…` : line.name}
          </text>
        </g>
      ))}
    </g>
  );
}

function Nodes(props: {
  readonly layout: HedgehogLayout;
  readonly selected: Selection | undefined;
  readonly select: (selection: Selection) => void;
}) {
  const { layout, selected, select } = props;
  return (
    <g class="nodes">
      {layout.nodes.map((node) => {
        const line = layout.lines[node.lineIndex];
        const active =
          selected?.kind === 'node' && selected.lineId === node.lineId && selected.position === node.position;
        const label = `${line?.name ?? node.lineId}, position ${node.position}: ${node.taskLabel}`;
        return (
          <circle
            key={node.id}
            class={active ? 'node selected' : 'node'}
            cx={node.x}
            cy={node.y}
            r={node.r}
            style={{ fill: `hsl(${line?.hue ?? 0} 55% 38%)` }}
            tabindex={0}
            role="button"
            aria-label={label}
            aria-pressed={active}
            data-line={node.lineId}
            data-position={node.position}
            data-node-id={node.id}
            onClick={() => select({ kind: 'node', lineId: node.lineId, position: node.position })}
            onKeyDown={(event) => {
              if (event.key === 'Enter' || event.key === ' ') {
                event.preventDefault();
                select({ kind: 'node', lineId: node.lineId, position: node.position });
              } else onArrow(event, node, layout);
            }}
          >
            <title>{label}</title>
          </circle>
        );
      })}
    </g>
  );
}

function Drawing(props: {
  readonly overview: RadialOverview;
  readonly selected: Selection | undefined;
  readonly select: (selection: Selection) => void;
}) {
  const layout = useMemo(() => layoutHedgehog(props.overview), [props.overview]);
  const originActive = props.selected?.kind === 'origin';
  const nodeCount = layout.nodes.length;
  return (
    <svg
      class="hedgehog"
      viewBox={`${-layout.size * LABEL_ROOM} 0 ${layout.size * (1 + 2 * LABEL_ROOM)} ${layout.size}`}
      role="group"
      aria-label={`${props.overview.lines.length} lines and ${nodeCount} nodes around the origin`}
      data-testid="hedgehog"
    >
      <Quills layout={layout} />
      <g
        class={originActive ? 'origin selected' : 'origin'}
        tabindex={0}
        role="button"
        aria-label="origin: the always-in-context text"
        aria-pressed={originActive}
        data-testid="origin"
        onClick={() => props.select({ kind: 'origin' })}
        onKeyDown={(event) => {
          if (event.key === 'Enter' || event.key === ' ') {
            event.preventDefault();
            props.select({ kind: 'origin' });
          }
        }}
      >
        <circle cx={layout.centre} cy={layout.centre} r={layout.originRadius} />
        <text x={layout.centre} y={layout.centre + 6} text-anchor="middle">
          origin
        </text>
      </g>
      <Nodes layout={layout} selected={props.selected} select={props.select} />
    </svg>
  );
}

/**
 * The hedgehog: the origin in the centre, one quill per line, nodes along each quill by
 * position (newest nearest the centre, smaller as they age). Selecting a node opens the reader.
 */
export function HedgehogView({ agent, refresh }: Props) {
  const [selected, setSelected] = useState<Selection | undefined>(undefined);
  const state = useAsync(() => api.get<RadialOverview>(`/api/agents/${seg(agent)}/radial`), [agent, refresh]);
  if (state.error) return <ErrorNote error={state.error} />;
  if (!state.data) return <Loading what="the hedgehog" />;
  const overview = state.data;
  return (
    <div class="split">
      <section class="drawing-pane" aria-label="hedgehog view">
        {overview.lines.length === 0 ? (
          <p class="empty">No lines yet. Commit a task (hedgehop commit, or the API) and it appears here.</p>
        ) : (
          <Drawing overview={overview} selected={selected} select={setSelected} />
        )}
        <p class="hint">
          {overview.lines.length} lines · {overview.lines.reduce((n, line) => n + line.nodes.length, 0)}{' '}
          nodes. Tab to a node, Enter to open it, arrows to move along and across quills.
        </p>
      </section>
      <aside class="reader-pane" aria-label="node reader">
        <NodeReader agent={agent} refresh={refresh} overview={overview} selection={selected} />
      </aside>
    </div>
  );
}
