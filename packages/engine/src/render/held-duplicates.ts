/**
 * The warning about duplicates that are not deleted because objects gatehouse does not change
 * reference them (plan/duplicate-holds.ts), one sentence per duplicate, shared by the text,
 * kind-summary, Markdown and HTML renderings of a plan (the JSON carries `held_duplicates`).
 * Values come from the API: each renderer escapes them its own way.
 */
import type { Plan } from '../plan-model.js';

/** `Duplicate not deleted: <message>` per held duplicate, unescaped. */
export function heldDuplicateSentences(plan: Pick<Plan, 'held_duplicates'>): string[] {
  return (plan.held_duplicates ?? []).map((held) => `Duplicate not deleted: ${held.message}.`);
}
