/**
 * `@gatehouse/schemas/runtime`: what checking and applying manifests needs at run time (CIDR
 * and CA checks, event sources and filters, provider lists, limits, kind names, schema URLs),
 * without the schemas. The main entry builds every TypeBox schema on import (some 200 modules
 * and their construction, a large part of a `gatehouse plan`'s start-up); the engine, the
 * client and the CLI import their values from here and the schemas only as types. Also the
 * CEL limits policies share with event filters (`cel-cost.ts`) and the one file-system helper
 * the CLI and the server share (`makeDirectory`).
 */
export * from './constants.js';
export * from './cidr.js';
export * from './rate-limit.js';
export * from './urls.js';
export * from './ca-pem.js';
export * from './events.js';
export * from './event-sources.js';
export * from './cel-filter.js';
export * from './cel-cost.js';
export * from './suggest.js';
export * from './api/webhook-providers.js';
export * from './oauth-rules.js';
export * from './directories.js';
