/** Bot users (api-spec 2.3, 4.3): a name and an active switch, no description or metadata. */
import { Type, type Static } from '@sinclair/typebox';
import { NAME_MAX_BYTES, NO_CONTROL_CHARACTERS, Strict, Timestamp, listEnvelope, UpdateBody } from '../common.js';

const Name = Type.String({
  minLength: 1,
  maxLength: NAME_MAX_BYTES,
  maxBytes: NAME_MAX_BYTES,
  pattern: NO_CONTROL_CHARACTERS,
  description: 'human-readable name identifying the bot; unique, not empty, at most 255 bytes, no control characters',
});

export const BotUserCreate = Strict({
  name: Name,
  active: Type.Optional(Type.Boolean({ description: 'whether the bot is active; true when unspecified' })),
});
export const BotUserUpdate = UpdateBody({ name: Name, active: Type.Boolean() });
export const BotUser = Type.Object({
  id: Type.String(),
  uri: Type.String(),
  name: Type.String(),
  active: Type.Boolean(),
  created_at: Timestamp,
});
export const BotUserList = listEnvelope('bot_users', BotUser);

export type BotUserCreate = Static<typeof BotUserCreate>;
export type BotUserUpdate = Static<typeof BotUserUpdate>;
export type BotUser = Static<typeof BotUser>;
