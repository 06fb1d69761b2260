/**
 * The webhook verification module of a route (EndpointWebhookValidation, api-spec 2.7).
 *
 * `provider` must be one of the supported webhook senders, matched case-insensitively and
 * stored as its lowercase id; `secret` is required for every provider except `sns`, whose
 * messages are verified with the cloud's own certificates and which therefore takes none
 * (it comes back as ""). The secret is returned by the API as the spec says; no message
 * ever contains it.
 */
import { EndpointWebhookValidation, EndpointWebhookValidationInput, SECRETLESS_WEBHOOK_PROVIDER, WEBHOOK_PROVIDERS } from '@gatehouse/schemas';
import { invalidModule, invalidValue } from '../../errors.js';
import type { ModuleDefinition } from '../modules.js';

/** Lowercase ids of the webhook senders the service verifies. */
const PROVIDERS: ReadonlySet<string> = new Set(WEBHOOK_PROVIDERS);
const SECRETLESS_PROVIDER = SECRETLESS_WEBHOOK_PROVIDER;

export const webhookVerificationModule: ModuleDefinition<EndpointWebhookValidation> = {
  name: 'webhook_verification',
  input: EndpointWebhookValidationInput,
  output: EndpointWebhookValidation,
  write(input, _ctx, field) {
    const given = input as EndpointWebhookValidationInput;
    const provider = given.provider.toLowerCase();
    if (!PROVIDERS.has(provider)) {
      throw invalidValue(`${field}.provider`, `'${given.provider}' is not a supported webhook provider.`);
    }
    const secret = given.secret ?? '';
    if (provider === SECRETLESS_PROVIDER && secret !== '') {
      throw invalidModule(`${field}.secret`, `provider '${SECRETLESS_PROVIDER}' takes no secret; remove it.`);
    }
    if (provider !== SECRETLESS_PROVIDER && secret === '') {
      throw invalidModule(`${field}.secret`, `provider '${provider}' needs the secret that signs its requests.`);
    }
    return { enabled: given.enabled ?? true, provider, secret };
  },
};
