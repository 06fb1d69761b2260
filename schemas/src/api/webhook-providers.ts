/**
 * Lowercase ids of the webhook senders the service verifies (webhook_verification.provider,
 * matched case-insensitively), as the service's documentation lists them (its "supported
 * providers" table of the webhook verification module and of the verify-webhook action, plus
 * the ids it documents for newer providers: alchemy, jira, orb, sonatype_nexus). `sns` is the
 * one provider that takes no secret. The one list both the reference server and the engine's
 * validate step check against: change it here, nowhere else.
 */
export const WEBHOOK_PROVIDERS: readonly string[] = [
  'aftership',
  'airship',
  'alchemy',
  'autodesk',
  'bitbucket',
  'bolt',
  'box',
  'brex',
  'buildkite',
  'calendly',
  'castle',
  'chargify',
  'circleci',
  'clearbit',
  'clerk',
  'coinbase',
  'contentful',
  'docusign',
  'dropbox',
  'facebook_graph_api',
  'facebook_messenger',
  'frameio',
  'github',
  'gitlab',
  'go1',
  'graphcms',
  'heroku',
  'hostedhooks',
  'hubspot',
  'instagram',
  'intercom',
  'jira',
  'launch_darkly',
  'mailchimp',
  'mailgun',
  'microsoft_teams',
  'modern_treasury',
  'mongodb',
  'mux',
  'orb',
  'orbit',
  'pagerduty',
  'pinwheel',
  'plivo',
  'pusher',
  'sendgrid',
  'sentry',
  'shopify',
  'signal_sciences',
  'slack',
  'sns',
  'sonatype',
  'sonatype_nexus',
  'square',
  'stripe',
  'svix',
  'terraform',
  'tiktok',
  'trendmicro_conformity',
  'twilio',
  'twitter',
  'typeform',
  'vmware',
  'webex',
  'whatsapp',
  'worldline',
  'xero',
  'zendesk',
  'zoom',
];

/** The one provider that takes no secret. */
export const SECRETLESS_WEBHOOK_PROVIDER = 'sns';

const KNOWN: ReadonlySet<string> = new Set(WEBHOOK_PROVIDERS);

/** True for a documented provider id, compared case-insensitively as the service does. */
export const isWebhookProvider = (provider: string): boolean => KNOWN.has(provider.toLowerCase());
