/**
 * Session settings shared by the OAuth, SAML and OIDC modules. Omitted values are filled with
 * their zero values (`cookie_prefix` "", `inactivity_timeout` 0, `maximum_duration` 0,
 * `options_passthrough` false), as api-spec 2.4 and service-behaviour.md describe, and
 * `enabled` is true when unspecified.
 */

export interface SessionInput {
  enabled?: boolean;
  options_passthrough?: boolean;
  cookie_prefix?: string;
  inactivity_timeout?: number;
  maximum_duration?: number;
}

export interface Session {
  enabled: boolean;
  options_passthrough: boolean;
  cookie_prefix: string;
  inactivity_timeout: number;
  maximum_duration: number;
}

export function sessionOf(input: SessionInput): Session {
  return {
    enabled: input.enabled ?? true,
    options_passthrough: input.options_passthrough ?? false,
    cookie_prefix: input.cookie_prefix ?? '',
    inactivity_timeout: input.inactivity_timeout ?? 0,
    maximum_duration: input.maximum_duration ?? 0,
  };
}

/** The identity modules: at most one of them may be enabled on a route. */
export const IDENTITY_MODULES = ['oauth', 'saml', 'oidc'] as const;
