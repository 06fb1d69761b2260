/**
 * The plan as one self-contained HTML page, the CI artifact a reviewer opens: the target and
 * the counts, the policy results, a filter by kind and action, each change expandable with its
 * fields (a long or multi-line value as a line diff), what it waits for, where it is declared,
 * and the dependency graph as SVG. Secrets arrive masked, as in every format.
 */
import { heldDuplicateSentences } from './held-duplicates.js';
import { IGNORED_HEADING, ignoredFieldsText, ignoredShown } from './ignored.js';
import type { Change, Plan, UnreadableKind } from '../plan-model.js';
import { unreadableHeading, unreadableLine } from './unreadable.js';
import { SECRETS_NOT_COMPARED_HEADING, secretsNotCompared } from './secrets-not-compared.js';
import type { PolicyResult } from '../policy/model.js';
import { formatLocation } from '../source.js';
import { dependencyGraph } from './html-graph.js';
import { filters, html, page } from './html-page.js';
import { diffMarker, diffStat, isLongValueChange, longValueDiff, type LongValueChange } from './line-diff.js';
import { policyCounts } from './policy.js';
import { pruneScopeSentence } from './prune-scope.js';
import { targetLines } from './targets.js';
import { SYMBOLS, countChanges, describeTarget, flatten, formatValue, sensitiveChange, summaryLine } from './values.js';

const ACTIONS = ['create', 'update', 'replace', 'delete'] as const;

/** `change-3`: the id of the third change's section (the graph links to it). */
const anchor = (index: number) => `change-${index}`;

export function renderHtml(plan: Plan): string {
  const changes = plan.changes;
  const kinds = [...new Set(changes.map((c) => c.kind))];
  const index = new Map(changes.map((c, i) => [c.address, i]));
  const cards = [
    ...ACTIONS.map((a) => `<div class="card ${a}" data-count="${a}"><span class="count">${plan.summary[a]}</span>${SYMBOLS[a]} ${a}</div>`),
    `<div class="card" data-count="unchanged"><span class="count">${plan.summary.unchanged}</span>unchanged</div>`,
  ];
  const body = [
    `<h1>gatehouse plan</h1>`,
    `<p class="meta">Target <code>${html(describeTarget(plan))}</code>, stack <code>${html(plan.stack)}</code>, live state read ${html(plan.created_at)} with ${plan.requests} API request${plan.requests === 1 ? '' : 's'}.</p>`,
    ...targetParagraphs(plan),
    ...heldDuplicateSentences(plan).map((sentence) => `<p class="targets"><strong>Warning:</strong> ${html(sentence)}</p>`),
    unreadableSection(plan.unreadable, 'planned'),
    `<div class="cards" id="summary">${cards.join('')}</div>`,
    `<p><strong>Plan:</strong> ${html(summaryLine(plan.summary))}</p>`,
    pruneScopeSentence(plan) ? `<p class="muted" id="prune-scope">${html(pruneScopeSentence(plan))}</p>` : '',
    policySection(plan.policy_results),
    `<h2>Changes</h2>`,
    countChanges(plan.summary) === 0
      ? '<p id="no-changes"><strong>No changes.</strong> The live objects match the manifests.</p>'
      : `${filters(
          kinds,
          ACTIONS.filter((a) => plan.summary[a] > 0).map((a) => ({ value: a, label: a })),
          changes.length,
          'changes',
        )}\n<div id="changes">${changes.map((c, i) => changeSection(c, i, index)).join('\n')}</div>`,
    `<h2>Dependency graph</h2>`,
    `<p class="muted">Each change starts once the changes it points from are done (apply runs the rest concurrently).</p>`,
    `<div class="graph" id="graph">${dependencyGraph(changes, anchor)}</div>`,
    ignoredSection(plan),
    secretsSection(plan),
    unmanagedSection(plan),
  ];
  return page(`gatehouse plan: ${summaryLine(plan.summary)}`, body.join('\n'));
}

/** A targeted plan's warning and notes (render/targets.ts), one paragraph each. */
function targetParagraphs(plan: Plan): string[] {
  const said = targetLines(plan.targets, 'plan');
  return said ? [said.warning, ...said.notes].map((line) => `<p class="targets"><strong>Warning:</strong> ${html(line)}</p>`) : [];
}

function changeSection(change: Change, i: number, index: ReadonlyMap<string, number>): string {
  const id = change.id ? ` <span class="muted mono">(${html(change.id)})</span>` : '';
  const reason = change.reason ? ` <span class="muted">— ${html(change.reason)}</span>` : '';
  const waits = change.dependsOn.map((dep) => {
    const j = index.get(dep);
    return j === undefined ? `<code>${html(dep)}</code>` : `<a href="#${anchor(j)}"><code>${html(dep)}</code></a>`;
  });
  return `<details class="item ${change.action}" id="${anchor(i)}" data-kind="${html(change.kind)}" data-action="${change.action}">
<summary><span class="symbol">${html(SYMBOLS[change.action])}</span> ${change.action} <span class="kind">${html(change.kind)}</span> ${html(change.name)}${id}${reason}</summary>
<div class="body">
${fieldsTable(change)}
${change.source ? `<p class="muted">Declared at <code>${html(formatLocation(change.source))}</code>.</p>` : ''}
${waits.length > 0 ? `<p class="muted">Waits for ${waits.join(', ')}.</p>` : ''}
</div>
</details>`;
}

function fieldsTable(change: Change): string {
  if (change.action === 'create' || change.action === 'delete') {
    const values = flatten((change.action === 'create' ? change.after : change.before) ?? {}).filter(([, v]) => v !== null);
    if (values.length === 0) return '<p class="muted">No fields.</p>';
    const rows = values.map(([path, value]) => {
      const long = change.action === 'create' ? { before: null, after: value, sensitive: false } : { before: value, after: null, sensitive: false };
      return `<tr><td class="path mono">${html(path)}</td><td>${isLongValueChange(long) ? diffBlock(long) : `<code>${html(formatValue(value))}</code>`}</td></tr>`;
    });
    return `<table><thead><tr><th class="path">Field</th><th>${change.action === 'create' ? 'Value' : 'Value (deleted)'}</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
  }
  return fieldChangesTable(
    change.fields.map((f) => ({ path: f.path, before: f.before, after: f.after, sensitive: f.sensitive })),
    'Before',
    'After',
  );
}

/** Field changes as rows `path | before | after`; a long value spans both columns as a diff. */
export function fieldChangesTable(fields: readonly (LongValueChange & { path: string })[], beforeTitle: string, afterTitle: string): string {
  if (fields.length === 0) return '<p class="muted">No field changes.</p>';
  const rows = fields.map((f) => {
    if (f.sensitive) return `<tr><td class="path mono">${html(f.path)}</td><td colspan="2"><em>${html(sensitiveChange(f))}</em></td></tr>`;
    if (isLongValueChange(f)) return `<tr><td class="path mono">${html(f.path)}</td><td colspan="2">${diffBlock(f)}</td></tr>`;
    return `<tr><td class="path mono">${html(f.path)}</td><td><code>${html(formatValue(f.before))}</code></td><td><code>${html(formatValue(f.after))}</code></td></tr>`;
  });
  return `<table><thead><tr><th class="path">Field</th><th>${html(beforeTitle)}</th><th>${html(afterTitle)}</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** A long value's line diff as a <pre>, one span per line. */
function diffBlock(change: LongValueChange): string {
  const diff = longValueDiff(change);
  const lines = diff.map((l) => `<span class="${l.kind}">${html(`${diffMarker(l.kind)}${l.text}`) || ' '}</span>`);
  return `<div class="muted">line diff, ${html(diffStat(diff))}</div><pre class="diff">${lines.join('')}</pre>`;
}

/** The policy results as a table, errors first; '' when no rule was evaluated. */
function policySection(results: readonly PolicyResult[] | undefined): string {
  if (results === undefined) return '';
  if (results.length === 0) return '<h2>Policy checks</h2><p id="policy">Every policy rule is met.</p>';
  const rows = results.map(
    (r) =>
      `<tr class="policy-${r.severity}"><td class="sev-${r.severity}">${r.severity}</td><td><code>${html(r.rule)}</code></td><td>${html(`${r.kind} ${r.name}`)}</td><td>${r.source ? `<code>${html(formatLocation(r.source))}</code>` : '—'}</td><td>${html(r.message)}</td></tr>`,
  );
  return `<h2>Policy checks: ${html(policyCounts(results))}</h2>
<table id="policy" class="policy"><thead><tr><th class="c-sev">Severity</th><th class="c-rule">Rule</th><th class="c-object">Object</th><th class="c-where">Declared at</th><th>Message</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
}

/** The write-only secrets the plan cannot compare (render/secrets-not-compared.ts); '' when none. */
function secretsSection(plan: Pick<Plan, 'secrets_not_compared'>): string {
  const lines = secretsNotCompared(plan);
  if (lines.length === 0) return '';
  return `<h2>Secrets not compared</h2><p class="muted">${html(SECRETS_NOT_COMPARED_HEADING)}.</p><ul>${lines.map((line) => `<li>${html(line)}</li>`).join('')}</ul>`;
}

/** The objects whose ignored fields differ (render/ignored.ts); '' when none. */
function ignoredSection(plan: Pick<Plan, 'ignored'>): string {
  const { shown, more } = ignoredShown(plan);
  if (shown.length === 0) return '';
  const items = shown.map((o) => `<li><code>${html(`${o.kind} ${o.name}`)}</code> ${html(ignoredFieldsText(o))}</li>`);
  if (more > 0) items.push(`<li>and ${more} more objects</li>`);
  return `<h2>Ignored fields</h2><p class="muted" id="ignored">${html(IGNORED_HEADING)}.</p><ul>${items.join('')}</ul>`;
}

function unmanagedSection(plan: Pick<Plan, 'unmanaged' | 'stack'>): string {
  if (plan.unmanaged.length === 0) return '';
  const items = plan.unmanaged.map((u) => `<li><code>${html(`${u.kind} ${u.id}`)}</code>${u.label ? ` ${html(u.label)}` : ''}</li>`);
  return `<h2>Unmanaged objects</h2><p class="muted">Not declared and not owned by stack <code>${html(plan.stack)}</code>: never touched.</p><ul>${items.join('')}</ul>`;
}

/** The kinds the account cannot list (render/unreadable.ts): a warning and a list; '' when none. */
function unreadableSection(unreadable: readonly UnreadableKind[] | undefined, what: string): string {
  if (!unreadable || unreadable.length === 0) return '';
  const items = unreadable.map((u) => `<li>${html(unreadableLine(u))}</li>`);
  return `<div class="targets" id="unreadable"><p><strong>Warning:</strong> ${html(unreadableHeading(unreadable.length, what))}:</p><ul>${items.join('')}</ul></div>`;
}

export { unmanagedSection, unreadableSection };
