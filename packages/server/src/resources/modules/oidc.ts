/**
 * The OIDC module of a route (api-spec 2.4, 4.4): `issuer`, `client_id` and `client_secret`
 * are required (by the schema), `issuer` must be an http(s) URL, `scopes` is `[]` when not
 * given, and the session settings take their zero values when omitted. `client_secret` is
 * returned in responses, as the spec says, and never appears in a message.
 */
import { EndpointOidc, EndpointOidcInput } from '@gatehouse/schemas';
import { invalidValue } from '../../errors.js';
import type { ModuleDefinition } from '../modules.js';
import { sessionOf } from './session.js';

/** True when `text` is an absolute http or https URL. */
export function isHttpUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
}

export const oidcModule: ModuleDefinition<EndpointOidc> = {
  name: 'oidc',
  input: EndpointOidcInput,
  output: EndpointOidc,
  write(input, _ctx, field) {
    const given = input as EndpointOidcInput;
    if (!isHttpUrl(given.issuer)) throw invalidValue(`${field}.issuer`, 'must be the http(s) URL of the OIDC provider.');
    return {
      ...sessionOf(given),
      issuer: given.issuer,
      client_id: given.client_id,
      client_secret: given.client_secret,
      scopes: [...(given.scopes ?? [])],
    };
  },
};
