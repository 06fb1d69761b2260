/**
 * Writes the objects a manifest repository declares straight to a live server through the
 * client, as gatehouse would have left them after an apply (ownership markers included), but
 * without using the engine's apply: an independent second implementation of "what these
 * manifests mean in API calls", so that "plan says no changes" proves the engine's
 * normalization rather than agreeing with itself.
 *
 * Translation rules (issue 3, the manifest format): fields keep the API's names; references
 * (`ip_policies`, `backend.backend`, failover `backends`, weighted keys, mutual TLS
 * `certificate_authorities`, subscription `destinations`) become the ids the request bodies take; `${env:NAME}` is
 * substituted; rules and routes are created under their parent.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { GatehouseClient } from '@gatehouse/client';
import { parseAllDocuments } from 'yaml';
import { composeMetadata } from '@gatehouse/engine';

/** Values for the `${env:...}` secrets of examples/basic. */
export const EXAMPLE_SECRETS = {
  OIDC_CLIENT_SECRET: 'oidc-example-secret-9f3a',
  GITHUB_WEBHOOK_SECRET: 'webhook-example-secret-71c2',
  GITHUB_OAUTH_CLIENT_SECRET: 'oauth-example-secret-c0de',
  AUDIT_STREAM_SECRET_KEY: 'aws-example-secret-key-5e7b',
};

export interface Manifest {
  kind: string;
  name: string;
  spec: Record<string, any>;
}

/** Every document of every *.yaml under `dir`, in path order. */
export function readManifests(dir: string): Manifest[] {
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.yaml') || f.endsWith('.yml'))
    .sort();
  return files.flatMap((f) =>
    parseAllDocuments(readFileSync(join(dir, f), 'utf8'))
      .map((d) => d.toJS() as Manifest | null)
      .filter((d): d is Manifest => d !== null),
  );
}

function interpolate<T>(value: T, env: Record<string, string>): T {
  if (typeof value === 'string') {
    return value.replace(/\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
      if (env[name] === undefined) throw new Error(`test env lacks ${name}`);
      return env[name]!;
    }) as T;
  }
  if (Array.isArray(value)) return value.map((v) => interpolate(v, env)) as T;
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, interpolate(v, env)])) as T;
  }
  return value;
}

const MARK_HASH = '0'.repeat(16);

export interface WriteResult {
  /** Live id by `Kind/name`. */
  ids: Map<string, string>;
  /** Requests the writer made. */
  requests: number;
}

/** Creates every object of `manifests` on the server, marked as owned by `stack`. */
export async function writeLive(
  client: GatehouseClient,
  manifests: Manifest[],
  stack: string,
  env: Record<string, string>,
  options: { reverseSets?: boolean } = {},
): Promise<WriteResult> {
  /** Set-valued lists in another order than the manifests': order must not make a diff. */
  const order = <T>(items: T[]): T[] => (options.reverseSets ? [...items].reverse() : items);
  const before = client.requests.total;
  const ids = new Map<string, string>();
  const docs = manifests.map((m) => ({ ...m, spec: interpolate(m.spec, env) }));
  const meta = (user: string | undefined, name: string) => composeMetadata(user, { stack, name, hash: MARK_HASH });
  const ref = (kind: string, r: string | { id: string }) => {
    if (typeof r !== 'string') return r.id;
    const id = ids.get(`${kind}/${r}`);
    if (!id) throw new Error(`writeLive: ${kind}/${r} not created yet`);
    return id;
  };
  const common = (spec: Record<string, any>, name: string) => ({
    ...(spec.description !== undefined ? { description: spec.description } : {}),
    metadata: meta(spec.metadata, name),
  });
  const endpointModules = (spec: Record<string, any>) => {
    const out: Record<string, any> = { ...spec };
    if (spec.backend) {
      const { backend, ...rest } = spec.backend;
      out.backend = { ...rest, backend_id: ref('Backend', backend) };
    }
    if (spec.ip_restriction) {
      const { ip_policies, ...rest } = spec.ip_restriction;
      out.ip_restriction = { ...rest, ip_policy_ids: order(ip_policies as string[]).map((p: string) => ref('IPPolicy', p)) };
    }
    return out;
  };

  // Reservations first: edges' hostports name them. A TCP address is the service's choice:
  // a TCP edge's `{reserved_tcp_address: <name>}` is the address its reservation was given.
  const reservations = { ReservedDomain: '/reserved_domains', ReservedTCPAddress: '/reserved_addrs' } as const;
  const addrs = new Map<string, string>();
  for (const [kind, path] of Object.entries(reservations)) {
    for (const doc of docs.filter((d) => d.kind === kind)) {
      const { description, metadata, ...fields } = doc.spec;
      const created = await client.request<{ id: string; addr?: string }>('POST', path, {
        body: { ...fields, ...common({ description, metadata }, doc.name) },
      });
      ids.set(`${kind}/${doc.name}`, created.id);
      if (created.addr !== undefined) addrs.set(doc.name, created.addr);
    }
  }
  const hostport = (h: string | { reserved_tcp_address: string }) => (typeof h === 'string' ? h : addrs.get(h.reserved_tcp_address)!);

  for (const doc of docs.filter((d) => d.kind === 'IPPolicy')) {
    const { rules = [], ...spec } = doc.spec;
    const policy = await client.ipPolicies.create(common(spec, doc.name));
    ids.set(`IPPolicy/${doc.name}`, policy.id);
    for (const rule of order(rules as Record<string, any>[])) {
      await client.ipPolicyRules.create({ ...rule, ...common(rule, `${doc.name}/${rule.cidr}`), ip_policy_id: policy.id } as never);
    }
  }

  // Backends: composite ones after the backends they list.
  let pending = docs.filter((d) => d.kind === 'Backend');
  while (pending.length > 0) {
    const ready = pending.filter((d) => {
      const members: (string | { id: string })[] =
        d.spec.type === 'failover' ? d.spec.backends : d.spec.type === 'weighted' ? Object.keys(d.spec.backends) : [];
      return members.every((m) => typeof m !== 'string' || ids.has(`Backend/${m}`));
    });
    if (ready.length === 0) throw new Error('writeLive: backend cycle');
    for (const doc of ready) {
      const { type, description, metadata, ...fields } = doc.spec;
      const body: Record<string, any> = { ...fields, ...common({ description, metadata }, doc.name) };
      if (type === 'failover') body.backends = fields.backends.map((b: string) => ref('Backend', b));
      if (type === 'weighted') body.backends = Object.fromEntries(Object.entries(fields.backends).map(([b, w]) => [ref('Backend', b), w]));
      const path = `/backends/${type === 'static_address' ? 'static' : type}`;
      const created = await client.request<{ id: string }>('POST', path, { body });
      ids.set(`Backend/${doc.name}`, created.id);
    }
    pending = pending.filter((d) => !ready.includes(d));
  }

  for (const doc of docs.filter((d) => d.kind === 'IPRestriction')) {
    const { ip_policies, metadata, description, ...spec } = doc.spec;
    const created = await client.ipRestrictions.create({
      ...spec,
      ...common({ description, metadata }, doc.name),
      type: spec.type,
      ip_policy_ids: order(ip_policies as string[]).map((p: string) => ref('IPPolicy', p)),
    } as never);
    ids.set(`IPRestriction/${doc.name}`, created.id);
  }

  for (const doc of docs.filter((d) => d.kind === 'BotUser')) {
    const created = await client.botUsers.create({ name: doc.name, ...doc.spec });
    ids.set(`BotUser/${doc.name}`, created.id);
  }

  for (const doc of docs.filter((d) => d.kind === 'CertificateAuthority')) {
    const { description, metadata, ca_pem } = doc.spec;
    const created = await client.certificateAuthorities.create({ ca_pem, ...common({ description, metadata }, doc.name) });
    ids.set(`CertificateAuthority/${doc.name}`, created.id);
  }

  for (const doc of docs.filter((d) => d.kind === 'HTTPSEdge')) {
    const { routes = [], mutual_tls, description, metadata, ...spec } = doc.spec;
    const body: Record<string, any> = { ...spec, ...common({ description, metadata }, doc.name) };
    if (mutual_tls) {
      const { certificate_authorities, ...rest } = mutual_tls;
      body.mutual_tls = {
        ...rest,
        certificate_authority_ids: order(certificate_authorities as (string | { id: string })[]).map((c: string | { id: string }) =>
          ref('CertificateAuthority', c),
        ),
      };
    }
    const edge = await client.httpsEdges.create(body);
    ids.set(`HTTPSEdge/${doc.name}`, edge.id);
    for (const route of order(routes as Record<string, any>[])) {
      const { description: d, metadata: m, ...fields } = route;
      await client.httpsEdgeRoutes(edge.id).create({
        ...endpointModules(fields),
        ...common({ description: d, metadata: m }, `${doc.name}/${route.match_type}:${route.match}`),
      } as never);
    }
  }

  for (const doc of docs.filter((d) => d.kind === 'TCPEdge')) {
    const { description, metadata, hostports, ...spec } = doc.spec;
    const body = { ...endpointModules(spec), ...(hostports ? { hostports: hostports.map(hostport) } : {}), ...common({ description, metadata }, doc.name) };
    const edge = await client.tcpEdges.create(body);
    ids.set(`TCPEdge/${doc.name}`, edge.id);
  }

  for (const doc of docs.filter((d) => d.kind === 'TLSEdge')) {
    const { description, metadata, mutual_tls, ...spec } = doc.spec;
    const body: Record<string, any> = { ...endpointModules(spec), ...common({ description, metadata }, doc.name) };
    if (mutual_tls) {
      const { certificate_authorities, ...rest } = mutual_tls;
      body.mutual_tls = {
        ...rest,
        certificate_authority_ids: order(certificate_authorities as (string | { id: string })[]).map((c) => ref('CertificateAuthority', c)),
      };
    }
    const edge = await client.request<{ id: string }>('POST', '/edges/tls', { body });
    ids.set(`TLSEdge/${doc.name}`, edge.id);
  }

  for (const doc of docs.filter((d) => d.kind === 'EventDestination')) {
    const { description, metadata, ...spec } = doc.spec;
    const created = await client.eventDestinations.create({ ...spec, ...common({ description, metadata }, doc.name) } as never);
    ids.set(`EventDestination/${doc.name}`, created.id);
  }

  for (const doc of docs.filter((d) => d.kind === 'EventSubscription')) {
    const { description, metadata, sources, destinations } = doc.spec;
    const created = await client.eventSubscriptions.create({
      ...common({ description, metadata }, doc.name),
      sources: order(sources as Record<string, any>[]).map((s) => (s.fields ? { ...s, fields: order(s.fields) } : s)),
      destination_ids: order(destinations as (string | { id: string })[]).map((d: string | { id: string }) => ref('EventDestination', d)),
    } as never);
    ids.set(`EventSubscription/${doc.name}`, created.id);
  }
  return { ids, requests: client.requests.total - before };
}
