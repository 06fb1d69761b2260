/**
 * Seeding for the drift and export end-to-end tests: the state a successful `gatehouse apply`
 * leaves, without the apply command (built by another helper meanwhile). The objects are
 * written by the independent translation of plan-fixtures.ts (`writeLive`), then each one the
 * manifests declare gets the marker apply records (`markerFor`: the hash of the spec as
 * applied and, for parents, of their children) through the kind's own update call.
 */
import { GatehouseClient } from '@gatehouse/client';
import { composeMetadata, markerFor, observeAndMatch, readManifests, referenceTokens, type LiveApi } from '@gatehouse/engine';
import { ClientLiveApi } from '../packages/cli/src/live-api.js';
import { readManifests as readDocs, writeLive, type WriteResult } from './plan-fixtures.js';

export function liveApi(client: GatehouseClient, url: string): LiveApi {
  return new ClientLiveApi(client, { url, embedded: false });
}

/** Rewrites the marker of every object `paths` declare and `stack` owns as apply would write it. */
export async function stampMarkers(api: LiveApi, paths: string[], env: Record<string, string>, stack = 'default'): Promise<number> {
  const { desired, problems } = await readManifests({ paths, env, stack });
  if (problems.length > 0) throw new Error(`seed manifests have problems: ${JSON.stringify(problems)}`);
  const { matching } = await observeAndMatch(desired, api, stack);
  const tokens = referenceTokens(matching);
  let stamped = 0;
  for (const { desired: d, live: o } of matching.pairs) {
    if (!o.descriptor.metadata) continue;
    const metadata = composeMetadata(o.userMetadata, markerFor(d, desired, tokens, stack));
    const context = { id: o.id, resolve: (token: string) => token, metadata, ...(o.parentId !== undefined ? { parentId: o.parentId } : {}) };
    for (const call of d.descriptor.calls.update(d.normal, d.normal, ['metadata'], context)) await api.update(call.path, call.body ?? {});
    stamped += 1;
  }
  return stamped;
}

/** Writes the manifests of `dir` and marks them owned by `stack`, as after an apply. */
export async function seedApplied(client: GatehouseClient, url: string, dir: string, env: Record<string, string>, stack = 'default'): Promise<WriteResult> {
  const written = await writeLive(client, readDocs(dir), stack, env, { reverseSets: true });
  await stampMarkers(liveApi(client, url), [dir], env, stack);
  return written;
}
