import type { RadialOverview } from './types.js';

/** Where one node is drawn. */
export interface PlacedNode {
  readonly lineId: string;
  readonly lineIndex: number;
  readonly id: string;
  readonly position: number;
  readonly taskLabel: string;
  readonly x: number;
  readonly y: number;
  readonly r: number;
}

/** One quill: a tapered spine from the origin outward, with its label at the tip. */
export interface PlacedLine {
  readonly id: string;
  readonly name: string;
  readonly index: number;
  readonly angle: number;
  readonly hue: number;
  /** Polygon points of the quill. */
  readonly quill: string;
  readonly labelX: number;
  readonly labelY: number;
  readonly labelAnchor: 'start' | 'middle' | 'end';
}

/** The whole drawing, in a square of side `size`. */
export interface HedgehogLayout {
  readonly size: number;
  readonly centre: number;
  readonly originRadius: number;
  readonly lines: readonly PlacedLine[];
  readonly nodes: readonly PlacedNode[];
}

const GOLDEN_ANGLE = 137.508;

/** Node radius: the newest node is the largest, each older one a little smaller. */
export function nodeRadius(position: number, spacing: number): number {
  const shrinking = 13 * Math.pow(0.86, position - 1);
  return Math.max(2.5, Math.min(shrinking, spacing * 0.42));
}

function anchorFor(angle: number): 'start' | 'middle' | 'end' {
  const cos = Math.cos(angle);
  if (cos > 0.3) return 'start';
  if (cos < -0.3) return 'end';
  return 'middle';
}

/**
 * Lays out the hedgehog: the origin at the centre, one quill per line at evenly spaced angles
 * (the first pointing up, then clockwise), and each node on its quill at a distance set by its
 * position (position 1, the newest, closest to the origin) so equal positions line up across
 * quills and the age of a task reads as its distance from the centre.
 */
export function layoutHedgehog(overview: RadialOverview, size = 1000): HedgehogLayout {
  const centre = size / 2;
  const originRadius = size * 0.06;
  const tip = size / 2 - size * 0.09;
  const first = originRadius + size * 0.035;
  const count = overview.lines.length;
  const deepest = Math.max(1, ...overview.lines.map((line) => line.nodes.length));
  const spacing = Math.min(size * 0.05, (tip - first) / deepest);
  const lines: PlacedLine[] = [];
  const nodes: PlacedNode[] = [];
  overview.lines.forEach((line, index) => {
    const angle = -Math.PI / 2 + (2 * Math.PI * index) / Math.max(1, count);
    const cos = Math.cos(angle);
    const sin = Math.sin(angle);
    const base = size * 0.008;
    // With many quills, neighbouring labels alternate between two radii so they do not collide.
    const labelRadius = tip + size * 0.02 + (count > 14 && index % 2 === 1 ? size * 0.035 : 0);
    const at = (r: number, side: number): string =>
      `${(centre + r * cos - side * base * sin).toFixed(1)},${(centre + r * sin + side * base * cos).toFixed(1)}`;
    lines.push({
      id: line.id,
      name: line.name,
      index,
      angle,
      hue: (index * GOLDEN_ANGLE) % 360,
      quill: `${at(originRadius * 0.8, -1)} ${at(tip, 0)} ${at(originRadius * 0.8, 1)}`,
      labelX: centre + labelRadius * cos,
      labelY: centre + labelRadius * sin + size * 0.006,
      labelAnchor: anchorFor(angle),
    });
    for (const node of line.nodes) {
      const r = first + spacing * (node.position - 0.5);
      nodes.push({
        lineId: line.id,
        lineIndex: index,
        id: node.id,
        position: node.position,
        taskLabel: node.taskLabel,
        x: centre + r * cos,
        y: centre + r * sin,
        r: nodeRadius(node.position, spacing),
      });
    }
  });
  return { size, centre, originRadius, lines, nodes };
}
