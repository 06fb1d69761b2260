/**
 * Shared helpers of the renderers: one-line value formatting, object flattening to dotted
 * paths, the target line and the action symbols. Secrets reach the renderers already masked
 * (`SENSITIVE`, `SENSITIVE_CHANGED`, `(sensitive: env NAME)`); they are printed bare, never quoted.
 */
import { SENSITIVE, SENSITIVE_CHANGED } from '../identity/mask.js';
import { isEnvMask } from '../identity/env-fields.js';
import { type Action, type Plan, type PlanSummary } from '../plan-model.js';
import { sanitize, terminalSafeJson } from './sanitize.js';

/**
 * What a changed sensitive field shows: the mask of a secret variable's value, which names the
 * variable (`(sensitive: env API_KEY, changed)`), else `(sensitive value changed)`.
 */
export const sensitiveChange = (field: { after: unknown }): string => (isEnvMask(field.after) ? String(field.after) : SENSITIVE_CHANGED);

export const SYMBOLS: Record<Action, string> = { create: '+', update: '~', delete: '-', replace: '-/+' };

/**
 * A value on one line: strings JSON-quoted, masks bare, objects as compact JSON, with every
 * control character escaped (`sanitize`), so a value can neither break the line nor reach the
 * terminal as an escape sequence.
 */
export function formatValue(value: unknown, maxLength = Infinity): string {
  if (value === SENSITIVE || value === SENSITIVE_CHANGED || isEnvMask(value)) return value as string;
  if (value === undefined) return '(absent)';
  const text = sanitize(JSON.stringify(value) ?? String(value));
  if (text.length <= maxLength) return text;
  return `${text.slice(0, maxLength)}… (${text.length - maxLength} more characters)`;
}

/**
 * Leaves of an object as `[path, value]` in document order: `routes[0].oidc.scopes`. Empty
 * objects and arrays are leaves; `null` leaves are kept (a route's unset module).
 */
export function flatten(value: unknown, prefix = ''): [string, unknown][] {
  if (Array.isArray(value)) {
    if (value.length === 0 || value.every((item) => item === null || typeof item !== 'object')) return [[prefix, value]];
    return value.flatMap((item, index) => flatten(item, `${prefix}[${index}]`));
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    // An empty object is a value where it is nested ({} -> {}); the whole of one is nothing to list.
    if (entries.length === 0) return prefix === '' ? [] : [[prefix, value]];
    return entries.flatMap(([key, v]) => flatten(v, prefix === '' ? key : `${prefix}.${key}`));
  }
  return [[prefix, value]];
}

/** What every output made against the embedded server says in its first line. */
export const EMBEDDED_NOTICE = 'embedded reference server over .gatehouse/server.db: a local database, not a real API';

/**
 * A JSON document as the CLI prints it (pretty, final newline). Against the embedded server
 * its first line is `{ "notice": "embedded reference server ...",`: a reader of the first
 * line (or of the first key) learns that nothing real was read or changed.
 */
export function renderJsonDocument(value: object, target: { embedded: boolean }): string {
  if (!target.embedded) return `${terminalSafeJson(value)}\n`;
  const text = terminalSafeJson({ notice: EMBEDDED_NOTICE, ...value });
  return `{ ${text.slice('{\n  '.length)}\n`;
}

/** `http://127.0.0.1:8484 (embedded reference server, .gatehouse/server.db)` or the URL alone. */
export function describeTarget(plan: Pick<Plan, 'target'>): string {
  const url = sanitize(plan.target.url);
  return plan.target.embedded ? `${url} (embedded reference server, .gatehouse/server.db)` : url;
}

/** Changes the plan shows, deletes that need `--prune` included (they are pending too). */
export function countChanges(summary: PlanSummary): number {
  return summary.create + summary.update + summary.delete + summary.replace + (summary.not_pruned ?? 0);
}

/** `2 to create, 1 to update, 0 to replace, 1 to delete, 7 unchanged.` */
export function summaryLine(summary: PlanSummary): string {
  const notPruned = summary.not_pruned ? `, ${summary.not_pruned} would be deleted with --prune` : '';
  return `${summary.create} to create, ${summary.update} to update, ${summary.replace} to replace, ${summary.delete} to delete${notPruned}, ${summary.unchanged} unchanged.`;
}
