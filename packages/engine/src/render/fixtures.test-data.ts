/** Hand-made plans for the renderers' golden tests. */
import { PLAN_FORMAT_VERSION } from './json.js';
import { SENSITIVE } from '../identity/mask.js';
import { type Change, type Plan } from '../plan-model.js';

const base = (over: Partial<Change> & Pick<Change, 'address' | 'action' | 'kind' | 'name'>): Change => ({
  id: null,
  before: null,
  after: null,
  fields: [],
  patch: [],
  dependsOn: [],
  ...over,
});

export function mixedPlan(): Plan {
  return {
    format_version: PLAN_FORMAT_VERSION,
    target: { url: 'https://api.example.com', embedded: false },
    stack: 'default',
    created_at: '2026-11-23T02:00:00.000Z',
    summary: { create: 2, update: 1, delete: 1, replace: 1, unchanged: 4 },
    changes: [
      base({
        address: 'IPPolicy/office',
        action: 'create',
        kind: 'IPPolicy',
        name: 'office',
        after: { description: 'Office egress <HQ>', metadata: '{"gatehouse":{"stack":"default"}}' },
        patch: [{ op: 'add', path: '/description', value: 'Office egress <HQ>' }],
        source: { file: 'examples/basic/policies.yaml', line: 3, col: 1 },
      }),
      base({
        address: 'HTTPSEdgeRoute/api/path_prefix:/',
        action: 'create',
        kind: 'HTTPSEdgeRoute',
        name: 'api path_prefix:/',
        after: {
          match_type: 'path_prefix',
          match: '/',
          oidc: { enabled: true, issuer: 'https://id.example.com', client_id: 'gatehouse', client_secret: SENSITIVE, scopes: ['openid', 'email'] },
          response_headers: { enabled: true, add: { 'x-frame-options': 'DENY' }, remove: [] },
          saml: null,
        },
        dependsOn: ['IPPolicy/office'],
      }),
      base({
        address: 'IPRestriction/dashboard',
        action: 'update',
        kind: 'IPRestriction',
        name: 'dashboard',
        id: 'ipx_1',
        before: { type: 'dashboard', enforced: false },
        after: { type: 'dashboard', enforced: true },
        fields: [{ path: 'enforced', before: false, after: true, sensitive: false }],
        patch: [{ op: 'replace', path: '/enforced', value: true }],
      }),
      base({
        address: 'IPRestriction/api',
        action: 'replace',
        kind: 'IPRestriction',
        name: 'api',
        id: 'ipx_2',
        reason: 'type cannot be updated',
        before: { type: 'api' },
        after: { type: 'agent' },
        fields: [
          { path: 'type', before: 'api', after: 'agent', sensitive: false },
          { path: 'oidc.client_secret', before: SENSITIVE, after: SENSITIVE, sensitive: true },
        ],
        patch: [{ op: 'replace', path: '/type', value: 'agent' }],
      }),
      base({
        address: 'BotUser/old-bot',
        action: 'delete',
        kind: 'BotUser',
        name: 'old-bot',
        id: 'bot_1',
        before: { name: 'old-bot', active: true },
        patch: [],
      }),
    ],
    unmanaged: [{ kind: 'BotUser', id: 'bot_9', label: 'legacy' }],
    fingerprints: { ipx_1: 'sha256:aa', ipx_2: 'sha256:bb', bot_1: 'sha256:cc' },
    manifest_checksum: 'sha256:0123',
    requests: 7,
  };
}

export function emptyPlan(): Plan {
  return {
    ...mixedPlan(),
    target: { url: 'http://127.0.0.1:41234', embedded: true },
    stack: 'team-a',
    summary: { create: 0, update: 0, delete: 0, replace: 0, unchanged: 12 },
    changes: [],
    unmanaged: [],
    fingerprints: {},
  };
}

/** `count` creates of IP policies with long descriptions, to overflow a comment. */
export function bigPlan(count: number): Plan {
  const changes = Array.from({ length: count }, (_, i) =>
    base({
      address: `IPPolicy/p${i}`,
      action: 'create',
      kind: 'IPPolicy',
      name: `p${i}`,
      after: { description: `policy number ${i} `.repeat(10) },
    }),
  );
  return { ...mixedPlan(), summary: { create: count, update: 0, delete: 0, replace: 0, unchanged: 0 }, changes, unmanaged: [] };
}
