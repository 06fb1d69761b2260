/**
 * The shell of the HTML reports (plan and drift): one self-contained page, no network. Inline
 * CSS (light and dark by `prefers-color-scheme`, a print stylesheet that opens every change and
 * hides the filters) and one small inline script for the filters and "expand all". A Content
 * Security Policy allows nothing but that style and script (by hash): the page can load nothing,
 * whatever a value in it says (so the page uses no style attribute either). Every text from manifests, live state or policy files goes
 * through `html`, which escapes markup and shows control characters (`sanitize`).
 */
import { createHash } from 'node:crypto';
import { sanitize } from './sanitize.js';

/** Text as HTML: markup escaped, control and bidirectional characters made visible. */
export function html(text: string): string {
  return sanitize(text, { keepNewlines: true })
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

const STYLE = `
:root { color-scheme: light dark; --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --panel: #f6f8fa;
  --create: #1a7f37; --update: #9a6700; --delete: #cf222e; --replace: #8250df; --add-bg: #dafbe1; --del-bg: #ffebe9; --hunk: #0969da; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #0d1117; --fg: #e6edf3; --muted: #9198a1; --line: #3d444d; --panel: #151b23;
    --create: #3fb950; --update: #d29922; --delete: #f85149; --replace: #ab7df8; --add-bg: #12261e; --del-bg: #25171c; --hunk: #4493f8; }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg); font: 14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; }
main { max-width: 1200px; margin: 0 auto; padding: 24px; }
h1 { font-size: 22px; margin: 0 0 4px; } h2 { font-size: 17px; margin: 28px 0 8px; }
.meta { color: var(--muted); overflow-wrap: anywhere; }
code, pre, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px; }
.cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 16px 0; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 8px 14px; min-width: 110px; background: var(--panel); }
.card .count { display: block; font-size: 24px; font-weight: 600; }
.card.create .count, .create .symbol { color: var(--create); } .card.update .count, .update .symbol { color: var(--update); }
.card.delete .count, .delete .symbol { color: var(--delete); } .card.replace .count, .replace .symbol { color: var(--replace); }
.filters { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; margin: 8px 0 12px; }
.filters select, .filters button { font: inherit; padding: 3px 8px; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); color: var(--fg); }
details.item { border: 1px solid var(--line); border-radius: 8px; margin: 6px 0; background: var(--bg); }
details.item > summary { cursor: pointer; padding: 7px 12px; list-style-position: inside; overflow-wrap: anywhere; }
details.item[open] > summary { border-bottom: 1px solid var(--line); background: var(--panel); border-radius: 8px 8px 0 0; }
.symbol { font-family: ui-monospace, monospace; font-weight: 700; display: inline-block; min-width: 2.2em; }
.kind { font-weight: 600; } .muted { color: var(--muted); }
.body { padding: 8px 12px 12px; }
table { border-collapse: collapse; width: 100%; table-layout: fixed; }
th, td { text-align: left; vertical-align: top; padding: 4px 8px; border-bottom: 1px solid var(--line); overflow-wrap: anywhere; }
th { color: var(--muted); font-weight: 600; }
td.path, th.path { width: 28%; }
table.policy .c-sev { width: 9%; } table.policy .c-rule { width: 18%; } table.policy .c-object { width: 22%; } table.policy .c-where { width: 21%; }
pre.diff { margin: 4px 0; padding: 6px 0; background: var(--panel); border: 1px solid var(--line); border-radius: 6px; white-space: pre-wrap; overflow-wrap: anywhere; }
pre.diff span { display: block; padding: 0 8px; }
pre.diff .add { background: var(--add-bg); color: var(--create); } pre.diff .remove { background: var(--del-bg); color: var(--delete); }
pre.diff .hunk, pre.diff .note { color: var(--hunk); }
.sev-error { color: var(--delete); font-weight: 700; } .sev-warning { color: var(--update); font-weight: 700; }
.graph { border: 1px solid var(--line); border-radius: 8px; padding: 8px; overflow-x: auto; background: var(--panel); }
.graph svg { display: block; max-width: 100%; height: auto; }
.graph text { font: 11px ui-monospace, monospace; fill: var(--fg); }
.graph .edge { stroke: var(--muted); fill: none; }
.graph .node rect { fill: var(--bg); stroke-width: 1.5; }
.graph .node.create rect { stroke: var(--create); } .graph .node.update rect { stroke: var(--update); }
.graph .node.delete rect { stroke: var(--delete); } .graph .node.replace rect { stroke: var(--replace); }
.hidden { display: none !important; }
@media print {
  .filters, .noprint { display: none !important; }
  details.item > summary { list-style: none; }
  details.item { break-inside: avoid; }
  body { background: #fff; color: #000; }
}
`;

/** Filters by `data-kind` and `data-action` of `.item`s, counts of what shows, expand/collapse all. */
const SCRIPT = `
(function () {
  var kind = document.getElementById('filter-kind');
  var action = document.getElementById('filter-action');
  var shown = document.getElementById('shown');
  function apply() {
    var items = document.querySelectorAll('.item[data-kind]');
    var n = 0;
    for (var i = 0; i < items.length; i++) {
      var it = items[i];
      var ok = (!kind.value || it.getAttribute('data-kind') === kind.value) && (!action.value || it.getAttribute('data-action') === action.value);
      it.classList.toggle('hidden', !ok);
      if (ok) n++;
    }
    if (shown) shown.textContent = String(n);
  }
  if (kind) kind.addEventListener('change', apply);
  if (action) action.addEventListener('change', apply);
  function all(open) { var d = document.querySelectorAll('details.item'); for (var i = 0; i < d.length; i++) d[i].open = open; }
  var expand = document.getElementById('expand-all'); if (expand) expand.addEventListener('click', function () { all(true); });
  var collapse = document.getElementById('collapse-all'); if (collapse) collapse.addEventListener('click', function () { all(false); });
  window.addEventListener('beforeprint', function () { all(true); });
  apply();
})();
`;

const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/** A whole page: `title` in the tab, `body` inside <main>. */
export function page(title: string, body: string): string {
  const csp = `default-src 'none'; style-src ${hash(STYLE)}; script-src ${hash(SCRIPT)}; img-src data:; base-uri 'none'; form-action 'none'`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="color-scheme" content="light dark">
<title>${html(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
<script>${SCRIPT}</script>
</body>
</html>
`;
}

/** The filter bar: kind and action (or drift) selects, the count shown, expand and collapse all. */
export function filters(
  kinds: readonly string[],
  actions: readonly { value: string; label: string }[],
  total: number,
  noun: string,
  actionLabel = 'Action',
): string {
  const options = (values: readonly { value: string; label: string }[]) =>
    values.map((v) => `<option value="${html(v.value)}">${html(v.label)}</option>`).join('');
  return `<div class="filters">
<label>Kind <select id="filter-kind"><option value="">all kinds</option>${options(kinds.map((k) => ({ value: k, label: k })))}</select></label>
<label>${html(actionLabel)} <select id="filter-action"><option value="">all</option>${options(actions)}</select></label>
<span class="muted"><span id="shown">${total}</span> of ${total} ${html(noun)} shown</span>
<button type="button" id="expand-all">Expand all</button> <button type="button" id="collapse-all">Collapse all</button>
</div>`;
}
