/** Every resource family of the API, registered on the app. */
import type { FastifyInstance } from 'fastify';
import { registerResource } from './define.js';
import { ipPolicies, ipPolicyRules } from './ip-policies.js';
import { certificateAuthorities } from './certificate-authorities.js';
import { eventDestinations } from './event-destinations.js';
import { eventSubscriptions } from './event-subscriptions.js';
import { registerEventSubscriptionSources } from './event-subscription-sources.js';
import { ipRestrictions } from './ip-restrictions.js';
import { botUsers } from './bot-users.js';
import { registerBackends } from './backends.js';
import { registerEdges } from './edges.js';
import { reservedAddrs, reservedDomains } from './reservations.js';

export function registerAllResources(app: FastifyInstance): void {
  registerResource(app, ipPolicies);
  registerResource(app, ipPolicyRules);
  registerResource(app, certificateAuthorities);
  registerResource(app, eventDestinations);
  registerResource(app, eventSubscriptions);
  registerEventSubscriptionSources(app);
  registerResource(app, ipRestrictions);
  registerResource(app, botUsers);
  registerResource(app, reservedDomains);
  registerResource(app, reservedAddrs);
  registerBackends(app);
  registerEdges(app);
}
