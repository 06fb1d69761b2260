/**
 * Bot users (api-spec 2.3, 4.3): a name, not empty (nor only spaces) and unique, and an
 * `active` switch (true when unspecified). No description, no metadata, no audit events.
 */
import { BotUser, BotUserCreate, BotUserList, BotUserUpdate } from '@gatehouse/schemas';
import { ApiError, invalidValue } from '../errors.js';
import { merge, type ResourceDefinition } from './define.js';

const BOT_USER = 'bot_user';

interface StoredBotUser {
  name: string;
  active: boolean;
}

export const botUsers: ResourceDefinition<StoredBotUser> = {
  kind: BOT_USER,
  label: 'Bot user',
  idPrefix: 'bot',
  path: '/bot_users',
  listKey: 'bot_users',
  schemas: { create: BotUserCreate, update: BotUserUpdate, resource: BotUser, list: BotUserList },
  write(input, current) {
    const data = merge<StoredBotUser>(current ?? { name: '', active: true }, input);
    if (data.name.trim() === '') throw invalidValue('name', 'the name must not be empty.');
    return data;
  },
  uniqueKeys: (data) => [
    {
      key: `bot_user.name:${data.name}`,
      conflict: () => new ApiError('duplicate_name', `name: a bot user named '${data.name}' already exists.`, { field: 'name' }),
    },
  ],
  render: (object, { urls }): BotUser => ({
    id: object.id,
    uri: urls.of(`/bot_users/${object.id}`),
    name: object.data.name,
    active: object.data.active,
    created_at: object.createdAt,
  }),
};
