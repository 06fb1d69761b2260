/**
 * The drift report as one self-contained HTML page (the nightly job's artifact): the target,
 * a count per kind of drift, a filter by kind and by drift, and each drifted object expandable
 * with why it is drifted, its fields (live against the manifests; a long value as a line
 * diff), what apply would do and where it is declared. Secrets arrive masked.
 */
import { filters, html, page } from '../render/html-page.js';
import { fieldChangesTable, unmanagedSection, unreadableSection } from '../render/html.js';
import { describeTarget } from '../render/values.js';
import { formatLocation } from '../source.js';
import type { DriftReport, DriftedObject } from './model.js';
import { DRIFT_KINDS } from './model.js';
import { DRIFT_TITLES, DRIFT_UNREAD, driftSummaryLine } from './render.js';
import { targetLines } from '../render/targets.js';

const CARD_CLASS: Record<string, string> = {
  changed_outside: 'delete',
  deleted_outside: 'delete',
  duplicate: 'delete',
  missing: 'replace',
  changed_in_manifests: 'update',
  changed: 'update',
};

export function renderDriftHtml(report: DriftReport): string {
  const kinds = [...new Set(report.objects.map((o) => o.kind))];
  const present = DRIFT_KINDS.filter((k) => report.summary[k] > 0);
  const cards = [
    ...DRIFT_KINDS.map(
      (k) => `<div class="card ${CARD_CLASS[k]}" data-count="${k}"><span class="count">${report.summary[k]}</span>${html(DRIFT_TITLES[k])}</div>`,
    ),
    `<div class="card" data-count="in_sync"><span class="count">${report.summary.in_sync}</span>in sync</div>`,
    `<div class="card" data-count="unmanaged"><span class="count">${report.summary.unmanaged}</span>unmanaged</div>`,
  ];
  const body = [
    `<h1>gatehouse drift: ${report.drifted ? 'drift found' : 'no drift'}</h1>`,
    `<p class="meta">Target <code>${html(describeTarget(report))}</code>, stack <code>${html(report.stack)}</code>, checked ${html(report.checked_at)} with ${report.requests} API request${report.requests === 1 ? '' : 's'}.</p>`,
    ...[targetLines(report.targets, 'drift report')]
      .flatMap((said) => (said ? [said.warning, ...said.notes] : []))
      .map((line) => `<p class="targets"><strong>Warning:</strong> ${html(line)}</p>`),
    unreadableSection(report.unreadable, DRIFT_UNREAD),
    `<div class="cards" id="summary">${cards.join('')}</div>`,
    `<p><strong>Drift:</strong> ${html(driftSummaryLine(report))}</p>`,
    `<h2>Drifted objects</h2>`,
    report.objects.length === 0
      ? '<p id="no-drift"><strong>No drift.</strong> The live objects match the manifests.</p>'
      : `${filters(
          kinds,
          present.map((k) => ({ value: k, label: DRIFT_TITLES[k] })),
          report.objects.length,
          'objects',
          'Drift',
        )}\n<div id="changes">${report.objects.map(objectSection).join('\n')}</div>`,
    unmanagedSection(report),
  ];
  return page(`gatehouse drift: ${driftSummaryLine(report)}`, body.join('\n'));
}

function objectSection(o: DriftedObject, i: number): string {
  const id = o.id ? ` <span class="muted mono">(${html(o.id)})</span>` : '';
  const fields = fieldChangesTable(
    o.fields.map((f) => ({ path: f.path, before: f.live, after: f.desired, sensitive: f.sensitive })),
    'Live',
    'Manifests',
  );
  return `<details class="item ${CARD_CLASS[o.drift]}" id="object-${i}" data-kind="${html(o.kind)}" data-action="${o.drift}">
<summary><span class="kind">${html(o.kind)}</span> ${html(o.name)}${id} <span class="muted">— ${html(DRIFT_TITLES[o.drift])}</span></summary>
<div class="body">
<p>${html(o.message)}</p>
${o.fields.length > 0 ? fields : ''}
<p class="muted">Apply would ${o.action} it.${o.source ? ` Declared at <code>${html(formatLocation(o.source))}</code>.` : ''}</p>
</div>
</details>`;
}
