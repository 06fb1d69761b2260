/**
 * Bot users (api-spec 2.3, 4.3). A bot user has no metadata, so it cannot carry an ownership
 * marker: its name (unique in the account) is its identity, declaring a BotUser manifest
 * manages the bot user of that name, and a bot user is never deleted by pruning, because
 * gatehouse cannot prove that this stack created it (see README, "Ownership").
 */
import { requireId } from './shared.js';
import type { KindDescriptor } from './types.js';

export const botUser: KindDescriptor = {
  kind: 'BotUser',
  policyName: 'bot_user',
  title: 'bot user',
  manifestKind: 'BotUser',
  observe: { lists: [{ path: '/bot_users', listKey: 'bot_users' }] },
  metadata: false,
  naturalKey: (normal) => String(normal.name),
  fromManifest: (spec, name) => ({ name, active: Boolean(spec.active ?? true) }),
  fromLive: (live) => ({ name: live.name, active: Boolean(live.active) }),
  refs: [],
  sensitive: [],
  immutable: [],
  label: (normal) => String(normal.name),
  calls: {
    create: (normal) => [{ method: 'POST', path: '/bot_users', body: { name: normal.name, active: normal.active } }],
    update: (_before, after, changed, ctx) => [
      { method: 'PATCH', path: `/bot_users/${requireId(ctx)}`, body: Object.fromEntries(changed.map((f) => [f, after[f]])) },
    ],
    delete: (_normal, ctx) => [{ method: 'DELETE', path: `/bot_users/${requireId(ctx)}` }],
  },
};
