/**
 * Lowercase ids of the webhook senders the service verifies (webhook_verification.provider,
 * matched case-insensitively). `sns` is the one provider that takes no secret. The one list
 * both the reference server and the engine's validate step check against.
 */
export const WEBHOOK_PROVIDERS: readonly string[] = [
  'airship', 'autodesk_forge', 'bitbucket', 'bolt', 'box', 'brevo', 'buildkite', 'calendly',
  'castle', 'chargify', 'circleci', 'clearbit', 'clerk', 'coinbase', 'contentful', 'docusign',
  'dropbox', 'facebook_graph_api', 'facebook_messenger', 'frameio', 'github', 'gitlab',
  'go_cardless', 'hosted_hooks', 'hubspot', 'hygraph', 'instagram_graph_api', 'intercom',
  'launch_darkly', 'linear', 'mailchimp', 'mailgun', 'mandrill', 'modern_treasury', 'mongodb',
  'mux', 'orbit', 'pagerduty', 'pinwheel', 'plivo', 'pusher', 'sanity', 'segment', 'sendgrid',
  'sentry', 'shopify', 'slack', 'sns', 'sonatype', 'square', 'stripe', 'svix',
  'terraform_cloud', 'tiktok', 'trendmicro_conformity', 'twilio', 'twitter', 'typeform',
  'vmware', 'webex', 'whatsapp', 'workos', 'xero', 'zendesk', 'zoom',
];

/** The one provider that takes no secret. */
export const SECRETLESS_WEBHOOK_PROVIDER = 'sns';
