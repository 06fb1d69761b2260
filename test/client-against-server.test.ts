/** The client against the real reference server, listening on a loopback port. */
import type { RunningServer } from '@gatehouse/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, GatehouseApiError, GatehouseClient } from '@gatehouse/client';
import { startServedClient } from './helpers/served-client.js';

const KEY = 'client-test-key-0123456789';
let server: RunningServer;
let client: GatehouseClient;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ server, client, close } = await startServedClient(KEY));
});
afterAll(async () => {
  await close?.();
});

describe('GatehouseClient against the reference server', () => {
  it('creates, reads, updates, lists and deletes an IP policy and its rules', async () => {
    const policy = await client.ipPolicies.create({ description: 'office', metadata: '{"a":1}' });
    expect(policy.id).toMatch(/^ipp_/);
    const rule = await client.ipPolicyRules.create({ ip_policy_id: policy.id, cidr: '10.0.0.0/8', action: 'allow' });
    expect(rule.ip_policy.id).toBe(policy.id);
    expect((await client.ipPolicies.update(policy.id, { description: 'hq' })).description).toBe('hq');
    expect((await collect(client.ipPolicyRules.list())).map((r) => r.id)).toContain(rule.id);
    await client.ipPolicyRules.delete(rule.id);
    await client.ipPolicies.delete(policy.id);
    await expect(client.ipPolicies.get(policy.id)).rejects.toMatchObject({ status: 404, errorCode: 'not_found', retryable: false });
  });

  it('lists 250 objects in 3 requests, newest first', async () => {
    const created: string[] = [];
    for (let i = 0; i < 250; i++) created.push((await client.botUsers.create({ name: `bot-${i}` })).id);
    const before = client.requests.byMethod.GET;
    const listed = (await collect(client.botUsers.list())).map((b) => b.id);
    expect(client.requests.byMethod.GET - before).toBe(3);
    expect(listed).toEqual([...created].reverse());
  });

  it('reports a validation failure as a typed, non-retryable error', async () => {
    const error = (await client.ipRestrictions.create({ type: 'nope' as 'api', ip_policy_ids: ['ipp_x'] }).catch((e: unknown) => e)) as GatehouseApiError;
    expect(error).toBeInstanceOf(GatehouseApiError);
    expect(error.status).toBe(400);
    expect(error.retryable).toBe(false);
    expect(error.operationId).toMatch(/^op_/);
  });

  it('rejects a wrong key with 401 and never retries it', async () => {
    const wrong = new GatehouseClient({ baseUrl: server.url, apiKey: 'wrong-key-0123456789' });
    const error = (await wrong.botUsers.get('bot_x').catch((e: unknown) => e)) as GatehouseApiError;
    expect(error).toMatchObject({ status: 401, attempts: 1 });
    expect(error.message).not.toContain('wrong-key');
    await wrong.close();
  });

  it('drives backends of every kind and the TCP edge modules', async () => {
    const group = await client.backends.tunnelGroup.create({ labels: { app: 'web' } });
    const response = await client.backends.httpResponse.create({ body: 'maintenance', status_code: 503 });
    const failover = await client.backends.failover.create({ backends: [group.id, response.id] });
    const weighted = await client.backends.weighted.create({ backends: { [group.id]: 90, [response.id]: 10 } });
    expect(failover.backends).toEqual([group.id, response.id]);
    expect(weighted.backends).toEqual({ [group.id]: 90, [response.id]: 10 });
    expect((await collect(client.backends.weighted.list())).map((b) => b.id)).toEqual([weighted.id]);
    // Static backends at the service's own path, `tls: {}` as its examples send it.
    const fixed = await client.backends.static.create({ address: 'db.internal:5432', tls: {} });
    expect(fixed).toMatchObject({ id: expect.stringMatching(/^bkdsc_/), uri: expect.stringMatching(/\/backends\/static\/bkdsc_/), tls: { enabled: false } });
    expect((await client.backends.static.update(fixed.id, { tls: { enabled: true } })).tls).toEqual({ enabled: true });
    expect((await collect(client.backends.static.list())).map((b) => b.id)).toEqual([fixed.id]);

    const edge = await client.tcpEdges.create({ hostports: ['1.tcp.example.com:20022'] });
    expect(edge.backend).toBeNull();
    const module = await client.tcpEdgeModules.backend.replace(edge.id, { backend_id: failover.id });
    expect(module).toMatchObject({ enabled: true, backend: { id: failover.id } });
    expect((await client.tcpEdges.get(edge.id)).backend?.backend.id).toBe(failover.id);
    await client.tcpEdgeModules.backend.delete(edge.id);
    await expect(client.tcpEdgeModules.backend.get(edge.id)).rejects.toMatchObject({ status: 404 });
  });
});
