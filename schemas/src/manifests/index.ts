export * from './common.js';
export * from './kinds.js';
