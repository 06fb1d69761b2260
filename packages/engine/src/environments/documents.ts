/**
 * The documents of one environment: the base paths loaded, then the environment's overlays
 * applied (`overlay.ts`). Without an environment, the base documents as they are. The
 * checksum covers the base files, the overlay files and the variables, so that a saved plan
 * goes stale when any of them changes; `files` holds the document checksum of each base and
 * overlay file, and one of the variables under `ENVIRONMENT_VARIABLES`.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../identity/canonical-json.js';
import type { Problem } from '../problems.js';
import type { Variables } from '../load/interpolate.js';
import { load, type LoadOptions, type LoadedDocument } from '../load/documents.js';
import { applyOverlays } from './overlay.js';

/** The `files` entry of an environment's variables: `variables of environment staging`. */
const environmentVariablesEntry = (name: string): string => `variables of environment ${name}`;

/** What `readManifests` needs of an environment (from gatehouse.yaml, see `project.ts`). */
export interface EnvironmentInput {
  name: string;
  /** Overlay files or directories, applied in order after the base paths. */
  overlays: string[];
  /** The environment's `${var:}` values. */
  vars: Variables;
}

export async function environmentDocuments(
  paths: string[],
  environment: EnvironmentInput | undefined,
  loadOptions: LoadOptions = {},
): Promise<{ documents: LoadedDocument[]; problems: Problem[]; checksum: string; files: Record<string, string>; warnings: Problem[]; notes: string[] }> {
  const base = await load(paths, loadOptions);
  if (!environment) return base;
  const overlays =
    environment.overlays.length > 0
      ? await load(environment.overlays, loadOptions)
      : { documents: [], problems: [], checksum: '', files: {}, warnings: [], notes: [] };
  const applied = applyOverlays(base.documents, overlays.documents);
  const checksum = createHash('sha256')
    .update(`${base.checksum}\0${overlays.checksum}\0${environment.name}\0${JSON.stringify(environment.vars.values)}`)
    .digest('hex');
  // An overlay directory with no file yet is an environment without differences.
  const overlayProblems = overlays.problems.filter((p) => p.code !== 'no_manifests');
  const files = {
    ...base.files,
    ...overlays.files,
    [environmentVariablesEntry(environment.name)]: createHash('sha256').update(canonicalJson(environment.vars.values)).digest('hex'),
  };
  return {
    documents: applied.documents,
    problems: [...base.problems, ...overlayProblems, ...applied.problems],
    checksum,
    files,
    warnings: [...base.warnings, ...overlays.warnings],
    notes: [...base.notes, ...overlays.notes],
  };
}
