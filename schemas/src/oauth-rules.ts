/**
 * The service's OAuth rules that both the reference server (which refuses the request) and the
 * engine (which reports them at validate time, at the manifest's file:line:col) apply, so that
 * a manifest that validates also applies:
 *
 * - a provider's `client_id` and `client_secret` go together; without them the service's
 *   managed OAuth application is used, which needs `email_domains` or `email_addresses` to say
 *   who may sign in (the service refuses a managed application open to every account);
 * - `scopes` may be non-empty only with both `client_id` and `client_secret` (an empty list,
 *   which is what the service returns for a managed application, is the same as none);
 * - OAuth may be configured only on the route whose match is `/` (the service's error 7127).
 */

/** A provider object as a request or a manifest gives it (`null` ids are the API's "none"). */
export interface OAuthProviderFields {
  client_id?: string | null | undefined;
  client_secret?: string | null | undefined;
  scopes?: readonly string[] | undefined;
  email_addresses?: readonly string[] | undefined;
  email_domains?: readonly string[] | undefined;
}

export interface OAuthRuleProblem {
  /** Field inside the provider object at fault (`client_secret`, `scopes`...). */
  field: string;
  message: string;
}

/** The only route match on which the service accepts an OAuth module. */
export const OAUTH_ROUTE_MATCH = '/';

const given = (value: string | null | undefined): value is string => typeof value === 'string' && value !== '';

/** Every rule a provider object breaks, in a stable order. */
export function oauthProviderProblems(provider: OAuthProviderFields): OAuthRuleProblem[] {
  const problems: OAuthRuleProblem[] = [];
  const id = given(provider.client_id);
  const secret = given(provider.client_secret);
  if (id && !secret) problems.push({ field: 'client_secret', message: 'is required when client_id is given' });
  if (secret && !id) problems.push({ field: 'client_id', message: 'is required when client_secret is given' });
  if ((provider.scopes?.length ?? 0) > 0 && !(id && secret)) {
    problems.push({ field: 'scopes', message: 'may be set only with both client_id and client_secret' });
  }
  if (!id && !secret && (provider.email_domains?.length ?? 0) === 0 && (provider.email_addresses?.length ?? 0) === 0) {
    problems.push({
      field: 'email_domains',
      message:
        "the service's managed OAuth application (no client_id/client_secret) needs email_domains or email_addresses to say who may sign in; add one, or give your own client_id and client_secret",
    });
  }
  return problems;
}

/** Why a route with this `match` cannot carry OAuth, or undefined when it can. */
export function oauthRouteProblem(match: string): string | undefined {
  return match === OAUTH_ROUTE_MATCH
    ? undefined
    : `OAuth may be configured only on the route '${OAUTH_ROUTE_MATCH}', not on '${match}'; put it on the '${OAUTH_ROUTE_MATCH}' route (an edge of its own if needed)`;
}
