/**
 * The plan as a person reads it in a terminal, after Terraform: one block per change with
 * `+` create, `~` update, `-` delete, `-/+` replace; a create lists the fields it sets, an
 * update and a replace only the fields that change (`old -> new`), a delete only its name.
 * The first line names the target and the stack; the last one counts the changes.
 */
import type { Change, FieldChange, Plan } from '../plan-model.js';
import { SENSITIVE_CHANGED } from '../plan-model.js';
import { sanitize } from './sanitize.js';
import { plainStyle, type Style } from './style.js';
import { SYMBOLS, countChanges, describeTarget, flatten, formatValue, summaryLine } from './values.js';

export interface TextOptions {
  style?: Style;
}

export function renderText(plan: Plan, options: TextOptions = {}): string {
  const style = options.style ?? plainStyle;
  const lines: string[] = [style.bold(`gatehouse plan for ${describeTarget(plan)}, stack "${sanitize(plan.stack)}"`), ''];
  if (countChanges(plan.summary) === 0) {
    lines.push(`No changes. The live objects match the manifests (${plan.summary.unchanged} unchanged).`);
  } else {
    for (const change of plan.changes) lines.push(...renderChange(change, style), '');
  }
  if (plan.unmanaged.length > 0) {
    if (lines.at(-1) !== '') lines.push('');
    lines.push(style.dim(`Unmanaged objects (not declared, not owned by stack "${sanitize(plan.stack)}"; never touched):`));
    for (const object of plan.unmanaged) lines.push(style.dim(sanitize(`    ${object.kind} ${object.id}${object.label ? `  ${object.label}` : ''}`)));
    lines.push('');
  }
  if (countChanges(plan.summary) > 0) lines.push(style.bold(`Plan: ${summaryLine(plan.summary)}`));
  lines.push(style.dim(`Live state read with ${plan.requests} API request${plan.requests === 1 ? '' : 's'}.`));
  return `${lines.join('\n')}\n`;
}

function renderChange(change: Change, style: Style): string[] {
  const paint = style[change.action];
  const id = change.id ? ` (${sanitize(change.id)})` : '';
  const head = `  ${paint(sanitize(`${SYMBOLS[change.action].padEnd(3)} ${change.kind} ${change.name}`))}${style.dim(id)}`;
  const lines = [change.reason ? `${head}  ${style.dim(`# ${sanitize(change.reason)}`)}` : head];
  if (change.action === 'create') {
    for (const [path, value] of flatten(change.after ?? {})) {
      if (value !== null) lines.push(`        ${sanitize(path)}: ${formatValue(value)}`);
    }
  } else if (change.action === 'update' || change.action === 'replace') {
    for (const field of change.fields) lines.push(`        ${formatField(field)}`);
  }
  return lines;
}

export function formatField(field: FieldChange): string {
  const path = sanitize(field.path);
  if (field.sensitive) return `${path}: ${SENSITIVE_CHANGED}`;
  return `${path}: ${formatValue(field.before)} -> ${formatValue(field.after)}`;
}
