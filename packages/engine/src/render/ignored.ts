/**
 * The objects whose ignored fields differ from live (`Plan.ignored`, plan/ignore.ts), as the
 * text, Markdown and HTML renderings of a plan list them: one line per object with how many
 * fields were left as they are live, and which. Values are never shown: an ignored field is
 * someone else's, and may be a secret. Names come from manifests and the API: each renderer
 * escapes them its own way.
 */
import type { IgnoredObject, Plan } from '../plan-model.js';
import { listSome } from './list-some.js';

/** The heading of the list in every format. */
export const IGNORED_HEADING = 'Ignored (lifecycle.ignore_changes, gatehouse.yaml ignore:), left as they are live';

/** Objects listed one by one before "and N more objects". */
const IGNORED_SHOWN = 50;

/** `1 field (description)`, `3 fields (a, b, c)`, unescaped. */
export function ignoredFieldsText(object: IgnoredObject): string {
  const n = object.fields.length;
  return `${n} field${n === 1 ? '' : 's'} (${listSome(object.fields)})`;
}

/** The objects shown, and how many more there are. */
export function ignoredShown(plan: Pick<Plan, 'ignored'>): { shown: IgnoredObject[]; more: number } {
  const all = plan.ignored ?? [];
  return { shown: all.slice(0, IGNORED_SHOWN), more: Math.max(0, all.length - IGNORED_SHOWN) };
}
