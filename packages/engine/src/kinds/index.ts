/**
 * The registry of kind descriptors. Order matters only for display (plans list kinds in this
 * order when dependencies allow); dependencies come from references, not from this list.
 */
import { backend } from './backend.js';
import { botUser } from './bot-user.js';
import { httpsEdge, httpsEdgeRoute } from './https-edge.js';
import { ipPolicy, ipPolicyRule } from './ip-policy.js';
import { ipRestriction } from './ip-restriction.js';
import { tcpEdge } from './tcp-edge.js';
import { tlsEdge } from './tls-edge.js';
import { reservedDomain, reservedTcpAddress } from './reservations.js';
import { certificateAuthority } from './certificate-authority.js';
import { eventDestination } from './event-destination.js';
import { eventSubscription } from './event-subscription.js';
import type { KindDescriptor, Pattern } from './types.js';

export const KINDS: readonly KindDescriptor[] = [
  ipPolicy,
  ipPolicyRule,
  ipRestriction,
  botUser,
  reservedDomain,
  reservedTcpAddress,
  backend,
  certificateAuthority,
  httpsEdge,
  httpsEdgeRoute,
  tcpEdge,
  tlsEdge,
  eventDestination,
  eventSubscription,
];

const byKind = new Map(KINDS.map((k) => [k.kind, k]));
export function descriptor(kind: string): KindDescriptor {
  const found = byKind.get(kind);
  if (!found) throw new Error(`no descriptor for kind ${kind}`);
  return found;
}
const valueFields = new Map(KINDS.flatMap((k) => k.refs.flatMap((r) => (r.byValue ? [[r.kind, r.byValue.value] as const] : []))));
/**
 * The field that references by value to `kind` stand for (`ReservedTCPAddress` -> `addr`: a TCP
 * edge's hostport), or undefined when nothing references the kind by value.
 */
export const referencedValueField = (kind: string): string | undefined => valueFields.get(kind);

/**
 * Whether `path` in a manifest document of `manifestKind` (`['spec', 'routes', 0, 'traffic_policy',
 * 'value']`) holds text the service interpolates itself: the kind's `serviceText`, or a child's
 * under its field. `*` in a pattern matches any list index or map key.
 */
export function isServiceText(manifestKind: unknown, path: readonly (string | number)[]): boolean {
  const descriptor = KINDS.find((k) => k.manifestKind === manifestKind);
  if (!descriptor || path[0] !== 'spec') return false;
  const matches = (pattern: Pattern, from: number) =>
    pattern.length === path.length - from && pattern.every((segment, i) => segment === '*' || segment === String(path[from + i]));
  if ((descriptor.serviceText ?? []).some((p) => matches(p, 1))) return true;
  return childrenOf(descriptor.kind).some((child) => path[1] === child.child!.field && (child.serviceText ?? []).some((p) => matches(p, 3)));
}

/** Top-level manifest kinds. */
export const MANIFEST_KINDS = KINDS.filter((k) => k.manifestKind !== undefined);
const childKinds = new Map(KINDS.map((parent) => [parent.kind, Object.freeze(KINDS.filter((k) => k.child?.parentKind === parent.kind))]));
/** Child kinds declared inline in a parent of `kind` (one array per kind, shared and frozen). */
export const childrenOf = (kind: string): readonly KindDescriptor[] => childKinds.get(kind) ?? [];

export type { KindDescriptor } from './types.js';
