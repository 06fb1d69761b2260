/**
 * Endpoint modules (api-spec 2.4-2.7), described once each and shared by the descriptors of
 * HTTPS edges, routes and TCP edges: how a module's manifest form and live form become one
 * normal form (server defaults filled in, header names lowercased, sets sorted), how the
 * normal form becomes the request body (Refs become ids), and the service's rules.
 */
import {
  DEFAULT_SAML_NAMEID_FORMAT,
  OAUTH_PROVIDERS,
  ROUTE_MODULE_NAMES,
  WEBHOOK_PROVIDERS,
  isWebhookProvider,
  oauthProviderProblems,
} from '@gatehouse/schemas/runtime';
import type { ApiObject } from '../ports.js';
import { problem, type Problem } from '../problems.js';
import { lowerKeys, refToken, sorted, sortedKeys } from './shared.js';
import type { CheckContext, Pattern, Spec } from './types.js';

interface ModuleDef {
  fromManifest(m: Spec): Spec;
  /** The live module's normal form, when it is not read as `fromManifest` reads the manifest's. */
  fromLive?(m: Spec): Spec;
  toInput(normal: Spec, resolve: (token: string) => string): ApiObject;
  /** References inside the module (patterns relative to the module; `set` lists are sorted). */
  refs?: { pattern: Pattern; kind: string; set?: boolean }[];
  sensitive?: Pattern[];
  serverChosen?: Pattern[];
  /**
   * Fields whose text the service interpolates itself (a header value's `${.ngrok.geo.country_code}`,
   * a traffic policy's `${req.url.path}`): its `${...}` is kept as written (load/interpolate.ts).
   */
  serviceText?: Pattern[];
  /** `manifest` is the module as written (before normalization). */
  check?(normal: Spec, at: (path: (string | number)[]) => ReturnType<CheckContext['at']>, manifest?: Spec): Problem[];
}

const enabled = (m: Spec) => (m.enabled === undefined ? true : Boolean(m.enabled));
const identity = (n: Spec): ApiObject => ({ ...n });
const session = (m: Spec): Spec => ({
  enabled: enabled(m),
  options_passthrough: Boolean(m.options_passthrough ?? false),
  cookie_prefix: String(m.cookie_prefix ?? ''),
  inactivity_timeout: Number(m.inactivity_timeout ?? 0),
  maximum_duration: Number(m.maximum_duration ?? 0),
});
const pick = (m: Spec, keys: string[]): Spec => Object.fromEntries(keys.filter((k) => m[k] !== undefined).map((k) => [k, m[k]]));

const switchModule: ModuleDef = {
  fromManifest: (m) => ({ enabled: enabled(m) }),
  toInput: identity,
};

const headers: ModuleDef = {
  fromManifest: (m) => ({
    enabled: enabled(m),
    add: sortedKeys(lowerKeys(m.add)),
    remove: sorted(((m.remove as string[] | undefined) ?? []).map((h) => h.toLowerCase())),
  }),
  toInput: identity,
  serviceText: [['add', '*']],
};
/** Header names in `add` are case-insensitive: the service refuses the same name twice. */
function duplicateHeaders(_n: Spec, at: (path: (string | number)[]) => ReturnType<CheckContext['at']>, manifest?: Spec): Problem[] {
  const seen = new Set<string>();
  const out: Problem[] = [];
  for (const name of Object.keys((manifest?.add ?? {}) as Spec)) {
    if (seen.has(name.toLowerCase())) {
      out.push(problem('module_invalid', `header "${name}" is given twice in add (header names are case-insensitive); keep one`, at(['add', name])));
    }
    seen.add(name.toLowerCase());
  }
  return out;
}

const CIRCUIT_FIELDS = ['tripped_duration', 'rolling_window', 'num_buckets', 'volume_threshold', 'error_threshold_percentage'];

function providerNormal(name: string, p: Spec): Spec {
  const out: Spec = {
    client_id: p.client_id ?? null,
    client_secret: p.client_secret ?? null,
    scopes: sorted(p.scopes),
    email_addresses: sorted(p.email_addresses),
    email_domains: sorted(p.email_domains),
  };
  if (name === 'github') Object.assign(out, { teams: sorted(p.teams), organizations: sorted(p.organizations) });
  return out;
}
const providers = (m: unknown): Spec =>
  Object.fromEntries(
    Object.entries((m ?? {}) as Record<string, Spec | null>)
      .filter(([, v]) => v !== null && v !== undefined)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, v]) => [k, providerNormal(k, v as Spec)]),
  );
/**
 * The provider as a request gives it: the managed application's `null` ids and empty `scopes`
 * are left out (the service takes them, but the shortest body says the same).
 */
const providerInput = (provider: Spec): Spec =>
  Object.fromEntries(
    Object.entries(provider).map(([name, p]) => [
      name,
      Object.fromEntries(
        Object.entries(p as Spec).filter(([k, v]) => v !== null && !(k === 'scopes' && Array.isArray(v) && v.length === 0 && (p as Spec).client_id === null)),
      ),
    ]),
  );

function samlNormal(m: Spec): Spec {
  return {
    ...session(m),
    idp_metadata: m.idp_metadata ?? '',
    ...pick(m, ['idp_metadata_url']),
    force_authn: Boolean(m.force_authn ?? false),
    allow_idp_initiated: Boolean(m.allow_idp_initiated ?? false),
    authorized_groups: sorted(m.authorized_groups),
    nameid_format: m.nameid_format ?? DEFAULT_SAML_NAMEID_FORMAT,
  };
}
const oidcNormal = (m: Spec): Spec => ({ ...session(m), issuer: m.issuer, client_id: m.client_id, client_secret: m.client_secret, scopes: sorted(m.scopes) });
const userAgentNormal = (m: Spec): Spec => ({
  enabled: enabled(m),
  allow: (m.allow as string[] | undefined) ?? [],
  deny: (m.deny as string[] | undefined) ?? [],
});

const SAML_DERIVED = ['entity_id', 'assertion_consumer_service_url', 'single_logout_url', 'request_signing_certificate_pem', 'metadata_url'];

/** The modules, by field name. */
const MODULES = {
  backend: {
    fromManifest: (m) => ({ enabled: enabled(m), backend: refToken(m.backend) }),
    toInput: (n, resolve) => ({ enabled: n.enabled, backend_id: resolve(String(n.backend)) }),
    refs: [{ pattern: ['backend'], kind: 'Backend' }],
  },
  ip_restriction: {
    fromManifest: (m) => ({ enabled: enabled(m), ip_policies: ((m.ip_policies as unknown[]) ?? []).map(refToken) }),
    toInput: (n, resolve) => ({ enabled: n.enabled, ip_policy_ids: (n.ip_policies as string[]).map(resolve) }),
    refs: [{ pattern: ['ip_policies', '*'], kind: 'IPPolicy', set: true }],
  },
  mutual_tls: {
    fromManifest: (m) => ({ enabled: enabled(m), certificate_authorities: ((m.certificate_authorities as unknown[]) ?? []).map(refToken) }),
    toInput: (n, resolve) => ({ enabled: n.enabled, certificate_authority_ids: (n.certificate_authorities as string[]).map(resolve) }),
    refs: [{ pattern: ['certificate_authorities', '*'], kind: 'CertificateAuthority', set: true }],
  },
  tls_termination: {
    fromManifest: (m) => ({ enabled: enabled(m), terminate_at: m.terminate_at ?? 'edge', min_version: m.min_version ?? null }),
    toInput: identity,
    check: (n, at) =>
      n.terminate_at === 'upstream' && n.min_version !== null
        ? [
            problem(
              'module_invalid',
              'tls_termination.min_version must be null or absent when terminate_at is upstream; remove min_version',
              at(['min_version']),
            ),
          ]
        : [],
  },
  circuit_breaker: {
    fromManifest: (m) => ({ enabled: enabled(m), ...Object.fromEntries(CIRCUIT_FIELDS.map((f) => [f, m[f] ?? 0])) }),
    toInput: identity,
  },
  compression: switchModule,
  request_headers: { ...headers, check: duplicateHeaders },
  response_headers: { ...headers, check: duplicateHeaders },
  webhook_verification: {
    fromManifest: (m) => ({ enabled: enabled(m), provider: String(m.provider).toLowerCase(), secret: m.secret ?? '' }),
    toInput: (n) => (n.provider === 'sns' && n.secret === '' ? { enabled: n.enabled, provider: n.provider } : { ...n }),
    sensitive: [['secret']],
    // An empty secret is reported at the secret when one is written (a `${env:}` that is unset
    // leaves it empty, and its own problem at the same place is the one to fix: the echo is
    // dropped, see withoutUnsetEcho), at the module when none is.
    check: (n, at, manifest) => {
      if (!isWebhookProvider(String(n.provider))) {
        return [
          problem(
            'module_invalid',
            `webhook_verification.provider "${String(n.provider)}" is not a supported provider; use one of: ${WEBHOOK_PROVIDERS.join(', ')}`,
            at(['provider']),
          ),
        ];
      }
      if (n.provider === 'sns' && n.secret !== '')
        return [problem('module_invalid', 'webhook_verification: provider sns takes no secret; remove secret', at(['secret']))];
      if (n.provider !== 'sns' && n.secret === '')
        return [
          problem(
            'module_invalid',
            `webhook_verification: provider ${String(n.provider)} needs a secret; add secret (e.g. \${env:WEBHOOK_SECRET})`,
            at(manifest?.secret === undefined ? [] : ['secret']),
          ),
        ];
      return [];
    },
  },
  oauth: {
    fromManifest: (m) => ({ ...session(m), auth_check_interval: Number(m.auth_check_interval ?? 0), provider: providers(m.provider) }),
    toInput: (n) => ({ ...n, provider: providerInput(n.provider as Spec) }),
    sensitive: [['provider', '*', 'client_secret']],
    check: (n, at) => {
      const out: Problem[] = [];
      const entries = Object.entries(n.provider as Record<string, Spec>);
      if (entries.length !== 1) {
        out.push(
          problem(
            'module_invalid',
            `oauth.provider must name exactly one identity provider (${OAUTH_PROVIDERS.join(', ')}); it names ${entries.length}`,
            at(['provider']),
          ),
        );
      }
      for (const [name, p] of entries) {
        for (const found of oauthProviderProblems(p as Parameters<typeof oauthProviderProblems>[0])) {
          // A missing field is reported at its provider; a present one (scopes) at itself.
          const path = found.field === 'scopes' ? ['provider', name, 'scopes'] : ['provider', name];
          out.push(problem('module_invalid', `oauth.provider.${name}.${found.field} ${found.message}`, at(path)));
        }
      }
      return out;
    },
  },
  saml: {
    fromManifest: samlNormal,
    fromLive: (m) => {
      const out: Spec = { ...m };
      for (const field of SAML_DERIVED) delete out[field];
      return { ...out, ...samlNormal(out) };
    },
    toInput: (n) => (n.idp_metadata === '' ? Object.fromEntries(Object.entries(n).filter(([k]) => k !== 'idp_metadata')) : { ...n }),
    check: (n, at) => {
      if ((n.idp_metadata !== '') === (n.idp_metadata_url !== undefined)) {
        return [problem('module_invalid', 'saml needs exactly one of idp_metadata or idp_metadata_url; keep one', at([]))];
      }
      if (n.idp_metadata_url !== undefined && !/^https?:\/\/[^\s/]+/.test(String(n.idp_metadata_url))) {
        return [problem('module_invalid', 'saml.idp_metadata_url must be an http(s) URL', at(['idp_metadata_url']))];
      }
      return [];
    },
  },
  oidc: {
    fromManifest: oidcNormal,
    toInput: identity,
    sensitive: [['client_secret']],
  },
  websocket_tcp_converter: switchModule,
  user_agent_filter: {
    fromManifest: userAgentNormal,
    toInput: identity,
  },
  traffic_policy: {
    fromManifest: (m) => ({ enabled: enabled(m), value: m.value }),
    toInput: identity,
    serviceText: [['value']],
  },
} satisfies Record<string, ModuleDef>;
export type ModuleName = keyof typeof MODULES;

/** A route's modules, in the specification's order (the schemas' list). */
export const ROUTE_MODULES: readonly ModuleName[] = ROUTE_MODULE_NAMES;
export const HTTPS_EDGE_MODULES: ModuleName[] = ['mutual_tls', 'tls_termination'];
export const TCP_EDGE_MODULES: ModuleName[] = ['backend', 'ip_restriction', 'traffic_policy'];
export const TLS_EDGE_MODULES: ModuleName[] = ['backend', 'ip_restriction', 'mutual_tls', 'tls_termination', 'traffic_policy'];

/** What a descriptor needs from a set of modules, prefixed by the module's field name. */
export function moduleSet(names: readonly ModuleName[]) {
  const defs = names.map((name) => [name, MODULES[name] as ModuleDef] as const);
  return {
    names,
    fromManifest: (spec: Spec): Spec =>
      Object.fromEntries(defs.filter(([n]) => spec[n] !== null && spec[n] !== undefined).map(([n, d]) => [n, d.fromManifest(spec[n] as Spec)])),
    fromLive: (live: ApiObject): Spec =>
      Object.fromEntries(defs.filter(([n]) => live[n] !== null && live[n] !== undefined).map(([n, d]) => [n, (d.fromLive ?? d.fromManifest)(live[n] as Spec)])),
    inputs: Object.fromEntries(defs.map(([n, d]) => [n, d.toInput])) as Record<string, ModuleDef['toInput']>,
    refs: defs.flatMap(([n, d]) => (d.refs ?? []).map((r) => ({ ...r, pattern: [n, ...r.pattern] }))),
    sensitive: defs.flatMap(([n, d]) => (d.sensitive ?? []).map((p) => [n, ...p])),
    serverChosen: defs.flatMap(([n, d]) => (d.serverChosen ?? []).map((p) => [n, ...p])),
    serviceText: defs.flatMap(([n, d]) => (d.serviceText ?? []).map((p) => [n, ...p])),
    check: (normal: Spec, ctx: CheckContext): Problem[] =>
      defs.flatMap(([n, d]) => (normal[n] && d.check ? d.check(normal[n] as Spec, (p) => ctx.at([n, ...p]), ctx.manifest?.[n] as Spec | undefined) : [])),
  };
}
