/**
 * A TCP edge's hostport by reference (`{reserved_tcp_address: <name>}`): the service assigns a
 * reserved TCP address's `addr`, so no manifest can write it before it exists. Plan compares the
 * reference with the live hostport by the reservation it names; apply sends the address once
 * the reservation exists; drift and a reservation deleted outside behave.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { applyPlan } from '../apply/apply.js';
import { MemoryLiveApi } from '../apply/memory-api.js';
import { detectDrift } from '../drift/detect.js';
import { computePlan, validateManifests } from '../engine.js';
import { manifestDirs } from '../testing/manifest-dirs.js';

const { manifests, rewrite, cleanup } = manifestDirs('gatehouse-tcp-hostports-');
afterEach(cleanup);

const options = (api: MemoryLiveApi, dir: string) => ({ api, stack: 'default', paths: [dir], env: {} });

const BY_REFERENCE = `
kind: ReservedTCPAddress
name: ssh
spec: {description: Bastion}
---
kind: TCPEdge
name: ssh
spec: {hostports: [{reserved_tcp_address: ssh}]}
`;

describe('TCP edge hostports by reference', () => {
  it('plans the reference before the address exists, sends the assigned one, and replans and drifts empty', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(BY_REFERENCE);
    const plan = await computePlan(options(api, dir));
    const edge = plan.changes.find((c) => c.address === 'TCPEdge/ssh')!;
    // Before the address exists, the plan shows what it will be: the reservation's.
    expect(edge).toMatchObject({ action: 'create', after: { hostports: ['ReservedTCPAddress/ssh'] }, dependsOn: ['ReservedTCPAddress/ssh'] });

    expect((await applyPlan(options(api, dir))).ok).toBe(true);
    const [reservation] = api.objects('/reserved_addrs');
    expect(api.objects('/edges/tcp')[0]!.hostports).toEqual([reservation!.addr]);
    expect((await computePlan(options(api, dir))).changes).toEqual([]);
    expect((await detectDrift(options(api, dir))).objects).toEqual([]);

    // The same address written out compares equal to the reference: no change either way.
    rewrite(dir, BY_REFERENCE.replace('{reserved_tcp_address: ssh}', `"${String(reservation!.addr)}"`));
    expect((await computePlan(options(api, dir))).changes).toEqual([]);
  });

  it('moves the edge to the new address when the reservation was deleted outside', async () => {
    const api = new MemoryLiveApi();
    const dir = manifests(BY_REFERENCE);
    await applyPlan(options(api, dir));
    const old = String(api.objects('/reserved_addrs')[0]!.addr);
    await api.remove(`/reserved_addrs/${String(api.objects('/reserved_addrs')[0]!.id)}`);

    const drift = await detectDrift(options(api, dir));
    expect(drift.objects.map((d) => [d.address, d.drift]).sort()).toEqual([
      ['ReservedTCPAddress/ssh', 'deleted_outside'],
      ['TCPEdge/ssh', 'changed_outside'],
    ]);
    const plan = await computePlan(options(api, dir));
    expect(plan.changes.map((c) => [c.address, c.action])).toEqual([
      ['ReservedTCPAddress/ssh', 'create'],
      ['TCPEdge/ssh', 'update'],
    ]);
    expect(plan.changes[1]!.fields).toEqual([expect.objectContaining({ path: 'hostports[0]', before: old, after: 'ReservedTCPAddress/ssh' })]);

    expect((await applyPlan(options(api, dir))).ok).toBe(true);
    const fresh = String(api.objects('/reserved_addrs')[0]!.addr);
    expect(fresh).not.toBe(old);
    expect(api.objects('/edges/tcp')[0]!.hostports).toEqual([fresh]);
    expect((await computePlan(options(api, dir))).changes).toEqual([]);
  });

  it('takes {id} of a reservation gatehouse does not manage', async () => {
    const api = new MemoryLiveApi();
    const unmanaged = await api.create('/reserved_addrs', { region: 'us' });
    const dir = manifests(`kind: TCPEdge\nname: ssh\nspec: {hostports: [{reserved_tcp_address: {id: ${String(unmanaged.id)}}}]}\n`);
    expect((await applyPlan(options(api, dir))).ok).toBe(true);
    expect(api.objects('/edges/tcp')[0]!.hostports).toEqual([unmanaged.addr]);
    expect((await computePlan(options(api, dir))).changes).toEqual([]);
  });

  it('is checked by validate: a missing reservation, a retired addr, one reservation twice', async () => {
    const problems = await validateManifests({
      paths: [
        manifests(`
kind: ReservedTCPAddress
name: ssh
spec: {addr: 1.tcp.example.com:20022}
---
kind: TCPEdge
name: a
spec: {hostports: [{reserved_tcp_address: nope}]}
---
kind: TCPEdge
name: b
spec: {hostports: [{reserved_tcp_address: ssh}, {reserved_tcp_address: ssh}]}
`),
      ],
      env: {},
    });
    expect(problems.map((p) => [p.code, p.at?.line, p.at?.col])).toEqual([
      ['unknown_field', 4, 8],
      ['reference_missing', 8, 43],
      ['duplicate_hostport', 12, 49],
    ]);
    expect(problems[0]!.message).toContain('the service assigns the address');
  });
});
