/**
 * `desiredHash` keeps the hash of an object that references nothing (plan.ts, `hashKept`): the
 * kept hash is the one computed afresh, whatever the tokens, and an object whose hash depends
 * on live ids is never kept.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { readManifests } from '../engine.js';
import { specHash } from '../identity/marker.js';
import { canonical, mask } from './diff.js';
import { desiredHash, hashKept } from './plan.js';

const MANIFESTS = [
  'kind: IPPolicy\nname: office\nspec: {description: d, rules: [{cidr: 10.0.0.0/8, action: allow}]}',
  'kind: BotUser\nname: ci\nspec: {active: true}',
  'kind: Backend\nname: web\nspec: {type: tunnel_group, labels: {app: web}}',
  'kind: Backend\nname: both\nspec: {type: weighted, backends: {web: 1}}',
].join('\n---\n');

test('a kept hash is the one computed afresh; a hash that depends on live ids follows its tokens', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-hash-'));
  writeFileSync(join(dir, 'm.yaml'), `${MANIFESTS}\n`);
  const { desired, problems } = await readManifests({ paths: [dir], env: {} });
  expect(problems).toEqual([]);
  expect(desired.map((d) => d.address)).toEqual(['IPPolicy/office', 'IPPolicyRule/office/10.0.0.0/8', 'BotUser/ci', 'Backend/web', 'Backend/both']);
  const fresh = (d: (typeof desired)[number], tokens: Map<string, string>) => specHash(mask(d.descriptor.sensitive, null, canonical(d.descriptor, d.normal, tokens))[1]);
  const tokens = new Map([['Backend/web', 'bkd_123']]);
  for (const d of desired) {
    expect(desiredHash(d), d.address).toBe(fresh(d, new Map()));
    expect(desiredHash(d, tokens), d.address).toBe(fresh(d, tokens));
    expect(desiredHash(d), d.address).toBe(fresh(d, new Map()));
  }
  const weighted = desired.find((d) => d.address === 'Backend/both')!;
  expect(fresh(weighted, tokens)).not.toBe(fresh(weighted, new Map()));
  // Kept: the objects whose references reach no value (a tunnel group has no `backends`).
  expect(desired.filter(hashKept).map((d) => d.address)).toEqual(['IPPolicy/office', 'IPPolicyRule/office/10.0.0.0/8', 'BotUser/ci', 'Backend/web']);
});
