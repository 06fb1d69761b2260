export * from './ports.js';
export * from './plan-model.js';
export * from './source.js';
export * from './render/index.js';
