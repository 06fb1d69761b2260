/**
 * Whether the manifests changed since a saved plan was made, and which: the plan records the
 * checksum of each file's documents as parsed (`manifest_files`), so a comment, a reformatting
 * or keys in another order change nothing, and a changed, added or removed file (or, with
 * `--env`, the environment's variables) is named. A plan saved before the files were recorded
 * is judged by its `manifest_checksum` over the files' bytes, as it was.
 */
import type { Desired } from '../engine.js';
import { listSome } from '../render/list-some.js';
import type { Plan } from '../plan-model.js';

/** What changed, one phrase per file (`manifests/edges.yaml`, `manifests/new.yaml (added)`); [] when nothing did. */
export function changedManifests(saved: Pick<Plan, 'manifest_checksum' | 'manifest_files'>, read: Pick<Desired, 'checksum' | 'files'>): string[] {
  if (saved.manifest_files === undefined) return saved.manifest_checksum === read.checksum ? [] : ['the manifests'];
  const before = saved.manifest_files;
  const now = read.files;
  const changed: string[] = [];
  for (const file of [...new Set([...Object.keys(before), ...Object.keys(now)])].sort()) {
    if (!(file in now)) changed.push(`${file} (removed)`);
    else if (!(file in before)) changed.push(`${file} (added)`);
    else if (before[file] !== now[file]) changed.push(file);
  }
  return changed;
}

/** The refusal's message: what changed, and what to do. */
export function staleManifestsMessage(changed: readonly string[], paths: readonly string[]): string {
  const what = changed.length === 1 && changed[0] === 'the manifests' ? `the manifests under ${paths.join(', ')}` : listSome(changed);
  return `${what} changed since the saved plan was made; run gatehouse plan again and review the new plan`;
}
