/**
 * Runs one part of the graph: builds its calls with the kind's descriptor (apply executes
 * exactly those) and sends them through `runCalls`. References resolve at run time: a desired
 * address becomes the live id its create produced (or the paired object's id); anything else
 * is already a live id (`{id: ...}` in a manifest).
 */
import type { CallContext } from '../kinds/types.js';
import type { DesiredObject } from '../desired.js';
import { liveNormal } from '../identity/normal-form.js';
import { canonical, comparableLive } from '../identity/normal-form.js';
import { changedFields } from '../plan/diff.js';
import type { ApiObject, LiveApi } from '../ports.js';
import { runCalls } from './calls.js';
import type { Part } from './graph.js';
import type { Refusal } from './model.js';

/** A part that was not run because its change is stale (saved plans). */
export class StaleChange extends Error {
  constructor(readonly refusal: Refusal) {
    super(refusal.message);
    this.name = 'StaleChange';
  }
}

export interface ExecuteEnv {
  api: LiveApi;
  stack: string;
  /** Desired address -> live id; creates add to it. */
  ids: Map<string, string>;
  /** Every desired address (a token that must resolve to a created id). */
  addresses: Set<string>;
  /** Live id -> desired address, as the plan canonicalizes references. */
  tokens: Map<string, string>;
  /** Live id -> the object as read; creates add what they answered (references by value read it). */
  objects: Map<string, ApiObject>;
  metadataFor(d: DesiredObject): string | undefined;
}

export interface PartValue {
  id: string | null;
  requests: number;
}

export async function executePart(part: Part, env: ExecuteEnv): Promise<PartValue> {
  const { desired: d, live: o, change } = part.subject;
  if (part.kind === 'stale') throw new StaleChange(part.subject.stale!);
  if (part.subject.bookkeeping) return part.subject.bookkeeping({ ids: env.ids, send: (calls, lookUp) => runCalls(calls, env.api, lookUp) });
  const resolve = (token: string): string => {
    const id = env.ids.get(token);
    if (id !== undefined) return id;
    if (env.addresses.has(token)) throw new Error(`${token} has no live id yet (it was not created)`);
    return token;
  };
  // A reference by value (a TCP edge's hostport): the field of the object the token names.
  const referencedValue = (token: string, field: string): string | undefined => {
    const value = env.objects.get(env.ids.get(token) ?? token)?.[field];
    if (typeof value === 'string') return value;
    if (env.addresses.has(token)) throw new Error(`${token} has no ${field} yet (it was not created)`);
    return undefined;
  };

  if (part.kind === 'delete') {
    const ctx: CallContext = { id: o!.id, resolve, referencedValue, ...(o!.parentId !== undefined ? { parentId: o!.parentId } : {}) };
    const { requests } = await runCalls(o!.descriptor.calls.delete(liveNormal(o!), ctx), env.api);
    return { id: o!.id, requests };
  }

  const metadata = env.metadataFor(d!);
  const parentId = d!.parent !== undefined ? (env.ids.get(d!.parent) ?? o?.parentId) : o?.parentId;
  const base: CallContext = { resolve, referencedValue, ...(metadata !== undefined ? { metadata } : {}), ...(parentId !== undefined ? { parentId } : {}) };

  if (part.kind === 'create') {
    const calls = d!.descriptor.calls.create(d!.normal, base);
    const identity = {
      descriptor: d!.descriptor,
      stack: env.stack,
      markerName: d!.markerName,
      normal: d!.normal,
      ...(part.excludeId ? { excludeId: part.excludeId } : {}),
    };
    const { first, requests } = await runCalls(calls, env.api, identity);
    const id = typeof first?.id === 'string' ? first.id : undefined;
    if (id === undefined) throw new Error(`the API answered the create of ${change.address} without an id`);
    env.ids.set(d!.address, id);
    env.objects.set(id, first!);
    return { id, requests };
  }

  // update, repoint, marker refresh: the fields that differ now, plus references to re-point.
  const after = canonical(d!.descriptor, d!.normal, env.tokens);
  const before = comparableLive(d!.descriptor, after, canonical(o!.descriptor, liveNormal(o!), env.tokens));
  const changed = part.kind === 'repoint' ? [] : changedFields(before, after);
  for (const field of part.extraFields) if (!changed.includes(field)) changed.push(field);
  const calls = d!.descriptor.calls.update(liveNormal(o!), d!.normal, changed, { ...base, id: o!.id });
  const { requests } = await runCalls(calls, env.api);
  return { id: o!.id, requests };
}
