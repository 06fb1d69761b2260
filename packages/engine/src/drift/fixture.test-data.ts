/**
 * Test data shared by the drift and export unit tests: the all-kinds scenario (every kind,
 * backend type and module) as live API objects in an in-memory LiveApi, "as gatehouse left
 * it after an apply": every paired object carries the metadata apply writes (plan/metadata.ts).
 */
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { matchObservation, readManifests } from '../engine.js';
import { observe } from '../plan/observe.js';
import type { ApiObject } from '../ports.js';
import { FakeLiveApi } from '../testing/fake-api.js';
import { metadataWriter } from '../plan/metadata.js';

export const SCENARIO = fileURLToPath(new URL('../../test-fixtures/scenarios/all-kinds-no-changes/', import.meta.url));
export const ENV = JSON.parse(readFileSync(join(SCENARIO, 'env.json'), 'utf8')) as Record<string, string>;
export type Live = Record<string, ApiObject[]>;

/** A writable copy of the scenario's manifests. */
export function manifestsCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-drift-'));
  cpSync(join(SCENARIO, 'manifests'), dir, { recursive: true });
  return dir;
}

/** Every live object by id, inline routes included (mutable: edit to simulate outside changes). */
export function findRaw(live: Live, id: string): ApiObject {
  for (const objects of Object.values(live)) {
    for (const o of objects) {
      if (o.id === id) return o;
      for (const route of (o.routes as ApiObject[] | undefined) ?? []) if (route.id === id) return route;
    }
  }
  throw new Error(`no live object ${id}`);
}

/** The scenario's live state, with each matched object marked as `apply` would have marked it. */
export async function appliedLive(manifests = join(SCENARIO, 'manifests'), stack = 'default'): Promise<Live> {
  const live = JSON.parse(readFileSync(join(SCENARIO, 'live.json'), 'utf8')) as Live;
  const read = await readManifests({ paths: [manifests], env: ENV, stack });
  const { matching } = matchObservation(read, await observe(new FakeLiveApi(live)), stack, { paths: [manifests] });
  const metadataFor = metadataWriter(matching, stack);
  for (const { desired: d, live: o } of matching.pairs) {
    if (o.descriptor.metadata) findRaw(live, o.id).metadata = metadataFor(d);
  }
  return live;
}
