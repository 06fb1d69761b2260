/**
 * Round trip through the engine and the reference server, in process: every manifest the engine
 * can normalize applies (the server accepts the request bodies built from the normal form), and
 * reads back as the same normal form (a second plan is empty). The manifests cover every kind
 * (reservations, TLS edges and static backends included) and every module in its
 * minimal and its fullest forms, with the reservation check on, as the service has it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GatehouseClient } from '@gatehouse/client';
import { applyPlan, computePlan } from '@gatehouse/engine';
import { startServer, type RunningServer } from '@gatehouse/server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ClientLiveApi } from './live-api.js';

const KEY = 'round-trip-test-key-0123456789';
const FIXTURE_CA = readFileSync(new URL('../../engine/test-fixtures/ca.pem', import.meta.url), 'utf8');
let server: RunningServer;
let client: GatehouseClient;
let api: ClientLiveApi;
let dir: string;

beforeAll(async () => {
  server = await startServer({ host: '127.0.0.1', port: 0, db: ':memory:', apiKeys: [KEY] });
  client = new GatehouseClient({ baseUrl: server.url, apiKey: KEY, rateLimit: false });
  api = new ClientLiveApi(client, { url: server.url, embedded: false });
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-round-trip-'));
});
afterAll(async () => {
  await client.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

const indent = (text: string, n: number) =>
  text
    .split('\n')
    .map((l) => ' '.repeat(n) + l)
    .join('\n');

/** Each route module in its forms; one route per form (OAuth only on `/`, so one edge per OAuth form). */
const ROUTE_MODULES: Record<string, string[]> = {
  backend: ['{backend: web}', '{backend: web, enabled: false}'],
  ip_restriction: ['{ip_policies: [office, {id: "%POLICY%"}]}'],
  circuit_breaker: ['{}', '{tripped_duration: 5, rolling_window: 30, num_buckets: 128, volume_threshold: 1, error_threshold_percentage: 1}'],
  compression: ['{}', '{enabled: false}'],
  request_headers: ['{}', '{add: {X-Req: "a b"}, remove: [X-Old]}'],
  response_headers: ['{remove: []}', '{add: {Content-Security-Policy: "default-src \'self\'"}}'],
  webhook_verification: ['{provider: SNS}', '{provider: sonatype_nexus, secret: s3cr3t}', '{provider: microsoft_teams, secret: t}'],
  saml: [
    '{idp_metadata: "<EntityDescriptor/>"}',
    '{idp_metadata_url: "https://idp.example.com/m", allow_idp_initiated: true, nameid_format: "urn:oasis:names:tc:SAML:2.0:nameid-format:transient"}',
  ],
  oidc: [
    '{issuer: "https://id.example.com", client_id: c, client_secret: s}',
    '{issuer: "https://id.example.com", client_id: c, client_secret: s, scopes: [email, openid], options_passthrough: true}',
  ],
  websocket_tcp_converter: ['{}'],
  user_agent_filter: ['{}', '{allow: ["a"], deny: ["(?i)bot"]}'],
  traffic_policy: ['{value: "{}"}'],
};
const OAUTH_FORMS = [
  '{provider: {google: {email_domains: [example.com]}}}',
  '{provider: {microsoft: {email_addresses: [a@example.com], scopes: []}}, inactivity_timeout: 60}',
  '{provider: {github: {client_id: gh, client_secret: ghs, scopes: [read:org], teams: [acme/ops], organizations: [acme]}}, auth_check_interval: 300}',
  '{provider: {amazon: {client_id: null, client_secret: null, email_domains: [example.org]}}}',
];

function manifests(policyId: string): string {
  const routes = Object.entries(ROUTE_MODULES).flatMap(([module, forms]) =>
    forms.map(
      (form, i) => `- match_type: ${i % 2 ? 'exact_path' : 'path_prefix'}\n  match: /${module}/${i}\n  ${module}: ${form.replace('%POLICY%', policyId)}`,
    ),
  );
  const oauthEdges = OAUTH_FORMS.map(
    (form, i) =>
      `kind: HTTPSEdge\nname: oauth-${i}\nspec:\n  hostports: ["oauth-${i}.example.com:443"]\n  routes:\n    - match_type: path_prefix\n      match: /\n      oauth: ${form}\n`,
  );
  return [
    `kind: ReservedDomain\nname: wildcard\nspec: {domain: "*.example.com", certificate_management_policy: {private_key_type: ecdsa}}\n`,
    `kind: ReservedDomain\nname: apex\nspec: {domain: example.org, description: apex}\n`,
    `kind: ReservedDomain\nname: own\nspec: {domain: round-trip.ngrok.app, region: eu}\n`,
    `kind: ReservedTCPAddress\nname: ssh\nspec: {region: au}\n`,
    `kind: IPPolicy\nname: office\nspec:\n  rules: [{cidr: 192.0.2.0/24, action: allow}, {cidr: "2001:DB8::/32", action: deny, description: v6}]\n`,
    `kind: IPRestriction\nname: dashboard\nspec: {type: dashboard, ip_policies: [office]}\n`,
    `kind: BotUser\nname: ci\nspec: {name: "new bot user from API", active: false}\n`,
    `kind: Backend\nname: web\nspec: {type: tunnel_group, labels: {app: web}}\n`,
    `kind: Backend\nname: db\nspec: {type: static, address: "db.internal:5432", tls: {}}\n`,
    `kind: Backend\nname: db-tls\nspec: {type: static_address, address: "10.0.0.9:443", tls: {enabled: true}}\n`,
    `kind: CertificateAuthority\nname: ca\nspec:\n  ca_pem: |\n${indent(FIXTURE_CA.trim(), 4)}\n`,
    `kind: HTTPSEdge\nname: all\nspec:\n  hostports: ["all.example.com:443", "example.org:443"]\n  mutual_tls: {certificate_authorities: [ca]}\n  tls_termination: {min_version: "1.3"}\n  routes:\n${indent(routes.join('\n'), 4)}\n`,
    ...oauthEdges,
    `kind: TCPEdge\nname: ssh\nspec: {hostports: [{reserved_tcp_address: ssh}], backend: {backend: db}, ip_restriction: {ip_policies: [office]}}\n`,
    `kind: TLSEdge\nname: passthrough\nspec: {hostports: ["db.example.com:443"], backend: {backend: db-tls}, tls_termination: {terminate_at: upstream}, mutual_tls: {certificate_authorities: []}}\n`,
    `kind: TLSEdge\nname: terminated\nspec: {hostports: ["db2.example.com:443"], tls_termination: {min_version: "1.2"}, traffic_policy: {value: "{}", enabled: false}}\n`,
    `kind: EventDestination\nname: dd\nspec: {target: {datadog: {api_key: dd-key, ddtags: "env:test", service: gatehouse, ddsite: datadoghq.eu}}}\n`,
    `kind: EventDestination\nname: az\nspec:\n  target:\n    azure_logs_ingestion:\n      tenant_id: 72f988bf-86f1-41af-91ab-2d7cd011db47\n      client_id: 00000000-0000-0000-0000-000000000001\n      client_secret: az-secret\n      logs_ingestion_uri: https://dce-1.westeurope-1.ingest.monitor.azure.com\n      data_collection_rule_id: dcr-0123456789abcdef0123456789abcdef\n      data_collection_stream_name: Custom-Events_CL\n`,
    `kind: EventSubscription\nname: traffic\nspec:\n  destinations: [dd, az]\n  sources:\n    - {type: http_request_complete.v0, filter: "ev.conn.server_name.matches('^all[.]') && ev.http.request.method == 'POST'"}\n    - {type: tcp_connection_closed.v0, fields: [conn.bytes_in]}\n    - {type: domain_created.v0}\n`,
  ].join('---\n');
}

describe('every manifest the engine normalizes applies, and replans empty', () => {
  it('covers every kind and every module form', async () => {
    const unmanaged = await client.ipPolicies.create({ description: 'not managed' });
    writeFileSync(join(dir, 'all.yaml'), manifests(unmanaged.id));
    const options = { api, stack: 'round-trip', paths: [dir], env: {} };
    const result = await applyPlan(options);
    expect(
      result.steps.filter((s) => s.status !== 'done'),
      JSON.stringify(
        result.steps.filter((s) => s.status !== 'done'),
        null,
        2,
      ),
    ).toEqual([]);
    expect(result.ok).toBe(true);
    const again = await computePlan(options);
    expect(again.changes, JSON.stringify(again.changes, null, 2)).toEqual([]);
    expect(again.summary.unchanged).toBeGreaterThan(40);
  });
});
