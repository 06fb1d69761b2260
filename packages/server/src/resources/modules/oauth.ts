/**
 * The OAuth module of a route (EndpointOAuth, api-spec 2.7).
 *
 * `provider` names exactly one identity provider. Its rules are `oauthProviderProblems` of
 * @gatehouse/schemas (shared with the engine): `client_id` and `client_secret` go together;
 * without them the service-managed application is used, which needs `email_domains` or
 * `email_addresses`; non-empty `scopes` need both. `null` ids and `scopes: []`, which this
 * module returns for a managed application, are accepted as input. Omitted credentials come back `null`,
 * omitted lists `[]`, omitted session settings and `auth_check_interval` their zero values.
 * Secrets are returned as the spec says and never appear in a message.
 */
import { EndpointOAuth, EndpointOAuthInput, OAUTH_PROVIDERS, oauthProviderProblems, type OAuthProviderName } from '@gatehouse/schemas';
import { invalidModule } from '../../errors.js';
import type { ModuleDefinition } from '../modules.js';
import { sessionOf } from './session.js';

type ProviderInput = NonNullable<EndpointOAuthInput['provider']['github']>;
type ProviderOutput = NonNullable<EndpointOAuth['provider']['google']> & { teams?: string[]; organizations?: string[] };

function writeProvider(name: OAuthProviderName, given: ProviderInput, field: string): ProviderOutput {
  const at = `${field}.provider.${name}`;
  const [problem] = oauthProviderProblems(given);
  if (problem) throw invalidModule(`${at}.${problem.field}`, `${problem.message}.`);
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
      throw invalidModule(`${field}.provider`, `must name exactly one identity provider (one of ${OAUTH_PROVIDERS.join(', ')}); ${named.length} given.`);
    }
    const name = named[0]!;
    return {
      ...sessionOf(given),
      provider: { [name]: writeProvider(name, given.provider[name]!, field) } as EndpointOAuth['provider'],
      auth_check_interval: given.auth_check_interval ?? 0,
    };
  },
};
