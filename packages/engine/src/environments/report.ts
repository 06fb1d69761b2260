/**
 * One result for every environment (`plan --env all`, `drift --env all`): each environment's
 * own plan or drift report, rendered by the single-environment renderers and put together.
 * - text: a section per environment under a `== environment NAME ==` rule, then one line
 *   per environment summing it up;
 * - Markdown: ONE pull-request comment, a summary table (environment, target, creates,
 *   updates, replaces, deletes) and a collapsible `<details>` section per environment, each
 *   given its share of the comment's length limit;
 * - JSON: `{format_version, changes|drifted, environments: {NAME: <plan or drift document>}}`,
 *   the documents of docs/plan-json.md and docs/drift-json.md unchanged.
 */
import type { Plan } from '../plan-model.js';
import type { DriftReport } from '../drift/model.js';
import { driftSummaryLine, renderDriftMarkdown, renderDriftText } from '../drift/render.js';
import { MARKDOWN_MAX_LENGTH, renderMarkdown } from '../render/markdown.js';
import { toJsonPlan } from '../render/json.js';
import { plainStyle, type Style } from '../render/style.js';
import { renderText } from '../render/text.js';
import { countChanges, describeTarget, renderJsonDocument, summaryLine } from '../render/values.js';
import { sanitize } from '../render/sanitize.js';

export interface EnvironmentPlan {
  environment: string;
  plan: Plan;
}

export interface EnvironmentDrift {
  environment: string;
  report: DriftReport;
}

export const ENVIRONMENTS_FORMAT_VERSION = 1;

const rule = (style: Style, name: string) => style.bold(`== environment ${sanitize(name)} ==`);
const cell = (text: string) => sanitize(text).replace(/\|/g, '\\|').replace(/`/g, "'");
/** The share of the comment each environment's section may take, after the table. */
const share = (count: number, used: number, maxLength: number) => Math.max(2_000, Math.floor((maxLength - used - 200 * count) / Math.max(count, 1)));

/** True when any environment's plan changes something (`--detailed-exitcode` exits 2). */
export const anyChanges = (plans: EnvironmentPlan[]) => plans.some((p) => countChanges(p.plan.summary) > 0);

export function renderPlansText(plans: EnvironmentPlan[], options: { style?: Style } = {}): string {
  const style = options.style ?? plainStyle;
  const sections = plans.map((p) => `${rule(style, p.environment)}\n${renderText(p.plan, { style })}`);
  const width = Math.max(...plans.map((p) => p.environment.length));
  const summary = plans.map(
    (p) => `  ${sanitize(p.environment).padEnd(width)}  ${countChanges(p.plan.summary) === 0 ? 'no changes' : summaryLine(p.plan.summary)}`,
  );
  return `${sections.join('\n')}\n${style.bold(`Plans of ${plans.length} environments:`)}\n${summary.join('\n')}\n`;
}

export function renderPlansMarkdown(plans: EnvironmentPlan[], options: { maxLength?: number } = {}): string {
  const maxLength = options.maxLength ?? MARKDOWN_MAX_LENGTH;
  const head = [
    `### gatehouse plan: ${plans.length} environments${anyChanges(plans) ? '' : ', no changes'}`,
    '',
    '| Environment | Target | Create | Update | Replace | Delete |',
    '|:--|:--|--:|--:|--:|--:|',
    ...plans.map(
      ({ environment, plan: { summary }, plan }) =>
        `| **${cell(environment)}** | \`${cell(describeTarget(plan))}\` | ${summary.create} | ${summary.update} | ${summary.replace} | ${summary.delete} |`,
    ),
    '',
  ].join('\n');
  const each = share(plans.length, head.length, maxLength);
  const sections = plans.map(({ environment, plan }) => {
    const title = `<b>${cell(environment)}</b>: ${countChanges(plan.summary) === 0 ? 'no changes' : summaryLine(plan.summary)}`;
    return `<details><summary>${title}</summary>\n\n${renderMarkdown(plan, { maxLength: each })}\n</details>\n`;
  });
  return `${head}\n${sections.join('\n')}`;
}

export function renderPlansJson(plans: EnvironmentPlan[]): string {
  const document = {
    format_version: ENVIRONMENTS_FORMAT_VERSION,
    changes: anyChanges(plans),
    environments: Object.fromEntries(plans.map((p) => [p.environment, toJsonPlan(p.plan)])),
  };
  return renderJsonDocument(document, { embedded: plans.some((p) => p.plan.target.embedded) });
}

export function renderDriftsText(reports: EnvironmentDrift[], options: { style?: Style } = {}): string {
  const style = options.style ?? plainStyle;
  const sections = reports.map((r) => `${rule(style, r.environment)}\n${renderDriftText(r.report, { style })}`);
  const drifted = reports.filter((r) => r.report.drifted).map((r) => r.environment);
  const verdict = drifted.length === 0 ? 'No drift in any environment.' : `Drift in ${drifted.map((name) => sanitize(name)).join(', ')}.`;
  return `${sections.join('\n')}\n${style.bold(verdict)}\n`;
}

export function renderDriftsMarkdown(reports: EnvironmentDrift[], options: { maxLength?: number } = {}): string {
  const maxLength = options.maxLength ?? MARKDOWN_MAX_LENGTH;
  const drifted = reports.filter((r) => r.report.drifted).map((r) => r.environment);
  const head = [
    `### gatehouse drift: ${drifted.length === 0 ? 'no drift' : `drift in ${drifted.map(cell).join(', ')}`}`,
    '',
    '| Environment | Target | Drifted | Summary |',
    '|:--|:--|:-:|:--|',
    ...reports.map(
      ({ environment, report }) =>
        `| **${cell(environment)}** | \`${cell(describeTarget(report))}\` | ${report.drifted ? 'yes' : 'no'} | ${cell(driftSummaryLine(report))} |`,
    ),
    '',
  ].join('\n');
  const each = share(reports.length, head.length, maxLength);
  const sections = reports.map(
    ({ environment, report }) =>
      `<details><summary><b>${cell(environment)}</b>: ${report.drifted ? 'drift found' : 'no drift'}</summary>\n\n${renderDriftMarkdown(report, { maxLength: each })}\n</details>\n`,
  );
  return `${head}\n${sections.join('\n')}`;
}

export function renderDriftsJson(reports: EnvironmentDrift[]): string {
  const document = {
    format_version: ENVIRONMENTS_FORMAT_VERSION,
    drifted: reports.some((r) => r.report.drifted),
    environments: Object.fromEntries(reports.map((r) => [r.environment, r.report])),
  };
  return renderJsonDocument(document, { embedded: reports.some((r) => r.report.target.embedded) });
}
