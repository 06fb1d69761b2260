/** Every resource family of the API, registered on the app. */
import type { FastifyInstance } from 'fastify';
import { registerResource } from './define.js';
import { ipPolicies, ipPolicyRules } from './ip-policies.js';

export function registerAllResources(app: FastifyInstance): void {
  registerResource(app, ipPolicies);
  registerResource(app, ipPolicyRules);
}
