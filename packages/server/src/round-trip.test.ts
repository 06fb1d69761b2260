/**
 * Round trip, for every kind and every module: the server accepts as input every value it
 * returns as output. Each sample object is created, read back, and its response turned into a
 * request body by the API's own conventions only (read-only fields dropped, Refs written as
 * ids, a write-only secret, returned as null, written again); that body must be accepted by
 * POST (a second object), PATCH (the same object) and, for modules, PUT, and must read back as
 * the same value. Samples cover the minimal and the fullest form of each kind and module,
 * with every optional field given and left out (the "property": any value the server returns).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_CA } from './testing/test-ca.js';
import { errorOf, startHarness, type Harness } from './testing/harness.js';

type Json = Record<string, any>;

let h: Harness;
let ids: { policy: string; policy2: string; backend: string; ca: string; destination: string };
beforeAll(async () => {
  h = await startHarness();
  const id = async (path: string, body: object) => (await h.call('POST', path, body)).body.id as string;
  ids = {
    policy: await id('/ip_policies', {}),
    policy2: await id('/ip_policies', {}),
    backend: await id('/backends/tunnel_group', { labels: { app: 'web' } }),
    ca: await id('/certificate_authorities', { ca_pem: FIXTURE_CA }),
    destination: await id('/event_destinations', {
      target: {
        firehose: {
          delivery_stream_arn: 'arn:aws:firehose:us-east-1:123456789012:deliverystream/a',
          auth: { role: { role_arn: 'arn:aws:iam::123456789012:role/r' } },
        },
      },
    }),
  };
});
afterAll(() => h.close());

/** Output field -> the input field that writes it, for Refs (the API's convention). */
const REF_INPUTS: Record<string, string> = {
  backend: 'backend_id',
  ip_policies: 'ip_policy_ids',
  certificate_authorities: 'certificate_authority_ids',
  destinations: 'destination_ids',
  ip_policy: 'ip_policy_id',
};
/** Fields a response carries that no request writes (server-chosen or derived). */
const READ_ONLY = new Set([
  'id',
  'uri',
  'created_at',
  'edge_id',
  'routes',
  'tunnels',
  'cname_target',
  'acme_challenge_cname_target',
  'addr',
  'entity_id',
  'assertion_consumer_service_url',
  'single_logout_url',
  'request_signing_certificate_pem',
  'metadata_url',
  'subject_common_name',
  'not_before',
  'not_after',
  'key_usages',
  'extended_key_usages',
]);
/** Write-only secrets come back as null; writing the value again is what a client does. */
const WRITE_ONLY = new Set(['aws_secret_access_key', 'api_key', 'client_secret']);

const isRef = (v: unknown) => typeof v === 'object' && v !== null && 'id' in v && 'uri' in v && Object.keys(v).length === 2;

/** A response (or a part of one) as a request body, by the API's conventions only. */
function asInput(output: unknown, inModule = false): unknown {
  if (Array.isArray(output)) return output.map((v) => asInput(v, inModule));
  if (typeof output !== 'object' || output === null) return output;
  const out: Json = {};
  for (const [key, value] of Object.entries(output as Json)) {
    if (READ_ONLY.has(key)) continue;
    if (key in REF_INPUTS && (isRef(value) || (Array.isArray(value) && value.every(isRef)))) {
      out[REF_INPUTS[key]!] = Array.isArray(value) ? value.map((r) => r.id) : (value as Json).id;
      continue;
    }
    if (WRITE_ONLY.has(key) && value === null && !inModule) {
      out[key] = 'written-again-secret';
      continue;
    }
    if (value === null && !(key === 'client_id' || key === 'client_secret' || key === 'min_version')) continue; // an unset module
    out[key] = asInput(value, inModule || key === 'provider');
  }
  return out;
}

/** The response without what differs between two objects of the same content. */
const content = (body: Json): Json => {
  const { id: _id, uri: _uri, created_at: _c, ...rest } = body;
  return JSON.parse(JSON.stringify(rest, (k, v) => (k === 'uri' && typeof v === 'string' && v.includes('/sources/') ? undefined : v)));
};

interface Sample {
  path: string;
  body: () => Json;
  /** Fields to change before re-creating (unique keys: a domain, a name, a hostport). */
  unique?: (input: Json, n: number) => Json;
  /** Fields the PATCH body may not carry (given on create only). */
  createOnly?: string[];
}

const SAMPLES: Record<string, Sample[]> = {
  ip_policy: [
    { path: '/ip_policies', body: () => ({}) },
    { path: '/ip_policies', body: () => ({ description: 'd', metadata: 'm' }) },
  ],
  ip_policy_rule: [
    {
      path: '/ip_policy_rules',
      body: () => ({ ip_policy_id: ids.policy, cidr: '2001:DB8::/32', action: 'deny', description: 'd' }),
      unique: (i, n) => ({ ...i, cidr: `10.${n}.0.0/16` }),
      createOnly: ['ip_policy_id', 'action'],
    },
  ],
  ip_restriction: [
    {
      path: '/ip_restrictions',
      body: () => ({ type: 'agent', enforced: true, ip_policy_ids: [ids.policy, ids.policy2], metadata: 'm' }),
      unique: (i, n) => ({ ...i, type: ['api', 'endpoints', 'dashboard'][n]! }),
      createOnly: ['type'],
    },
  ],
  bot_user: [{ path: '/bot_users', body: () => ({ name: 'bot with spaces', active: false }), unique: (i, n) => ({ ...i, name: `bot ${n}` }) }],
  backends: [
    { path: '/backends/tunnel_group', body: () => ({ labels: { app: 'a', tier: 'b' }, description: 'd' }) },
    { path: '/backends/http_response', body: () => ({}) },
    { path: '/backends/http_response', body: () => ({ body: 'x', headers: { 'X-A': '1' }, status_code: 503 }) },
    { path: '/backends/failover', body: () => ({ backends: [ids.backend] }) },
    { path: '/backends/weighted', body: () => ({ backends: { [ids.backend]: 0 } }) },
    { path: '/backends/static', body: () => ({ address: 'app.internal:8080' }) },
    { path: '/backends/static', body: () => ({ address: '10.0.0.1:443', tls: { enabled: true } }) },
  ],
  certificate_authority: [{ path: '/certificate_authorities', body: () => ({ ca_pem: FIXTURE_CA, description: 'd' }), createOnly: ['ca_pem'] }],
  event_destination: [
    {
      path: '/event_destinations',
      body: () => ({
        target: {
          kinesis: {
            stream_arn: 'arn:aws:kinesis:us-east-1:123456789012:stream/s',
            auth: { creds: { aws_access_key_id: 'AKIA', aws_secret_access_key: 's' } },
          },
        },
      }),
    },
    { path: '/event_destinations', body: () => ({ format: 'json', target: { datadog: { api_key: 'k', ddsite: 'datadoghq.eu' } } }) },
    {
      path: '/event_destinations',
      body: () => ({
        target: {
          azure_logs_ingestion: {
            tenant_id: '72f988bf-86f1-41af-91ab-2d7cd011db47',
            client_id: '00000000-0000-0000-0000-000000000001',
            client_secret: 's',
            logs_ingestion_uri: 'https://dce.ingest.monitor.azure.com',
            data_collection_rule_id: 'dcr-0123456789abcdef0123456789abcdef',
            data_collection_stream_name: 'Custom-E_CL',
          },
        },
      }),
    },
  ],
  event_subscription: [
    {
      path: '/event_subscriptions',
      body: () => ({
        destination_ids: [ids.destination],
        sources: [
          { type: 'ip_policy_created.v0' },
          { type: 'http_request_complete.v0', fields: ['conn.client_ip'], filter: "ev.http.request.method == 'POST'" },
        ],
      }),
    },
  ],
  reservations: [
    {
      path: '/reserved_domains',
      body: () => ({ domain: 'rt.example.com' }),
      unique: (i, n) => ({ ...i, domain: `rt${n}.example.com` }),
      createOnly: ['domain'],
    },
    {
      path: '/reserved_domains',
      body: () => ({ domain: 'rt.ngrok.app', region: 'eu' }),
      unique: (i, n) => ({ ...i, domain: `rt${n}.ngrok.app` }),
      createOnly: ['domain', 'region'],
    },
    {
      path: '/reserved_domains',
      body: () => ({ domain: '*.wild.example.com', certificate_management_policy: { private_key_type: 'ecdsa' } }),
      unique: (i, n) => ({ ...i, domain: `*.w${n}.example.com` }),
      createOnly: ['domain'],
    },
    // Each create is assigned an address of its own: `unique` keeps the input as it is.
    { path: '/reserved_addrs', body: () => ({ region: 'eu' }), createOnly: ['region'], unique: (i) => i },
  ],
  edges: [
    { path: '/edges/https', body: () => ({}) },
    {
      path: '/edges/https',
      body: () => ({ hostports: ['rt-h.example.com:443'], mutual_tls: { certificate_authority_ids: [ids.ca] }, tls_termination: { min_version: '1.2' } }),
      unique: (i, n) => ({ ...i, hostports: [`rt-h${n}.example.com:443`] }),
    },
    {
      path: '/edges/tcp',
      body: () => ({
        hostports: ['rt.tcp.example.com:1'],
        backend: { backend_id: ids.backend },
        ip_restriction: { ip_policy_ids: [ids.policy] },
        traffic_policy: { value: '{}' },
      }),
      unique: (i, n) => ({ ...i, hostports: [`rt${n}.tcp.example.com:1`] }),
    },
    {
      path: '/edges/tls',
      body: () => ({
        hostports: ['rt-t.example.com:443'],
        backend: { backend_id: ids.backend, enabled: false },
        mutual_tls: { certificate_authority_ids: [] },
        tls_termination: { terminate_at: 'upstream' },
      }),
      unique: (i, n) => ({ ...i, hostports: [`rt-t${n}.example.com:443`] }),
    },
  ],
};

describe('round trip: every value the server returns is accepted as input and reads back the same', () => {
  for (const [family, samples] of Object.entries(SAMPLES)) {
    it(family, async () => {
      let n = 0;
      for (const sample of samples) {
        const created = await h.call('POST', sample.path, sample.body());
        expect(created.status, `${sample.path} ${JSON.stringify(sample.body())}: ${JSON.stringify(created.body)}`).toBe(201);
        const read = (await h.call('GET', `${sample.path}/${created.body.id}`)).body as Json;
        const input = asInput(read) as Json;
        if (sample.createOnly?.includes('ip_policy_id')) input.ip_policy_id = read.ip_policy.id;

        n += 1;
        const again = await h.call('POST', sample.path, sample.unique ? sample.unique(input, n) : input);
        expect(again.status, `POST ${sample.path} ${JSON.stringify(input)}: ${JSON.stringify(again.body)}`).toBe(201);
        const expected = content(sample.unique ? { ...read, ...sample.unique({}, n) } : read);
        if (!sample.unique) expect(content(again.body)).toEqual(expected);

        const patch = Object.fromEntries(Object.entries(input).filter(([k]) => !sample.createOnly?.includes(k)));
        if (Object.keys(patch).length === 0) continue;
        const patched = await h.call('PATCH', `${sample.path}/${created.body.id}`, patch);
        expect(patched.status, `PATCH ${sample.path} ${JSON.stringify(patch)}: ${JSON.stringify(patched.body)}`).toBe(200);
        expect(content(patched.body)).toEqual(content(read));
      }
    });
  }
});

/** Module samples, minimal and full, for the owner path they are PUT under. */
const MODULE_SAMPLES: Record<string, () => Json[]> = {
  backend: () => [{ backend_id: ids.backend }, { backend_id: ids.backend, enabled: false }],
  ip_restriction: () => [{ ip_policy_ids: [ids.policy2, ids.policy] }],
  circuit_breaker: () => [{}, { tripped_duration: 1, rolling_window: 2, num_buckets: 128, volume_threshold: 4, error_threshold_percentage: 0.25 }],
  compression: () => [{}],
  request_headers: () => [{}, { add: { 'X-A': 'b' }, remove: ['X-B'] }],
  response_headers: () => [{ enabled: false, remove: [] }],
  webhook_verification: () => [{ provider: 'SNS' }, { provider: 'sonatype_nexus', secret: 's' }],
  oauth: () => [
    { provider: { google: { email_domains: ['example.com'] } } },
    { provider: { microsoft: { email_addresses: ['a@example.com'], scopes: [] } }, cookie_prefix: 'x', auth_check_interval: 60 },
    { provider: { github: { client_id: 'i', client_secret: 's', scopes: ['read:org'], teams: ['a/b'], organizations: ['a'] } }, options_passthrough: true },
  ],
  saml: () => [
    { idp_metadata: '<EntityDescriptor/>' },
    {
      idp_metadata_url: 'https://idp.example.com/m',
      force_authn: true,
      authorized_groups: ['g'],
      nameid_format: 'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
    },
  ],
  oidc: () => [
    { issuer: 'https://i.example.com', client_id: 'c', client_secret: 's' },
    { issuer: 'https://i.example.com', client_id: 'c', client_secret: 's', scopes: ['openid'], maximum_duration: 60 },
  ],
  websocket_tcp_converter: () => [{ enabled: false }],
  user_agent_filter: () => [{}, { allow: ['a'], deny: ['b'] }],
  traffic_policy: () => [{ value: '{"on_http_request": []}' }],
  mutual_tls: () => [{ certificate_authority_ids: [] }, { certificate_authority_ids: [ids.ca], enabled: false }],
  tls_termination: () => [{}, { terminate_at: 'upstream' }, { enabled: false, min_version: '1.0' }],
};

describe('round trip of every module: the PUT of a GET reads back the same', () => {
  it('for route, HTTPS edge, TCP edge and TLS edge modules', async () => {
    const edge = (await h.call('POST', '/edges/https', {})).body.id;
    const route = (await h.call('POST', `/edges/https/${edge}/routes`, { match_type: 'path_prefix', match: '/' })).body.id;
    const owners: [string, string[]][] = [
      [
        `/edges/https/${edge}/routes/${route}`,
        [
          'backend',
          'ip_restriction',
          'circuit_breaker',
          'compression',
          'request_headers',
          'response_headers',
          'webhook_verification',
          'oauth',
          'saml',
          'oidc',
          'websocket_tcp_converter',
          'user_agent_filter',
          'traffic_policy',
        ],
      ],
      [`/edges/https/${edge}`, ['mutual_tls', 'tls_termination']],
      [`/edges/tcp/${(await h.call('POST', '/edges/tcp', {})).body.id}`, ['backend', 'ip_restriction', 'traffic_policy']],
      [`/edges/tls/${(await h.call('POST', '/edges/tls', {})).body.id}`, ['backend', 'ip_restriction', 'mutual_tls', 'tls_termination', 'traffic_policy']],
    ];
    let checked = 0;
    for (const [owner, modules] of owners) {
      for (const module of modules) {
        for (const body of MODULE_SAMPLES[module]!()) {
          const put = await h.call('PUT', `${owner}/${module}`, body);
          expect(put.status, `${owner}/${module} ${JSON.stringify(body)}: ${JSON.stringify(put.body)}`).toBe(200);
          const input = asInput(put.body, true);
          const again = await h.call('PUT', `${owner}/${module}`, input);
          expect(again.status, `${module} ${JSON.stringify(input)}: ${JSON.stringify(again.body)}`).toBe(200);
          // Derived fields (SAML's signing certificate, made per write) may differ; the rest may not.
          expect(asInput(again.body, true), module).toEqual(input);
          // and the same value inline in the owner's PATCH
          const patched = await h.call('PATCH', owner, { [module]: input });
          expect(patched.status, `PATCH ${owner} ${module}: ${JSON.stringify(patched.body)}`).toBe(200);
          expect(asInput(patched.body[module], true), module).toEqual(input);
          if (module === 'saml' || module === 'oidc' || module === 'oauth') expect((await h.call('DELETE', `${owner}/${module}`)).status).toBe(204);
          checked += 1;
        }
      }
    }
    expect(checked).toBeGreaterThanOrEqual(40);
    expect(errorOf(await h.call('PUT', `/edges/tcp/nope/backend`, {})).code).toBeDefined();
  });
});
