/**
 * The plan's dependency graph as inline SVG: which changes wait for which. Changes are laid
 * out in waves (a change's column is one more than the deepest change it waits for, as apply
 * walks them), top to bottom in plan order within a wave; an arrow goes from a change to each
 * change that waits for it. Each box links to its change in the page. Past `MAX_NODES` changes
 * the drawing would be unreadable: a sentence says so instead.
 */
import type { Change } from '../plan-model.js';
import { html } from './html-page.js';
import { SYMBOLS } from './values.js';

const MAX_NODES = 400;
const BOX_W = 250;
const BOX_H = 24;
const GAP_X = 56;
const GAP_Y = 8;
const PAD = 8;
const LABEL_MAX = 36;

/** Column of each change: 0 for changes that wait for nothing in the plan. */
export function waves(changes: readonly Change[]): number[] {
  const index = new Map(changes.map((c, i) => [c.address, i]));
  const depth: (number | undefined)[] = [];
  const visiting = new Set<number>();
  const of = (i: number): number => {
    const known = depth[i];
    if (known !== undefined) return known;
    if (visiting.has(i)) return 0; // a cycle cannot be planned; draw it rather than loop
    visiting.add(i);
    let d = 0;
    for (const dep of changes[i]!.dependsOn) {
      const j = index.get(dep);
      if (j !== undefined) d = Math.max(d, of(j) + 1);
    }
    visiting.delete(i);
    depth[i] = d;
    return d;
  };
  return changes.map((_, i) => of(i));
}

const label = (c: Change) => {
  const text = `${SYMBOLS[c.action]} ${c.kind} ${c.name}`;
  return text.length > LABEL_MAX ? `${text.slice(0, LABEL_MAX - 1)}…` : text;
};

/** The SVG (or a sentence when there is nothing or too much to draw); `anchor(i)` is change i's id. */
export function dependencyGraph(changes: readonly Change[], anchor: (index: number) => string): string {
  if (changes.length === 0) return '<p class="muted">No changes, no dependencies.</p>';
  if (changes.length > MAX_NODES)
    return `<p class="muted">${changes.length} changes: too many to draw (at most ${MAX_NODES}). Each change lists what it waits for.</p>`;
  const column = waves(changes);
  const rows: number[] = [];
  const position = changes.map((_, i) => {
    const col = column[i]!;
    const row = rows[col] ?? 0;
    rows[col] = row + 1;
    return { x: PAD + col * (BOX_W + GAP_X), y: PAD + row * (BOX_H + GAP_Y) };
  });
  const width = PAD * 2 + rows.length * BOX_W + (rows.length - 1) * GAP_X;
  const height = PAD * 2 + Math.max(...rows) * (BOX_H + GAP_Y) - GAP_Y;
  const index = new Map(changes.map((c, i) => [c.address, i]));
  const edges: string[] = [];
  changes.forEach((c, i) => {
    for (const dep of c.dependsOn) {
      const j = index.get(dep);
      if (j === undefined) continue;
      const from = position[j]!;
      const to = position[i]!;
      const x1 = from.x + BOX_W;
      const y1 = from.y + BOX_H / 2;
      const x2 = to.x - 3;
      const y2 = to.y + BOX_H / 2;
      const bend = Math.max(20, (x2 - x1) / 2);
      edges.push(
        `<path class="edge" d="M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}" marker-end="url(#arrow)"><title>${html(`${c.address} waits for ${dep}`)}</title></path>`,
      );
    }
  });
  const nodes = changes.map((c, i) => {
    const { x, y } = position[i]!;
    return `<a href="#${anchor(i)}" class="node ${c.action}"><title>${html(`${c.action} ${c.address}`)}</title><rect x="${x}" y="${y}" width="${BOX_W}" height="${BOX_H}" rx="5"/><text x="${x + 8}" y="${y + 16}">${html(label(c))}</text></a>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" role="img" aria-label="Dependency graph of the plan: ${changes.length} changes, ${edges.length} dependencies" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">
<defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z" fill="currentColor" class="muted"/></marker></defs>
${edges.join('\n')}
${nodes.join('\n')}
</svg>`;
}
