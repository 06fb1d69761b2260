/**
 * The OAuth module of a route (EndpointOAuth, api-spec 2.7).
 *
 * `provider` names exactly one identity provider. Its rules (api-spec 2.7): `client_id` and
 * `client_secret` are optional, and without them a service-managed application is used; when
 * `client_id` is given `client_secret` must be too (and a secret without an id names no
 * application); `scopes` may be set only with both. Omitted credentials come back `null`,
 * omitted lists `[]`, omitted session settings and `auth_check_interval` their zero values.
 * Secrets are returned as the spec says and never appear in a message.
 */
import { EndpointOAuth, EndpointOAuthInput, OAUTH_PROVIDERS, type OAuthProviderName } from '@gatehouse/schemas';
import { invalidModule } from '../../errors.js';
import type { ModuleDefinition } from '../modules.js';
import { sessionOf } from './session.js';

type ProviderInput = NonNullable<EndpointOAuthInput['provider']['github']>;
type ProviderOutput = NonNullable<EndpointOAuth['provider']['google']> & { teams?: string[]; organizations?: string[] };

function writeProvider(name: OAuthProviderName, given: ProviderInput, field: string): ProviderOutput {
  const at = `${field}.provider.${name}`;
  if (given.client_id !== undefined && given.client_secret === undefined) {
    throw invalidModule(`${at}.client_secret`, 'is required when client_id is given.');
  }
  if (given.client_secret !== undefined && given.client_id === undefined) {
    throw invalidModule(`${at}.client_id`, 'is required when client_secret is given.');
  }
  if (given.scopes !== undefined && given.client_id === undefined) {
    throw invalidModule(`${at}.scopes`, 'may be set only with both client_id and client_secret.');
  }
  return {
    client_id: given.client_id ?? null,
    client_secret: given.client_secret ?? null,
    scopes: [...(given.scopes ?? [])],
    email_addresses: [...(given.email_addresses ?? [])],
    email_domains: [...(given.email_domains ?? [])],
    ...(name === 'github' ? { teams: [...(given.teams ?? [])], organizations: [...(given.organizations ?? [])] } : {}),
  };
}

export const oauthModule: ModuleDefinition<EndpointOAuth> = {
  name: 'oauth',
  input: EndpointOAuthInput,
  output: EndpointOAuth,
  write(input, _ctx, field) {
    const given = input as EndpointOAuthInput;
    const named = OAUTH_PROVIDERS.filter((name) => given.provider[name] !== undefined);
    if (named.length !== 1) {
      throw invalidModule(
        `${field}.provider`,
        `must name exactly one identity provider (one of ${OAUTH_PROVIDERS.join(', ')}); ${named.length} given.`,
      );
    }
    const name = named[0]!;
    return {
      ...sessionOf(given),
      provider: { [name]: writeProvider(name, given.provider[name]!, field) } as EndpointOAuth['provider'],
      auth_check_interval: given.auth_check_interval ?? 0,
    };
  },
  render: (stored): EndpointOAuth => structuredClone(stored),
};
