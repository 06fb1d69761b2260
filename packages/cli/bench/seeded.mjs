/**
 * Live state that matches manifests, without writing it through the API: the manifests are
 * planned against an empty API (the engine's own `prepareApply`, so every object carries the
 * ownership marker apply would write), and the planned creates are written into a server's
 * database file (`packages/server/bench/seed.mjs`). A plan of the same manifests against
 * `gatehouse serve` over that file then has no change: checked by the rows that use it.
 * Only IP policies and their rules are seeded: the kinds the rows generate.
 */
import { prepareApply } from '@gatehouse/engine/apply';
import { seedIpPolicies } from '../../server/bench/seed.mjs';

/** A `LiveApi` with nothing in it, that refuses writes: the plan of everything as creates. */
const EMPTY_API = {
  target: { url: 'http://seed.invalid', embedded: false },
  async *list() {},
  get: async () => undefined,
  create: () => Promise.reject(new Error('seeding never writes through the API')),
  update: () => Promise.reject(new Error('seeding never writes through the API')),
  replace: () => Promise.reject(new Error('seeding never writes through the API')),
  remove: () => Promise.reject(new Error('seeding never writes through the API')),
};

/**
 * Writes into the database `db` what `gatehouse apply <dir> --stack <stack>` would create from
 * the IP policy manifests under `dir` (run from the same working directory: markers record
 * manifest paths); resolves with the number of objects written.
 */
export async function seedApplied(db, dir, stack) {
  const prepared = await prepareApply({ api: EMPTY_API, stack, paths: [dir], env: {} });
  const policies = new Map();
  for (const { change, desired } of prepared.subjects) {
    if (change.action !== 'create' || !desired) throw new Error(`seeding plans creates only, not ${change.action} ${change.address}`);
    const metadata = prepared.metadataFor(desired);
    if (change.kind === 'IPPolicy') policies.set(change.address, { description: desired.normal.description, metadata, rules: [] });
    else if (change.kind === 'IPPolicyRule') policies.get(desired.parent).rules.push({ ...desired.normal, metadata });
    else throw new Error(`seeding knows IP policies and their rules, not ${change.kind}`);
  }
  return seedIpPolicies(db, [...policies.values()]);
}
