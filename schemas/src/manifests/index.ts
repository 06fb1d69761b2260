export * from './common.js';
export * from './kinds.js';
export * from './webhook-providers.js';
