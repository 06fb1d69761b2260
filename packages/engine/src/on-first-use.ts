/**
 * A dependency loaded when it is first needed rather than when the module that uses it is
 * imported. Every command imports the engine, and most runs never need some of its libraries:
 * a plan whose manifests all take the fast YAML path never needs `yaml`, a plan without a long
 * changed value never needs `diff`. Each is some 20-70 modules to resolve and compile at every
 * start, before the first request can be sent.
 *
 * The library is `require`d synchronously (its CommonJS build), so callers stay synchronous;
 * its types are the package's own (`onFirstUse<typeof import('yaml')>('yaml')`). `require`, not
 * `import()`, also for a second reason: an ES module's first `import` of a CommonJS package
 * makes Node load its export lexer (WebAssembly, some 10 MB resident until exit).
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** A function returning the package `id`, loaded on its first call. */
export function onFirstUse<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(id) as T);
}
