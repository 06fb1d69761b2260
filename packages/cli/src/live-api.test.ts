import { GatehouseClient } from '@gatehouse/client';
import { LiveApiError } from '@gatehouse/engine';
import { startServer, type RunningServer } from '@gatehouse/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientLiveApi } from './live-api.js';

const KEY = 'live-api-test-key-0123456789';
let server: RunningServer;
let client: GatehouseClient;
let api: ClientLiveApi;

beforeAll(async () => {
  server = await startServer({ host: '127.0.0.1', port: 0, db: ':memory:', reservationCheck: false, apiKeys: [KEY] });
  client = new GatehouseClient({ baseUrl: server.url, apiKey: KEY, rateLimit: false });
  api = new ClientLiveApi(client, { url: server.url, embedded: false });
});
afterAll(async () => {
  await client.close();
  await server.close();
});

describe('ClientLiveApi (the engine port over the client)', () => {
  it('creates, lists across pages, updates, replaces modules and removes', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 120; i++) ids.push(String((await api.create('/ip_policies', { description: `p${i}` })).id));
    const before = client.requests.byMethod.GET;
    const listed: string[] = [];
    for await (const item of api.list('/ip_policies', 'ip_policies')) listed.push(String(item.id));
    expect(listed).toEqual([...ids].reverse());
    expect(client.requests.byMethod.GET - before).toBe(2);
    // A page at a time: the same items in the same order, one array per answer.
    const pages: string[][] = [];
    for await (const page of api.listPages('/ip_policies', 'ip_policies')) pages.push(page.map((item) => String(item.id)));
    expect(pages.map((page) => page.length)).toEqual([100, 20]);
    expect(pages.flat()).toEqual(listed);
    expect(client.requests.byMethod.GET - before).toBe(4);

    const updated = await api.update(`/ip_policies/${ids[0]}`, { description: 'changed' });
    expect(updated.description).toBe('changed');

    const backend = await api.create('/backends/tunnel_group', { labels: { app: 'web' } });
    const edge = await api.create('/edges/tcp', { hostports: ['9.tcp.example.com:1234'] });
    const module = await api.replace(`/edges/tcp/${edge.id}/backend`, { backend_id: backend.id });
    expect(module).toMatchObject({ enabled: true, backend: { id: backend.id } });

    await api.remove(`/ip_policies/${ids[0]}`);
    expect(await api.get(`/ip_policies/${ids[0]}`)).toBeUndefined();
  });

  it('maps API failures to LiveApiError with status and code', async () => {
    const error = (await api
      .create('/ip_policy_rules', { ip_policy_id: 'ipp_missing', cidr: '10.0.0.0/8', action: 'allow' })
      .catch((e: unknown) => e)) as LiveApiError;
    expect(error).toBeInstanceOf(LiveApiError);
    expect(error.status).toBe(400);
    expect(error.code).toBe('invalid_reference');
    expect(error.retryable).toBe(false);
    expect(error.outcomeUnknown).toBe(false);
  });

  it('maps a failed page to LiveApiError too', async () => {
    const pages = async () => {
      for await (const _page of api.listPages('/no_such_collection', 'items')) void _page;
    };
    const error = (await pages().catch((e: unknown) => e)) as LiveApiError;
    expect(error).toBeInstanceOf(LiveApiError);
    expect(error.status).toBe(404);
  });

  it('reports an unreachable API as retryable, and a create that was never sent as not lost', async () => {
    const dead = new GatehouseClient({ baseUrl: 'http://127.0.0.1:1', apiKey: KEY, retry: { maxAttempts: 2, baseDelayMs: 1 } });
    const deadApi = new ClientLiveApi(dead, { url: 'http://127.0.0.1:1', embedded: false });
    const error = (await deadApi.create('/bot_users', { name: 'x' }).catch((e: unknown) => e)) as LiveApiError;
    expect(error).toBeInstanceOf(LiveApiError);
    expect(error).toMatchObject({ status: undefined, code: 'connection_refused', retryable: true, outcomeUnknown: false });
    await dead.close();
  });
});
