/**
 * Bot users (api-spec 2.3, 4.3). The manifest's `name` identifies the bot user in gatehouse;
 * its name in the API is `spec.name`, the manifest name when unspecified (so any name the
 * service accepts, spaces included, can be declared).
 *
 * A bot user has no metadata, so it cannot carry an ownership marker: each stack's bot user
 * registry (bot-registry/registry.ts, an IP policy's metadata on the API) records which live
 * bot user each manifest name denotes. A live bot user is the declared one when (match.ts)
 * the manifest adopts its id, or the registry records it for the manifest name, or it has the
 * declared API name, or it still has the manifest name (`aliases`: the manifest just gave it a
 * `spec.name`). Changing `spec.name` is then an update (PATCH name), not a second bot user,
 * however often it changes. A bot user is never deleted by pruning: the registry tells which
 * bot users a stack applied, not that nobody else relies on them (see docs/architecture.md, "The
 * bot user registry").
 */
import { collectionCalls } from './shared.js';
import type { KindDescriptor } from './types.js';

export const botUser: KindDescriptor = {
  kind: 'BotUser',
  policyName: 'bot_user',
  title: 'bot user',
  manifestKind: 'BotUser',
  observe: { lists: [{ path: '/bot_users', listKey: 'bot_users' }] },
  metadata: false,
  naturalKey: (normal) => String(normal.name),
  aliases: (normal, manifestName) => (normal.name !== manifestName ? [manifestName] : []),
  // The service keeps bot user names unique: two manifests may not give one bot user name.
  uniqueKeys: (normal) => [{ key: `bot user name ${JSON.stringify(String(normal.name))}`, path: ['name'], code: 'duplicate_name' }],
  fromManifest: (spec, name) => ({ name: typeof spec.name === 'string' ? spec.name : name, active: Boolean(spec.active ?? true) }),
  fromLive: (live) => ({ name: live.name, active: Boolean(live.active) }),
  refs: [],
  sensitive: [],
  immutable: [],
  label: (normal) => String(normal.name),
  calls: collectionCalls(
    '/bot_users',
    (normal) => ({ name: normal.name, active: normal.active }),
    (after, changed) => Object.fromEntries(changed.map((f) => [f, after[f]])),
  ),
};
