/**
 * `desiredHash` (identity/hash.ts) is the masked, canonical normal form's hash: an object that
 * references nothing hashes the same whatever the tokens, and one that references another
 * follows the tokens it is given.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { readManifests } from '../engine.js';
import { desiredHash, specHash } from '../identity/hash.js';
import { mask } from '../identity/mask.js';
import { canonical } from '../identity/normal-form.js';

const MANIFESTS = [
  'kind: IPPolicy\nname: office\nspec: {description: d, rules: [{cidr: 10.0.0.0/8, action: allow}]}',
  'kind: BotUser\nname: ci\nspec: {active: true}',
  'kind: Backend\nname: web\nspec: {type: tunnel_group, labels: {app: web}}',
  'kind: Backend\nname: both\nspec: {type: weighted, backends: {web: 1}}',
].join('\n---\n');

test("a hash is the masked canonical normal form's; one that depends on live ids follows its tokens", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-hash-'));
  writeFileSync(join(dir, 'm.yaml'), `${MANIFESTS}\n`);
  const { desired, problems } = await readManifests({ paths: [dir], env: {} });
  expect(problems).toEqual([]);
  expect(desired.map((d) => d.address)).toEqual(['IPPolicy/office', 'IPPolicyRule/office/10.0.0.0/8', 'BotUser/ci', 'Backend/web', 'Backend/both']);
  const fresh = (d: (typeof desired)[number], tokens: Map<string, string>) =>
    specHash(mask(d.descriptor.sensitive, null, canonical(d.descriptor, d.normal, tokens))[1]);
  const tokens = new Map([['Backend/web', 'bkd_123']]);
  for (const d of desired) {
    expect(desiredHash(d), d.address).toBe(fresh(d, new Map()));
    expect(desiredHash(d, tokens), d.address).toBe(fresh(d, tokens));
    expect(desiredHash(d), d.address).toBe(fresh(d, new Map()));
  }
  const weighted = desired.find((d) => d.address === 'Backend/both')!;
  expect(fresh(weighted, tokens)).not.toBe(fresh(weighted, new Map()));
  // Objects that reference nothing hash the same whatever the tokens.
  for (const d of desired.filter((d) => d.address !== 'Backend/both')) expect(desiredHash(d, tokens), d.address).toBe(desiredHash(d));
});
