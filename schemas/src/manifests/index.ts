export * from './common.js';
export * from './kinds.js';
export * from './certificate-authority.js';
export * from './event-destination.js';
export * from './event-subscription.js';
