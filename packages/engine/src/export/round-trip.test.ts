/**
 * Export reproduces the repository, as a property over generated live states: manifests of every
 * kind spread over files in directories, applied by a stack (beside objects gatehouse does not
 * manage and objects of another stack), exported, and the export planned from a fresh directory
 * (its own root) has no change at all, no marker write included, and drifts nowhere: each object
 * went back to the file its marker records.
 *
 * `GATEHOUSE_PROPERTY_SEED` replays another sequence; the default seed keeps CI deterministic.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyPlan } from '../apply/apply.js';
import { MemoryLiveApi } from '../apply/memory-api.js';
import { detectDrift } from '../drift/detect.js';
import { computePlan } from '../engine.js';
import { exportLive, type ExportResult } from './export.js';

const PEM = readFileSync(new URL('../../test-fixtures/ca.pem', import.meta.url), 'utf8');
const FILES = ['access.yaml', 'net/edges.yaml', 'teams/a/backends.yml', 'events.yaml'] as const;
const file = fc.constantFrom(...FILES);
const CIDRS = ['10.0.1.0/24', '10.0.2.0/24', '2001:db8::/32'] as const;

/** One manifest document, the file it is written to, and the names of what it needs to exist. */
interface Doc {
  file: string;
  text: string;
}

const maybe = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

const repositoryArb = fc
  .record({
    policies: fc
      .subarray(['office', 'vpn'])
      .chain((names) =>
        fc.tuple(
          ...names.map((name) =>
            fc.record({ name: fc.constant(name), file, description: maybe(fc.constantFrom('Office', 'with $${literal}')), rules: fc.subarray([...CIDRS]) }),
          ),
        ),
      ),
    restriction: maybe(fc.record({ file, enforced: fc.boolean() })),
    bot: maybe(fc.record({ file, name: maybe(fc.constantFrom('Deploy bot', 'deploy-2')), active: fc.boolean() })),
    web: maybe(fc.record({ file, labels: fc.constantFrom('{app: web}', '{app: web, dc: eu}') })),
    sorry: maybe(fc.record({ file, status: fc.constantFrom(503, 200), body: maybe(fc.constantFrom('down', 'cost: $$5')) })),
    db: maybe(fc.record({ file, type: fc.constantFrom('static', 'static_address'), tls: fc.constantFrom('', ', tls: {}', ', tls: {enabled: true}') })),
    composite: fc.constantFrom('none', 'failover', 'weighted'),
    domain: maybe(
      fc.record({ file, domain: fc.constantFrom('api.example.com', 'gslb.ngrok.app', '*.example.org'), region: maybe(fc.constantFrom('us', 'eu')) }),
    ),
    address: maybe(fc.record({ file, region: fc.constantFrom('us', 'eu'), edge: maybe(file) })),
    https: maybe(fc.record({ file, policy: fc.boolean(), header: fc.constantFrom('${.ngrok.geo.country_code}', 'plain', '$${not-a-template}') })),
    tls: maybe(file),
    ca: maybe(file),
    events: maybe(file),
    unmanaged: fc.boolean(),
    otherStack: fc.boolean(),
    stack: fc.constantFrom('default', 'team-a'),
  })
  .map((r) => {
    const docs: Doc[] = [];
    const add = (at: string, text: string) => docs.push({ file: at, text });
    for (const p of r.policies) {
      const rules = p.rules.map((cidr) => `    - {cidr: "${cidr}", action: allow}`).join('\n');
      add(
        p.file,
        `kind: IPPolicy\nname: ${p.name}\nspec:\n${p.description ? `  description: "${p.description}"\n` : ''}  rules:${rules ? `\n${rules}` : ' []'}\n`,
      );
    }
    const policies = r.policies.map((p) => p.name);
    if (r.restriction && policies.length > 0)
      add(
        r.restriction.file,
        `kind: IPRestriction\nname: agents\nspec: {type: agent, enforced: ${r.restriction.enforced}, ip_policies: [${policies.join(', ')}]}\n`,
      );
    if (r.bot) add(r.bot.file, `kind: BotUser\nname: ci\nspec: {active: ${r.bot.active}${r.bot.name ? `, name: ${r.bot.name}` : ''}}\n`);
    if (r.web) add(r.web.file, `kind: Backend\nname: web\nspec: {type: tunnel_group, labels: ${r.web.labels}}\n`);
    if (r.sorry)
      add(
        r.sorry.file,
        `kind: Backend\nname: sorry\nspec: {type: http_response, status_code: ${r.sorry.status}${r.sorry.body ? `, body: "${r.sorry.body}"` : ''}}\n`,
      );
    if (r.db) add(r.db.file, `kind: Backend\nname: db\nspec: {type: ${r.db.type}, address: "db.internal:5432"${r.db.tls}}\n`);
    if (r.web && r.sorry && r.composite === 'failover') add(r.web.file, `kind: Backend\nname: both\nspec: {type: failover, backends: [web, sorry]}\n`);
    if (r.web && r.sorry && r.composite === 'weighted')
      add(r.sorry.file, `kind: Backend\nname: both\nspec: {type: weighted, backends: {web: 90, sorry: 10}}\n`);
    if (r.domain)
      add(r.domain.file, `kind: ReservedDomain\nname: domain\nspec: {domain: "${r.domain.domain}"${r.domain.region ? `, region: ${r.domain.region}` : ''}}\n`);
    if (r.address) {
      add(r.address.file, `kind: ReservedTCPAddress\nname: ssh\nspec: {region: ${r.address.region}}\n`);
      if (r.address.edge)
        add(
          r.address.edge,
          `kind: TCPEdge\nname: ssh\nspec:\n  hostports: [{reserved_tcp_address: ssh}]\n${r.web ? '  backend: {backend: web}\n' : ''}${policies.length ? `  ip_restriction: {ip_policies: [${policies[0]}]}\n` : ''}`,
        );
    }
    if (r.https) {
      const policy = r.https.policy
        ? `\n      traffic_policy: {value: '{"on_http_request":[{"actions":[{"type":"log","config":{"metadata":{"path":"\${req.url.path}"}}}]}]}'}`
        : '';
      const backend = r.web ? '\n      backend: {backend: web}' : '';
      add(
        r.https.file,
        `kind: HTTPSEdge\nname: api\nspec:\n  hostports: ["api.example.com:443"]\n  routes:\n    - match_type: path_prefix\n      match: /${backend}${policy}\n      request_headers: {add: {x-country: "${r.https.header}"}}\n    - {match_type: exact_path, match: /health, compression: {}}\n`,
      );
    }
    if (r.tls)
      add(
        r.tls,
        `kind: TLSEdge\nname: db\nspec:\n  hostports: ["db.example.com:443"]\n  tls_termination: {terminate_at: upstream}\n${r.db ? '  backend: {backend: db}\n' : ''}`,
      );
    if (r.ca)
      add(
        r.ca,
        `kind: CertificateAuthority\nname: clients\nspec:\n  description: Clients\n  ca_pem: |\n${PEM.trim()
          .split('\n')
          .map((l) => `    ${l}`)
          .join('\n')}\n`,
      );
    if (r.events) {
      add(
        r.events,
        `kind: EventDestination\nname: audit\nspec: {target: {kinesis: {stream_arn: "arn:aws:kinesis:us-east-1:123456789012:stream/audit", auth: {role: {role_arn: "arn:aws:iam::123456789012:role/events"}}}}}\n`,
      );
      add(r.events, `kind: EventSubscription\nname: audit\nspec: {destinations: [audit], sources: [{type: ip_policy_created.v0}, {type: vault_updated.v0}]}\n`);
    }
    // A repository always declares something: a file without documents is a problem of its own.
    if (docs.length === 0) add('access.yaml', 'kind: IPPolicy\nname: empty\nspec: {}\n');
    return { docs, unmanaged: r.unmanaged, otherStack: r.otherStack, stack: r.stack };
  });

const made: string[] = [];
function directory(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-export-property-'));
  made.push(dir);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}
const repository = (docs: readonly Doc[]) => {
  const files: Record<string, string> = {};
  for (const d of docs) files[d.file] = files[d.file] ? `${files[d.file]}---\n${d.text}` : d.text;
  return directory(files);
};
const exportedTree = (result: ExportResult) => directory(Object.fromEntries(result.files.map((f) => [f.file, f.text])));

describe('export, then plan of the exported tree', () => {
  it('has no change for any kind, in whatever files the objects were applied from', async () => {
    const seed = Number(process.env.GATEHOUSE_PROPERTY_SEED ?? 43);
    try {
      await fc.assert(
        fc.asyncProperty(repositoryArb, async ({ docs, unmanaged, otherStack, stack }) => {
          const api = new MemoryLiveApi();
          if (unmanaged) {
            await api.create('/ip_policies', { description: 'someone else' });
            await api.create('/backends/static', { address: 'legacy.internal:80', tls: { enabled: false } });
          }
          if (otherStack) {
            const other = repository([{ file: 'theirs.yaml', text: 'kind: IPPolicy\nname: theirs\nspec: {description: Theirs}\n' }]);
            expect((await applyPlan({ api, stack: 'other', paths: [other], env: {} })).ok).toBe(true);
          }
          const applied = await applyPlan({ api, stack, paths: [repository(docs)], env: {} });
          expect(applied.ok, JSON.stringify(applied.steps.filter((s) => s.status !== 'done'))).toBe(true);

          const result = await exportLive({ api, stack });
          expect(result.skipped).toEqual([]);
          const options = { api, stack, paths: [exportedTree(result)], env: {} };
          const plan = await computePlan(options);
          expect(plan.changes, JSON.stringify(plan.changes, null, 2)).toEqual([]);
          expect((await detectDrift(options)).objects).toEqual([]);
          // Every file the repository had that holds an object of the stack is written again, at its path.
          expect(result.files.map((f) => f.file).sort()).toEqual([...new Set(docs.map((d) => d.file))].sort());
        }),
        { numRuns: 40, seed },
      );
    } finally {
      for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
    }
  });
});
