/**
 * The webhook verification module of a route (EndpointWebhookValidation, api-spec 2.7).
 *
 * `provider` must be one of the supported webhook senders, matched case-insensitively and
 * stored as its lowercase id; `secret` is required for every provider except `sns`, whose
 * messages are verified with the cloud's own certificates and which therefore takes none
 * (it comes back as ""). The secret is returned by the API as the spec says; no message
 * ever contains it.
 */
import { EndpointWebhookValidation, EndpointWebhookValidationInput } from '@gatehouse/schemas';
import { invalidModule, invalidValue } from '../../errors.js';
import type { ModuleDefinition } from '../modules.js';

/** Lowercase ids of the webhook senders the service verifies. */
export const WEBHOOK_PROVIDERS: ReadonlySet<string> = new Set([
  'airship', 'autodesk_forge', 'bitbucket', 'bolt', 'box', 'brevo', 'buildkite', 'calendly',
  'castle', 'chargify', 'circleci', 'clearbit', 'clerk', 'coinbase', 'contentful', 'docusign',
  'dropbox', 'facebook_graph_api', 'facebook_messenger', 'frameio', 'github', 'gitlab',
  'go_cardless', 'hosted_hooks', 'hubspot', 'hygraph', 'instagram_graph_api', 'intercom',
  'launch_darkly', 'linear', 'mailchimp', 'mailgun', 'mandrill', 'modern_treasury', 'mongodb',
  'mux', 'orbit', 'pagerduty', 'pinwheel', 'plivo', 'pusher', 'sanity', 'segment', 'sendgrid',
  'sentry', 'shopify', 'slack', 'sns', 'sonatype', 'square', 'stripe', 'svix',
  'terraform_cloud', 'tiktok', 'trendmicro_conformity', 'twilio', 'twitter', 'typeform',
  'vmware', 'webex', 'whatsapp', 'workos', 'xero', 'zendesk', 'zoom',
]);

/** The one provider that takes no secret. */
export const SECRETLESS_PROVIDER = 'sns';

export const webhookVerificationModule: ModuleDefinition<EndpointWebhookValidation> = {
  name: 'webhook_verification',
  input: EndpointWebhookValidationInput,
  output: EndpointWebhookValidation,
  write(input, _ctx, field) {
    const given = input as EndpointWebhookValidationInput;
    const provider = given.provider.toLowerCase();
    if (!WEBHOOK_PROVIDERS.has(provider)) {
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
  render: (stored): EndpointWebhookValidation => ({ ...stored }),
};
