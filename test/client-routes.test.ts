/** HTTPS edges, their modules, routes and every route module through the client. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collect, type GatehouseClient, ROUTE_MODULE_NAMES, type RouteModules } from '@gatehouse/client';
import { startServedClient } from './helpers/served-client.js';

const KEY = 'routes-test-key-0123456789';
let client: GatehouseClient;
let close: (() => Promise<void>) | undefined;

beforeAll(async () => {
  ({ client, close } = await startServedClient(KEY));
});
afterAll(async () => {
  await close?.();
});

describe('HTTPS edges and routes', () => {
  it('writes, reads and deletes every route module and both edge modules', async () => {
    const policy = await client.ipPolicies.create({ description: 'office' });
    const backend = await client.backends.tunnelGroup.create({ labels: { app: 'web' } });
    const edge = await client.httpsEdges.create({ hostports: ['api.example.com:443'] });
    expect(edge.routes).toEqual([]);
    const term = await client.httpsEdgeModules.tls_termination.replace(edge.id, { min_version: '1.2' });
    expect(term).toMatchObject({ enabled: true, terminate_at: 'edge', min_version: '1.2' });

    const routes = client.httpsEdgeRoutes(edge.id);
    const route = await routes.create({ match_type: 'path_prefix', match: '/' });
    const bodies: { [K in keyof RouteModules]: Parameters<RouteModules[K]['replace']>[1] } = {
      backend: { backend_id: backend.id },
      ip_restriction: { ip_policy_ids: [policy.id] },
      circuit_breaker: { error_threshold_percentage: 0.5, num_buckets: 10 },
      compression: {},
      request_headers: { add: { 'X-Team': 'platform' } },
      response_headers: { add: { 'X-Frame-Options': 'DENY' }, remove: ['Server'] },
      webhook_verification: { provider: 'github', secret: 'whsec' },
      oauth: { provider: { google: { email_domains: ['example.com'] } } },
      saml: { idp_metadata: '<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata"/>' },
      oidc: { issuer: 'https://id.example.com', client_id: 'gh', client_secret: 'oidc-secret', scopes: ['openid'] },
      websocket_tcp_converter: { enabled: false },
      user_agent_filter: { deny: ['curl/.*'] },
      traffic_policy: { value: '{"on_http_request":[]}' },
    };
    for (const name of ROUTE_MODULE_NAMES) {
      const module = routes.modules[name] as RouteModules['compression'];
      const written = (await module.replace(route.id, bodies[name] as never)) as Record<string, unknown>;
      expect(written.enabled, name).toBe(name !== 'websocket_tcp_converter');
      expect(await module.get(route.id), name).toEqual(written);
      const inline = (await routes.get(route.id)) as unknown as Record<string, unknown>;
      expect(inline[name], name).toEqual(written);
      await module.delete(route.id);
      expect(((await routes.get(route.id)) as unknown as Record<string, unknown>)[name], name).toBeNull();
    }
    const listed = await collect(client.httpsEdges.list());
    expect(listed.find((e) => e.id === edge.id)?.routes.map((r) => r.id)).toEqual([route.id]);
    await routes.delete(route.id);
    await client.httpsEdges.delete(edge.id);
  });
});
