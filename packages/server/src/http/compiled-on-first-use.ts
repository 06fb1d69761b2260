/**
 * Route validators and response serializers compiled when a route first uses them, not when
 * it is registered, and shared by every app of the process by schema text.
 *
 * Why: Fastify compiles every route's schemas as the app starts. Compiling them all (ajv's
 * validators and fast-json-stringify's serializers) was some 450 ms of every `gatehouse serve`
 * start, over a third of it, and again for every app a test builds; a server, a test or a demo
 * uses a few of its routes. A route's first request pays for its own compile instead.
 */

/** A compiled function as Fastify calls it; a validator also carries its last `errors`. */
type Compiled<F extends (...args: never[]) => unknown> = F & { errors?: unknown };

/**
 * The function `compile()` will make, compiled at its first call (and carrying the compiled
 * one's `errors` after each call: Fastify reads a validator's errors off the function it holds).
 */
export function compiledOnFirstUse<F extends (...args: never[]) => unknown>(compile: () => Compiled<F>): Compiled<F> {
  let compiled: Compiled<F> | undefined;
  const lazy = ((...args: Parameters<F>) => {
    compiled ??= compile();
    const result = compiled(...args);
    lazy.errors = compiled.errors;
    return result;
  }) as Compiled<F>;
  return lazy;
}

/** Compiled functions by key (kind and schema text), one per key in the process, each compiled at its first call. */
export function compileCache<F extends (...args: never[]) => unknown>(): (key: string, compile: () => Compiled<F>) => Compiled<F> {
  const cache = new Map<string, Compiled<F>>();
  return (key, compile) => {
    let compiled = cache.get(key);
    if (!compiled) cache.set(key, (compiled = compiledOnFirstUse(compile)));
    return compiled;
  };
}
