/**
 * Everything the engine exports. Commands import the entry point of the area they use
 * instead (`@gatehouse/engine/core`, `/render`, `/apply`, `/drift`, `/export`,
 * `/environments`; see core.ts), which loads fewer modules.
 */
export * from './core.js';
export * from './render/index.js';
export * from './drift/index.js';
export * from './apply/index.js';
export * from './export/index.js';
export * from './environments/index.js';
