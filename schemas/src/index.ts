export * from './common.js';
export * from './keywords.js';
export * from './api/ip-policies.js';
export * from './api/ip-restrictions.js';
export * from './api/bot-users.js';
export * from './api/backend-modules.js';
export * from './api/backends.js';
export * from './api/tcp-edges.js';
