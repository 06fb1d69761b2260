/**
 * Step 6a, diff: what differs between two normal forms already made comparable
 * (identity/normal-form.ts) and masked (identity/mask.ts): the top-level fields that changed,
 * and the RFC 6902 patch and field-level changes the plan shows.
 */
import jsonPatch from 'fast-json-patch';
import { canonicalJson } from '../identity/canonical-json.js';
import { SENSITIVE, SENSITIVE_CHANGED } from '../identity/mask.js';
import { isEnvMask } from '../identity/env-fields.js';
import type { Pattern, Spec } from '../kinds/types.js';
import type { FieldChange, PatchOperation } from '../plan-model.js';

/** Top-level fields whose content differs, sorted. */
export function changedFields(before: Spec, after: Spec): string[] {
  const keys = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...keys].filter((k) => canonicalJson(before[k]) !== canonicalJson(after[k])).sort();
}

/** `/routes/0/oidc` -> `routes[0].oidc`. */
const pointerToDotted = (pointer: string) =>
  pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s, i) => (/^\d+$/.test(s) ? `[${s}]` : i === 0 ? s : `.${s}`))
    .join('');

const valueAt = (root: unknown, pointer: string): unknown => {
  try {
    return jsonPatch.getValueByPointer(root, pointer);
  } catch {
    return undefined;
  }
};

/** RFC 6902 patch and field-level changes between two masked normal forms. */
export function fieldChanges(before: Spec, after: Spec, sensitive: readonly Pattern[]): { patch: PatchOperation[]; fields: FieldChange[] } {
  const ops = jsonPatch.compare(before, after) as (PatchOperation & { op: string })[];
  const patch = ops.filter((op): op is PatchOperation => op.op === 'add' || op.op === 'remove' || op.op === 'replace');
  const fields = patch.map((op) => {
    const b = valueAt(before, op.path);
    const a = op.op === 'remove' ? undefined : op.value;
    const secret = [b, a].some((v) => v === SENSITIVE || v === SENSITIVE_CHANGED || isEnvMask(v)) || isSensitivePath(op.path, sensitive);
    return { path: pointerToDotted(op.path), before: b ?? null, after: a ?? null, sensitive: secret };
  });
  return { patch, fields };
}

function isSensitivePath(pointer: string, sensitive: readonly Pattern[]): boolean {
  const parts = pointer.slice(1).split('/');
  return sensitive.some((p) => p.length <= parts.length && p.every((seg, i) => seg === '*' || seg === parts[i]));
}
