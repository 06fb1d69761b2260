export * from './common.js';
export * from './keywords.js';
export * from './api/ip-policies.js';
